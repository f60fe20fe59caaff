/**
 * The plan of a Sync import (ADR 0025 "Sync import"): what importing the selected PBX
 * objects does in the console, per object, before anything is written. `POST /api/sync/<kind>/plan`
 * answers it; the import job (`import.ts`) makes the same plan from its own read of the PBX and writes
 * exactly its entries, so the review and the import cannot disagree:
 *
 * - create: no console object has the number (extensions) or the trunkid/name (trunks);
 * - update: the console object differs, field by field (from → to, secrets masked);
 * - unchanged: the console already holds the PBX's values;
 * - refused: the console cannot hold it: a value its shared validator (src/shared/inventory.ts) refuses,
 *   a number a PTT group holds, a trunk name another console trunk has, or not on the PBX (any more);
 *
 * and whether the console starts managing the PBX object (`adopt`: no `pbx_objects` record yet; the
 * import records it with origin `import`).
 *
 * The fingerprint is an HMAC (a key random per process) over the PBX rows read and every entry's
 * decision with its unmasked values: a change on the PBX or in the console rows concerned changes it.
 */
import type { z } from "zod";
import { extensions, trunks } from "../../../db/schema";
import { extensionSchema, trunkSchema } from "../../../shared/inventory";
import type {
  ImportExtensionsInput,
  ImportInput,
  ImportQueuesInput,
  ImportRingGroupsInput,
  ImportTrunksInput,
} from "../../../shared/pbx";
import {
  emptyImportCounts,
  type FieldChange,
  type ImportAction,
  type ImportKind,
  type ImportPlan,
  type ImportPlanItem,
} from "../../../shared/plan";
import { byNumber } from "../../../shared/sort";
import type { Deps } from "../../core/deps";
import { numberTakenMessage } from "../../inventory/numbers";
import { nodeCrypto } from "../../lazy-node";
import { type ManagedRecord, managedOf } from "../objects/managed";
import {
  type CallFlowImportKind,
  flowKindOf,
  type ImportCallFlowInput,
  isCallFlowKind,
  type PbxCallFlow,
  readPbxCallFlow,
} from "./call-flow";
import { type CallFlowEntry, planCallFlowImport } from "./call-flow-plan";
import {
  type CallGroupEntry,
  type CallGroupKind,
  type PbxQueue,
  type PbxRingGroup,
  planCallGroupsImport,
  readPbxQueues,
  readPbxRingGroups,
} from "./call-groups";
import { type PbxExtension, type PbxReadDeps, type PbxTrunk, readPbxExtensions, readPbxTrunks } from "./read";
import { type RecordingValues, recordingValues } from "./recording";

/** A PBX object as read for an import. */
type PbxRow = PbxExtension | PbxTrunk | PbxRingGroup | PbxQueue | PbxCallFlow;

export type SyncPlanDeps = PbxReadDeps & Pick<Deps, "db" | "box" | "now">;

/** What the import writes into a console extension (the secret in clear: sealed when written). */
export interface ExtensionValues extends RecordingValues {
  name: string;
  voicemail: boolean;
  /** Only when the PBX has one (else the console keeps its own). */
  secret?: string;
}

/** What the import writes into a console trunk. */
export interface TrunkValues {
  name: string;
  type: "sip" | "iax" | "dahdi";
  host: string;
  port: number | null;
  username: string | null;
  secret?: string;
  authMode: "credentials" | "ip";
}

/** One planned object, with what the import job writes (never sent as is: `item` is the wire view). */
export type ImportEntry =
  | { kind: "extension"; item: ImportPlanItem; raw: FieldChange[]; values?: ExtensionValues; record?: ManagedRecord }
  | { kind: "trunk"; item: ImportPlanItem; raw: FieldChange[]; values?: TrunkValues; record?: ManagedRecord }
  | { kind: CallGroupKind; item: ImportPlanItem; raw: FieldChange[]; group: CallGroupEntry; record?: ManagedRecord }
  | {
      kind: "ivr" | "announcement";
      item: ImportPlanItem;
      raw: FieldChange[];
      flow: CallFlowEntry;
      record?: ManagedRecord;
    };

export interface SyncImportPlan {
  wire: ImportPlan;
  entries: ImportEntry[];
}

const MASK = "••••••";
const mask = (c: FieldChange): FieldChange =>
  c.secret ? { ...c, from: c.from === null ? null : MASK, to: c.to === null ? null : MASK } : c;

