/**
 * Sync import of IVRs and announcements, the console's side: which console object each PBX one is (by the FreePBX
 * id its record holds, else by name, as the deploy finds it), their fields as the review compares them (a
 * destination to an IVR or announcement by the console id it maps to), and the Sync screen's comparison.
 */
import { announcements, ivrs } from "../../../db/schema";
import { DESTINATION_LABELS, type Destination, destinationLabel } from "../../../shared/destinations";
import type { CompareResponse } from "../../../shared/pbx";
import type { FieldChange } from "../../../shared/plan";
import type { Deps } from "../../core/deps";
import type { AnnouncementRow, IvrRow } from "../../inventory/call-targets";
import { type ManagedRecord, managedOf } from "../objects/managed";
import {
  type AnnouncementShape,
  type CallFlowImportKind,
  type FlowKind,
  type FlowObject,
  type FlowRef,
  flowId,
  flowKindOf,
  flowObjects,
  type IvrShape,
  type PbxCallFlow,
  readPbxCallFlow,
} from "./call-flow";
import type { PbxReadDeps } from "./read";

// ---------- the console's side ----------

export interface ConsoleSide {
  ivrs: Map<number, IvrRow>;
  announcements: Map<number, AnnouncementRow>;
  /** The console id each PBX object is, by `<kind>:<FreePBX id>`. */
  match: Map<string, number>;
  /** The record of the console object a PBX object is (none: the console does not manage it yet). */
  records: Map<string, ManagedRecord>;
}

/** The console's IVRs and announcements, and which PBX object each is: by its record's FreePBX id, else by name. */
export function consoleSide(db: Deps["db"], objects: Map<string, FlowObject>): ConsoleSide {
  const side: ConsoleSide = {
    ivrs: new Map(
      db
        .select()
        .from(ivrs)
        .all()
        .map((r) => [r.id, r] as const),
    ),
    announcements: new Map(
      db
        .select()
        .from(announcements)
        .all()
        .map((r) => [r.id, r] as const),
    ),
    match: new Map(),
    records: new Map(),
  };
  const exists = (kind: FlowKind, id: number) => (kind === "ivr" ? side.ivrs : side.announcements).has(id);
  const recorded = managedOf(db, ["ivr", "announcement"]).filter(
    (r) => r.consoleId !== null && exists(r.kind as FlowKind, r.consoleId),
  );
  const taken = new Set<string>();
  for (const r of recorded) {
    const id = r.pbxId ? flowId(r.kind as FlowKind, r.pbxId) : null;
    if (id && objects.has(id) && !side.match.has(id) && r.consoleId !== null) {
      side.match.set(id, r.consoleId);
      side.records.set(id, r);
      taken.add(`${r.kind}:${r.consoleId}`);
    }
  }
  // The first PBX object by id holding a name is the one the deploy finds by that name.
  const byId = [...objects.values()].sort((a, b) => Number(a.pbxId) - Number(b.pbxId));
  for (const o of byId) {
    if (side.match.has(o.id)) continue;
    const rows = o.kind === "ivr" ? side.ivrs : side.announcements;
    const same = [...rows.values()].find((c) => c.name === o.name && !taken.has(`${o.kind}:${c.id}`));
    if (!same) continue;
    side.match.set(o.id, same.id);
    taken.add(`${o.kind}:${same.id}`);
    const record = recorded.find((r) => r.kind === o.kind && r.consoleId === same.id);
    if (record) side.records.set(o.id, record);
  }
  return side;
}

// ---------- what the review shows, field by field ----------

type Shown = Record<string, { key: string | null; text: string | null }>;

/** A console destination: `key` compares, `text` reads (an IVR or announcement by its console name). */
function consoleDest(side: ConsoleSide, d: Destination | null): Shown[string] {
  if (!d) return { key: null, text: null };
  const key = `${d.kind}:${d.target}`;
  if (d.kind === "ivr") return { key, text: `IVR ${side.ivrs.get(Number(d.target))?.name ?? d.target}` };
  if (d.kind === "announcement")
    return { key, text: `announcement ${side.announcements.get(Number(d.target))?.name ?? d.target}` };
  return { key, text: destinationLabel(d) };
}

/** A PBX destination: an IVR or announcement by the console id it maps to, or as new while the import makes it. */
function pbxDest(side: ConsoleSide, objects: Map<string, FlowObject>, r: FlowRef | null): Shown[string] {
  if (!r) return { key: null, text: null };
  if ("to" in r) return { key: `${r.to.kind}:${r.to.target}`, text: destinationLabel(r.to) };
  const id = flowId(r.auto, r.pbxId);
  const consoleId = side.match.get(id);
  const name = objects.get(id)?.name ?? r.pbxId;
  return {
    key: consoleId !== undefined ? `${r.auto}:${consoleId}` : `new ${id}`,
    text: `${DESTINATION_LABELS[r.auto]} ${name}`,
  };
}

