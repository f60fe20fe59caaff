/**
 * The Config Generator's walk (ADR 0032): the console's objects as FreePBX items, in dependency order
 * (trunks, extensions, ring groups, queues, announcements, IVRs, outbound then inbound routes, page groups), read
 * and built batch by batch
 * so 50,000 extensions never sit in memory at once; an object FreePBX cannot hold is a refusal, not an error.
 */
import { asc, inArray } from "drizzle-orm";
import type { Db } from "../../../db/client";
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
import { byNumber } from "../../../shared/sort";
import { withOpenSecret } from "../../inventory/sip-secrets";
import type { SecretBox } from "../../secret-box";
import { UnsafeValueError } from "../host/sql";
import { announcementObject, ivrObject, timeConditionObject, timeGroupObject } from "../objects/call-flow";
import {
  extensionItem,
  type ItemKind,
  objectItem,
  outboundItem,
  pttItem,
  type SqlItem,
  type TrunkRow,
  trunkItem,
} from "../objects/entities";
import { managedOf } from "../objects/managed";
import { inboundObject, queueObject, ringGroupObject, routeOrders } from "../objects/ownership";
import { refBook } from "../objects/refs";

export interface Refused {
  kind: ItemKind;
  key: string;
  reason: string;
}

/** One object of the walk: its item, or why FreePBX cannot hold it. */
export type Entry = { item: SqlItem; refused?: undefined } | { item?: undefined; refused: Refused };

/** Rows read (and secrets opened) per query: the walk holds at most this many at a time. */
export const BATCH = 500;

/** One kind of object: its ids in script order (read at once, they are small) and how to build a row. */
interface Source {
  kind: ItemKind;
  ids: number[];
  /** The rows of these ids, in any order (a row deleted since the ids were read is absent). */
  load: (ids: number[]) => { id: number }[];
  key: (row: never) => string;
  build: (row: never) => SqlItem;
}

function source<R extends { id: number }>(
  kind: ItemKind,
  ids: number[],
  load: (ids: number[]) => R[],
  key: (row: R) => string,
  build: (row: R) => SqlItem,
): Source {
  return { kind, ids, load, key, build } as unknown as Source;
}

/**
 * What the walk will visit, in dependency order (trunks before routes). Reads every kind's ids now, so a
 * database failure happens before an answer has started; the rows themselves are read batch by batch.
 */
