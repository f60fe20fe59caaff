/**
 * The FreePBX GraphQL API path, used for extensions and inbound routes
 * when only the FreePBX API is configured. Values travel as GraphQL variables,
 * never inside the query text.
 */
import type { FreePbxClient } from "../../clients/freepbx";
import { ServiceError } from "../../clients/http";
import type { ExtensionRow, InboundRow } from "../objects/entities";

const FETCH_EXTENSION =
  "query ($id: ID) { fetchExtension(extensionId: $id) { status message extensionId user { name voicemail extPassword } } }";
const ADD_EXTENSION = "mutation ($input: addExtensionInput!) { addExtension(input: $input) { status message } }";
const UPDATE_EXTENSION =
  "mutation ($input: updateExtensionInput!) { updateExtension(input: $input) { status message } }";
const REMOVE_ROUTE =
  "mutation ($input: removeInboundRouteInput!) { removeInboundRoute(input: $input) { status message } }";
const ADD_ROUTE = "mutation ($input: addInboundRouteInput!) { addInboundRoute(input: $input) { status message } }";
const DELETE_EXTENSION =
  "mutation ($input: deleteExtensionInput!) { deleteExtension(input: $input) { status message } }";
const DO_RELOAD = "mutation { doreload(input: {}) { status message transaction_id } }";
const API_STATUS = "query ($id: ID!) { fetchApiStatus(txnId: $id) { status message details } }";

interface PbxExtensionNow {
  name: string | null;
  voicemail: boolean;
  secret: string | null;
}

/** The extension as FreePBX has it now, or null when it has none with that number. */
async function current(client: FreePbxClient, extension: string): Promise<PbxExtensionNow | null> {
  try {
    const data = await client.gql<{
      fetchExtension: {
        status: boolean;
        user: { name: string | null; voicemail: string | null; extPassword: string | null } | null;
      } | null;
    }>(FETCH_EXTENSION, { id: extension });
    const x = data.fetchExtension;
    if (!x?.status) return null;
    return {
      name: x.user?.name ?? null,
      voicemail: Boolean(x.user?.voicemail) && x.user?.voicemail !== "novm",
      secret: x.user?.extPassword ?? null,
    };
  } catch (err) {
    // FreePBX answers an unknown extension with status false → HTTP 400.
    if (err instanceof ServiceError && err.status === 400) return null;
    throw err;
  }
}

/**
 * Adds a PJSIP extension, or updates only what changed (ADR 0023). FreePBX's update deletes and
 * re-creates the extension from its input (Extensions.php), so every field it is not sent keeps its
 * value EXCEPT two flags that an omitted value turns on: `vmEnable` is therefore always sent (the
 * console owns voicemail on/off), and `umEnable` only when the console knows the User Manager link
 * (right after its own add, where there is none): for an existing extension it is omitted, so FreePBX
 * keeps (re-creates) its User Manager user. Nothing changed: no mutation at all.
 */
export async function deployExtensionGql(client: FreePbxClient, e: ExtensionRow): Promise<string> {
  const now = await current(client, e.extension);
  if (!now) {
    await client.gql(ADD_EXTENSION, {
      input: {
        extensionId: e.extension,
        name: e.name,
        email: e.email ?? "",
        tech: "pjsip",
        vmEnable: e.voicemail,
        umEnable: false,
        maxContacts: "5",
      },
    });
    // add cannot carry the SIP secret: set the console's.
    if (e.secret) {
      await client.gql(UPDATE_EXTENSION, {
        input: { extensionId: e.extension, extPassword: e.secret, vmEnable: e.voicemail, umEnable: false },
      });
    }
    return `Extension ${e.extension} added through the FreePBX API`;
  }
  const changed: Record<string, string | boolean> = {};
  if (now.name !== e.name) changed.name = e.name;
  if (now.voicemail !== e.voicemail) changed.vmEnable = e.voicemail;
  if (e.secret && now.secret !== e.secret) changed.extPassword = e.secret;
  const fields = Object.keys(changed);
  if (fields.length === 0) return `Extension ${e.extension} is already up to date on the PBX`;
  await client.gql(UPDATE_EXTENSION, {
    input: { extensionId: e.extension, vmEnable: e.voicemail, ...changed },
  });
  const what = fields.map((f) => ({ name: "name", vmEnable: "voicemail", extPassword: "secret" })[f] ?? f);
  return `Extension ${e.extension} updated through the FreePBX API (${what.join(", ")})`;
}