/** The fields that differ between the console's values (`from`, null: no console object) and the PBX's (`to`). */
function diff(from: Record<string, unknown> | null, to: Record<string, unknown>, secrets: string[]): FieldChange[] {
  const text = (v: unknown): string | null =>
    v === null || v === undefined ? null : typeof v === "boolean" ? (v ? "on" : "off") : String(v);
  const out: FieldChange[] = [];
  for (const [field, value] of Object.entries(to)) {
    if (value === undefined) continue; // not imported (the console keeps its own)
    const a = from ? text(from[field]) : null;
    const b = text(value);
    if (from && a === b) continue;
    if (!from && b === null) continue;
    out.push({ field, from: a, to: b, ...(secrets.includes(field) ? { secret: true } : {}) });
  }
  return out;
}

/** The first message of the console's shared validator for these values, or null. */
function validatorProblem(schema: z.ZodType, values: unknown): string | null {
  const parsed = schema.safeParse(values);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? "Not a valid value");
}

interface Decision {
  action: Exclude<ImportAction, "refused">;
  raw: FieldChange[];
  consoleId: number | null;
  note?: string;
}

function decide(consoleRow: ({ id: number } & Record<string, unknown>) | null, values: object): Decision {
  const raw = diff(consoleRow, values as Record<string, unknown>, ["secret"]);
  if (!consoleRow) return { action: "create", raw, consoleId: null };
  return { action: raw.length ? "update" : "unchanged", raw, consoleId: consoleRow.id };
}

function item(
  kind: ImportPlanItem["kind"] | "ivr" | "announcement",
  key: string,
  label: string,
  action: ImportAction,
  raw: FieldChange[],
  extra: Partial<ImportPlanItem> = {},
): ImportPlanItem {
  return {
    id: `${kind}:${key}`,
    kind,
    key,
    label,
    action,
    changes: raw.map(mask),
    adopt: false,
    consoleId: null,
    pbxId: null,
    ...extra,
  };
}

const notOnPbx = (kind: "extension" | "trunk", key: string): ImportEntry => ({
  kind,
  item: item(kind, key, key, "refused", [], {
    reason: `${kind === "extension" ? "Extension" : "Trunk"} ${key} is not on the PBX (any more)`,
  }),
  raw: [],
});

const ADOPT_NOTE = "The console starts managing it on the PBX (imported)";

// ---------- extensions ----------

/** Each PBX extension's import: the one decision the plan shows and the import job writes. */
export function planExtensionsImport(
  deps: Pick<Deps, "db" | "box">,
  pbxRows: PbxExtension[],
  input: ImportExtensionsInput,
): ImportEntry[] {
  const { db, box } = deps;
  const mine = new Map(
    db
      .select()
      .from(extensions)
      .all()
      .map((e) => [e.extension, e]),
  );
  const records = new Map(managedOf(db, ["extension"]).map((r) => [r.key, r]));
  const onPbx = new Map(pbxRows.map((r) => [r.extension, r]));
  const wanted = input.mode === "all" ? [...onPbx.keys()] : [...new Set(input.extensions)];
  const entries: ImportEntry[] = [];
  for (const n of wanted.sort(byNumber)) {
    const p = onPbx.get(n);
    if (!p) {
      entries.push(notOnPbx("extension", n));
      continue;
    }
    const name = (p.name ?? "").trim() || `Extension ${p.extension}`;
    const label = `${p.extension} - ${name}`;
    const record = records.get(p.extension);
    const current = mine.get(p.extension);
    const rec = recordingValues(p.recording, current);
    const values: ExtensionValues = { name, voicemail: p.voicemail, ...(p.secret ? { secret: p.secret } : {}), ...rec };
    const invalid = validatorProblem(extensionSchema, { extension: p.extension, ...values, secret: p.secret });
    // The number rule's message names the number already.
    const reason = invalid
      ? `${p.extension}: ${invalid}`
      : current
        ? null
        : numberTakenMessage(db, p.extension, "extension");
    if (reason) {
      entries.push({
        kind: "extension",
        item: item("extension", p.extension, label, "refused", [], { reason }),
        raw: [],
      });
      continue;
    }
    const d = decide(current ? { ...current, secret: box.open(current.secret) } : null, values);
    entries.push({
      kind: "extension",
      item: item("extension", p.extension, label, d.action, d.raw, {
        adopt: !record,
        consoleId: d.consoleId,
        ...(!record ? { note: ADOPT_NOTE } : {}),
      }),
      raw: d.raw,
      values,
      record,
    });
  }
  return entries;
}

