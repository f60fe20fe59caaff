/**
 * PTT (page) groups: a dialable number that pages its member extensions.
 * A group's number shares the extensions' number space (`numbers.ts`), and
 * its members must be extensions the console knows.
 */
import { eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { extensions, pttGroups } from "../../db/schema";
import { type PttGroup, type pttGroupPatchSchema, pttGroupSchema } from "../../shared/inventory";
import { type DeleteAnswer, type Dependents, KIND_WORDS } from "../../shared/safe-delete";
import { byNumber } from "../../shared/sort";
import type { Deps } from "../core/deps";
import { Conflict, Gone, Invalid, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { keyChangeRefusal } from "../pbx/objects/managed";
import { sendersDependents, sendersTo } from "./call-targets";
import { assertNumberFree, numberTakenMessage } from "./numbers";
import { mergePatch } from "./patch";

export type PttGroupRow = typeof pttGroups.$inferSelect;
export type PttGroupInput = z.output<typeof pttGroupSchema>;

/** The wire form. The `auto_answer` column is no longer used: FreePBX pages always auto-answer (ADR 0037). */
export const toPttGroup = ({ autoAnswer: _unused, ...row }: PttGroupRow): PttGroup => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
});

/** The groups that page this extension number (in stored order). */
export function groupsWithMember(db: Db, number: string): PttGroupRow[] {
  return db
    .select()
    .from(pttGroups)
    .all()
    .filter((g) => g.members.includes(number));
}

/** Every group, in numeric order of its number. */
export function listPttGroups(deps: Pick<Deps, "db">): PttGroup[] {
  return deps.db
    .select()
    .from(pttGroups)
    .all()
    .sort((a, b) => byNumber(a.extension, b.extension))
    .map(toPttGroup);
}

/** The members sorted and without repeats; `Invalid` on `members` naming any that is not an extension. */
function knownMembers(db: Db, given: string[]): string[] {
  const members = [...new Set(given)].sort(byNumber);
  const known = new Set(
    db
      .select({ n: extensions.extension })
      .from(extensions)
      .where(inArray(extensions.extension, members))
      .all()
      .map((r) => r.n),
  );
  const unknown = members.filter((m) => !known.has(m));
  if (unknown.length) {
    const message = `Not existing extension(s): ${unknown.join(", ")}`;
    throw new Invalid(message, { members: message });
  }
  return members;
}

/** Creates a group; members are stored sorted and without repeats. */
export function createPttGroup(deps: Pick<Deps, "db" | "events">, input: PttGroupInput): PttGroup {
  const members = knownMembers(deps.db, input.members);
  assertNumberFree(deps.db, input.extension, "ptt-group");
  const row = deps.db
    .insert(pttGroups)
    .values({ ...input, members })
    .returning()
    .get();
  deps.events.publish({ type: "ptt-groups-updated", data: { id: row.id, action: "created" } });
  return toPttGroup(row);
}

function findPttGroup(db: Db, id: number): PttGroupRow {
  const row = db.select().from(pttGroups).where(eq(pttGroups.id, id)).get();
  if (!row) throw new NotFound("PTT group");
  return row;
}

/** GET /api/ptt-groups/:id/dependents: nothing in the console points at a PTT group. */
export function dependentsOfPttGroup(deps: Pick<Deps, "db">, id: number): Dependents {
  return pttGroupDependents(deps.db, findPttGroup(deps.db, id));
}

/** What sends calls to the group as a page group (inbound routes, ring groups, queues, IVRs…): they block its delete. */
const pttGroupDependents = (db: Db, row: PttGroupRow): Dependents =>
  sendersDependents(sendersTo(db, ["page-group"], row.extension), `page group ${row.extension}`);

/** Deletes a group nothing sends calls to (409 naming them otherwise); the token restores it for a few seconds. */
export function deletePttGroup(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findPttGroup(deps.db, id);
  const { blockedBecause } = pttGroupDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  deps.db.delete(pttGroups).where(eq(pttGroups.id, id)).run();
  deps.events.publish({ type: "ptt-groups-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "ptt-group", (d) => restorePttGroup(d, row));
}

/** Puts a deleted group back as it was, unless its number was taken or a member deleted since. */
function restorePttGroup(deps: RestoreDeps, row: PttGroupRow): PttGroup {
  const taken = numberTakenMessage(deps.db, row.extension, "ptt-group");
  if (taken) throw new Gone(`PTT group ${row.name} cannot be restored: ${taken}.`);
  const known = new Set(
    deps.db
      .select({ n: extensions.extension })
      .from(extensions)
      .where(inArray(extensions.extension, row.members))
      .all()
      .map((r) => r.n),
  );
  const gone = row.members.filter((m) => !known.has(m));
  if (gone.length)
    throw new Gone(`PTT group ${row.name} cannot be restored: extension(s) ${gone.join(", ")} were deleted since.`);
  deps.db.insert(pttGroups).values(row).run();
  deps.events.publish({ type: "ptt-groups-updated", data: { id: row.id, action: "created" } });
  return toPttGroup(row);
}

export type PttGroupPatch = z.output<typeof pttGroupPatchSchema>;

/**
 * Edits a group: the given fields over the stored ones, by the create rules (members are extensions,
 * a new number is free: `numbers.ts`).
 */
export function updatePttGroup(deps: Pick<Deps, "db" | "events">, id: number, patch: PttGroupPatch): PttGroup {
  const row = findPttGroup(deps.db, id);
  const { id: _id, createdAt: _createdAt, ...current } = row;
  const input = validate(pttGroupSchema, mergePatch(current, patch));
  const members = knownMembers(deps.db, input.members);
  if (input.extension !== row.extension) {
    const deployed = keyChangeRefusal(deps.db, "pttGroup", row.id, row.extension, input.extension);
    if (deployed) throw new Conflict(deployed, { extension: deployed });
    assertNumberFree(deps.db, input.extension, "ptt-group");
    const users = pttGroupDependents(deps.db, row).dependents;
    if (users.length) {
      const named = users.map((d) => `${KIND_WORDS[d.kind]} ${d.label}`);
      const message = `PTT group ${row.extension} cannot become ${input.extension} while ${named.join(", ")} send${users.length === 1 ? "s" : ""} calls to it. Change ${users.length === 1 ? "it" : "them"} first.`;
      throw new Conflict(message, { extension: message });
    }
  }
  const updated = deps.db
    .update(pttGroups)
    .set({ ...input, members })
    .where(eq(pttGroups.id, id))
    .returning()
    .get();
  deps.events.publish({ type: "ptt-groups-updated", data: { id, action: "updated" } });
  return toPttGroup(updated);
}
