/**
 * The console's side of a plan (ADR 0025): the console objects of a target as FreePBX rows (ownership.ts),
 * each with the console row it comes from, and the ones whose values cannot be written (refused).
 */
import { asc } from "drizzle-orm";
import {
  announcements,
  extensions,
  inboundRoutes,
  ivrs,
  outboundRoutes,
  pttGroups,
  queues,
  ringGroups,
  timeConditions,
  timeGroups,
  trunks,
} from "../../../db/schema";
import type { PlanRefused, PlanTarget } from "../../../shared/plan";
import { byNumber } from "../../../shared/sort";
import type { Deps } from "../../core/deps";
import { withOpenSecret } from "../../inventory/sip-secrets";
import { UnsafeValueError } from "../host/sql";
import { announcementObject, ivrObject, timeConditionObject, timeGroupObject } from "../objects/call-flow";
import { deployedMembers, type ManagedRecord, managedOf } from "../objects/managed";
import {
  type ExtensionRow,
  extensionObject,
  type InboundRow,
  type ItemKind,
  inboundObject,
  outboundObject,
  type PbxObject,
  type PttRow,
  pttObject,
  queueObject,
  ringGroupObject,
  routeOrders,
  type TrunkRow,
  trunkObject,
} from "../objects/ownership";
import { refBook } from "../objects/refs";

const TARGET_KINDS: Record<PlanTarget, ItemKind[]> = {
  trunks: ["trunk"],
  extensions: ["extension"],
  "ptt-groups": ["pttGroup"],
  "ring-groups": ["ringGroup"],
  queues: ["queue"],
  ivrs: ["ivr"],
  announcements: ["announcement"],
  "time-groups": ["timeGroup"],
  // A time condition reads its time group: they go together.
  "time-conditions": ["timeGroup", "timeCondition"],
  // "all" is everything but PTT groups (as the Deploy All button always did); ring groups, queues, IVRs and
  // announcements are in it, since inbound routes send calls to them (the plan orders them after extensions,
  // before inbound routes).
  all: [
    "trunk",
    "extension",
    "ringGroup",
    "queue",
    "announcement",
    "ivr",
    "timeGroup",
    "timeCondition",
    "outboundRoute",
    "inboundRoute",
  ],
};
/** The kinds of object a deploy target covers. */
export const kindsOf = (target: PlanTarget): ItemKind[] => TARGET_KINDS[target];

/** A console object as FreePBX rows, with the console row it comes from. */
export interface Desired {
  object: PbxObject;
  consoleId: number;
  /** The console row (secrets opened): the FreePBX API path writes from it. */
  row: ExtensionRow | InboundRow | TrunkRow | Record<string, unknown>;
}

