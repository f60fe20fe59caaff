/**
 * PTT (page) groups: a dialable number that pages its member extensions.
 * A group's number shares the extensions' number space (`numbers.ts`), and
 * its members must be extensions the console knows.
 */
import { eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { extensions, pttGroups } from "../../db/schema";
import type { PttGroup, pttGroupSchema } from "../../shared/inventory";
import { byNumber } from "../../shared/sort";
import type { Deps } from "../domain/deps";
import { Invalid, NotFound } from "../domain/errors";
import { assertNumberFree } from "./numbers";

export type PttGroupRow = typeof pttGroups.$inferSelect;
export type PttGroupInput = z.output<typeof pttGroupSchema>;

/** The wire form. */
export const toPttGroup = (row: PttGroupRow): PttGroup => ({ ...row, createdAt: row.createdAt.toISOString() });

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

/** Creates a group; members are stored sorted and without repeats. */
export function createPttGroup(deps: Pick<Deps, "db" | "events">, input: PttGroupInput): PttGroup {
  const members = [...new Set(input.members)].sort(byNumber);
  const known = new Set(
    deps.db
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
  assertNumberFree(deps.db, input.extension, "ptt-group");
  const row = deps.db
    .insert(pttGroups)
    .values({ ...input, members })
    .returning()
    .get();
  deps.events.publish({ type: "ptt-groups-updated", data: { id: row.id, action: "created" } });
  return toPttGroup(row);
}

export function deletePttGroup(deps: Pick<Deps, "db" | "events">, id: number): void {
  const res = deps.db.delete(pttGroups).where(eq(pttGroups.id, id)).returning({ id: pttGroups.id }).all();
  if (!res.length) throw new NotFound("PTT group");
  deps.events.publish({ type: "ptt-groups-updated", data: { id, action: "deleted" } });
}
