/**
 * The FreePBX GraphQL API path, used for extensions and inbound routes
 * when only the FreePBX API is configured. Values travel as GraphQL variables,
 * never inside the query text.
 */
import type { FreePbxClient } from "../clients/freepbx";
import { ServiceError } from "../clients/http";
import { destinationString, type ExtensionRow, type InboundRow } from "./entities";

const FETCH_EXTENSION = "query ($id: ID) { fetchExtension(extensionId: $id) { status message extensionId } }";
const ADD_EXTENSION = "mutation ($input: addExtensionInput!) { addExtension(input: $input) { status message } }";
const UPDATE_EXTENSION =
  "mutation ($input: updateExtensionInput!) { updateExtension(input: $input) { status message } }";
const REMOVE_ROUTE =
  "mutation ($input: removeInboundRouteInput!) { removeInboundRoute(input: $input) { status message } }";
const ADD_ROUTE = "mutation ($input: addInboundRouteInput!) { addInboundRoute(input: $input) { status message } }";
const DO_RELOAD = "mutation { doreload(input: {}) { status message transaction_id } }";
const API_STATUS = "query ($id: ID!) { fetchApiStatus(txnId: $id) { status message details } }";

async function exists(client: FreePbxClient, extension: string): Promise<boolean> {
  try {
    const data = await client.gql<{ fetchExtension: { status: boolean } | null }>(FETCH_EXTENSION, { id: extension });
    return Boolean(data.fetchExtension?.status);
  } catch (err) {
    // FreePBX answers an unknown extension with status false → HTTP 400.
    if (err instanceof ServiceError && err.status === 400) return false;
    throw err;
  }
}

/** Adds (or replaces) a PJSIP extension; then sets the console's SIP secret, which add cannot carry. */
export async function deployExtensionGql(client: FreePbxClient, e: ExtensionRow): Promise<string> {
  const common = {
    extensionId: e.extension,
    name: e.name,
    email: e.email ?? "",
    vmEnable: e.voicemail,
    umEnable: false,
  };
  let action = "updated";
  if (!(await exists(client, e.extension))) {
    await client.gql(ADD_EXTENSION, { input: { ...common, tech: "pjsip", maxContacts: "5" } });
    action = "added";
  }
  await client.gql(UPDATE_EXTENSION, { input: { ...common, extPassword: e.secret ?? undefined } });
  return `Extension ${e.extension} ${action} through the FreePBX API`;
}

export async function deployInboundGql(client: FreePbxClient, r: InboundRow): Promise<string> {
  const did = r.didNumber ?? "";
  try {
    await client.gql(REMOVE_ROUTE, { input: { id: `${did}/` } });
  } catch (err) {
    if (!(err instanceof ServiceError) || err.status !== 400) throw err; // 400: there was none
  }
  await client.gql(ADD_ROUTE, {
    input: {
      extension: did,
      cidnum: "",
      description: r.description,
      destination: destinationString(r.destinationType, r.destination),
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
