/**
 * Call routes: inbound (a DID to a destination) and outbound (dial patterns to
 * a trunk). Both publish `routes-updated` with `kind` saying which list changed.
 */
import { asc, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { inboundRoutes, outboundRoutes } from "../../db/schema";
import {
  type InboundRoute,
  type inboundRoutePatchSchema,
  inboundRouteSchema,
  type OutboundRoute,
  type outboundRoutePatchSchema,
  outboundRouteSchema,
} from "../../shared/inventory";
import { type DeleteAnswer, type Dependents, NO_DEPENDENTS } from "../../shared/safe-delete";
import type { Deps } from "../core/deps";
import { Conflict, Gone, Invalid, NotFound } from "../core/errors";
import { keepForUndo, type RestoreDeps } from "../core/undo";
import { validate } from "../core/validate";
import { callFlowObjectProblem } from "./call-targets";
import { mergePatch } from "./patch";
import { trunkExists } from "./trunks";

/** A schema's output with its `recording` optional (the column default is FreePBX's, dontcare). */
type RecordingOptional<T extends { recording: unknown }> = Omit<T, "recording"> & Partial<Pick<T, "recording">>;
export type InboundRouteInput = RecordingOptional<z.output<typeof inboundRouteSchema>>;
export type OutboundRouteInput = RecordingOptional<z.output<typeof outboundRouteSchema>>;

type InboundRow = typeof inboundRoutes.$inferSelect;
type OutboundRow = typeof outboundRoutes.$inferSelect;

/** The wire form. The `trunk_id` column is no longer used: FreePBX matches inbound routes by DID only (ADR 0037). */
export const toInboundRoute = ({ trunkId: _unused, ...row }: InboundRow): InboundRoute => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
});

export const toOutboundRoute = (row: typeof outboundRoutes.$inferSelect): OutboundRoute => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
});

function requireTrunk(db: Db, trunkId: number, field = "trunkId"): void {
  if (!trunkExists(db, trunkId)) {
    throw new Invalid(`Trunk ${trunkId} does not exist`, { [field]: "Choose an existing trunk" });
  }
}

export function listInboundRoutes(deps: Pick<Deps, "db">): InboundRoute[] {
  return deps.db.select().from(inboundRoutes).orderBy(asc(inboundRoutes.id)).all().map(toInboundRoute);
}

/** Creates an inbound route; one route per DID (and one catch-all route without a DID). */
export function createInboundRoute(deps: Pick<Deps, "db" | "events">, input: InboundRouteInput): InboundRoute {
  // FreePBX identifies an inbound route by its DID (`incoming.extension`): a second route for the
  // same DID would overwrite the first on deployment. No DID = the catch-all route, also only one.
  const did = input.didNumber ?? "";
  const clash = deps.db
    .select()
    .from(inboundRoutes)
    .all()
    .find((r) => (r.didNumber ?? "") === did);
  if (clash) {
    const what = did ? `DID ${did}` : "calls without a DID";
    throw new Conflict(`Inbound route ${clash.description} already handles ${what}`, { didNumber: "Already routed" });
  }
  checkRouteDestination(deps.db, input);
  const row = deps.db.insert(inboundRoutes).values(input).returning().get();
  deps.events.publish({ type: "routes-updated", data: { kind: "inbound", id: row.id, action: "created" } });
  return toInboundRoute(row);
}

/** An IVR or announcement a route sends calls to must be the console's (its id, ADR 0059). */
function checkRouteDestination(db: Db, r: { destinationType: InboundRow["destinationType"]; destination: string }) {
  const problem = callFlowObjectProblem(db, { kind: r.destinationType, target: r.destination });
  if (problem) throw new Invalid(problem, { destination: problem });
}

/** The inbound route that already handles this DID (or, without one, the catch-all route), if any. */
function inboundRouteFor(db: Db, didNumber: string | null): InboundRow | undefined {
  const did = didNumber ?? "";
  return db
    .select()
    .from(inboundRoutes)
    .all()
    .find((r) => (r.didNumber ?? "") === did);
}

function findInboundRoute(db: Db, id: number): InboundRow {
  const row = db.select().from(inboundRoutes).where(eq(inboundRoutes.id, id)).get();
  if (!row) throw new NotFound("Inbound route");
  return row;
}

/** GET /api/inbound-routes/:id/dependents: nothing in the console points at an inbound route. */
export function dependentsOfInboundRoute(deps: Pick<Deps, "db">, id: number): Dependents {
  findInboundRoute(deps.db, id);
  return NO_DEPENDENTS;
}