// ---------- trunks ----------

const trunkType = (tech: string): TrunkValues["type"] => (tech === "iax2" ? "iax" : tech === "dahdi" ? "dahdi" : "sip");

/**
 * Each PBX trunk's import. The console trunk it updates is the one its record names (by trunkid: a trunk
 * renamed on the PBX or in the console is still the same), else the one with its name.
 */
export function planTrunksImport(
  deps: Pick<Deps, "db" | "box">,
  pbxRows: PbxTrunk[],
  input: ImportTrunksInput,
): ImportEntry[] {
  const { db, box } = deps;
  const mine = db.select().from(trunks).all();
  const records = managedOf(db, ["trunk"]);
  const onPbx = new Map<string, PbxTrunk>();
  for (const r of pbxRows) if (!onPbx.has(r.name)) onPbx.set(r.name, r);
  const wanted = input.mode === "all" ? [...onPbx.keys()] : [...new Set(input.trunks)];
  const entries: ImportEntry[] = [];
  for (const name of wanted) {
    const p = onPbx.get(name);
    if (!p) {
      entries.push(notOnPbx("trunk", name));
      continue;
    }
    const label = p.name || "(no name)";
    const values: TrunkValues = {
      name: p.name,
      type: trunkType(p.tech),
      host: p.host ?? "",
      port: p.port,
      username: p.username,
      ...(p.secret ? { secret: p.secret } : {}),
      authMode: p.username && p.secret ? "credentials" : "ip",
    };
    const record =
      (p.trunkid ? records.find((r) => r.pbxId === p.trunkid) : undefined) ?? records.find((r) => r.key === p.name);
    const current =
      (record?.consoleId != null ? mine.find((t) => t.id === record.consoleId) : undefined) ??
      mine.find((t) => t.name === p.name);
    const clash = current && current.name !== p.name ? mine.find((t) => t.name === p.name) : undefined;
    const invalid = validatorProblem(trunkSchema, { ...values, secret: p.secret });
    const reason = invalid
      ? `${label}: ${invalid}`
      : clash
        ? `Renamed on the PBX from ${current?.name}, but the console has another trunk named ${p.name}`
        : null;
    const base = { pbxId: p.trunkid };
    if (reason) {
      entries.push({ kind: "trunk", item: item("trunk", label, label, "refused", [], { ...base, reason }), raw: [] });
      continue;
    }
    const d = decide(current ? { ...current, secret: box.open(current.secret) } : null, values);
    const renamed =
      current && current.name !== p.name
        ? `Renamed on the PBX (trunkid ${p.trunkid}): was ${current.name} in the console`
        : undefined;
    const note = [renamed, !record ? ADOPT_NOTE : undefined].filter(Boolean).join(". ");
    entries.push({
      kind: "trunk",
      item: item("trunk", p.name, label, d.action, d.raw, {
        ...base,
        adopt: !record,
        consoleId: d.consoleId,
        ...(note ? { note } : {}),
      }),
      raw: d.raw,
      values,
      record,
    });
  }
  return entries;
}

// ---------- ring groups and queues (call-groups.ts) ----------

function callGroupEntries(
  deps: Pick<Deps, "db">,
  kind: CallGroupKind,
  rows: (PbxRingGroup | PbxQueue)[],
  input: ImportRingGroupsInput | ImportQueuesInput,
): ImportEntry[] {
  return planCallGroupsImport(deps, kind, rows, input).map((g) => ({
    kind,
    item: item(kind, g.number, g.label, g.action, g.raw, {
      consoleId: g.consoleId,
      ...(g.action === "refused"
        ? { reason: g.reason }
        : { adopt: !g.record, ...(!g.record ? { note: ADOPT_NOTE } : {}) }),
    }),
    raw: g.raw,
    group: g,
    record: g.record,
  }));
}

// ---------- IVRs and announcements (call-flow-plan.ts) ----------

