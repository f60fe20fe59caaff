/**
 * Sync import of IVRs and announcements (ADR 0059), read side: FreePBX's `ivr_details` with their `ivr_entries`,
 * and `announcement`, read over SSH, as the console's IVR and announcement inputs. `call-flow-compare.ts` finds the
 * console object each one is and compares; `call-flow-plan.ts` plans and writes them through the console's own
 * create and update.
 *
 * FreePBX numbers these objects itself and a destination to one carries FreePBX's id, while a console destination
 * names the console's id: here such a destination stays FreePBX's (`FlowRef`) until the plan maps it. Only what the
 * console models is taken: a destination it does not hold (a time condition, a custom destination) refuses the
 * object rather than losing the destination.
 */
import { z } from "zod";
import { announcementSchema, DIGITS_RE, ivrSchema } from "../../../shared/call-flow";
import { DESTINATION_LABELS, type Destination, parseDestination } from "../../../shared/destinations";
import { lazySchema } from "../../../shared/lazy-schema";
import { importTrunksRequestSchema } from "../../../shared/plan";
import { withPbxHost } from "../host/host";
import { type PbxReadDeps, pbxReadPath } from "./read";

// ---------- the requests (the Sync screen's selection: FreePBX's ids) ----------

const selectionOf = (what: string) =>
  z.array(z.string().regex(/^\d{1,10}$/, `${what} are FreePBX's ids (digits)`)).default([]);
const mode = () => z.enum(["all", "selected"], { error: "Mode must be all or selected" });

export const importIvrsSchema = lazySchema(() => z.object({ ivrs: selectionOf("IVRs"), mode: mode() }));
export const importAnnouncementsSchema = lazySchema(() =>
  z.object({ announcements: selectionOf("Announcements"), mode: mode() }),
);
/** The import's body adds the reviewed plan's fingerprint, the same field every import takes. */
export const importIvrsRequestSchema = lazySchema(() =>
  importIvrsSchema.extend({ fingerprint: importTrunksRequestSchema.shape.fingerprint }),
);
export const importAnnouncementsRequestSchema = lazySchema(() =>
  importAnnouncementsSchema.extend({ fingerprint: importTrunksRequestSchema.shape.fingerprint }),
);
export type ImportCallFlowInput = z.output<typeof importIvrsSchema> | z.output<typeof importAnnouncementsSchema>;
export type ImportCallFlowRequest =
  | z.output<typeof importIvrsRequestSchema>
  | z.output<typeof importAnnouncementsRequestSchema>;

/** The Sync tabs (and job targets) of these objects. */
export type CallFlowImportKind = "ivrs" | "announcements";
export const isCallFlowKind = (kind: string): kind is CallFlowImportKind => kind === "ivrs" || kind === "announcements";
export type FlowKind = "ivr" | "announcement";
export const flowKindOf = (kind: CallFlowImportKind): FlowKind => (kind === "ivrs" ? "ivr" : "announcement");

// ---------- the PBX's rows ----------

export interface PbxIvr {
  kind: "ivr";
  pbxId: string;
  name: string;
  greeting: string | null;
  timeout: string | null;
  invalidLoops: string | null;
  timeoutLoops: string | null;
  /** FreePBX's destination strings, '' for none. */
  invalid: string;
  noKey: string;
  entries: { selection: string; dest: string }[];
}

export interface PbxAnnouncement {
  kind: "announcement";
  pbxId: string;
  name: string;
  recording: string | null;
  allowSkip: string | null;
  after: string;
}

export type PbxCallFlow = PbxIvr | PbxAnnouncement;

const IVRS_SQL = `SELECT HEX(CAST(id AS CHAR)), HEX(name), HEX(CAST(announcement AS CHAR)), HEX(CAST(timeout_time AS CHAR)),
HEX(invalid_loops), HEX(timeout_loops), HEX(invalid_destination), HEX(timeout_destination) FROM ivr_details ORDER BY id;`;
const ENTRIES_SQL = `SELECT HEX(CAST(ivr_id AS CHAR)), HEX(selection), HEX(dest) FROM ivr_entries ORDER BY ivr_id, selection;`;
const ANNOUNCEMENTS_SQL = `SELECT HEX(CAST(announcement_id AS CHAR)), HEX(description), HEX(CAST(recording_id AS CHAR)),
HEX(CAST(allow_skip AS CHAR)), HEX(post_dest) FROM announcement ORDER BY announcement_id;`;

/**
 * The PBX's IVRs and announcements, both whichever tab asks: a destination of either kind may name the other, and
 * the import maps and brings along what they point at (SSH only: FreePBX's API has neither).
 */
