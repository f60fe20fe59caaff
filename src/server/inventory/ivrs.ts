/**
 * IVRs (FreePBX's ivr_details + ivr_entries, ADR 0059): a greeting, the keys a caller presses and where each
 * goes, and where a wrong key or no key goes after the retries. The console keys an IVR by its own id, which is
 * what a destination to it names; its name is unique, since an IVR the console has no record of is found on the
 * PBX by its name. An IVR something sends calls to cannot be deleted: they are named.
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import { ivrs } from "../../db/schema";
import { type Ivr, type ivrPatchSchema, ivrSchema } from "../../shared/call-flow";
import type { Destination } from "../../shared/destinations";
import type { DeleteAnswer, Dependents } from "../../shared/safe-delete";
import type { Deps } from "../core/deps";
import { Conflict, Gone, Invalid, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { loopOf } from "../routing/loops";
import { checkDestination, type IvrRow, sendersDependents, sendersTo } from "./call-targets";
import type { DbOrTx } from "./numbers";
import { mergePatch } from "./patch";

export type IvrInput = z.output<typeof ivrSchema>;
export type IvrPatch = z.output<typeof ivrPatchSchema>;

const dest = (kind: IvrRow["invalidKind"], target: string | null): Destination | null =>
  kind ? { kind, target: target ?? "" } : null;

/** The wire form. */
export function toIvr(row: IvrRow): Ivr {
  return {
    id: row.id,
    name: row.name,
    greeting: row.greeting,
    timeout: row.timeout,
    retries: row.retries,
    options: row.options,
    invalidDestination: dest(row.invalidKind, row.invalidTarget),
    timeoutDestination: dest(row.timeoutKind, row.timeoutTarget),
    createdAt: row.createdAt.toISOString(),
  };
}

/** Every IVR, by name. */
export function listIvrs(deps: Pick<Deps, "db">): Ivr[] {
  return deps.db
    .select()
    .from(ivrs)
    .all()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(toIvr);
}

function findIvr(db: DbOrTx, id: number): IvrRow {
  const row = db.select().from(ivrs).where(eq(ivrs.id, id)).get();
  if (!row) throw new NotFound("IVR");
  return row;
}

function assertNameFree(db: DbOrTx, name: string, self: number | null): void {
  const other = db.select({ id: ivrs.id }).from(ivrs).where(eq(ivrs.name, name)).get();
  if (other && other.id !== self) {
    const message = `An IVR named ${name} exists already`;
    throw new Conflict(message, { name: message });
  }
}

/** Each destination checked where the console knows its target, under the field a form shows it at. */
function checkDestinations(db: DbOrTx, id: number | null, input: IvrInput): void {
  const self = { kind: "ivr" as const, number: id === null ? "" : String(id) };
  input.options.forEach((o, i) => {
    checkDestination(db, `options.${i}.destination.target`, self, o.destination);
  });
  checkDestination(db, "invalidDestination.target", self, input.invalidDestination);
  checkDestination(db, "timeoutDestination.target", self, input.timeoutDestination);
  if (id === null) return;
  // A loop closes only through an IVR something already sends calls to: one being created has none. Only a wrong
  // key or no key takes a call on by itself; a key the caller presses never closes one.
  const loop = loopOf(db, { kind: "ivr", target: String(id) }, (model) => {
    model.ivrs.set(String(id), {
      name: input.name,
      greeting: input.greeting === null ? null : String(input.greeting),
      timeout: input.timeout,
      retries: input.retries,
      options: input.options.map((o) => ({ digits: o.digits, to: o.destination })),
      invalid: input.invalidDestination,
      noKey: input.timeoutDestination,
    });
  });
  if (!loop) return;
  const same = (d: Destination | null) => d !== null && d.kind === loop.first.kind && d.target === loop.first.target;
  const field = same(input.invalidDestination) ? "invalidDestination.target" : "timeoutDestination.target";
  throw new Invalid(loop.message, { [field]: loop.message });
}

const rowValues = (input: IvrInput) => ({
  name: input.name,
  greeting: input.greeting,
  timeout: input.timeout,
  retries: input.retries,
  options: input.options,
  invalidKind: input.invalidDestination?.kind ?? null,
  invalidTarget: input.invalidDestination ? input.invalidDestination.target : null,
  timeoutKind: input.timeoutDestination?.kind ?? null,
  timeoutTarget: input.timeoutDestination ? input.timeoutDestination.target : null,
});

/** Creates an IVR under a free name; its destinations must name what the console has. */
export function createIvr(deps: Pick<Deps, "db" | "events">, input: IvrInput): Ivr {
  assertNameFree(deps.db, input.name, null);
  checkDestinations(deps.db, null, input);
  const row = deps.db.insert(ivrs).values(rowValues(input)).returning().get();
  deps.events.publish({ type: "ivrs-updated", data: { id: row.id, action: "created" } });
  return toIvr(row);
}

/** Edits an IVR: the given fields over the stored ones, by the create rules (a rename keeps it on the PBX). */
export function updateIvr(deps: Pick<Deps, "db" | "events">, id: number, patch: IvrPatch): Ivr {
  const row = findIvr(deps.db, id);
  const { id: _id, createdAt: _at, ...current } = toIvr(row);
  const input = validate(ivrSchema, mergePatch(current, patch));
  assertNameFree(deps.db, input.name, id);
  checkDestinations(deps.db, id, input);
  const updated = deps.db.update(ivrs).set(rowValues(input)).where(eq(ivrs.id, id)).returning().get();
  deps.events.publish({ type: "ivrs-updated", data: { id, action: "updated" } });
  return toIvr(updated);
}

/** What sends calls to an IVR (inbound routes, ring groups, queues, other IVRs, announcements). */
export function ivrDependents(db: DbOrTx, row: IvrRow): Dependents {
  const senders = sendersTo(db, ["ivr"], String(row.id));
  return sendersDependents({ ...senders, ivrs: senders.ivrs.filter((i) => i.id !== row.id) }, `IVR ${row.name}`);
}

/** GET /api/ivrs/:id/dependents. */
export const dependentsOfIvr = (deps: Pick<Deps, "db">, id: number): Dependents =>
  ivrDependents(deps.db, findIvr(deps.db, id));

/** Deletes an IVR nothing sends calls to (409 naming them otherwise); the token restores it for a few seconds. */
export function deleteIvr(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findIvr(deps.db, id);
  const { blockedBecause } = ivrDependents(deps.db, row);
  if (blockedBecause) throw new Conflict(blockedBecause);
  deps.db.delete(ivrs).where(eq(ivrs.id, id)).run();
  deps.events.publish({ type: "ivrs-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "ivr", (d) => restoreIvr(d, row));
}

/** Puts a deleted IVR back as it was, unless its name was taken since or a destination of it is gone. */
function restoreIvr(deps: RestoreDeps, row: IvrRow): Ivr {
  if (deps.db.select({ id: ivrs.id }).from(ivrs).where(eq(ivrs.name, row.name)).get())
    throw new Gone(`IVR ${row.name} cannot be restored: another IVR has its name now.`);
  try {
    checkDestinations(deps.db, null, validate(ivrSchema, toIvr(row)));
  } catch (err) {
    if (!(err instanceof Invalid)) throw err;
    throw new Gone(`IVR ${row.name} cannot be restored: ${err.message}.`);
  }
  deps.db.insert(ivrs).values(row).run();
  deps.events.publish({ type: "ivrs-updated", data: { id: row.id, action: "created" } });
  return toIvr(row);
}
