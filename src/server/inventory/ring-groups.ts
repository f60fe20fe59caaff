/**
 * Ring groups (FreePBX's ringgroups): a number that rings its members with a strategy, then sends an
 * unanswered call to its no-answer destination. The number shares the dial plan with extensions and PTT
 * groups and queues (`numbers.ts`); a member is a console extension, or an external number written as
 * FreePBX writes it (`5551234#`). A ring group that an inbound route, another ring group or a queue sends
 * calls to cannot be deleted or renumbered: they are named (ADR 0056).
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import { extensions, ringGroups } from "../../db/schema";
import type { Destination } from "../../shared/destinations";
import { isExternalMember, type RingGroup, type ringGroupPatchSchema, ringGroupSchema } from "../../shared/inventory";
import { type DeleteAnswer, type Dependents, KIND_WORDS } from "../../shared/safe-delete";
import { byNumber } from "../../shared/sort";
import type { Deps } from "../core/deps";
import { Conflict, Gone, Invalid, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { keyChangeRefusal } from "../pbx/objects/managed";
import { checkDestination, sendersDependents, sendersTo } from "./call-targets";
import { assertNumberFree, type DbOrTx, numberTakenMessage } from "./numbers";
import { mergePatch } from "./patch";

export type RingGroupRow = typeof ringGroups.$inferSelect;
export type RingGroupInput = z.output<typeof ringGroupSchema>;
export type RingGroupPatch = z.output<typeof ringGroupPatchSchema>;

const noAnswerOf = (row: RingGroupRow): Destination | null =>
  row.noAnswerKind ? { kind: row.noAnswerKind, target: row.noAnswerTarget ?? "" } : null;

/** The wire form. */
export function toRingGroup(row: RingGroupRow): RingGroup {
  const { noAnswerKind: _kind, noAnswerTarget: _target, ...rest } = row;
  return { ...rest, noAnswer: noAnswerOf(row), createdAt: row.createdAt.toISOString() };
}

/** Every ring group, in numeric order of its number. */
export function listRingGroups(deps: Pick<Deps, "db">): RingGroup[] {
  return deps.db
    .select()
    .from(ringGroups)
    .all()
    .sort((a, b) => byNumber(a.number, b.number))
    .map(toRingGroup);
}

function findRingGroup(db: DbOrTx, id: number): RingGroupRow {
  const row = db.select().from(ringGroups).where(eq(ringGroups.id, id)).get();
  if (!row) throw new NotFound("Ring group");
  return row;
}

/** The ring groups that ring this extension (in stored order). */
function ringGroupsWithMember(db: DbOrTx, number: string): RingGroupRow[] {
  return db
    .select()
    .from(ringGroups)
    .all()
    .filter((g) => g.members.includes(number));
}

/**
 * The ring groups that use an extension number, read in one query: those it is a member of, and those that
 * send their unanswered calls to it or to its voicemail.
 */
export function ringGroupUses(db: DbOrTx, number: string): { member: RingGroupRow[]; destination: RingGroupRow[] } {
  const all = db.select().from(ringGroups).all();
  return {
    member: all.filter((g) => g.members.includes(number)),
    destination: all.filter(
      (g) => (g.noAnswerKind === "extension" || g.noAnswerKind === "voicemail") && g.noAnswerTarget === number,
    ),
  };
}

/**
 * The members in ring order without repeats; `Invalid` on `members` naming any number without `#` that is
 * not a console extension (a typo would otherwise ring an outside number).
 */
function knownMembers(db: DbOrTx, given: string[]): string[] {
  const members = [...new Set(given)];
  const known = new Set(
    db
      .select({ n: extensions.extension })
      .from(extensions)
      .all()
      .map((r) => r.n),
  );
  const unknown = members.filter((m) => !isExternalMember(m) && !known.has(m));
  if (unknown.length) {
    const message = `Not existing extension(s): ${unknown.join(", ")} (an external number ends in #, e.g. 5551234#)`;
    throw new Invalid(message, { members: message });
  }
  return members;
}

/** The no-answer destination, checked where the console knows its target (call-targets.ts). */
const checkNoAnswer = (db: DbOrTx, number: string, d: Destination | null) =>
  checkDestination(db, "noAnswer.target", { kind: "ring-group", number }, d);

const rowValues = (input: RingGroupInput, members: string[]) => ({
  number: input.number,
  name: input.name,
  strategy: input.strategy,
  ringTime: input.ringTime,
  members,
  noAnswerKind: input.noAnswer?.kind ?? null,
  noAnswerTarget: input.noAnswer ? input.noAnswer.target : null,
});

/** Creates a ring group on a free number; members are extensions or external numbers (`…#`). */
export function createRingGroup(deps: Pick<Deps, "db" | "events">, input: RingGroupInput): RingGroup {
  const members = knownMembers(deps.db, input.members);
  assertNumberFree(deps.db, input.number, "ring-group", "number");
  checkNoAnswer(deps.db, input.number, input.noAnswer);
  const row = deps.db.insert(ringGroups).values(rowValues(input, members)).returning().get();
  deps.events.publish({ type: "ring-groups-updated", data: { id: row.id, action: "created" } });
  return toRingGroup(row);
}

/**
 * What sends calls to a ring group: inbound routes with it as their destination, ring groups with it as their
 * no-answer destination and queues with it as their timeout destination. Any of them blocks its delete and a
 * change of its number.
 */
