/**
 * Fake FreePBX API module: OAuth2 token endpoint + GraphQL (reference: freepbx.md §1 and
 * shared/fixtures/freepbx/api.graphql, the subset of the FreePBX 16/17 schema the console uses).
 *
 * - `POST /admin/api/api/token`: form-encoded `grant_type=client_credentials`, `client_id`, `client_secret`,
 *   optional space-separated `scope` → `{token_type:"Bearer", expires_in:3600, access_token:<JWT>}`.
 *   Bad client → 401 `{"error":"invalid_client","message":"Client authentication failed"}`. No refresh token.
 *   Without `scope` the token gets the app's allowed scopes ("gql rest" when those are empty); as in api 17.0.1 the
 *   requested scopes are NOT checked against the allowed ones.
 * - `POST /admin/api/api/gql` with `Authorization: Bearer <token>`, JSON `{query, variables, operationName}`.
 *   The schema file is loaded with graphql-js `buildSchema` and every request is parsed and validated against it.
 *   HTTP 200 `{data}` on success. HTTP 400 `{errors:[…]}` for syntax/validation/execution errors (resolver crashes
 *   read "Internal server error"; the detail goes to `state.errorLog`, FreePBX's gql_api_error.log). When the FIRST
 *   root field of `data` has `status: false`, the answer is HTTP 400 `{errors:[{message, status:false}]}` (only if the
 *   query selected `status` — the fake can only see selected fields).
 * - Scopes (ApiBase::checkScope): `gql`, `gql:<module>`, `gql:<module>:read|write`, `gql:<module>:read|write:<thing>`.
 *   Extensions need gql / gql:core / gql:core:read (queries) or gql:core:write (mutations) — `gql:core:read:extension`
 *   is not enough; inbound routes also accept `gql:core:read:did` / `gql:core:write:did`; doreload, fetchApiStatus,
 *   fetchNeedReload are gated by the framework READ scope (`gql:framework[:read[:modules]]`), mutations included.
 *   A field the token may not use is absent from the real schema, so it fails validation:
 *   400 `Cannot query field "x" on type "Query".`
 * - Pagination: Relay `first/after/last/before` with cursors base64("arrayconnection:<offset>"); fetchAllExtensions
 *   only returns `status, message, totalCount, count, extension` (no edges/pageInfo), allInboundRoutes
 *   `totalCount, inboundRoutes`.
 * - doreload → a transaction id; fetchApiStatus(txnId).message goes `Processing` → `Executed` | `Failed`
 *   (`details` = failure reason); the in-memory backend can also leave it stuck at Processing (issue-tracker #1112).
 *   add/update/deleteExtension set "need reload"; inbound-route mutations do not (core#106).
 *
 * Messages are those of FreePBX core `Api/Gql/Extensions.php`, `Dids.php` and framework `Modules.php`. Not in the
 * reference, chosen here: the 401 body for a bad/expired bearer on /gql (`{error:"access_denied", message}`, league's
 * shape — the reference says the real status/body is unverified, clients should re-authenticate on any non-200
 * without GraphQL JSON), the doreload message text, the global-id prefixes of CoreUser/CoreDevice, the
 * `destinationConnection` labels, the 405/404 bodies, and the league error bodies for missing parameters,
 * unsupported grant types (only client_credentials is implemented) and malformed scopes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildSchema,
  type DocumentNode,
  execute,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  parse,
  type SelectionSetNode,
  validate,
} from "graphql";
import {
  bearerToken,
  type CommonOptions,
  type CommonState,
  type FakeRequest,
  type FakeServer,
  fakeJwt,
  INVALID,
  isObject,
  json,
  parseJsonBody,
  randomHex,
  startFake,
} from "./common";

export const FREEPBX_SCHEMA_PATH = join(import.meta.dir, "../fixtures/freepbx/api.graphql");
export const FREEPBX_TOKEN_PATH = "/admin/api/api/token";
export const FREEPBX_GQL_PATH = "/admin/api/api/gql";

// ---------------------------------------------------------------------------------------------------------------
// Backend interface

/** One extension = a `devices` row + its `users` row + the `sip` secret (freepbx.md §2.1–2.3). */
export interface FreePbxExtension {
  /** devices.id / users.extension */
  extensionId: string;
  /** devices.tech: pjsip, sip, iax2, dahdi, custom, virtual */
  tech: string;
  /** devices.dial, e.g. "PJSIP/1001" */
  dial: string;
  /** devices.devicetype: "fixed" or "adhoc" */
  devicetype: string;
  /** devices.description (the CID name) */
  description: string;
  /** devices.emergency_cid */
  emergencyCid: string;
  /** sip.callerid of the device */
  callerId: string;
  /** sip.secret (the SIP password; GraphQL `user.extPassword`) */
  secret: string;
  /** sip.max_contacts (PJSIP) */
  maxContacts: string;
  /** Email used for voicemail / User Management (not readable through this GraphQL subset). */
  email: string;
  /** Voicemail PIN when voicemail is enabled, else null. */
  vmPassword: string | null;
  /**
   * The User Manager user linked to the extension (username = the extension number), or null/absent
   * when there is none. Not readable through the GraphQL subset; tests inspect it on the backend.
   */
  userman?: { username: string; email: string } | null;
  /** The `users` row; null for a device without a fixed user. */
  user: FreePbxUser | null;
}