function callFlowEntries(
  deps: Pick<Deps, "db">,
  kind: CallFlowImportKind,
  rows: PbxCallFlow[],
  input: ImportCallFlowInput,
): ImportEntry[] {
  return planCallFlowImport(deps, flowKindOf(kind), rows, input).map((f) => {
    const notes = [...f.notes, ...(f.adopt && f.action !== "refused" ? [ADOPT_NOTE] : [])];
    return {
      kind: f.kind,
      item: item(f.kind, f.pbxId, f.label, f.action, f.raw, {
        consoleId: f.consoleId,
        pbxId: f.pbxId,
        ...(f.action === "refused" ? { reason: f.reason } : { adopt: f.adopt }),
        ...(notes.length ? { note: notes.join(". ") } : {}),
      }),
      raw: f.raw,
      flow: f,
      record: f.record,
    };
  });
}

/** Each process signs its fingerprints with its own key: a fingerprint says nothing about a secret. */
const FINGERPRINT_KEY = crypto.getRandomValues(new Uint8Array(32));

function fingerprint(kind: ImportKind, mode: string, via: string, pbxRows: unknown[], entries: ImportEntry[]): string {
  const h = nodeCrypto().createHmac("sha256", FINGERPRINT_KEY);
  h.update(JSON.stringify([kind, mode, via]));
  const keys = new Set(entries.map((e) => e.item.key));
  // Every IVR and announcement counts: a destination of one maps through the others.
  for (const r of pbxRows as PbxRow[])
    if ("pbxId" in r || keys.has("extension" in r ? r.extension : "number" in r ? r.number : r.name))
      h.update(JSON.stringify(r));
  for (const e of entries)
    h.update(
      JSON.stringify([
        e.item.id,
        e.item.action,
        e.item.adopt,
        e.item.consoleId,
        e.item.pbxId,
        e.item.reason ?? "",
        e.item.note ?? "",
        e.raw.map((c) => [c.field, c.from, c.to]),
      ]),
    );
  return h.digest("hex");
}

/** The plan over rows already read (the import job plans from the read it writes after). */
export function assembleImportPlan(
  deps: Pick<Deps, "db" | "box" | "now">,
  kind: ImportKind,
  read: { via: "ssh" | "graphql"; rows: PbxRow[] },
  input: ImportInput | ImportCallFlowInput,
): SyncImportPlan {
  const entries = isCallFlowKind(kind)
    ? callFlowEntries(deps, kind, read.rows as PbxCallFlow[], input as ImportCallFlowInput)
    : kind === "extensions"
      ? planExtensionsImport(deps, read.rows as PbxExtension[], input as ImportExtensionsInput)
      : kind === "trunks"
        ? planTrunksImport(deps, read.rows as PbxTrunk[], input as ImportTrunksInput)
        : callGroupEntries(
            deps,
            kind === "ring-groups" ? "ringGroup" : "queue",
            read.rows as (PbxRingGroup | PbxQueue)[],
            input as ImportRingGroupsInput | ImportQueuesInput,
          );
  const counts = emptyImportCounts();
  for (const e of entries) counts[e.item.action]++;
  return {
    wire: {
      kind,
      mode: input.mode,
      via: read.via,
      fingerprint: fingerprint(kind, input.mode, read.via, read.rows, entries),
      items: entries.map((e) => e.item),
      counts,
      adopts: entries.filter((e) => e.item.adopt).length,
      readAt: new Date(deps.now()).toISOString(),
    },
    entries,
  };
}

/** Reads the PBX's objects of a kind (`read.ts`, `call-groups.ts`, `call-flow.ts`). */
export const readForImport = (
  deps: SyncPlanDeps,
  kind: ImportKind,
): Promise<{ via: "ssh" | "graphql"; rows: PbxRow[] }> =>
  isCallFlowKind(kind)
    ? readPbxCallFlow(deps, kind)
    : kind === "extensions"
      ? readPbxExtensions(deps)
      : kind === "trunks"
        ? readPbxTrunks(deps)
        : kind === "ring-groups"
          ? readPbxRingGroups(deps)
          : readPbxQueues(deps);

/**
 * What importing the selection would do (`POST /api/sync/<kind>/plan`): reads the PBX and plans; stores
 * nothing. No way to read the PBX is `Invalid` (400); an unreachable PBX a `ServiceError` (502).
 */
export async function syncImportPlan(
  deps: SyncPlanDeps,
  kind: ImportKind,
  input: ImportInput | ImportCallFlowInput,
): Promise<SyncImportPlan> {
  return assembleImportPlan(deps, kind, await readForImport(deps, kind), input);
}