const plain = (v: string | null): Shown[string] => ({ key: v, text: v });
const optionsShown = (list: { digits: string; d: Shown[string] }[]): Shown[string] =>
  list.length === 0
    ? { key: null, text: null }
    : {
        key: list
          .map((o) => `${o.digits}=${o.d.key}`)
          .sort()
          .join("\n"),
        text: list.map((o) => `${o.digits} → ${o.d.text}`).join(", "),
      };

/** A console IVR's or announcement's fields as the review compares them. */
export function shownConsole(side: ConsoleSide, kind: FlowKind, consoleId: number): Shown | null {
  if (kind === "ivr") {
    const i = side.ivrs.get(consoleId);
    if (!i) return null;
    const d = (k: IvrRow["invalidKind"], t: string | null) =>
      consoleDest(side, k ? { kind: k, target: t ?? "" } : null);
    return {
      name: plain(i.name),
      greeting: plain(i.greeting === null ? null : String(i.greeting)),
      timeout: plain(String(i.timeout)),
      retries: plain(String(i.retries)),
      options: optionsShown(i.options.map((o) => ({ digits: o.digits, d: consoleDest(side, o.destination) }))),
      invalidDestination: d(i.invalidKind, i.invalidTarget),
      timeoutDestination: d(i.timeoutKind, i.timeoutTarget),
    };
  }
  const a = side.announcements.get(consoleId);
  if (!a) return null;
  return {
    name: plain(a.name),
    recording: plain(a.recording === null ? null : String(a.recording)),
    allowSkip: plain(a.allowSkip ? "on" : "off"),
    after: consoleDest(side, a.afterKind ? { kind: a.afterKind, target: a.afterTarget ?? "" } : null),
  };
}

/** A PBX object's fields as the review compares them with the console's. */
export function shownPbx(
  side: ConsoleSide,
  objects: Map<string, FlowObject>,
  shape: IvrShape | AnnouncementShape,
): Shown {
  const d = (r: FlowRef | null) => pbxDest(side, objects, r);
  if (shape.kind === "ivr")
    return {
      name: plain(shape.name),
      greeting: plain(shape.greeting === null ? null : String(shape.greeting)),
      timeout: plain(String(shape.timeout)),
      retries: plain(String(shape.retries)),
      options: optionsShown(shape.options.map((o) => ({ digits: o.digits, d: d(o.to) }))),
      invalidDestination: d(shape.invalid),
      timeoutDestination: d(shape.noKey),
    };
  return {
    name: plain(shape.name),
    recording: plain(shape.recording === null ? null : String(shape.recording)),
    allowSkip: plain(shape.allowSkip ? "on" : "off"),
    after: d(shape.after),
  };
}

/** The fields that differ (`from`: the console's, null when it has none; `to`: the PBX's). */
export function changes(from: Shown | null, to: Shown): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, v] of Object.entries(to)) {
    const before = from?.[field] ?? { key: null, text: null };
    if (from ? before.key === v.key : v.key === null) continue;
    out.push({ field, from: before.text, to: v.text });
  }
  return out;
}

// ---------- the Sync screen's comparison ----------

/** An IVR or announcement on the PBX next to the console's it is (by record, else by name). */
export interface CallFlowComparison {
  /** FreePBX's id: the key the Sync screen selects by. */
  pbxId: string;
  inDashboard: boolean;
  /** Both sides hold it and any field the import writes differs (or the PBX's cannot be imported). */
  needsSync: boolean;
  freepbx: { name: string | null };
  dashboard: { name: string | null };
}

export function compareCallFlow(
  deps: Pick<Deps, "db">,
  kind: FlowKind,
  rows: PbxCallFlow[],
): { rows: CallFlowComparison[]; consoleCount: number } {
  const objects = flowObjects(rows);
  const side = consoleSide(deps.db, objects);
  const out = [...objects.values()]
    .filter((o) => o.kind === kind)
    .sort((a, b) => Number(a.pbxId) - Number(b.pbxId))
    .map((o) => {
      const consoleId = side.match.get(o.id);
      const mine = consoleId === undefined ? null : shownConsole(side, kind, consoleId);
      const differs = mine !== null && (!o.shape || changes(mine, shownPbx(side, objects, o.shape)).length > 0);
      return {
        pbxId: o.pbxId,
        inDashboard: mine !== null,
        needsSync: differs,
        freepbx: { name: o.name },
        dashboard: { name: mine ? (mine.name?.text ?? null) : null },
      };
    });
  return { rows: out, consoleCount: kind === "ivr" ? side.ivrs.size : side.announcements.size };
}

/** The PBX's IVRs or announcements next to the console's (SSH only). */
export async function compareCallFlowOnPbx(
  deps: PbxReadDeps & Pick<Deps, "db">,
  kind: CallFlowImportKind,
): Promise<CompareResponse<CallFlowComparison>> {
  const pbx = await readPbxCallFlow(deps, kind);
  const { rows, consoleCount } = compareCallFlow(deps, flowKindOf(kind), pbx.rows);
  return {
    freepbxCount: rows.length,
    dashboardCount: consoleCount,
    comparison: rows,
    via: pbx.via,
  };
}