export async function readPbxCallFlow(
  deps: PbxReadDeps,
  kind: CallFlowImportKind,
): Promise<{ via: "ssh"; rows: PbxCallFlow[] }> {
  pbxReadPath(deps, kind === "ivrs" ? "IVRs" : "announcements");
  const [details, entries, played] = await withPbxHost(
    deps,
    async (host) =>
      [
        await host.selectHex(IVRS_SQL),
        await host.selectHex(ENTRIES_SQL),
        await host.selectHex(ANNOUNCEMENTS_SQL),
      ] as const,
    { operation: `Reading the PBX's ${kind === "ivrs" ? "IVRs" : "announcements"}`, deadlineMs: 120_000 },
  );
  const menus = new Map<string, PbxIvr>();
  for (const [id, name, greeting, timeout, invalidLoops, timeoutLoops, invalid, noKey] of details)
    menus.set(id ?? "", {
      kind: "ivr",
      pbxId: id ?? "",
      name: (name ?? "").trim(),
      greeting: greeting ?? null,
      timeout: timeout ?? null,
      invalidLoops: invalidLoops ?? null,
      timeoutLoops: timeoutLoops ?? null,
      invalid: (invalid ?? "").trim(),
      noKey: (noKey ?? "").trim(),
      entries: [],
    });
  for (const [id, selection, dest] of entries)
    menus.get(id ?? "")?.entries.push({ selection: (selection ?? "").trim(), dest: (dest ?? "").trim() });
  const rows: PbxCallFlow[] = [...menus.values()];
  for (const [id, name, recording, allowSkip, after] of played)
    rows.push({
      kind: "announcement",
      pbxId: id ?? "",
      name: (name ?? "").trim(),
      recording: recording ?? null,
      allowSkip: allowSkip ?? null,
      after: (after ?? "").trim(),
    });
  return { via: "ssh", rows };
}

// ---------- as the console's inputs ----------

/** A destination as FreePBX holds it: one the console keeps as is, or an IVR or announcement by FreePBX's id. */
export type FlowRef = { to: Destination } | { auto: FlowKind; pbxId: string };

export interface IvrShape {
  kind: "ivr";
  name: string;
  greeting: number | null;
  timeout: number;
  retries: number;
  options: { digits: string; to: FlowRef }[];
  invalid: FlowRef | null;
  noKey: FlowRef | null;
}

export interface AnnouncementShape {
  kind: "announcement";
  name: string;
  recording: number | null;
  allowSkip: boolean;
  after: FlowRef | null;
}

/** A PBX object as the console would hold it (`shape`), or why it cannot (`problem`); `id` is `<kind>:<FreePBX id>`. */
export interface FlowObject {
  id: string;
  kind: FlowKind;
  pbxId: string;
  name: string;
  shape?: IvrShape | AnnouncementShape;
  problem?: string;
  notes: string[];
}

export const flowId = (kind: FlowKind, pbxId: string) => `${kind}:${pbxId}`;

/** Every place a shape sends calls, by the field it is in (`options.0`, `invalid`, `noKey`, `after`). */
export function slotsOf(shape: IvrShape | AnnouncementShape): { slot: string; ref: FlowRef }[] {
  if (shape.kind === "announcement") return shape.after ? [{ slot: "after", ref: shape.after }] : [];
  const out = shape.options.map((o, i) => ({ slot: `options.${i}`, ref: o.to }));
  if (shape.invalid) out.push({ slot: "invalid", ref: shape.invalid });
  if (shape.noKey) out.push({ slot: "noKey", ref: shape.noKey });
  return out;
}

/** A recording id as the console keeps it: FreePBX's id, none for NULL or 0. */
const recordingOf = (v: string | null) => (v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : null);

type Ref = { ref: FlowRef | null } | { problem: string };

function refOf(value: string, what: string, onPbx: Set<string>): Ref {
  if (!value) return { ref: null };
  const d = parseDestination(value);
  if (!d) return { problem: `Its ${what} (${value}) is not a destination the console holds` };
  if (d.kind === "time-condition")
    return {
      problem: `Its ${what} goes to FreePBX's time condition ${d.target} (${value}), which the Sync screen does not import`,
    };
  if (d.kind !== "ivr" && d.kind !== "announcement") return { ref: { to: d } };
  if (!onPbx.has(flowId(d.kind, d.target)))
    return {
      problem: `Its ${what} goes to ${DESTINATION_LABELS[d.kind]} ${d.target} (${value}), which is not on the PBX`,
    };
  return { ref: { auto: d.kind, pbxId: d.target } };
}

