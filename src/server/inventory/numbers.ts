/**
 * The dial-plan number rule, in one place: extensions, PTT (page) groups, ring groups and queues
 * share FreePBX's number space, so a number belongs to at most one of them.
 * Used by extension, PTT-group, ring-group and queue creation and edits, the wizard and the sync import.
 */
import { eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { extensions, pttGroups, queues, ringGroups } from "../../db/schema";
import { Conflict } from "../core/errors";

/** The database, or a transaction on it (the wizard checks its numbers inside its transaction). */
export type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

export type NumberOwner =
  | { kind: "extension" }
  | { kind: "ptt-group"; name: string }
  | { kind: "ring-group"; name: string }
  | { kind: "queue"; name: string };

/** What a new number is wanted for. */
export type NumberUse = NumberOwner["kind"];

/** Who holds this number in the console, or null when it is free. */
export function numberOwner(db: DbOrTx, number: string): NumberOwner | null {
  if (db.select({ id: extensions.id }).from(extensions).where(eq(extensions.extension, number)).get()) {
    return { kind: "extension" };
  }
  const group = db.select({ name: pttGroups.name }).from(pttGroups).where(eq(pttGroups.extension, number)).get();
  if (group) return { kind: "ptt-group", name: group.name };
  const ring = db.select({ name: ringGroups.name }).from(ringGroups).where(eq(ringGroups.number, number)).get();
  if (ring) return { kind: "ring-group", name: ring.name };
  const queue = db.select({ name: queues.name }).from(queues).where(eq(queues.number, number)).get();
  return queue ? { kind: "queue", name: queue.name } : null;
}

/** The numbers of `numbers` that an extension, a PTT group, a ring group or a queue already holds. */
export function takenNumbers(db: DbOrTx, numbers: string[]): Set<string> {
  if (numbers.length === 0) return new Set();
  return new Set([
    ...db
      .select({ n: extensions.extension })
      .from(extensions)
      .where(inArray(extensions.extension, numbers))
      .all()
      .map((r) => r.n),
    ...db
      .select({ n: pttGroups.extension })
      .from(pttGroups)
      .where(inArray(pttGroups.extension, numbers))
      .all()
      .map((r) => r.n),
    ...db
      .select({ n: ringGroups.number })
      .from(ringGroups)
      .where(inArray(ringGroups.number, numbers))
      .all()
      .map((r) => r.n),
    ...db
      .select({ n: queues.number })
      .from(queues)
      .where(inArray(queues.number, numbers))
      .all()
      .map((r) => r.n),
  ]);
}

/** Why `number` cannot be given to a new extension / PTT group / ring group / queue, or null when it can. */
export function numberTakenMessage(db: DbOrTx, number: string, wanted: NumberUse): string | null {
  const owner = numberOwner(db, number);
  if (!owner) return null;
  if (owner.kind === "ptt-group") return `${number} is already the number of PTT group ${owner.name}`;
  if (owner.kind === "ring-group") return `${number} is already the number of ring group ${owner.name}`;
  if (owner.kind === "queue") return `${number} is already the number of queue ${owner.name}`;
  return wanted === "extension" ? `Extension ${number} already exists` : `${number} is already an extension`;
}

/** Throws `Conflict` (on `field`: the form's number field) when the number is taken. */
export function assertNumberFree(db: DbOrTx, number: string, wanted: NumberUse, field = "extension"): void {
  const message = numberTakenMessage(db, number, wanted);
  if (message) throw new Conflict(message, { [field]: message });
}
