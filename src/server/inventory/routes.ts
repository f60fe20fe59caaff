/**
 * Call routes: inbound (a DID to a destination) and outbound (dial patterns to
 * a trunk). Both publish `routes-updated` with `kind` saying which list changed.
 */
import { asc, desc, eq } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { inboundRoutes, outboundRoutes } from "../../db/schema";
import type { InboundRoute, inboundRouteSchema, OutboundRoute, outboundRouteSchema } from "../../shared/inventory";
import type { Deps } from "../domain/deps";
import { Conflict, Invalid, NotFound } from "../domain/errors";
import { trunkExists } from "./trunks";

export type InboundRouteInput = z.output<typeof inboundRouteSchema>;
export type OutboundRouteInput = z.output<typeof outboundRouteSchema>;

export const toInboundRoute = (row: typeof inboundRoutes.$inferSelect): InboundRoute => ({
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
  if (input.trunkId != null) requireTrunk(deps.db, input.trunkId);
  if (input.destinationType === "extension" && !/^\d+$/.test(input.destination)) {
    throw new Invalid("An extension destination must be an extension number", {
      destination: "Enter an extension number",
    });
  }
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
  const row = deps.db
    .insert(inboundRoutes)
    .values({ ...input, trunkId: input.trunkId ?? null })
    .returning()
    .get();
  deps.events.publish({ type: "routes-updated", data: { kind: "inbound", id: row.id, action: "created" } });
  return toInboundRoute(row);
}

export function deleteInboundRoute(deps: Pick<Deps, "db" | "events">, id: number): void {
  const res = deps.db.delete(inboundRoutes).where(eq(inboundRoutes.id, id)).returning({ id: inboundRoutes.id }).all();
  if (!res.length) throw new NotFound("Inbound route");
  deps.events.publish({ type: "routes-updated", data: { kind: "inbound", id, action: "deleted" } });
}

/** Every outbound route, in dialling priority (highest route order first). */
export function listOutboundRoutes(deps: Pick<Deps, "db">): OutboundRoute[] {
  return deps.db
    .select()
    .from(outboundRoutes)
    .orderBy(desc(outboundRoutes.routeOrder), asc(outboundRoutes.id))
    .all()
    .map(toOutboundRoute);
}

/** Creates an outbound route on an existing trunk; names are unique, patterns stored without repeats. */
export function createOutboundRoute(deps: Pick<Deps, "db" | "events">, input: OutboundRouteInput): OutboundRoute {
  requireTrunk(deps.db, input.trunkId);
  const clash = deps.db
    .select({ id: outboundRoutes.id })
    .from(outboundRoutes)
    .where(eq(outboundRoutes.name, input.name))
    .get();
  if (clash) {
    throw new Conflict(`An outbound route named ${input.name} already exists`, { name: "Name already in use" });
  }
  const row = deps.db
    .insert(outboundRoutes)
    .values({ ...input, dialPatterns: [...new Set(input.dialPatterns)] })
    .returning()
    .get();
  deps.events.publish({ type: "routes-updated", data: { kind: "outbound", id: row.id, action: "created" } });
  return toOutboundRoute(row);
}

export function deleteOutboundRoute(deps: Pick<Deps, "db" | "events">, id: number): void {
  const res = deps.db
    .delete(outboundRoutes)
    .where(eq(outboundRoutes.id, id))
    .returning({ id: outboundRoutes.id })
    .all();
  if (!res.length) throw new NotFound("Outbound route");
  deps.events.publish({ type: "routes-updated", data: { kind: "outbound", id, action: "deleted" } });
}
