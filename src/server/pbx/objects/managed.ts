/**
 * Which PBX objects the console manages (`pbx_objects`, ADR 0025): created by a deploy, adopted by a sync
 * import, or adopted when the user resolved a conflict. The console never changes or deletes an object
 * that has no record here; trunks and outbound routes are found by their recorded PBX id (trunkid,
 * route_id), so a rename updates the same object.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { pbxObjects } from "../../../db/schema";
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
    /** A page group's members as this write left them (`deployedMembers`); undefined keeps what is recorded. */
    members?: string[];
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
      .set({
        key: r.key,
        pbxId: r.pbxId ?? prior.pbxId,
        consoleId: r.consoleId,
        deployedMembers: r.members ?? prior.deployedMembers,
        updatedAt: at,
      })
      .where(eq(pbxObjects.id, prior.id))
      .run();
    return;
  }
  db.insert(pbxObjects)
    .values({
      kind: r.kind,
      key: r.key,
      pbxId: r.pbxId,
      consoleId: r.consoleId,
      deployedMembers: r.members ?? null,
      origin: r.origin,
      updatedAt: at,
    })
    .run();
}

/** The object was deleted from the PBX: the console no longer manages it. */
export function forgetManaged(db: Db, kind: ItemKind, key: string): void {
  db.delete(pbxObjects)
    .where(and(eq(pbxObjects.kind, kind), eq(pbxObjects.key, key)))
    .run();
}

/**
 * What changing a deployed object's key (its number, name or DID) does on the PBX (ADR 0036, "Changing
 * the key of a deployed object"). One rule for the edit (which refuses) and the plan (which matches a
 * moved object to its record by console row):
 * - `refuse`: the key is the object's identity in FreePBX and other objects dial it (extension and page
 *   group numbers): a renumber would be a delete and a create, losing what was set in FreePBX, so the
 *   edit is refused (409) while the console manages the object;
 * - `move`: the same FreePBX row takes the new key, keeping every setting (an inbound route's DID, as
 *   FreePBX's own DID edit does);
 * - `by-id`: found by its recorded PBX id (trunkid, route_id, an IVR's or announcement's id): a rename updates
 *   the same object.
 */
export const KEY_CHANGE: Record<ItemKind, "refuse" | "move" | "by-id"> = {
  extension: "refuse",
  pttGroup: "refuse",
  ringGroup: "refuse",
  queue: "refuse",
  inboundRoute: "move",
  trunk: "by-id",
  outboundRoute: "by-id",
  ivr: "by-id",
  announcement: "by-id",
  timeGroup: "by-id",
  timeCondition: "by-id",
};

/** The record of a console row (by its row, else by its current key). */
export function recordOf(db: Db, kind: ItemKind, consoleId: number, key: string): ManagedRecord | undefined {
  return (
    db
      .select()
      .from(pbxObjects)
      .where(and(eq(pbxObjects.kind, kind), eq(pbxObjects.consoleId, consoleId)))
      .get() ??
    db
      .select()
      .from(pbxObjects)
      .where(and(eq(pbxObjects.kind, kind), eq(pbxObjects.key, key)))
      .get()
  );
}

/**
 * Why a console object's key cannot change from `from` to `to`, or null when it can: an extension or PTT
 * group the console has deployed (`KEY_CHANGE` "refuse") keeps its number.
 */
export function keyChangeRefusal(db: Db, kind: ItemKind, consoleId: number, from: string, to: string): string | null {
  if (from === to || KEY_CHANGE[kind] !== "refuse" || !recordOf(db, kind, consoleId, from)) return null;
  if (kind === "extension")
    return `Extension ${from} is deployed to the PBX, and an extension's number cannot change in FreePBX (it would be deleted and created again, losing what was set for it in FreePBX). To use ${to}: create extension ${to}, move its users and phones to it, then delete ${from}.`;
  if (kind === "ringGroup")
    return `Ring group ${from} is deployed to the PBX, and a ring group's number cannot change in FreePBX (it would be deleted and created again, losing what was set for it in FreePBX). To use ${to}: create ring group ${to} with the same members, point its callers at it, then delete ${from}.`;
  if (kind === "queue")
    return `Queue ${from} is deployed to the PBX, and a queue's number cannot change in FreePBX (it would be deleted and created again, losing what was set for it in FreePBX). To use ${to}: create queue ${to} with the same agents, point its callers at it, then delete ${from}.`;
  return `PTT group ${from} is deployed to the PBX as page group ${from}, and its number cannot change there (it would be deleted and created again, losing what was set for it in FreePBX). To use ${to}: create a PTT group ${to} with the same members, then delete ${from}.`;
}

/**
 * The members the console last wrote to a page group (`pbx_objects.deployed_members`), so a member
 * removed in the console is removed from FreePBX and one added in FreePBX is kept. Null when unknown (a
 * record written before the column): then members are only added.
 */
export function deployedMembers(r: ManagedRecord | undefined): string[] | null {
  if (r?.kind !== "pttGroup") return null;
  const list: unknown = r.deployedMembers;
  return Array.isArray(list) && list.every((m) => typeof m === "string") ? list : null;
}

/** A roll back undid a move (an inbound route's DID): the record goes back to the key the PBX has again. */
export function rekeyManaged(db: Db, kind: ItemKind, from: string, to: string): void {
  const taken = db
    .select()
    .from(pbxObjects)
    .where(and(eq(pbxObjects.kind, kind), eq(pbxObjects.key, to)))
    .get();
  if (taken) return;
  db.update(pbxObjects)
    .set({ key: to })
    .where(and(eq(pbxObjects.kind, kind), eq(pbxObjects.key, from)))
    .run();
}
