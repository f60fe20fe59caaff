/**
 * Announcements (FreePBX's announcement table, ADR 0059): a system recording played to the caller, then the call
 * goes on to its destination. Keyed like IVRs: a destination to one names the console's id, and its name is
 * unique (an announcement the console has no record of is found on the PBX by its name).
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import { announcements } from "../../db/schema";
import { type Announcement, type announcementPatchSchema, announcementSchema } from "../../shared/call-flow";
import type { DeleteAnswer, Dependents } from "../../shared/safe-delete";
import type { Deps } from "../core/deps";
import { Conflict, Gone, Invalid, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { loopRefusalOf } from "../routing/loops";
import { type AnnouncementRow, checkDestination, sendersDependents, sendersTo } from "./call-targets";
import type { DbOrTx } from "./numbers";
import { mergePatch } from "./patch";

export type AnnouncementInput = z.output<typeof announcementSchema>;
export type AnnouncementPatch = z.output<typeof announcementPatchSchema>;

/** The wire form. */
export function toAnnouncement(row: AnnouncementRow): Announcement {
  return {
    id: row.id,
    name: row.name,
    recording: row.recording,
    allowSkip: row.allowSkip,
    after: row.afterKind ? { kind: row.afterKind, target: row.afterTarget ?? "" } : null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Every announcement, by name. */
export function listAnnouncements(deps: Pick<Deps, "db">): Announcement[] {
  return deps.db
    .select()
    .from(announcements)
    .all()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(toAnnouncement);
}

function findAnnouncement(db: DbOrTx, id: number): AnnouncementRow {
  const row = db.select().from(announcements).where(eq(announcements.id, id)).get();
  if (!row) throw new NotFound("Announcement");
  return row;
}

function assertNameFree(db: DbOrTx, name: string, self: number | null): void {
  const other = db.select({ id: announcements.id }).from(announcements).where(eq(announcements.name, name)).get();
  if (other && other.id !== self) {
    const message = `An announcement named ${name} exists already`;
    throw new Conflict(message, { name: message });
  }
}

function checkAfter(db: DbOrTx, id: number | null, input: AnnouncementInput): void {
  checkDestination(db, "after.target", { kind: "announcement", number: id === null ? "" : String(id) }, input.after);
  if (id === null) return;
  const loop = loopRefusalOf(db, { kind: "announcement", target: String(id) }, (model) => {
    model.announcements.set(String(id), {
      name: input.name,
      recording: input.recording === null ? null : String(input.recording),
      allowSkip: input.allowSkip,
      after: input.after,
    });
  });
  if (loop) throw new Invalid(loop, { "after.target": loop });
}

const rowValues = (input: AnnouncementInput) => ({
  name: input.name,
  recording: input.recording,
  allowSkip: input.allowSkip,
  afterKind: input.after?.kind ?? null,
  afterTarget: input.after ? input.after.target : null,
});

/** Creates an announcement under a free name. */
export function createAnnouncement(deps: Pick<Deps, "db" | "events">, input: AnnouncementInput): Announcement {
  assertNameFree(deps.db, input.name, null);
  checkAfter(deps.db, null, input);
  const row = deps.db.insert(announcements).values(rowValues(input)).returning().get();
  deps.events.publish({ type: "announcements-updated", data: { id: row.id, action: "created" } });
  return toAnnouncement(row);
}

/** Edits an announcement: the given fields over the stored ones, by the create rules. */
export function updateAnnouncement(
  deps: Pick<Deps, "db" | "events">,
  id: number,
  patch: AnnouncementPatch,
): Announcement {
  const row = findAnnouncement(deps.db, id);
  const { id: _id, createdAt: _at, ...current } = toAnnouncement(row);
  const input = validate(announcementSchema, mergePatch(current, patch));
  assertNameFree(deps.db, input.name, id);
  checkAfter(deps.db, id, input);
  const updated = deps.db.update(announcements).set(rowValues(input)).where(eq(announcements.id, id)).returning().get();
  deps.events.publish({ type: "announcements-updated", data: { id, action: "updated" } });
  return toAnnouncement(updated);
}

/** What sends calls to an announcement. */
export function announcementDependents(db: DbOrTx, row: AnnouncementRow): Dependents {
  const senders = sendersTo(db, ["announcement"], String(row.id));
  return sendersDependents(
    { ...senders, announcements: senders.announcements.filter((a) => a.id !== row.id) },
    `announcement ${row.name}`,
  );
}

/** GET /api/announcements/:id/dependents. */
export const dependentsOfAnnouncement = (deps: Pick<Deps, "db">, id: number): Dependents =>
  announcementDependents(deps.db, findAnnouncement(deps.db, id));

/** Deletes an announcement nothing sends calls to (409 naming them otherwise); the token restores it. */
export function deleteAnnouncement(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findAnnouncement(deps.db, id);
  const { blockedBecause } = announcementDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  deps.db.delete(announcements).where(eq(announcements.id, id)).run();
  deps.events.publish({ type: "announcements-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "announcement", (d) => restoreAnnouncement(d, row));
}

function restoreAnnouncement(deps: RestoreDeps, row: AnnouncementRow): Announcement {
  if (deps.db.select({ id: announcements.id }).from(announcements).where(eq(announcements.name, row.name)).get())
    throw new Gone(`Announcement ${row.name} cannot be restored: another announcement has its name now.`);
  try {
    checkAfter(deps.db, null, validate(announcementSchema, toAnnouncement(row)));
  } catch (err) {
    if (!(err instanceof Invalid)) throw err;
    throw new Gone(`Announcement ${row.name} cannot be restored: ${err.message}.`);
  }
  deps.db.insert(announcements).values(row).run();
  deps.events.publish({ type: "announcements-updated", data: { id: row.id, action: "created" } });
  return toAnnouncement(row);
}