/** Deletes an inbound route; the answer's token restores it for a few seconds. */
export function deleteInboundRoute(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findInboundRoute(deps.db, id);
  deps.db.delete(inboundRoutes).where(eq(inboundRoutes.id, id)).run();
  deps.events.publish({ type: "routes-updated", data: { kind: "inbound", id, action: "deleted" } });
  return keepForUndo(deps, "inbound-route", (d) => restoreInboundRoute(d, row));
}

/** Puts a deleted inbound route back as it was, unless another route took its DID since. */
function restoreInboundRoute(deps: RestoreDeps, row: InboundRow): InboundRoute {
  const clash = inboundRouteFor(deps.db, row.didNumber);
  if (clash) {
    const what = row.didNumber ? `DID ${row.didNumber}` : "calls without a DID";
    throw new Gone(`Inbound route ${row.description} cannot be restored: ${clash.description} handles ${what} now.`);
  }
  // The unused trunk link is kept only while that trunk exists (the column is a foreign key).
  const trunkId = row.trunkId !== null && trunkExists(deps.db, row.trunkId) ? row.trunkId : null;
  deps.db
    .insert(inboundRoutes)
    .values({ ...row, trunkId })
    .run();
  deps.events.publish({ type: "routes-updated", data: { kind: "inbound", id: row.id, action: "created" } });
  return toInboundRoute(row);
}

/** Every outbound route, in dial order (`position`, then oldest first; ADR 0040). */
export function listOutboundRoutes(deps: Pick<Deps, "db">): OutboundRoute[] {
  return deps.db
    .select()
    .from(outboundRoutes)
    .orderBy(asc(outboundRoutes.position), asc(outboundRoutes.id))
    .all()
    .map(toOutboundRoute);
}

/**
 * Sets the dial order: `ids` must hold every outbound route's id exactly once (else `Invalid` on `ids`).
 * Each route's `position` becomes its index; `routeOrder` is rewritten to match (highest first), so a
 * reader of the older field sees the same order (ADR 0040).
 */
