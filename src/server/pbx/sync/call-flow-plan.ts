/**
 * Sync import of IVRs and announcements, the plan and the writes (`call-flow.ts` reads, `call-flow-compare.ts`
 * matches and compares). Each selected PBX object goes through the console's own create or update
 * (`inventory/ivrs.ts`, `inventory/announcements.ts`), so an imported one meets every rule a typed one meets: keys,
 * a free name, destinations the console holds, no loop.
 *
 * What the selection points at comes along: an IVR or announcement it sends calls to that the console does
 * not hold yet is imported with it (either kind, from either tab), since the console refuses a destination to
 * an object it does not have, and objects pointing at each other across the two kinds (IVR → announcement →
 * IVR) could never be imported one tab after the other. Writes go target first; a cycle (a menu's key back to
 * the menu that led to it) is broken by writing one object without the destination that closes it and adding
 * it once the other is written, so the console's loop rules judge the whole cycle as they would a typed one.
 * An object that cannot be imported refuses those that need it, with the reason.
 *
 * The plan tries every write inside a savepoint it rolls back; a refusal met there leaves that object out and
 * the plan is tried again without it, until every write it keeps succeeds. The import job does the same and
 * keeps the writes, only when they are the reviewed plan's.
 */
import { sql } from "drizzle-orm";
import { announcementSchema, ivrSchema } from "../../../shared/call-flow";
import { DESTINATION_LABELS, type Destination } from "../../../shared/destinations";
import { type FieldChange, type ImportAction, STALE_PLAN_MESSAGE } from "../../../shared/plan";
import type { Deps } from "../../core/deps";
import { Conflict, DomainError, Invalid } from "../../core/errors";
import { type AnnouncementInput, createAnnouncement, updateAnnouncement } from "../../inventory/announcements";
import { createIvr, type IvrInput, updateIvr } from "../../inventory/ivrs";
import { forgetManaged, type ManagedRecord, managedOf, recordManaged } from "../objects/managed";
import {
  type AnnouncementShape,
  type FlowKind,
  type FlowObject,
  type FlowRef,
  flowId,
  flowObjects,
  type ImportCallFlowInput,
  type IvrShape,
  type PbxCallFlow,
  slotsOf,
} from "./call-flow";
import { type ConsoleSide, changes, consoleSide, shownConsole, shownPbx } from "./call-flow-compare";

/** One IVR's or announcement's import: the decision, and the console row it became (after the job's write). */
export interface CallFlowEntry {
  kind: FlowKind;
  pbxId: string;
  label: string;
  action: ImportAction;
  raw: FieldChange[];
  consoleId: number | null;
  /** The console starts managing the PBX object. */
  adopt: boolean;
  reason?: string;
  notes: string[];
  record?: ManagedRecord;
}

const WHAT = { ivr: "IVR", announcement: "Announcement" } as const;
const what = (o: { kind: FlowKind; name: string }) => `${DESTINATION_LABELS[o.kind]} ${o.name}`;

/** The selected PBX objects (the tab's kind), and the ids selected but not on the PBX. */
function selection(objects: Map<string, FlowObject>, tab: FlowKind, input: ImportCallFlowInput) {
  const picked = "ivrs" in input ? input.ivrs : input.announcements;
  const ids =
    input.mode === "all"
      ? [...objects.values()].filter((o) => o.kind === tab).map((o) => o.pbxId)
      : [...new Set(picked)];
  ids.sort((a, b) => Number(a) - Number(b));
  return {
    selected: ids.map((n) => flowId(tab, n)).filter((id) => objects.has(id)),
    missing: ids.filter((n) => !objects.has(flowId(tab, n))),
  };
}

/** The IVRs and announcements a shape points at, by id. */
const targetsOf = (o: FlowObject): string[] =>
  o.shape ? slotsOf(o.shape).flatMap(({ ref }) => ("auto" in ref ? [flowId(ref.auto, ref.pbxId)] : [])) : [];

/**
 * The selected objects and, through those not refused, every object they point at that the console does not hold
 * (each with the first one that needs it).
 */
function closure(selected: string[], objects: Map<string, FlowObject>, side: ConsoleSide, refused: Set<string>) {
  const members = new Map<string, string | null>(selected.map((id) => [id, null]));
  const queue = [...selected];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    const o = objects.get(id);
    if (!o || refused.has(id)) continue;
    for (const t of targetsOf(o))
      if (!side.match.has(t) && !members.has(t)) {
        members.set(t, id);
        queue.push(t);
      }
  }
  return members;
}

/**
 * The objects in an order where what one points at comes first. A destination back to an object still being
 * visited closes a cycle: it is deferred (written in the second pass).
 */
function writeOrder(live: string[], objects: Map<string, FlowObject>) {
  const order: string[] = [];
  const deferred = new Map<string, Set<string>>();
  const set = new Set(live);
  const done = new Set<string>();
  const path = new Set<string>();
  const visit = (id: string) => {
    if (done.has(id)) return;
    path.add(id);
    const shape = objects.get(id)?.shape;
    for (const { slot, ref } of shape ? slotsOf(shape) : []) {
      if (!("auto" in ref)) continue;
      const t = flowId(ref.auto, ref.pbxId);
      if (!set.has(t) || done.has(t)) continue;
      if (path.has(t)) deferred.set(id, (deferred.get(id) ?? new Set()).add(slot));
      else visit(t);
    }
    path.delete(id);
    done.add(id);
    order.push(id);
  };
  for (const id of live) visit(id);
  return { order, deferred };
}