/** The console objects of these kinds as FreePBX rows; one with a value that cannot be written is refused, with why. */
export function desiredObjects(
  deps: Pick<Deps, "db" | "box">,
  kinds: ItemKind[],
  records: ManagedRecord[],
): { desired: Desired[]; refused: PlanRefused[] } {
  const desired: Desired[] = [];
  const refused: PlanRefused[] = [];
  const add = <T extends { id: number }>(
    kind: ItemKind,
    rows: T[],
    key: (r: T) => string,
    build: (r: T) => PbxObject,
  ) => {
    for (const r of rows) {
      try {
        desired.push({ object: build(r), consoleId: r.id, row: r as unknown as Desired["row"] });
      } catch (err) {
        if (!(err instanceof UnsafeValueError)) throw err;
        refused.push({ kind, key: key(r), reason: err.message });
      }
    }
  };
  const { db, box } = deps;
  // The IVRs and announcements destinations point at, with the FreePBX ids recorded for them (ADR 0059).
  const book = refBook(db, [...records, ...managedOf(db, ["ivr", "announcement", "timeGroup", "timeCondition"])]);
  const allTrunks = db
    .select()
    .from(trunks)
    .orderBy(asc(trunks.id))
    .all()
    .map((t) => withOpenSecret(box, t));
  const trunkRecord = (consoleId: number) => records.find((r) => r.kind === "trunk" && r.consoleId === consoleId);
  if (kinds.includes("trunk")) add("trunk", allTrunks, (t) => t.name, trunkObject);
  if (kinds.includes("extension")) {
    const rows = db
      .select()
      .from(extensions)
      .all()
      .sort((a, b) => byNumber(a.extension, b.extension))
      .map((e) => withOpenSecret(box, e));
    add("extension", rows, (e) => e.extension, extensionObject);
  }
  if (kinds.includes("outboundRoute")) {
    const rows = db.select().from(outboundRoutes).orderBy(asc(outboundRoutes.position), asc(outboundRoutes.id)).all();
    // In dial order; the console's routes on the PBX are those with its names or its recorded route_ids (ADR 0040).
    const routePbxIds = records.flatMap((r) => (r.kind === "outboundRoute" && r.pbxId ? [r.pbxId] : []));
    const orders = routeOrders(rows, routePbxIds);
    const orderOf = new Map(rows.map((r, i) => [r.id, orders[i]]));
    add(
      "outboundRoute",
      rows,
      (r) => r.name,
      (r) => {
        const trunk = allTrunks.find((t) => t.id === r.trunkId);
        const o = outboundObject(r, trunk, orderOf.get(r.id));
        const tid = trunk ? trunkRecord(trunk.id)?.pbxId : null;
        if (tid && o.identity.kind === "outboundRoute") o.identity = { ...o.identity, trunkPbxId: tid };
        return o;
      },
    );
  }
  if (kinds.includes("inboundRoute"))
    add(
      "inboundRoute",
      db.select().from(inboundRoutes).orderBy(asc(inboundRoutes.id)).all(),
      (r) => r.didNumber ?? "",
      (r) => inboundObject(r, book),
    );
  if (kinds.includes("ringGroup")) {
    const rows = db
      .select()
      .from(ringGroups)
      .all()
      .sort((a, b) => byNumber(a.number, b.number));
    add(
      "ringGroup",
      rows,
      (g) => g.number,
      (g) => ringGroupObject(g, book),
    );
  }
  if (kinds.includes("queue")) {
    const rows = db
      .select()
      .from(queues)
      .all()
      .sort((a, b) => byNumber(a.number, b.number));
    add(
      "queue",
      rows,
      (q) => q.number,
      (q) => queueObject(q, book),
    );
  }
  if (kinds.includes("announcement")) {
    const rows = db.select().from(announcements).all();
    add(
      "announcement",
      rows,
      (a) => a.name,
      (a) => announcementObject(a, book),
    );
  }
  if (kinds.includes("ivr")) {
    const rows = db.select().from(ivrs).all();
    add(
      "ivr",
      rows,
      (i) => i.name,
      (i) => ivrObject(i, book),
    );
  }
  if (kinds.includes("timeGroup")) {
    const rows = db.select().from(timeGroups).all();
    add(
      "timeGroup",
      rows,
      (g) => g.name,
      (g) => timeGroupObject(g, book),
    );
  }
  if (kinds.includes("timeCondition")) {
    const rows = db.select().from(timeConditions).all();
    add(
      "timeCondition",
      rows,
      (t) => t.name,
      (t) => timeConditionObject(t, book),
    );
  }
  if (kinds.includes("pttGroup")) {
    const rows = db
      .select()
      .from(pttGroups)
      .all()
      .sort((a, b) => byNumber(a.extension, b.extension));
    // The members the console wrote last (its record) are the ones a removal in the console takes away (ADR 0036).
    const recordOfGroup = (g: PttRow) => records.find((r) => r.kind === "pttGroup" && r.key === g.extension);
    add(
      "pttGroup",
      rows,
      (g) => g.extension,
      (g) => pttObject(g, deployedMembers(recordOfGroup(g))),
    );
  }
  return { desired, refused };
}

/** The console's objects of a target (and the ones it cannot deploy), without reading the PBX. */
export function consoleObjects(deps: Pick<Deps, "db" | "box">, target: PlanTarget) {
  const kinds = kindsOf(target);
  return desiredObjects(deps, kinds, managedOf(deps.db, kinds));
}