export function reorderOutboundRoutes(deps: Pick<Deps, "db" | "events">, ids: number[]): OutboundRoute[] {
  const existing = deps.db.select({ id: outboundRoutes.id }).from(outboundRoutes).all();
  const known = new Set(existing.map((r) => r.id));
  const seen = new Set<number>();
  for (const id of ids) {
    if (!known.has(id)) throw new Invalid(`Outbound route ${id} does not exist`, { ids: `Unknown route ${id}` });
    if (seen.has(id)) throw new Invalid(`Outbound route ${id} is listed twice`, { ids: `Route ${id} is listed twice` });
    seen.add(id);
  }
  if (seen.size !== known.size) {
    const missing = [...known].filter((id) => !seen.has(id));
    throw new Invalid("The order must list every outbound route once", {
      ids: `Missing route${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
    });
  }
  deps.db.$client.transaction(() => {
    ids.forEach((id, index) => {
      deps.db
        .update(outboundRoutes)
        .set({ position: index, routeOrder: ids.length - 1 - index })
        .where(eq(outboundRoutes.id, id))
        .run();
    });
  })();
  deps.events.publish({ type: "routes-updated", data: { kind: "outbound", action: "reordered" } });
  return listOutboundRoutes(deps);
}

/** A new outbound route is tried last (ADR 0040). */
const nextOutboundPosition = (db: Db): number =>
  (db
    .select({ max: sql<number | null>`max(${outboundRoutes.position})` })
    .from(outboundRoutes)
    .get()?.max ?? -1) + 1;

/** Outbound route names are unique (FreePBX's route identity); `exceptId`: the route being edited. */
function assertRouteNameFree(db: Db, name: string, exceptId?: number): void {
  const clash = db
    .select({ id: outboundRoutes.id })
    .from(outboundRoutes)
    .where(eq(outboundRoutes.name, name))
    .all()
    .some((r) => r.id !== exceptId);
  if (clash) throw new Conflict(`An outbound route named ${name} already exists`, { name: "Name already in use" });
}

/** Creates an outbound route on an existing trunk; names are unique, patterns stored without repeats. */
export function createOutboundRoute(deps: Pick<Deps, "db" | "events">, input: OutboundRouteInput): OutboundRoute {
  requireTrunk(deps.db, input.trunkId);
  assertRouteNameFree(deps.db, input.name);
  const row = deps.db
    .insert(outboundRoutes)
    .values({ ...input, dialPatterns: [...new Set(input.dialPatterns)], position: nextOutboundPosition(deps.db) })
    .returning()
    .get();
  deps.events.publish({ type: "routes-updated", data: { kind: "outbound", id: row.id, action: "created" } });
  return toOutboundRoute(row);
}

function findOutboundRoute(db: Db, id: number): OutboundRow {
  const row = db.select().from(outboundRoutes).where(eq(outboundRoutes.id, id)).get();
  if (!row) throw new NotFound("Outbound route");
  return row;
}

/** GET /api/outbound-routes/:id/dependents: nothing in the console points at an outbound route. */
export function dependentsOfOutboundRoute(deps: Pick<Deps, "db">, id: number): Dependents {
  findOutboundRoute(deps.db, id);
  return NO_DEPENDENTS;
}

/** Deletes an outbound route; the answer's token restores it (in its old place) for a few seconds. */
export function deleteOutboundRoute(deps: Pick<Deps, "db" | "events" | "now">, id: number): DeleteAnswer {
  const row = findOutboundRoute(deps.db, id);
  deps.db.delete(outboundRoutes).where(eq(outboundRoutes.id, id)).run();
  deps.events.publish({ type: "routes-updated", data: { kind: "outbound", id, action: "deleted" } });
  return keepForUndo(deps, "outbound-route", (d) => restoreOutboundRoute(d, row));
}

/** Puts a deleted outbound route back as it was, unless its name was taken or its trunk deleted since. */
function restoreOutboundRoute(deps: RestoreDeps, row: OutboundRow): OutboundRoute {
  const clash = deps.db
    .select({ id: outboundRoutes.id })
    .from(outboundRoutes)
    .where(eq(outboundRoutes.name, row.name))
    .get();
  if (clash)
    throw new Gone(`Outbound route ${row.name} cannot be restored: a route named ${row.name} was created since.`);
  if (!trunkExists(deps.db, row.trunkId))
    throw new Gone(`Outbound route ${row.name} cannot be restored: its trunk was deleted since.`);
  deps.db.insert(outboundRoutes).values(row).run();
  deps.events.publish({ type: "routes-updated", data: { kind: "outbound", id: row.id, action: "created" } });
  return toOutboundRoute(row);
}

export type InboundRoutePatch = z.output<typeof inboundRoutePatchSchema>;
export type OutboundRoutePatch = z.output<typeof outboundRoutePatchSchema>;

/**
 * Edits an inbound route: the given fields over the stored ones, by the create rules (one route per
 * DID). The unused trunk link stays as stored (ADR 0037).
 */
export function updateInboundRoute(
  deps: Pick<Deps, "db" | "events">,
  id: number,
  patch: InboundRoutePatch,
): InboundRoute {
  const row = findInboundRoute(deps.db, id);
  const { id: _id, createdAt: _createdAt, trunkId: _trunkId, ...current } = row;
  const { trunkId: _ignored, ...input } = validate(inboundRouteSchema, mergePatch(current, patch)) as z.output<
    typeof inboundRouteSchema
  > & { trunkId?: unknown };
  const clash = inboundRouteFor(deps.db, input.didNumber);
  if (clash && clash.id !== id) {
    const what = input.didNumber ? `DID ${input.didNumber}` : "calls without a DID";
    throw new Conflict(`Inbound route ${clash.description} already handles ${what}`, { didNumber: "Already routed" });
  }
  checkRouteDestination(deps.db, input);
  const updated = deps.db.update(inboundRoutes).set(input).where(eq(inboundRoutes.id, id)).returning().get();
  deps.events.publish({ type: "routes-updated", data: { kind: "inbound", id, action: "updated" } });
  return toInboundRoute(updated);
}

/** Edits an outbound route: the given fields over the stored ones, by the create rules; its dial order stays. */
export function updateOutboundRoute(
  deps: Pick<Deps, "db" | "events">,
  id: number,
  patch: OutboundRoutePatch,
): OutboundRoute {
  const row = deps.db.select().from(outboundRoutes).where(eq(outboundRoutes.id, id)).get();
  if (!row) throw new NotFound("Outbound route");
  const { id: _id, createdAt: _createdAt, position: _position, ...current } = row;
  const input = validate(outboundRouteSchema, mergePatch(current, patch));
  requireTrunk(deps.db, input.trunkId);
  assertRouteNameFree(deps.db, input.name, id);
  const updated = deps.db
    .update(outboundRoutes)
    .set({ ...input, dialPatterns: [...new Set(input.dialPatterns)] })
    .where(eq(outboundRoutes.id, id))
    .returning()
    .get();
  deps.events.publish({ type: "routes-updated", data: { kind: "outbound", id, action: "updated" } });
  return toOutboundRoute(updated);
}
