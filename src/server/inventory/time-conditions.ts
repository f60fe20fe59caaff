/**
 * Time groups and time conditions (FreePBX's timegroups_* and timeconditions, ADR 0059): a time group's weekly
 * hours and yearly holidays, and a time condition that reads one in a zone and sends calls on in hours and out
 * of them. Keyed by the console's id (what a destination to a time condition names) and a unique name (how one
 * without a record is found on the PBX). A group a time condition reads, or a time condition something sends
 * calls to, cannot be deleted: they are named. The override (force open/closed) is the PBX's state, handled by
 * `pbx/time-conditions.ts`, never stored here.
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import { timeConditions, timeGroups } from "../../db/schema";
import {
  type Holiday,
  type TimeCondition,
  type TimeGroup,
  type timeConditionPatchSchema,
  timeConditionSchema,
  type timeGroupPatchSchema,
  timeGroupSchema,
  type WeeklyHours,
} from "../../shared/call-flow";
import type { Destination } from "../../shared/destinations";
import type { DeleteAnswer, Dependents } from "../../shared/safe-delete";
import type { Deps } from "../core/deps";
import { Conflict, Gone, Invalid, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { loopOf } from "../routing/loops";
import { checkDestination, sendersDependents, sendersTo, type TimeConditionRow } from "./call-targets";
import type { DbOrTx } from "./numbers";
import { mergePatch } from "./patch";

type TimeGroupRow = typeof timeGroups.$inferSelect;
export type TimeGroupInput = z.output<typeof timeGroupSchema>;
export type TimeConditionInput = z.output<typeof timeConditionSchema>;

const byName = <T extends { name: string }>(rows: T[]) => rows.sort((a, b) => a.name.localeCompare(b.name));

/** A name is unique among its kind: one without a record is found on the PBX by it. */
function assertNameFree(
  db: DbOrTx,
  table: typeof timeGroups | typeof timeConditions,
  what: string,
  name: string,
  self: number | null,
) {
  const other = db.select({ id: table.id }).from(table).where(eq(table.name, name)).get();
  if (other && other.id !== self) {
    const message = `A ${what} named ${name} exists already`;
    throw new Conflict(message, { name: message });
  }
}

/* ─────────────────────────── Time groups ─────────────────────────── */

export function toTimeGroup(row: TimeGroupRow): TimeGroup {
  return {
    id: row.id,
    name: row.name,
    weekly: row.weekly as WeeklyHours[],
    holidays: row.holidays as Holiday[],
    createdAt: row.createdAt.toISOString(),
  };
}

export const listTimeGroups = (deps: Pick<Deps, "db">): TimeGroup[] =>
  byName(deps.db.select().from(timeGroups).all()).map(toTimeGroup);

function findTimeGroup(db: DbOrTx, id: number): TimeGroupRow {
  const row = db.select().from(timeGroups).where(eq(timeGroups.id, id)).get();
  if (!row) throw new NotFound("Time group");
  return row;
}

export function createTimeGroup(deps: Pick<Deps, "db" | "events">, input: TimeGroupInput): TimeGroup {
  assertNameFree(deps.db, timeGroups, "time group", input.name, null);
  const row = deps.db.insert(timeGroups).values(input).returning().get();
  deps.events.publish({ type: "time-conditions-updated", data: { id: row.id, action: "created" } });
  return toTimeGroup(row);
}

export function updateTimeGroup(
  deps: Pick<Deps, "db" | "events">,
  id: number,
  patch: z.output<typeof timeGroupPatchSchema>,
): TimeGroup {
  const row = findTimeGroup(deps.db, id);
  const { id: _id, createdAt: _at, ...current } = toTimeGroup(row);
  const input = validate(timeGroupSchema, mergePatch(current, patch));
  assertNameFree(deps.db, timeGroups, "time group", input.name, id);
  const updated = deps.db.update(timeGroups).set(input).where(eq(timeGroups.id, id)).returning().get();
  deps.events.publish({ type: "time-conditions-updated", data: { id, action: "updated" } });
  return toTimeGroup(updated);
}

/** The time conditions that read a group: they block its delete. */
export function timeGroupDependents(db: DbOrTx, row: TimeGroupRow): Dependents {
  const users = db.select().from(timeConditions).where(eq(timeConditions.timeGroupId, row.id)).all();
  return {
    dependents: users.map((t) => ({ kind: "time-condition" as const, id: t.id, label: t.name })),
    blockedBecause: users.length
      ? `Time condition(s) ${users.map((t) => t.name).join(", ")} read time group ${row.name}. Change ${users.length === 1 ? "it" : "them"} first.`
      : null,
  };
}

export const dependentsOfTimeGroup = (deps: Pick<Deps, "db">, id: number): Dependents =>
  timeGroupDependents(deps.db, findTimeGroup(deps.db, id));

