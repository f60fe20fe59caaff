/**
 * Which PBX objects the console manages (`pbx_objects`, ADR 0025): created by a deploy, adopted by a sync
 * import, or adopted when the user resolved a conflict. The console never changes or deletes an object
 * that has no record here; trunks and outbound routes are found by their recorded PBX id (trunkid,
 * route_id), so a rename updates the same object.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { pbxObjects } from "../../db/schema";
import type { ItemKind } from "./ownership";

export type ManagedRecord = typeof pbxObjects.$inferSelect;
export type Origin = ManagedRecord["origin"];

/** Every record of these kinds. */
export function managedOf(db: Db, kinds: ItemKind[]): ManagedRecord[] {
  return db
    .select()
    .from(pbxObjects)
    .all()
    .filter((r) => kinds.includes(r.kind));
}

/**
 * Records that the console manages an object (or that its key, PBX id or console row changed). The
 * origin of an existing record is kept (a deployed object stays "deploy" when it is updated).
 */
export function recordManaged(
  db: Db,
  now: number,
  r: {
    kind: ItemKind;
    key: string;
    pbxId: string | null;
    consoleId: number | null;
    origin: Origin;
    previousKey?: string;
  },
): void {
  const at = new Date(now);
  const prior =
    (r.previousKey !== undefined
      ? db
          .select()
          .from(pbxObjects)
          .where(and(eq(pbxObjects.kind, r.kind), eq(pbxObjects.key, r.previousKey)))
          .get()
      : undefined) ??
    db
      .select()
      .from(pbxObjects)
      .where(and(eq(pbxObjects.kind, r.kind), eq(pbxObjects.key, r.key)))
      .get();
  if (prior) {
    // A rename moves the record to the new key; a stale record already holding that key goes.
    if (prior.key !== r.key)
      db.delete(pbxObjects)
        .where(and(eq(pbxObjects.kind, r.kind), eq(pbxObjects.key, r.key)))
        .run();
    db.update(pbxObjects)
      .set({ key: r.key, pbxId: r.pbxId ?? prior.pbxId, consoleId: r.consoleId, updatedAt: at })
      .where(eq(pbxObjects.id, prior.id))
      .run();
    return;
  }
  db.insert(pbxObjects)
    .values({ kind: r.kind, key: r.key, pbxId: r.pbxId, consoleId: r.consoleId, origin: r.origin, updatedAt: at })
    .run();
}

/** The object was deleted from the PBX: the console no longer manages it. */
export function forgetManaged(db: Db, kind: ItemKind, key: string): void {
  db.delete(pbxObjects)
    .where(and(eq(pbxObjects.kind, kind), eq(pbxObjects.key, key)))
    .run();
}