/** The console's input for a shape, its IVRs and announcements by console id; deferred slots left out. */
function inputOf(shape: IvrShape | AnnouncementShape, consoleIdOf: (id: string) => number, skip: Set<string>) {
  const d = (r: FlowRef | null, slot: string): Destination | null => {
    if (!r || skip.has(slot)) return null;
    return "to" in r ? r.to : { kind: r.auto, target: String(consoleIdOf(flowId(r.auto, r.pbxId))) };
  };
  if (shape.kind === "announcement")
    return { name: shape.name, recording: shape.recording, allowSkip: shape.allowSkip, after: d(shape.after, "after") };
  return {
    name: shape.name,
    greeting: shape.greeting,
    timeout: shape.timeout,
    retries: shape.retries,
    options: shape.options.flatMap((o, i) => {
      const to = d(o.to, `options.${i}`);
      return to ? [{ digits: o.digits, destination: to }] : [];
    }),
    invalidDestination: d(shape.invalid, "invalid"),
    timeoutDestination: d(shape.noKey, "noKey"),
  };
}

/** Writes one object through the console's create or update (the shared schema first, in its own words). */
function writeOne(deps: Pick<Deps, "db" | "events">, kind: FlowKind, consoleId: number | null, values: object): number {
  const parsed = (kind === "ivr" ? ivrSchema : announcementSchema).safeParse(values);
  if (!parsed.success) throw new Invalid(parsed.error.issues[0]?.message ?? "Not a valid value");
  if (kind === "ivr") {
    const input = parsed.data as IvrInput;
    return consoleId !== null ? updateIvr(deps, consoleId, input).id : createIvr(deps, input).id;
  }
  const input = parsed.data as AnnouncementInput;
  return consoleId !== null ? updateAnnouncement(deps, consoleId, input).id : createAnnouncement(deps, input).id;
}

interface Keep {
  events: Deps["events"];
  now: number;
  /** The reviewed plan: the writes are kept only when they are its own. */
  planned: CallFlowEntry[];
}

const signature = (entries: CallFlowEntry[]) => JSON.stringify(entries.map((e) => [e.kind, e.pbxId, e.action]));

/**
 * Each selected IVR's or announcement's import, and what it brings along, in the order the writes go (refused ones
 * last). Without `keep` every write is rolled back before this returns; with it they stay, recorded as managed
 * (origin "import", FreePBX's id), when they are the planned ones (else `Conflict`, nothing kept).
 */