const INBOUND_ROUTE =
  "query ($id: ID!) { inboundRoute(id: $id) { extension cidnum privacyman alertinfo ringing mohclass grppre delay_answer pricid fanswer } }";

/** The settings of an inbound route that the API can read and the console does not own. */
const KEPT_ROUTE_FIELDS = [
  "privacyman",
  "alertinfo",
  "ringing",
  "mohclass",
  "grppre",
  "delay_answer",
  "pricid",
  "fanswer",
] as const;

/**
 * Writes an inbound route. The API has no update in the subset the console uses, so an existing route is
 * removed and added again WITH every setting the API can read (privacy, alert info, music, prefix, delay…):
 * only the console's description and destination change (ADR 0023).
 */
export async function deployInboundGql(client: FreePbxClient, r: InboundRow, destination: string): Promise<string> {
  const did = r.didNumber ?? "";
  const id = `${did}/`;
  const found = await client.gql<{ inboundRoute: Record<string, unknown> | null }>(INBOUND_ROUTE, { id });
  const existing = found.inboundRoute;
  const kept: Record<string, unknown> = {};
  if (existing) {
    for (const f of KEPT_ROUTE_FIELDS) if (existing[f] !== null && existing[f] !== undefined) kept[f] = existing[f];
    await client.gql(REMOVE_ROUTE, { input: { id } });
  }
  await client.gql(ADD_ROUTE, {
    input: {
      ...kept,
      extension: did,
      cidnum: "",
      description: r.description,
      destination,
    },
  });
  return `Inbound route ${did || "(any DID)"} written through the FreePBX API`;
}

/** doreload, then fetchApiStatus until Executed/Failed or the timeout (FreePBX #1112: it can hang). */
export async function reloadGql(
  client: FreePbxClient,
  timeoutMs: number,
  pollMs = 1000,
): Promise<{ ok: boolean; output: string }> {
  const started = await client.gql<{ doreload: { transaction_id: string | null } | null }>(DO_RELOAD);
  const txn = started.doreload?.transaction_id;
  if (!txn) return { ok: false, output: "FreePBX did not start a reload" };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const s = await client.gql<{ fetchApiStatus: { message: string; details: string | null } | null }>(API_STATUS, {
      id: txn,
    });
    const state = s.fetchApiStatus?.message;
    if (state === "Executed") return { ok: true, output: `Reload ${txn} executed` };
    if (state === "Failed")
      return { ok: false, output: `Reload ${txn} failed: ${s.fetchApiStatus?.details ?? ""}`.trim() };
    await Bun.sleep(pollMs);
  }
  return {
    ok: false,
    output: `Reload ${txn} still processing after ${Math.round(timeoutMs / 1000)} s (FreePBX issue #1112); run fwconsole reload on the PBX`,
  };
}

/** Deletes a managed extension or inbound route through the API (ADR 0025: only after the review). */
export async function deleteGql(
  client: FreePbxClient,
  kind: "extension" | "inboundRoute",
  key: string,
): Promise<string> {
  if (kind === "extension") {
    await client.gql(DELETE_EXTENSION, { input: { extensionId: key } });
    return `Extension ${key} deleted through the FreePBX API`;
  }
  await client.gql(REMOVE_ROUTE, { input: { id: `${key}/` } });
  return `Inbound route ${key || "(any DID)"} deleted through the FreePBX API`;
}