/** `users` row fields the schema exposes (freepbx.md §2.2). */
export interface FreePbxUser {
  name: string;
  password: string;
  /** "default" (voicemail context) or "novm" */
  voicemail: string;
  ringtimer: number;
  noanswer: string;
  recording: string;
  outboundCid: string;
  sipname: string;
  /** AstDB `AMPUSER/<n>/recording/…` as Core's getUser shows them; absent: FreePBX's defaults. */
  recordingPolicy?: Partial<
    Record<"in_external" | "out_external" | "in_internal" | "out_internal" | "ondemand", string>
  >;
}

/** `incoming` row (freepbx.md §2.6); identity is (extension, cidnum). */
export interface FreePbxInboundRoute {
  /** the DID ('' = any) */
  extension: string;
  cidnum: string;
  description: string;
  /** "context,exten,priority", e.g. "from-did-direct,1001,1" */
  destination: string;
  privacyman: boolean;
  alertinfo: string;
  ringing: boolean;
  mohclass: string;
  grppre: string;
  delay_answer: number;
  pricid: boolean;
  fanswer: boolean;
}

/** `api_asynchronous_transaction_history` row. */
export interface FreePbxTransaction {
  txnId: string;
  moduleName: string;
  eventName: string;
  /** event_status */
  status: "Processing" | "Executed" | "Failed";
  /** failure_reason */
  failureReason: string | null;
  /** Extra output (GraphQL `event_output`); null when none. */
  eventOutput: string | null;
  processStartTime: number;
  processEndTime: number | null;
}

/**
 * What the GraphQL layer needs from "the PBX". The GraphQL layer does FreePBX's checks and defaults (numeric id,
 * "already in use", quick-create defaults, update = delete + re-create with merged values), so a backend only
 * stores and reads. Throwing from any method makes the request fail with "Internal server error".
 * The in-memory implementation is `MemoryFreePbxBackend`; a MariaDB one would map these to the `devices`,
 * `users`, `sip`, `incoming`, `admin(need_reload)` and `api_asynchronous_transaction_history` tables.
 */
export interface FreePbxBackend {
  /** All extensions, in extension order (FreePBX `getAllDevicesByType()`). */
  listExtensions(): Promise<FreePbxExtension[]>;
  getExtension(extensionId: string): Promise<FreePbxExtension | null>;
  /** Stores a complete record (id known to be free) and flags "need reload". */
  addExtension(ext: FreePbxExtension): Promise<void>;
  /** Removes the device and user and flags "need reload". */
  deleteExtension(extensionId: string): Promise<void>;
  listInboundRoutes(): Promise<FreePbxInboundRoute[]>;
  /** Stores a route (identity known to be free). Does NOT flag "need reload" (FreePBX core#106). */
  addInboundRoute(route: FreePbxInboundRoute): Promise<void>;
  removeInboundRoute(extension: string, cidnum: string): Promise<void>;
  /** admin.need_reload == 'true' */
  needReload(): Promise<boolean>;
  /** Starts an asynchronous reload; returns the new transaction id (status "Processing"). */
  reload(): Promise<string>;
  apiStatus(txnId: string): Promise<FreePbxTransaction | null>;
}

export interface ReloadBehaviour {
  /** "stuck" leaves the transaction at Processing forever (FreePBX issue-tracker #1112). */
  outcome: "Executed" | "Failed" | "stuck";
  /** Delay before the transaction leaves Processing. */
  afterMs: number;
  /** failure_reason for "Failed". */
  failureReason: string;
}

