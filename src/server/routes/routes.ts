import { asc, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { inboundRoutes, outboundRoutes, trunks } from "../../db/schema";
import type { InboundRoute, OutboundRoute } from "../../shared/inventory";
import { inboundRouteSchema, outboundRouteSchema } from "../../shared/inventory";
import type { RouteDef } from "../context";
import { HttpError, json, noContent, parseBody, parseId } from "../http";

const iso = <T extends { createdAt: Date }>(row: T) => ({ ...row, createdAt: row.createdAt.toISOString() });

function requireTrunk(db: Db, trunkId: number, field = "trunkId") {
  const trunk = db.select({ id: trunks.id }).from(trunks).where(eq(trunks.id, trunkId)).get();
  if (!trunk) throw new HttpError(400, `Trunk ${trunkId} does not exist`, { [field]: "Choose an existing trunk" });
}

export const inboundRouteRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/inbound-routes",
    handler: ({ app }) =>
      json(app.db.select().from(inboundRoutes).orderBy(asc(inboundRoutes.id)).all().map(iso) as InboundRoute[]),
  },
  {
    method: "POST",
    path: "/api/inbound-routes",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, inboundRouteSchema);
      if (input.trunkId != null) requireTrunk(app.db, input.trunkId);
      if (input.destinationType === "extension" && !/^\d+$/.test(input.destination)) {
        throw new HttpError(400, "An extension destination must be an extension number", {
          destination: "Enter an extension number",
        });
      }
      // FreePBX identifies an inbound route by its DID (`incoming.extension`): a second route for the
      // same DID would overwrite the first on deployment. No DID = the catch-all route, also only one.
      const did = input.didNumber ?? "";
      const clash = app.db
        .select()
        .from(inboundRoutes)
        .all()
        .find((r) => (r.didNumber ?? "") === did);
      if (clash) {
        const what = did ? `DID ${did}` : "calls without a DID";
        throw new HttpError(409, `Inbound route ${clash.description} already handles ${what}`, {
          didNumber: "Already routed",
        });
      }
      const row = app.db
        .insert(inboundRoutes)
        .values({ ...input, trunkId: input.trunkId ?? null })
        .returning()
        .get();
      app.hub.publish({ type: "routes-updated", data: { kind: "inbound", id: row.id, action: "created" } });
      return json(iso(row), 201);
    },
  },
  {
    method: "DELETE",
    path: "/api/inbound-routes/:id",
    handler: ({ app, params }) => {
      const id = parseId(params.id, "Inbound route");
      const res = app.db
        .delete(inboundRoutes)
        .where(eq(inboundRoutes.id, id))
        .returning({ id: inboundRoutes.id })
        .all();
      if (!res.length) throw new HttpError(404, "Inbound route not found");
      app.hub.publish({ type: "routes-updated", data: { kind: "inbound", id, action: "deleted" } });
      return noContent();
    },
  },
];

export const outboundRouteRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/outbound-routes",
    handler: ({ app }) =>
      json(
        app.db
          .select()
          .from(outboundRoutes)
          .orderBy(desc(outboundRoutes.routeOrder), asc(outboundRoutes.id))
          .all()
          .map(iso) as OutboundRoute[],
      ),
  },
  {
    method: "POST",
    path: "/api/outbound-routes",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, outboundRouteSchema);
      requireTrunk(app.db, input.trunkId);
      const clash = app.db
        .select({ id: outboundRoutes.id })
        .from(outboundRoutes)
        .where(eq(outboundRoutes.name, input.name))
        .get();
      if (clash)
        throw new HttpError(409, `An outbound route named ${input.name} already exists`, {
          name: "Name already in use",
        });
      const row = app.db
        .insert(outboundRoutes)
        .values({ ...input, dialPatterns: [...new Set(input.dialPatterns)] })
        .returning()
        .get();
      app.hub.publish({ type: "routes-updated", data: { kind: "outbound", id: row.id, action: "created" } });
      return json(iso(row), 201);
    },
  },
  {
    method: "DELETE",
    path: "/api/outbound-routes/:id",
    handler: ({ app, params }) => {
      const id = parseId(params.id, "Outbound route");
      const res = app.db
        .delete(outboundRoutes)
        .where(eq(outboundRoutes.id, id))
        .returning({ id: outboundRoutes.id })
        .all();
      if (!res.length) throw new HttpError(404, "Outbound route not found");
      app.hub.publish({ type: "routes-updated", data: { kind: "outbound", id, action: "deleted" } });
      return noContent();
    },
  },
];
