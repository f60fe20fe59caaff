/**
 * A plan through the FreePBX API (ADR 0025), when no PBX host (SSH) is configured: extensions and inbound
 * routes read with `fetchAllExtensions` / `allInboundRoutes` and compared on what the API shows of them.
 */
import type { DeployKind } from "../../../shared/pbx";
import type { FieldChange, PlanRefused } from "../../../shared/plan";
import { type ExtensionRecordingField, pbxRecordingValue, RECORDING_DEFAULTS } from "../../../shared/recording-policy";
import type { FreePbxClient } from "../../clients/freepbx";
import type { ManagedRecord } from "../objects/managed";
import { destinationString, type ExtensionRow, type InboundRow, type ItemKind, isExpr } from "../objects/ownership";
import { unrecordedReason } from "../objects/refs";
import { CONFLICT_NOTE, entry, type Matched, type PlanEntry, SECRET_FIELD } from "./match";

/** Through the FreePBX API only these kinds can be read and written. */
export const GRAPHQL_KINDS: ItemKind[] = ["extension", "inboundRoute"];

/** What the FreePBX API shows of an extension's recording policy (Core's `getUser` reads it from AstDB). */
export type GqlRecording = Record<ExtensionRecordingField, string>;

/** What the FreePBX API shows of the extensions and of the inbound routes without a caller id. */
export interface GqlLive {
  extensions: Map<
    string,
    { name: string | null; voicemail: boolean; secret: string | null; recording: GqlRecording | null }
  >;
  inbound: Map<string, { description: string | null; destination: string | null }>;
}

/** Reads the objects of these kinds through the FreePBX API (extensions and inbound routes only). */
export async function readGql(client: FreePbxClient, kinds: ItemKind[]): Promise<GqlLive> {
  const live: GqlLive = { extensions: new Map(), inbound: new Map() };
  if (kinds.includes("extension")) {
    const data = await client.gql<{
      fetchAllExtensions: {
        extension:
          | {
              extensionId: string;
              user:
                | ({ name: string | null; voicemail: string | null; extPassword: string | null } & GqlUserRecording)
                | null;
            }[]
          | null;
      } | null;
    }>(
      `query { fetchAllExtensions { status message extension { extensionId user { name voicemail extPassword ${GQL_RECORDING_FIELDS} } } } }`,
    );
    for (const e of data.fetchAllExtensions?.extension ?? [])
      live.extensions.set(e.extensionId, {
        name: e.user?.name ?? null,
        voicemail: Boolean(e.user?.voicemail) && e.user?.voicemail !== "novm",
        secret: e.user?.extPassword ?? null,
        recording: e.user ? gqlRecording(e.user) : null,
      });
  }
  if (kinds.includes("inboundRoute")) {
    const data = await client.gql<{
      allInboundRoutes: {
        inboundRoutes:
          | {
              extension: string;
              cidnum: string | null;
              description: string | null;
              destinationConnection: string | null;
            }[]
          | null;
      } | null;
    }>("query { allInboundRoutes { inboundRoutes { extension cidnum description destinationConnection } } }");
    for (const r of data.allInboundRoutes?.inboundRoutes ?? [])
      if (!r.cidnum)
        live.inbound.set(r.extension ?? "", { description: r.description, destination: r.destinationConnection });
  }
  return live;
}

const onOff = (b: boolean) => (b ? "enabled" : "novm");

/** The coreuser fields of the recording policy, as FreePBX's API names them. */
const GQL_RECORDING: Record<ExtensionRecordingField, string> = {
  recordingInExternal: "recording_in_external",
  recordingOutExternal: "recording_out_external",
  recordingInInternal: "recording_in_internal",
  recordingOutInternal: "recording_out_internal",
  recordingOnDemand: "recording_ondemand",
};
export const GQL_RECORDING_FIELDS = Object.values(GQL_RECORDING).join(" ");
type GqlUserRecording = Partial<Record<string, string | null>>;

/**
 * The policy as the API shows it, read as the console holds values (empty: what FreePBX does without the key);
 * null when every field is empty (FreePBX never wrote the policy).
 */
export function gqlRecording(user: GqlUserRecording): GqlRecording | null {
  if (Object.values(GQL_RECORDING).every((name) => !user[name])) return null;
  const out = {} as GqlRecording;
  for (const [field, name] of Object.entries(GQL_RECORDING) as [ExtensionRecordingField, string][])
    out[field] = pbxRecordingValue(field, user[name]);
  return out;
}