/** In-memory backend; every field is public so tests can seed and inspect it. */
export class MemoryFreePbxBackend implements FreePbxBackend {
  extensions = new Map<string, FreePbxExtension>();
  inboundRoutes: FreePbxInboundRoute[] = [];
  needReloadFlag = false;
  transactions = new Map<string, FreePbxTransaction>();
  reloadBehaviour: ReloadBehaviour = { outcome: "Executed", afterMs: 50, failureReason: "Reload failed" };
  /** Number of reloads that reached "Executed". */
  reloadCount = 0;
  private nextTxn = 1;
  private timers = new Set<ReturnType<typeof setTimeout>>();

  async listExtensions() {
    return [...this.extensions.values()].sort(
      (a, b) => Number(a.extensionId) - Number(b.extensionId) || a.extensionId.localeCompare(b.extensionId),
    );
  }
  async getExtension(id: string) {
    return this.extensions.get(id) ?? null;
  }
  async addExtension(ext: FreePbxExtension) {
    this.extensions.set(ext.extensionId, structuredClone(ext));
    this.needReloadFlag = true;
  }
  async deleteExtension(id: string) {
    this.extensions.delete(id);
    this.needReloadFlag = true;
  }
  async listInboundRoutes() {
    return [...this.inboundRoutes];
  }
  async addInboundRoute(route: FreePbxInboundRoute) {
    this.inboundRoutes.push({ ...route });
  }
  async removeInboundRoute(extension: string, cidnum: string) {
    this.inboundRoutes = this.inboundRoutes.filter((r) => !(r.extension === extension && r.cidnum === cidnum));
  }
  async needReload() {
    return this.needReloadFlag;
  }
  async reload() {
    const txnId = String(this.nextTxn++);
    this.transactions.set(txnId, {
      txnId,
      moduleName: "framework",
      eventName: "doreload",
      status: "Processing",
      failureReason: null,
      eventOutput: null,
      processStartTime: Math.floor(Date.now() / 1000),
      processEndTime: null,
    });
    const b = this.reloadBehaviour;
    if (b.outcome !== "stuck") {
      const outcome = b.outcome;
      const reason = b.failureReason;
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.finishTransaction(txnId, outcome, reason);
      }, b.afterMs);
      this.timers.add(t);
    }
    return txnId;
  }
  async apiStatus(txnId: string) {
    const t = this.transactions.get(txnId);
    return t ? { ...t } : null;
  }
  /** Ends a Processing transaction by hand (e.g. after `reloadBehaviour.outcome = "stuck"`). */
  finishTransaction(txnId: string, outcome: "Executed" | "Failed", failureReason = "Reload failed") {
    const t = this.transactions.get(txnId);
    if (t?.status !== "Processing") return;
    t.status = outcome;
    t.processEndTime = Math.floor(Date.now() / 1000);
    if (outcome === "Executed") {
      this.needReloadFlag = false;
      this.reloadCount++;
    } else {
      t.failureReason = failureReason;
    }
  }
  /** Cancels pending reload timers (called by the fake's stop()). */
  dispose() {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// FreePBX behaviour (quick-create defaults, messages)

export interface AddExtensionInput {
  extensionId: string;
  name: string;
  email: string;
  tech?: string | null;
  channelName?: string | null;
  outboundCid?: string | null;
  emergencyCid?: string | null;
  callerID?: string | null;
  umEnable?: boolean | null;
  umGroups?: string | null;
  umPassword?: string | null;
  vmEnable?: boolean | null;
  vmPassword?: string | null;
  maxContacts?: string | null;
}

const TECHS = ["pjsip", "sip", "iax2", "dahdi", "custom", "virtual"];

/**
 * The record `Core::processQuickCreate()` would write for an addExtension input: tech defaults to pjsip, a
 * random 32-hex SIP secret, voicemail on unless `vmEnable: false`, a User Manager user unless
 * `umEnable: false` (Extensions.php resolveNames: an omitted flag means yes), max_contacts capped at 100
 * (default 1), device callerid defaulting to the emergency CID, other user settings at their defaults.
 * Use it to seed a backend.
 */
export function quickCreateExtension(input: AddExtensionInput, secret = randomHex(16)): FreePbxExtension {
  const tech = input.tech ?? "pjsip";
  const id = input.extensionId;
  const dialPrefix: Record<string, string> = { pjsip: "PJSIP", sip: "SIP", iax2: "IAX2", dahdi: "DAHDI" };
  const mc = Number.parseInt(input.maxContacts ?? "1", 10);
  return {
    extensionId: id,
    tech,
    dial:
      tech === "dahdi" && input.channelName
        ? `DAHDI/${input.channelName}`
        : `${dialPrefix[tech] ?? tech.toUpperCase()}/${id}`,
    devicetype: "fixed",
    description: input.name,
    emergencyCid: input.emergencyCid ?? "",
    callerId: input.callerID ?? input.emergencyCid ?? "",
    secret,
    maxContacts: String(Number.isFinite(mc) && mc > 0 ? Math.min(mc, 100) : 1),
    email: input.email,
    vmPassword: input.vmEnable === false ? null : (input.vmPassword ?? ""),
    userman: input.umEnable === false ? null : { username: id, email: input.email },
    user: {
      name: input.name,
      password: "",
      voicemail: input.vmEnable === false ? "novm" : "default",
      ringtimer: 0,
      noanswer: "",
      recording: "",
      outboundCid: input.outboundCid ?? "",
      sipname: "",
    },
  };
}

const b64 = (s: string) => Buffer.from(s).toString("base64");
/** Relay array-connection cursor for an offset, as graphql-relay-php builds it. */
export const relayCursor = (offset: number) => b64(`arrayconnection:${offset}`);

function cursorOffset(cursor: string | null | undefined): number | null {
  if (cursor === null || cursor === undefined) return null;
  const m = /^arrayconnection:(\d+)$/.exec(Buffer.from(cursor, "base64").toString());
  return m ? Number(m[1]) : null;
}

interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** graphql-relay `connectionFromArray` slicing. */
function relaySlice<T>(items: T[], args: ConnectionArgs): T[] {
  const { first, last } = args;
  if (typeof first === "number" && first < 0) throw new GraphQLError('Argument "first" must be a non-negative integer');
  if (typeof last === "number" && last < 0) throw new GraphQLError('Argument "last" must be a non-negative integer');
  const afterOffset = cursorOffset(args.after);
  const beforeOffset = cursorOffset(args.before);
  let start = afterOffset === null ? 0 : Math.max(afterOffset + 1, 0);
  let end = beforeOffset === null ? items.length : Math.min(beforeOffset, items.length);
  if (typeof first === "number") end = Math.min(end, start + first);
  if (typeof last === "number") start = Math.max(start, end - last);
  return items.slice(start, Math.max(start, end));
}

function userObject(e: FreePbxExtension) {
  if (!e.user) return null;
  return {
    id: b64(`coreuser:${e.extensionId}`),
    extension: e.extensionId,
    name: e.user.name,
    password: e.user.password,
    voicemail: e.user.voicemail,
    ringtimer: e.user.ringtimer,
    noanswer: e.user.noanswer,
    recording: e.user.recording,
    outboundCid: e.user.outboundCid,
    sipname: e.user.sipname,
    extPassword: e.secret,
    recording_in_external: e.user.recordingPolicy?.in_external ?? "dontcare",
    recording_out_external: e.user.recordingPolicy?.out_external ?? "dontcare",
    recording_in_internal: e.user.recordingPolicy?.in_internal ?? "dontcare",
    recording_out_internal: e.user.recordingPolicy?.out_internal ?? "dontcare",
    recording_ondemand: e.user.recordingPolicy?.ondemand ?? "disabled",
    recording_priority: 10,
  };
}

function extensionObject(e: FreePbxExtension, status: boolean | null = null, message: string | null = null) {
  const user = e.devicetype === "fixed" ? userObject(e) : null;
  return {
    id: b64(`extension:${e.extensionId}`),
    extensionId: e.extensionId,
    tech: e.tech,
    user,
    coreDevice: {
      id: b64(`coredevice:${e.extensionId}`),
      deviceId: e.extensionId,
      tech: e.tech,
      dial: e.dial,
      devicetype: e.devicetype,
      description: e.description,
      emergencyCid: e.emergencyCid,
      user: userObject(e),
    },
    status,
    message,
  };
}

/** "Category: Description" label (the raw destination is not exposed). */
function destinationLabel(dest: string, exts: Map<string, FreePbxExtension>): string | null {
  const m = /^from-did-direct,(\d+),1$/.exec(dest);
  if (m) {
    const e = exts.get(m[1] as string);
    return `Extensions: ${m[1]}${e ? ` ${e.description}` : ""}`;
  }
  const p = /^app-pagegroups,(\d+),1$/.exec(dest);
  if (p) return `Paging and Intercom: ${p[1]}`;
  return null;
}

function didObject(r: FreePbxInboundRoute, exts: Map<string, FreePbxExtension>) {
  return {
    id: `${r.extension}/${r.cidnum}`,
    extension: r.extension,
    cidnum: r.cidnum,
    description: r.description,
    privacyman: r.privacyman,
    alertinfo: r.alertinfo,
    ringing: r.ringing,
    mohclass: r.mohclass,
    grppre: r.grppre,
    delay_answer: r.delay_answer,
    pricid: r.pricid,
    fanswer: r.fanswer,
    destinationConnection: destinationLabel(r.destination, exts),
  };
}

const isNumeric = (s: string) => /^\d+$/.test(s);

function rootResolvers(backend: FreePbxBackend) {
  const extMap = async () => new Map((await backend.listExtensions()).map((e) => [e.extensionId, e]));
  const payload = (input: Record<string, unknown>, status: boolean, message: string, extra = {}) => ({
    status,
    message,
    clientMutationId: (input.clientMutationId as string | undefined) ?? null,
    ...extra,
  });
  return {
    // --- queries
    fetchAllExtensions: async (args: ConnectionArgs) => {
      const all = await backend.listExtensions();
      return {
        status: true,
        message: "Extension's found successfully",
        totalCount: all.length,
        count: all.length,
        extension: relaySlice(all, args).map((e) => extensionObject(e)),
      };
    },
    fetchExtension: async ({ extensionId }: { extensionId?: string | null }) => {
      const e = extensionId ? await backend.getExtension(extensionId) : null;
      // Relay's globalIdField still yields base64("extension:") for a missing row, so `id` stays non-null.
      if (!e) return { id: b64("extension:"), status: false, message: "Extension does not exists" };
      return extensionObject(e, true, "Extension found successfully");
    },
    allInboundRoutes: async (args: ConnectionArgs) => {
      const all = await backend.listInboundRoutes();
      const exts = await extMap();
      return { totalCount: all.length, inboundRoutes: relaySlice(all, args).map((r) => didObject(r, exts)) };
    },
    inboundRoute: async ({ id }: { id: string }) => {
      const [extension, cidnum = ""] = id.split("/");
      const r = (await backend.listInboundRoutes()).find((x) => x.extension === extension && x.cidnum === cidnum);
      return r ? didObject(r, await extMap()) : null;
    },
    fetchApiStatus: async ({ txnId }: { txnId: string }) => {
      const t = await backend.apiStatus(txnId);
      if (!t) return { status: true, message: "Sorry unable to fetch the status", details: null, event_output: null };
      return { status: true, message: t.status, details: t.failureReason, event_output: t.eventOutput };
    },
    fetchNeedReload: async () => ({
      status: true,
      message: (await backend.needReload()) ? "Doreload is required" : "Doreload is not required",
    }),

    // --- mutations
    addExtension: async ({ input }: { input: AddExtensionInput & Record<string, unknown> }) => {
      if (!isNumeric(input.extensionId)) return payload(input, false, "Please enter only numeric values");
      if (await backend.getExtension(input.extensionId))
        return payload(input, false, "This device id is already in use");
      if (!TECHS.includes(input.tech ?? "pjsip")) return payload(input, false, "Failed to create extension");
      await backend.addExtension(quickCreateExtension(input));
      return payload(input, true, "Extension has been created Successfully");
    },
    updateExtension: async ({
      input,
    }: {
      input: Partial<AddExtensionInput> & { extensionId: string; extPassword?: string | null } & Record<
          string,
          unknown
        >;
    }) => {
      if (!isNumeric(input.extensionId)) return payload(input, false, "Please enter only numeric values");
      const old = await backend.getExtension(input.extensionId);
      if (!old) return payload(input, false, "Extension does not exists.");
      // FreePBX deletes device, user AND the User Manager user, and re-creates them from the input merged with
      // what the input can express (Extensions.php getUpdatedValues); everything else (ring time, no-answer,
      // recording, …) comes back at its default. As in resolveNames(), an omitted vmEnable or umEnable means YES:
      // voicemail is switched on and a User Manager user is (re-)created unless the update says false.
      const merged: AddExtensionInput = {
        extensionId: input.extensionId,
        name: input.name || old.user?.name || old.description,
        email: input.email || old.userman?.email || old.email,
        tech: input.tech || old.tech,
        channelName: input.channelName ?? null,
        outboundCid: input.outboundCid || old.user?.outboundCid || "",
        emergencyCid: input.emergencyCid || old.emergencyCid,
        callerID: input.callerID || old.callerId,
        vmEnable: input.vmEnable !== false,
        umEnable: input.umEnable !== false,
        vmPassword: input.vmPassword || old.vmPassword,
        maxContacts: input.maxContacts ?? old.maxContacts,
      };
      if (!TECHS.includes(merged.tech ?? "pjsip")) return payload(input, false, "Sorry could not update the extension");
      await backend.deleteExtension(input.extensionId);
      const again = quickCreateExtension(merged, input.extPassword ?? old.secret);
      // getUser() reads the recording policy from AstDB into what is re-created: it survives the update.
      if (again.user && old.user?.recordingPolicy) again.user.recordingPolicy = { ...old.user.recordingPolicy };
      await backend.addExtension(again);
      return payload(input, true, "Extension has been updated");
    },
    deleteExtension: async ({ input }: { input: { extensionId: string } & Record<string, unknown> }) => {
      if (!isNumeric(input.extensionId)) return payload(input, false, "Please enter only numeric values");
      if (!(await backend.getExtension(input.extensionId))) return payload(input, false, "Extension does not exists.");
      await backend.deleteExtension(input.extensionId);
      return payload(input, true, "Extension has been deleted");
    },
    addInboundRoute: async ({ input }: { input: Partial<FreePbxInboundRoute> & Record<string, unknown> }) => {
      // Core::addDIDDefaults, then the input on top.
      const route: FreePbxInboundRoute = {
        extension: input.extension ?? "",
        cidnum: input.cidnum ?? "",
        description: input.description ?? "",
        destination: input.destination ?? "",
        privacyman: input.privacyman ?? false,
        alertinfo: input.alertinfo ?? "",
        ringing: input.ringing ?? false,
        mohclass: input.mohclass ?? "default",
        grppre: input.grppre ?? "",
        delay_answer: input.delay_answer ?? 0,
        pricid: input.pricid ?? false,
        fanswer: input.fanswer ?? false,
      };
      const exts = await extMap();
      const existing = (await backend.listInboundRoutes()).find(
        (r) => r.extension === route.extension && r.cidnum === route.cidnum,
      );
      if (existing)
        return payload(input, false, "Inbound Route already exists", { inboundRoute: didObject(existing, exts) });
      await backend.addInboundRoute(route);
      return payload(input, true, "Inbound Route created successfully", { inboundRoute: didObject(route, exts) });
    },
    removeInboundRoute: async ({ input }: { input: { id: string } & Record<string, unknown> }) => {
      const [extension = "", cidnum = ""] = input.id.split("/");
      const found = (await backend.listInboundRoutes()).some((r) => r.extension === extension && r.cidnum === cidnum);
      if (!found) return payload(input, false, "Inbound Route not found", { deletedId: input.id });
      await backend.removeInboundRoute(extension, cidnum);
      return payload(input, true, "Inbound Route deleted successfully", { deletedId: input.id });
    },
    doreload: async ({ input }: { input: Record<string, unknown> }) => {
      const txnId = await backend.reload();
      return payload(
        input,
        true,
        "Reload has been initiated. Please check the status using fetchApiStatus api with the returned transaction id",
        { transaction_id: txnId },
      );
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Scopes

type ScopeNeed = { module: string; kind: "read" | "write"; thing?: string };
const FIELD_SCOPES: Record<string, ScopeNeed> = {
  fetchAllExtensions: { module: "core", kind: "read" },
  fetchExtension: { module: "core", kind: "read" },
  addExtension: { module: "core", kind: "write" },
  updateExtension: { module: "core", kind: "write" },
  deleteExtension: { module: "core", kind: "write" },
  allInboundRoutes: { module: "core", kind: "read", thing: "did" },
  inboundRoute: { module: "core", kind: "read", thing: "did" },
  addInboundRoute: { module: "core", kind: "write", thing: "did" },
  removeInboundRoute: { module: "core", kind: "write", thing: "did" },
  fetchApiStatus: { module: "framework", kind: "read", thing: "modules" },
  fetchNeedReload: { module: "framework", kind: "read", thing: "modules" },
  doreload: { module: "framework", kind: "read", thing: "modules" },
};

/** ApiBase::checkScope for GraphQL. */
export function scopeAllows(scopes: string[], need: ScopeNeed): boolean {
  const ok = new Set([`gql`, `gql:${need.module}`, `gql:${need.module}:${need.kind}`]);
  if (need.thing) ok.add(`gql:${need.module}:${need.kind}:${need.thing}`);
  return scopes.some((s) => ok.has(s));
}

const SCOPE_GRAMMAR = /^(gql|rest)(:[A-Za-z0-9_]+(:(read|write)(:[A-Za-z0-9_]+)?)?)?$/;

/** Root fields (through fragments) that the token may not use → "Cannot query field" errors. */
function scopeErrors(doc: DocumentNode, scopes: string[]): GraphQLError[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const errors: GraphQLError[] = [];
  const walk = (set: SelectionSetNode, typeName: string, seen: Set<string>) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const need = FIELD_SCOPES[sel.name.value];
        if (need && !scopeAllows(scopes, need))
          errors.push(
            new GraphQLError(`Cannot query field "${sel.name.value}" on type "${typeName}".`, { nodes: [sel] }),
          );
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet, typeName, seen);
      } else if (sel.kind === Kind.FRAGMENT_SPREAD && !seen.has(sel.name.value)) {
        const f = fragments.get(sel.name.value);
        if (f) walk(f.selectionSet, typeName, new Set([...seen, sel.name.value]));
      }
    }
  };
  for (const d of doc.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    walk(
      d.selectionSet,
      d.operation === "mutation" ? "Mutation" : d.operation === "subscription" ? "Subscription" : "Query",
      new Set(),
    );
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------------------------
// Server

export interface IssuedToken {
  token: string;
  clientId: string;
  scopes: string[];
  /** ms since epoch; set it in the past to simulate expiry */
  expiresAt: number;
}

export interface FreePbxState<B extends FreePbxBackend = MemoryFreePbxBackend> extends CommonState {
  backend: B;
  /** Valid API application credentials (change to simulate "regenerate"). */
  clientId: string;
  clientSecret: string;
  /** The application's allowed_scopes; a token request without `scope` gets these ("gql rest" when empty). */
  allowedScopes: string[];
  tokens: Map<string, IssuedToken>;
  tokenLifetimeSeconds: number;
  /** Details of errors answered as "Internal server error". */
  errorLog: string[];
}

export interface FreePbxOptions<B extends FreePbxBackend = MemoryFreePbxBackend> extends CommonOptions {
  /** 64 hex chars (default: a fixed test value, `FREEPBX_TEST_CLIENT.clientId`). */
  clientId?: string;
  /** 32 hex chars (default `FREEPBX_TEST_CLIENT.clientSecret`). */
  clientSecret?: string;
  /** Default ["gql"] (what `fwconsole api gql genclientcred` creates). */
  allowedScopes?: string[];
  backend?: B;
  /** Schema file (default `FREEPBX_SCHEMA_PATH`). */
  schemaPath?: string;
  tokenLifetimeSeconds?: number;
}

export const FREEPBX_TEST_CLIENT = {
  clientId: "a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90",
  clientSecret: "0123456789abcdef0123456789abcdef",
};

const schemaCache = new Map<string, GraphQLSchema>();
function loadSchema(path: string): GraphQLSchema {
  let s = schemaCache.get(path);
  if (!s) {
    s = buildSchema(readFileSync(path, "utf8"));
    schemaCache.set(path, s);
  }
  return s;
}

const leagueError = (status: number, error: string, message: string) => json(status, { error, message });

export async function startFakeFreePbx<B extends FreePbxBackend = MemoryFreePbxBackend>(
  options: FreePbxOptions<B> = {},
): Promise<FakeServer<FreePbxState<B>>> {
  const schema = loadSchema(options.schemaPath ?? FREEPBX_SCHEMA_PATH);
  const backend = options.backend ?? (new MemoryFreePbxBackend() as unknown as B);
  const state: FreePbxState<B> = {
    failNext: null,
    delayMs: options.delayMs ?? 0,
    backend,
    clientId: options.clientId ?? FREEPBX_TEST_CLIENT.clientId,
    clientSecret: options.clientSecret ?? FREEPBX_TEST_CLIENT.clientSecret,
    allowedScopes: options.allowedScopes ?? ["gql"],
    tokens: new Map(),
    tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3600,
    errorLog: [],
  };
  const resolvers = rootResolvers(backend);

  function token(req: FakeRequest): Response {
    const ct = req.headers.get("content-type") ?? "";
    // league reads the parsed form body; a JSON body leaves every parameter missing.
    const form = ct.includes("application/x-www-form-urlencoded")
      ? new URLSearchParams(req.rawBody)
      : new URLSearchParams();
    const grant = form.get("grant_type");
    if (grant !== "client_credentials")
      return leagueError(
        400,
        "unsupported_grant_type",
        "The authorization grant type is not supported by the authorization server.",
      );
    const clientId = form.get("client_id");
    if (!clientId)
      return leagueError(
        400,
        "invalid_request",
        "The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed.",
      );
    if (clientId !== state.clientId || form.get("client_secret") !== state.clientSecret)
      return leagueError(401, "invalid_client", "Client authentication failed");
    const requested = (form.get("scope") ?? "").split(/\s+/).filter(Boolean);
    if (requested.some((s) => !SCOPE_GRAMMAR.test(s)))
      return leagueError(400, "invalid_scope", "The requested scope is invalid, unknown, or malformed");
    const scopes = requested.length ? requested : state.allowedScopes.length ? state.allowedScopes : ["gql", "rest"];
    const iat = Math.floor(Date.now() / 1000);
    const access = fakeJwt({
      aud: clientId,
      jti: randomHex(40),
      iat,
      nbf: iat,
      exp: iat + state.tokenLifetimeSeconds,
      sub: "",
      scopes,
    });
    state.tokens.set(access, {
      token: access,
      clientId,
      scopes,
      expiresAt: Date.now() + state.tokenLifetimeSeconds * 1000,
    });
    return json(200, { token_type: "Bearer", expires_in: state.tokenLifetimeSeconds, access_token: access });
  }

  const gqlErrors = (errors: readonly GraphQLError[]) => json(400, { errors: errors.map((e) => e.toJSON()) });

  async function gql(req: FakeRequest): Promise<Response> {
    const bearer = bearerToken(req.headers);
    const t = bearer ? state.tokens.get(bearer) : undefined;
    if (!t || t.expiresAt <= Date.now())
      return leagueError(401, "access_denied", "The resource owner or authorization server denied the request.");
    const body = parseJsonBody(req.rawBody);
    if (body === INVALID || (body !== undefined && !isObject(body)))
      return json(400, { errors: [{ message: "Could not parse JSON request body." }] });
    const query = body?.query;
    if (typeof query !== "string" || query.trim() === "")
      return json(400, {
        errors: [
          { message: 'GraphQL Request must include at least one of those two parameters: "query" or "queryId"' },
        ],
      });
    let doc: DocumentNode;
    try {
      doc = parse(query);
    } catch (e) {
      if (e instanceof GraphQLError) return gqlErrors([e]);
      throw e;
    }
    const denied = scopeErrors(doc, t.scopes);
    if (denied.length) return gqlErrors(denied);
    const invalid = validate(schema, doc);
    if (invalid.length) return gqlErrors(invalid);
    const variables = body?.variables;
    const result = await execute({
      schema,
      document: doc,
      rootValue: resolvers,
      variableValues: isObject(variables) ? variables : undefined,
      operationName: typeof body?.operationName === "string" ? body.operationName : undefined,
    });
    if (result.errors?.length) {
      const masked = result.errors.map((e) => {
        if (e.originalError && !(e.originalError instanceof GraphQLError)) {
          state.errorLog.push(e.originalError.stack ?? e.originalError.message);
          return new GraphQLError("Internal server error", { nodes: e.nodes, path: e.path });
        }
        return e;
      });
      return gqlErrors(masked);
    }
    const data = (result.data ?? {}) as Record<string, unknown>;
    const first = Object.values(data)[0];
    if (isObject(first) && first.status === false)
      return json(400, { errors: [{ message: first.message ?? null, status: false }] });
    return json(200, { data });
  }

  const fake = startFake(state, "", (req) => {
    if (req.path === FREEPBX_TOKEN_PATH)
      return req.method === "POST" ? token(req) : json(405, { message: "Method not allowed. Must be one of: POST" });
    if (req.path === FREEPBX_GQL_PATH)
      return req.method === "POST" ? gql(req) : json(405, { message: "Method not allowed. Must be one of: POST" });
    return json(404, { message: "Not found." });
  });
  const stop = fake.stop;
  fake.stop = async () => {
    const b = backend as unknown as { dispose?: () => void };
    b.dispose?.();
    await stop();
  };
  return fake;
}