export function ringGroupDependents(db: DbOrTx, row: RingGroupRow): Dependents {
  const senders = sendersTo(db, ["ring-group"], row.number);
  return sendersDependents(
    { ...senders, ringGroups: senders.ringGroups.filter((g) => g.id !== row.id) },
    `ring group ${row.number}`,
  );
}

/** GET /api/ring-groups/:id/dependents. */
export const dependentsOfRingGroup = (deps: Pick<Deps, "db">, id: number): Dependents =>
  ringGroupDependents(deps.db, findRingGroup(deps.db, id));

/** Deletes a ring group nothing sends calls to (409 naming them otherwise); the token restores it for a few seconds. */
export function deleteRingGroup(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findRingGroup(deps.db, id);
  const { blockedBecause } = ringGroupDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  deps.db.delete(ringGroups).where(eq(ringGroups.id, id)).run();
  deps.events.publish({ type: "ring-groups-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "ring-group", (d) => restoreRingGroup(d, row));
}

/** Puts a deleted ring group back as it was, unless its number was taken or an extension member deleted since. */
function restoreRingGroup(deps: RestoreDeps, row: RingGroupRow): RingGroup {
  const taken = numberTakenMessage(deps.db, row.number, "ring-group");
  if (taken) throw new Gone(`Ring group ${row.name} cannot be restored: ${taken}.`);
  const known = new Set(
    deps.db
      .select({ n: extensions.extension })
      .from(extensions)
      .all()
      .map((r) => r.n),
  );
  const gone = row.members.filter((m) => !isExternalMember(m) && !known.has(m));
  if (gone.length)
    throw new Gone(`Ring group ${row.name} cannot be restored: extension(s) ${gone.join(", ")} were deleted since.`);
  deps.db.insert(ringGroups).values(row).run();
  deps.events.publish({ type: "ring-groups-updated", data: { id: row.id, action: "created" } });
  return toRingGroup(row);
}

/**
 * Edits a ring group: the given fields over the stored ones, by the create rules. A new number must be free,
 * and is refused while the group is deployed (FreePBX cannot renumber it) or while something sends calls to
 * the old one (they are named).
 */
export function updateRingGroup(deps: Pick<Deps, "db" | "events">, id: number, patch: RingGroupPatch): RingGroup {
  const row = findRingGroup(deps.db, id);
  const current = {
    number: row.number,
    name: row.name,
    strategy: row.strategy,
    ringTime: row.ringTime,
    members: row.members,
    noAnswer: noAnswerOf(row),
  };
  const input = validate(ringGroupSchema, mergePatch(current, patch));
  const members = knownMembers(deps.db, input.members);
  if (input.number !== row.number) {
    const deployed = keyChangeRefusal(deps.db, "ringGroup", row.id, row.number, input.number);
    if (deployed) throw new Conflict(deployed, { number: deployed });
    assertNumberFree(deps.db, input.number, "ring-group", "number");
    const users = ringGroupDependents(deps.db, row).dependents;
    if (users.length) {
      const named = users.map((d) => `${KIND_WORDS[d.kind]} ${d.label}`);
      const message = `Ring group ${row.number} cannot become ${input.number} while ${named.join(", ")} send${users.length === 1 ? "s" : ""} calls to it. Change ${users.length === 1 ? "it" : "them"} first.`;
      throw new Conflict(message, { number: message });
    }
  }
  checkNoAnswer(deps.db, input.number, input.noAnswer);
  const updated = deps.db
    .update(ringGroups)
    .set(rowValues(input, members))
    .where(eq(ringGroups.id, id))
    .returning()
    .get();
  deps.events.publish({ type: "ring-groups-updated", data: { id, action: "updated" } });
  return toRingGroup(updated);
}

/**
 * An extension about to be deleted leaves the ring groups that ring it, as FreePBX's own extension delete
 * does (`Ringgroups::delDevice`); a group it is the only member of would ring nobody, so that blocks the
 * delete instead (`extensionDependents`). Returns what to put back on undo.
 */
export function leaveRingGroups(db: DbOrTx, number: string): { id: number; members: string[] }[] {
  const before: { id: number; members: string[] }[] = [];
  for (const g of ringGroupsWithMember(db, number)) {
    before.push({ id: g.id, members: g.members });
    db.update(ringGroups)
      .set({ members: g.members.filter((m) => m !== number) })
      .where(eq(ringGroups.id, g.id))
      .run();
  }
  return before;
}

/** Undo of `leaveRingGroups`: each group that still exists gets the extension back in its place. */
export function rejoinRingGroups(db: DbOrTx, number: string, before: { id: number; members: string[] }[]): void {
  for (const b of before) {
    const g = db.select().from(ringGroups).where(eq(ringGroups.id, b.id)).get();
    if (!g || g.members.includes(number)) continue;
    // Back in its old place among the members still there (ring order matters to hunt strategies).
    const kept = new Set(g.members);
    const order = b.members.filter((m) => m === number || kept.has(m));
    const members = [...order, ...g.members.filter((m) => !order.includes(m))];
    db.update(ringGroups).set({ members }).where(eq(ringGroups.id, b.id)).run();
  }
}

/** Every number some ring group rings. */
export const ringGroupMembers = (db: DbOrTx): Set<string> =>
  new Set(
    db
      .select({ members: ringGroups.members })
      .from(ringGroups)
      .all()
      .flatMap((g) => g.members),
  );