/**
 * FreePBX's API cannot write an extension's recording policy (addExtension and updateExtension carry none;
 * updateExtension keeps the one the extension has): the fields the console holds that differ from what the PBX
 * has (a new extension: FreePBX's defaults), or none.
 */
function recordingGqlProblem(e: ExtensionRow, now: GqlRecording | null): string | null {
  const differ = (Object.keys(GQL_RECORDING) as ExtensionRecordingField[]).filter((f) => {
    const want = e[f];
    return want !== null && want !== undefined && want !== (now?.[f] ?? RECORDING_DEFAULTS[f]);
  });
  if (!differ.length) return null;
  const what = differ.map((f) => `${f} ${now?.[f] ?? RECORDING_DEFAULTS[f]} → ${e[f]}`).join(", ");
  return `Its call recording policy differs from the PBX's (${what}), and FreePBX's API cannot write it: configure the PBX host (SSH) in API Settings, set it in FreePBX's Extensions page, or choose "Keep the PBX's setting" in the console`;
}

/** Plans one matched object against what the FreePBX API shows. */
export function planGql(m: Matched, live: GqlLive): PlanEntry | PlanRefused {
  const { record } = m;
  let d = m.desired;
  if (!d) {
    const r = record as ManagedRecord;
    return entry(r.kind, r.key, r.key, "delete", [], null, {
      record: r,
      note: "Removed in the console: deleted through the FreePBX API",
    });
  }
  const o = d.object;
  const raw: FieldChange[] = [];
  const push = (field: string, from: string | null, to: string | null) => {
    if (from !== to) raw.push({ field, from, to, ...(SECRET_FIELD.test(field) ? { secret: true } : {}) });
  };
  let exists = false;
  if (o.kind === "extension") {
    const e = d.row as ExtensionRow;
    const now = live.extensions.get(o.key);
    const cannot = recordingGqlProblem(e, now?.recording ?? null);
    if (cannot) return { kind: o.kind as DeployKind, key: o.key, reason: cannot };
    exists = Boolean(now);
    push("name", now?.name ?? null, e.name);
    push("voicemail", now ? onOff(now.voicemail) : null, onOff(e.voicemail));
    if (e.secret) push("secret", now?.secret ?? null, e.secret);
  } else {
    let r = d.row as InboundRow;
    // An IVR, announcement or time condition is the console's id in the route and FreePBX's in the write (ADR 0059):
    // the API cannot look one up, so the id recorded when it was deployed over SSH is written, or nothing.
    const target = o.rows[0]?.owned.destination;
    if (isExpr(target) && target.ref) {
      if (target.ref.pbxId === undefined)
        return { kind: o.kind as DeployKind, key: o.key, reason: unrecordedReason(target.text) };
      r = { ...r, destination: target.ref.pbxId };
      d = { ...d, row: r };
    }
    // The API cannot move a route with its settings (ADR 0036): while the old DID is there, nothing is written.
    if (record && record.key !== o.key && live.inbound.has(record.key))
      return {
        kind: o.kind as DeployKind,
        key: o.key,
        reason: `The DID changed from ${record.key}: FreePBX's API cannot move an inbound route with its settings. Configure the PBX host (SSH) in API Settings to deploy it, or change the DID in FreePBX too`,
      };
    const now = live.inbound.get(o.key);
    exists = Boolean(now);
    push("description", now?.description ?? null, r.description);
    const to = destinationString(r.destinationType, r.destination);
    // The API shows a destination only as its label ("Extensions: 1002 Bob"): an extension is recognised.
    const known =
      r.destinationType === "extension" && now?.destination?.match(/^Extensions: (\d+)\b/)?.[1] === r.destination;
    if (!known) push("destination", now?.destination ?? null, to);
  }
  if (!exists) return entry(o.kind, o.key, o.label, "create", raw, null, { desired: d, record });
  // A moved route's new DID already on the PBX is not the console's route: adopting it is the user's choice.
  if (!record || record.key !== o.key)
    return entry(o.kind, o.key, o.label, "conflict", raw, null, {
      desired: d,
      foundPbxId: null,
      record,
      note: CONFLICT_NOTE,
    });
  return entry(o.kind, o.key, o.label, raw.length ? "update" : "unchanged", raw, null, { desired: d, record });
}