/** The shape with every IVR or announcement it points at as a stand-in of the right form, for the schema's checks. */
function schemaProblem(shape: IvrShape | AnnouncementShape): string | null {
  const d = (r: FlowRef | null) => (r === null ? null : "to" in r ? r.to : { kind: r.auto, target: "1" });
  const values =
    shape.kind === "ivr"
      ? {
          name: shape.name,
          greeting: shape.greeting,
          timeout: shape.timeout,
          retries: shape.retries,
          options: shape.options.map((o) => ({ digits: o.digits, destination: d(o.to) })),
          invalidDestination: d(shape.invalid),
          timeoutDestination: d(shape.noKey),
        }
      : { name: shape.name, recording: shape.recording, allowSkip: shape.allowSkip, after: d(shape.after) };
  const r = (shape.kind === "ivr" ? ivrSchema : announcementSchema).safeParse(values);
  return r.success ? null : (r.error.issues[0]?.message ?? "Not a valid value");
}

function ivrObject(p: PbxIvr, onPbx: Set<string>): FlowObject {
  const name = p.name || `IVR ${p.pbxId}`;
  const base = { id: flowId("ivr", p.pbxId), kind: "ivr" as const, pbxId: p.pbxId, name, notes: [] };
  const fail = (problem: string): FlowObject => ({ ...base, problem });
  // FreePBX's "disabled" loops mean no wrong-key (no-key) destination at all, only its `i` (`t`) entry: not modelled.
  const loops = (v: string | null, what: string): { n: number } | { problem: string } =>
    v !== null && /^\d+$/.test(v.trim())
      ? { n: Number(v) }
      : { problem: `Its ${what} retries are "${v ?? ""}" in FreePBX, which the console does not model` };
  const wrong = loops(p.invalidLoops, "wrong-key");
  if ("problem" in wrong) return fail(wrong.problem);
  const none = loops(p.timeoutLoops, "no-key");
  if ("problem" in none) return fail(none.problem);
  const notes: string[] = [];
  // The console keeps one number of retries for both; the larger keeps every caller's chances.
  if (wrong.n !== none.n)
    notes.push(
      `FreePBX retries a wrong key ${wrong.n} times and no key ${none.n} times; the console keeps one number for both: ${Math.max(wrong.n, none.n)} (its next deploy writes it for both)`,
    );
  const options: IvrShape["options"] = [];
  const other: string[] = [];
  for (const e of p.entries) {
    // FreePBX's own `t` and `i` entries are its timeout and invalid handlers, not keys.
    if (!DIGITS_RE.test(e.selection)) {
      other.push(e.selection);
      continue;
    }
    const r = refOf(e.dest, `option ${e.selection}`, onPbx);
    if ("problem" in r) return fail(r.problem);
    if (!r.ref) return fail(`Its option ${e.selection} has no destination`);
    options.push({ digits: e.selection, to: r.ref });
  }
  if (other.length)
    notes.push(
      `FreePBX's entries ${other.join(", ")} are not keys (FreePBX uses them only while its retries are disabled): the console leaves them out, and its next deploy removes them`,
    );
  const invalid = refOf(p.invalid, "wrong-key destination", onPbx);
  if ("problem" in invalid) return fail(invalid.problem);
  const noKey = refOf(p.noKey, "no-key destination", onPbx);
  if ("problem" in noKey) return fail(noKey.problem);
  const shape: IvrShape = {
    kind: "ivr",
    name,
    greeting: recordingOf(p.greeting),
    timeout: p.timeout && /^\d+$/.test(p.timeout) ? Number(p.timeout) : 0,
    retries: Math.max(wrong.n, none.n),
    options,
    invalid: invalid.ref,
    noKey: noKey.ref,
  };
  const problem = schemaProblem(shape);
  return problem ? fail(problem) : { ...base, shape, notes };
}

function announcementObject(p: PbxAnnouncement, onPbx: Set<string>): FlowObject {
  const name = p.name || `Announcement ${p.pbxId}`;
  const base = { id: flowId("announcement", p.pbxId), kind: "announcement" as const, pbxId: p.pbxId, name };
  const after = refOf(p.after, "destination after it", onPbx);
  if ("problem" in after) return { ...base, notes: [], problem: after.problem };
  const shape: AnnouncementShape = {
    kind: "announcement",
    name,
    recording: recordingOf(p.recording),
    allowSkip: p.allowSkip !== null && p.allowSkip.trim() !== "" && p.allowSkip.trim() !== "0",
    after: after.ref,
  };
  const problem = schemaProblem(shape);
  return problem ? { ...base, notes: [], problem } : { ...base, shape, notes: [] };
}

/** Every PBX IVR and announcement as the console would hold it, by `<kind>:<FreePBX id>`. */
export function flowObjects(rows: PbxCallFlow[]): Map<string, FlowObject> {
  const onPbx = new Set(rows.map((r) => flowId(r.kind, r.pbxId)));
  return new Map(
    rows.map((r) => {
      const o = r.kind === "ivr" ? ivrObject(r, onPbx) : announcementObject(r, onPbx);
      return [o.id, o];
    }),
  );
}