function plan(db: Db, box: SecretBox): Source[] {
  const out: Source[] = [];
  const numbered = (rows: { id: number; extension: string }[]) =>
    rows.sort((a, b) => byNumber(a.extension, b.extension)).map((r) => r.id);
  // IVRs and announcements are found on the PBX by the ids recorded for them, else by name (ADR 0059).
  const book = refBook(db, managedOf(db, ["ivr", "announcement", "timeGroup", "timeCondition"]));
  const named = (rows: { id: number; name: string }[]) =>
    rows.sort((a, b) => a.name.localeCompare(b.name)).map((r) => r.id);
  // One block per kind, in the order the script writes them.
  {
    const ids = db.select({ id: trunks.id }).from(trunks).orderBy(asc(trunks.id)).all();
    out.push(
      source(
        "trunk",
        ids.map((r) => r.id),
        (batch) => db.select().from(trunks).where(inArray(trunks.id, batch)).all(),
        (t) => t.name,
        (t) => trunkItem(withOpenSecret(box, t)),
      ),
    );
  }
  {
    const ids = numbered(db.select({ id: extensions.id, extension: extensions.extension }).from(extensions).all());
    out.push(
      source(
        "extension",
        ids,
        (batch) => db.select().from(extensions).where(inArray(extensions.id, batch)).all(),
        (e) => e.extension,
        (e) => extensionItem(withOpenSecret(box, e)),
      ),
    );
  }
  // Ring groups after the extensions they ring, before the inbound routes that send calls to them.
  {
    const ids = db
      .select({ id: ringGroups.id, number: ringGroups.number })
      .from(ringGroups)
      .all()
      .sort((a, b) => byNumber(a.number, b.number))
      .map((r) => r.id);
    out.push(
      source(
        "ringGroup",
        ids,
        (batch) => db.select().from(ringGroups).where(inArray(ringGroups.id, batch)).all(),
        (g) => g.number,
        (g) => objectItem(ringGroupObject(g, book)),
      ),
    );
  }
  // Queues likewise: after their agents, before the inbound routes.
  {
    const ids = db
      .select({ id: queues.id, number: queues.number })
      .from(queues)
      .all()
      .sort((a, b) => byNumber(a.number, b.number))
      .map((r) => r.id);
    out.push(
      source(
        "queue",
        ids,
        (batch) => db.select().from(queues).where(inArray(queues.id, batch)).all(),
        (q) => q.number,
        (q) => objectItem(queueObject(q, book)),
      ),
    );
  }
  // Announcements and IVRs before the inbound routes; their destinations to each other come last (entities.ts).
  out.push(
    source(
      "announcement",
      named(db.select({ id: announcements.id, name: announcements.name }).from(announcements).all()),
      (batch) => db.select().from(announcements).where(inArray(announcements.id, batch)).all(),
      (a) => a.name,
      (a) => objectItem(announcementObject(a, book)),
    ),
    source(
      "ivr",
      named(db.select({ id: ivrs.id, name: ivrs.name }).from(ivrs).all()),
      (batch) => db.select().from(ivrs).where(inArray(ivrs.id, batch)).all(),
      (i) => i.name,
      (i) => objectItem(ivrObject(i, book)),
    ),
    source(
      "timeGroup",
      named(db.select({ id: timeGroups.id, name: timeGroups.name }).from(timeGroups).all()),
      (batch) => db.select().from(timeGroups).where(inArray(timeGroups.id, batch)).all(),
      (g) => g.name,
      (g) => objectItem(timeGroupObject(g, book)),
    ),
    source(
      "timeCondition",
      named(db.select({ id: timeConditions.id, name: timeConditions.name }).from(timeConditions).all()),
      (batch) => db.select().from(timeConditions).where(inArray(timeConditions.id, batch)).all(),
      (t) => t.name,
      (t) => objectItem(timeConditionObject(t, book)),
    ),
  );
  {
    // In dial order: each route takes its place among the console's routes in FreePBX's sequence (ADR 0040).
    const ids = db
      .select({ id: outboundRoutes.id, name: outboundRoutes.name })
      .from(outboundRoutes)
      .orderBy(asc(outboundRoutes.position), asc(outboundRoutes.id))
      .all();
    const orders = routeOrders(ids);
    const orderOf = new Map(ids.map((r, i) => [r.id, orders[i]]));
    // A route names its trunk; the console holds a handful of trunks (their secrets stay sealed: unused).
    let byId: Map<number, TrunkRow> | undefined;
    const trunkOf = (id: number | null) => {
      byId ??= new Map(
        db
          .select()
          .from(trunks)
          .all()
          .map((t) => [t.id, t]),
      );
      return id === null ? undefined : byId.get(id);
    };
    out.push(
      source(
        "outboundRoute",
        ids.map((r) => r.id),
        (batch) => db.select().from(outboundRoutes).where(inArray(outboundRoutes.id, batch)).all(),
        (r) => r.name,
        (r) => outboundItem(r, trunkOf(r.trunkId), orderOf.get(r.id)),
      ),
    );
  }
  {
    const ids = db.select({ id: inboundRoutes.id }).from(inboundRoutes).orderBy(asc(inboundRoutes.id)).all();
    out.push(
      source(
        "inboundRoute",
        ids.map((r) => r.id),
        (batch) => db.select().from(inboundRoutes).where(inArray(inboundRoutes.id, batch)).all(),
        (r) => r.didNumber ?? "",
        (r) => objectItem(inboundObject(r, book)),
      ),
    );
  }
  {
    const ids = numbered(db.select({ id: pttGroups.id, extension: pttGroups.extension }).from(pttGroups).all());
    out.push(
      source(
        "pttGroup",
        ids,
        (batch) => db.select().from(pttGroups).where(inArray(pttGroups.id, batch)).all(),
        (g) => g.extension,
        pttItem,
      ),
    );
  }
  return out;
}

/** Walks the planned objects batch by batch, building each one's item (or its refusal) as it is reached. */
function* walk(sources: Source[]): Generator<Entry, void, undefined> {
  for (const s of sources) {
    const key = s.key as (row: unknown) => string;
    const build = s.build as (row: unknown) => SqlItem;
    for (let i = 0; i < s.ids.length; i += BATCH) {
      const ids = s.ids.slice(i, i + BATCH);
      const rows = new Map(s.load(ids).map((r) => [r.id, r]));
      for (const id of ids) {
        const row = rows.get(id);
        if (row === undefined) continue;
        let entry: Entry;
        try {
          entry = { item: build(row) };
        } catch (err) {
          if (!(err instanceof UnsafeValueError)) throw err;
          entry = { refused: { kind: s.kind, key: key(row), reason: err.message } };
        }
        yield entry;
      }
    }
  }
}

/**
 * The console's objects as FreePBX items, in dependency order (trunks before routes), one at a time.
 * The ids are read at once (a failure throws here); rows are read and SIP secrets opened per batch. The
 * items carry the secrets in clear, as FreePBX stores them.
 */
export function inventoryEntries(db: Db, box: SecretBox): Iterable<Entry> {
  const sources = plan(db, box);
  return { [Symbol.iterator]: () => walk(sources) };
}