export function deleteTimeGroup(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findTimeGroup(deps.db, id);
  const { blockedBecause } = timeGroupDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  deps.db.delete(timeGroups).where(eq(timeGroups.id, id)).run();
  deps.events.publish({ type: "time-conditions-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "time-group", (d) => restoreTimeGroup(d, row));
}

function restoreTimeGroup(deps: RestoreDeps, row: TimeGroupRow): TimeGroup {
  if (deps.db.select({ id: timeGroups.id }).from(timeGroups).where(eq(timeGroups.name, row.name)).get())
    throw new Gone(`Time group ${row.name} cannot be restored: another time group has its name now.`);
  deps.db.insert(timeGroups).values(row).run();
  deps.events.publish({ type: "time-conditions-updated", data: { id: row.id, action: "created" } });
  return toTimeGroup(row);
}

/* ─────────────────────────── Time conditions ─────────────────────────── */

const dest = (kind: TimeConditionRow["matchKind"], target: string | null): Destination | null =>
  kind ? { kind, target: target ?? "" } : null;

export function toTimeCondition(row: TimeConditionRow): TimeCondition {
  return {
    id: row.id,
    name: row.name,
    timeGroup: row.timeGroupId,
    timeZone: row.timeZone,
    match: dest(row.matchKind, row.matchTarget),
    noMatch: dest(row.noMatchKind, row.noMatchTarget),
    createdAt: row.createdAt.toISOString(),
  };
}

export const listTimeConditions = (deps: Pick<Deps, "db">): TimeCondition[] =>
  byName(deps.db.select().from(timeConditions).all()).map(toTimeCondition);

function findTimeCondition(db: DbOrTx, id: number): TimeConditionRow {
  const row = db.select().from(timeConditions).where(eq(timeConditions.id, id)).get();
  if (!row) throw new NotFound("Time condition");
  return row;
}

/** The time group must be the console's; each destination names what the console has; no loop closes. */
function checkTimeCondition(db: DbOrTx, id: number | null, input: TimeConditionInput): void {
  if (!db.select({ id: timeGroups.id }).from(timeGroups).where(eq(timeGroups.id, input.timeGroup)).get()) {
    const message = `Time group ${input.timeGroup} does not exist`;
    throw new Invalid(message, { timeGroup: message });
  }
  const self = { kind: "time-condition" as const, number: id === null ? "" : String(id) };
  checkDestination(db, "match.target", self, input.match);
  checkDestination(db, "noMatch.target", self, input.noMatch);
  if (id === null) return;
  const loop = loopOf(db, { kind: "time-condition", target: String(id) }, (model) => {
    const own = model.timeConditions?.get(String(id));
    model.timeConditions?.set(String(id), {
      name: input.name,
      group: own?.group ?? null,
      zone: input.timeZone,
      match: input.match,
      noMatch: input.noMatch,
      override: "auto",
    });
  });
  if (!loop) return;
  const first = loop.first;
  const closes = input.match && input.match.kind === first.kind && input.match.target === first.target;
  const field = closes ? "match.target" : "noMatch.target";
  throw new Invalid(loop.message, { [field]: loop.message });
}

const conditionValues = (input: TimeConditionInput) => ({
  name: input.name,
  timeGroupId: input.timeGroup,
  timeZone: input.timeZone,
  matchKind: input.match?.kind ?? null,
  matchTarget: input.match ? input.match.target : null,
  noMatchKind: input.noMatch?.kind ?? null,
  noMatchTarget: input.noMatch ? input.noMatch.target : null,
});

export function createTimeCondition(deps: Pick<Deps, "db" | "events">, input: TimeConditionInput): TimeCondition {
  assertNameFree(deps.db, timeConditions, "time condition", input.name, null);
  checkTimeCondition(deps.db, null, input);
  const row = deps.db.insert(timeConditions).values(conditionValues(input)).returning().get();
  deps.events.publish({ type: "time-conditions-updated", data: { id: row.id, action: "created" } });
  return toTimeCondition(row);
}

export function updateTimeCondition(
  deps: Pick<Deps, "db" | "events">,
  id: number,
  patch: z.output<typeof timeConditionPatchSchema>,
): TimeCondition {
  const row = findTimeCondition(deps.db, id);
  const { id: _id, createdAt: _at, ...current } = toTimeCondition(row);
  const input = validate(timeConditionSchema, mergePatch(current, patch));
  assertNameFree(deps.db, timeConditions, "time condition", input.name, id);
  checkTimeCondition(deps.db, id, input);
  const updated = deps.db
    .update(timeConditions)
    .set(conditionValues(input))
    .where(eq(timeConditions.id, id))
    .returning()
    .get();
  deps.events.publish({ type: "time-conditions-updated", data: { id, action: "updated" } });
  return toTimeCondition(updated);
}

export function timeConditionDependents(db: DbOrTx, row: TimeConditionRow): Dependents {
  const senders = sendersTo(db, ["time-condition"], String(row.id));
  return sendersDependents(
    { ...senders, timeConditions: senders.timeConditions.filter((t) => t.id !== row.id) },
    `time condition ${row.name}`,
  );
}

export const dependentsOfTimeCondition = (deps: Pick<Deps, "db">, id: number): Dependents =>
  timeConditionDependents(deps.db, findTimeCondition(deps.db, id));

export function deleteTimeCondition(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findTimeCondition(deps.db, id);
  const { blockedBecause } = timeConditionDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  deps.db.delete(timeConditions).where(eq(timeConditions.id, id)).run();
  deps.events.publish({ type: "time-conditions-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "time-condition", (d) => restoreTimeCondition(d, row));
}

function restoreTimeCondition(deps: RestoreDeps, row: TimeConditionRow): TimeCondition {
  if (deps.db.select({ id: timeConditions.id }).from(timeConditions).where(eq(timeConditions.name, row.name)).get())
    throw new Gone(`Time condition ${row.name} cannot be restored: another time condition has its name now.`);
  try {
    checkTimeCondition(deps.db, null, validate(timeConditionSchema, toTimeCondition(row)));
  } catch (err) {
    if (!(err instanceof Invalid)) throw err;
    throw new Gone(`Time condition ${row.name} cannot be restored: ${err.message}.`);
  }
  deps.db.insert(timeConditions).values(row).run();
  deps.events.publish({ type: "time-conditions-updated", data: { id: row.id, action: "created" } });
  return toTimeCondition(row);
}