function run(
  deps: Pick<Deps, "db">,
  tab: FlowKind,
  rows: PbxCallFlow[],
  input: ImportCallFlowInput,
  keep?: Keep,
): CallFlowEntry[] {
  const { db } = deps;
  const objects = flowObjects(rows);
  const side = consoleSide(db, objects);
  const { selected, missing } = selection(objects, tab, input);
  const reasons = new Map<string, string>();
  const refuse = (o: FlowObject, why: string) => reasons.set(o.id, `${o.name}: ${why}`);
  for (;;) {
    const members = closure(selected, objects, side, new Set(reasons.keys()));
    for (const id of members.keys()) {
      const o = objects.get(id);
      if (o?.problem && !reasons.has(id)) refuse(o, o.problem);
    }
    // An object the console does not hold that cannot be imported refuses those that need it.
    let cascaded = false;
    for (const id of members.keys()) {
      const o = objects.get(id);
      if (!o || reasons.has(id)) continue;
      const gone = targetsOf(o).find((t) => reasons.has(t) && !side.match.has(t));
      const target = gone ? objects.get(gone) : undefined;
      if (!target) continue;
      refuse(o, `It sends calls to ${what(target)}, which cannot be imported`);
      cascaded = true;
    }
    if (cascaded) continue;

    const live = [...members.keys()].filter((id) => !reasons.has(id));
    const { order, deferred } = writeOrder(live, objects);
    const planned = new Map<string, CallFlowEntry>();
    for (const id of order) {
      const o = objects.get(id) as FlowObject & { shape: IvrShape | AnnouncementShape };
      const consoleId = side.match.get(id) ?? null;
      const mine = consoleId === null ? null : shownConsole(side, o.kind, consoleId);
      const raw = changes(mine, shownPbx(side, objects, o.shape));
      const record = side.records.get(id);
      const neededBy = members.get(id);
      const by = neededBy ? objects.get(neededBy) : undefined;
      planned.set(id, {
        kind: o.kind,
        pbxId: o.pbxId,
        label: o.name,
        action: consoleId === null ? "create" : raw.length ? "update" : "unchanged",
        raw,
        consoleId,
        adopt: !record,
        notes: [...(by ? [`Imported with ${what(by)}, which sends calls to it`] : []), ...o.notes],
        ...(record ? { record } : {}),
      });
    }

    const written = new Map<string, number>();
    const consoleIdOf = (id: string) => {
      const n = side.match.get(id) ?? written.get(id);
      if (n === undefined) throw new Error(`${id} is not written yet`);
      return n;
    };
    const told: Parameters<Deps["events"]["publish"]>[0][] = [];
    const sink = { db, events: { publish: (e: (typeof told)[number]) => void told.push(e) } };
    let failed: string | null = null;
    db.run(sql`SAVEPOINT sync_call_flow`);
    try {
      const pass = (ids: string[], skip: (id: string) => Set<string>) => {
        for (const id of ids) {
          const e = planned.get(id) as CallFlowEntry;
          const o = objects.get(id) as FlowObject & { shape: IvrShape | AnnouncementShape };
          if (e.action === "unchanged") {
            written.set(id, e.consoleId as number);
            continue;
          }
          try {
            const values = inputOf(o.shape, consoleIdOf, skip(id));
            written.set(id, writeOne(sink, o.kind, written.get(id) ?? e.consoleId, values));
          } catch (err) {
            if (!(err instanceof DomainError)) throw err;
            refuse(o, err.message);
            failed = id;
            return;
          }
        }
      };
      pass(order, (id) => deferred.get(id) ?? new Set());
      if (failed === null) pass([...deferred.keys()], () => new Set());
      if (failed === null && keep) {
        const entries = [...planned.values()];
        for (const e of entries) e.consoleId = written.get(flowId(e.kind, e.pbxId)) ?? e.consoleId;
        const all = finish(entries, reasons, objects, missing, tab);
        if (signature(all) !== signature(keep.planned)) throw new Conflict(STALE_PLAN_MESSAGE);
        for (const e of entries) if (e.action !== "unchanged" || e.adopt) record(db, side, keep.now, e);
        db.run(sql`RELEASE SAVEPOINT sync_call_flow`);
        for (const t of told) keep.events.publish(t);
        return all;
      }
    } catch (err) {
      db.run(sql`ROLLBACK TO SAVEPOINT sync_call_flow`);
      db.run(sql`RELEASE SAVEPOINT sync_call_flow`);
      throw err;
    }
    db.run(sql`ROLLBACK TO SAVEPOINT sync_call_flow`);
    db.run(sql`RELEASE SAVEPOINT sync_call_flow`);
    if (failed === null) return finish([...planned.values()], reasons, objects, missing, tab);
  }
}

/**
 * Records that the console manages the PBX object (origin "import", FreePBX's id). A record of a console object
 * deleted since that still names this FreePBX id goes: the import takes the object back, so the next deploy must
 * not delete it.
 */
function record(db: Deps["db"], side: ConsoleSide, now: number, e: CallFlowEntry): void {
  const rows = e.kind === "ivr" ? side.ivrs : side.announcements;
  for (const r of managedOf(db, [e.kind]))
    if (r.pbxId === e.pbxId && r.key !== e.record?.key && (r.consoleId === null || !rows.has(r.consoleId)))
      forgetManaged(db, e.kind, r.key);
  recordManaged(db, now, {
    kind: e.kind,
    key: e.label,
    pbxId: e.pbxId,
    consoleId: e.consoleId,
    origin: "import",
    previousKey: e.record?.key,
  });
}

/** The written entries, then the refused ones, then the selected ids no longer on the PBX. */
function finish(
  entries: CallFlowEntry[],
  reasons: Map<string, string>,
  objects: Map<string, FlowObject>,
  missing: string[],
  tab: FlowKind,
): CallFlowEntry[] {
  const refused = [...reasons.entries()].flatMap(([id, reason]) => {
    const o = objects.get(id);
    return o
      ? [
          {
            kind: o.kind,
            pbxId: o.pbxId,
            label: o.name,
            action: "refused" as const,
            raw: [],
            consoleId: null,
            adopt: false,
            reason,
            notes: [],
          },
        ]
      : [];
  });
  const gone = missing.map((n) => ({
    kind: tab,
    pbxId: n,
    label: n,
    action: "refused" as const,
    raw: [],
    consoleId: null,
    adopt: false,
    reason: `${WHAT[tab]} ${n} is not on the PBX (any more)`,
    notes: [],
  }));
  return [...entries, ...refused, ...gone];
}

/** What importing the selection does, per object; every write it tries is rolled back. */
export const planCallFlowImport = (
  deps: Pick<Deps, "db">,
  tab: FlowKind,
  rows: PbxCallFlow[],
  input: ImportCallFlowInput,
): CallFlowEntry[] => run(deps, tab, rows, input);

/**
 * Imports the selection (the job's writes, all at once and synchronously: nothing else writes in between) when
 * it does what the reviewed plan says; `Conflict` with nothing kept otherwise. Answers the entries with the
 * console ids written.
 */
export const importCallFlow = (
  deps: Pick<Deps, "db" | "events" | "now">,
  tab: FlowKind,
  rows: PbxCallFlow[],
  input: ImportCallFlowInput,
  planned: CallFlowEntry[],
): CallFlowEntry[] => run(deps, tab, rows, input, { events: deps.events, now: deps.now(), planned });
