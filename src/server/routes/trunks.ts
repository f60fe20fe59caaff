import { eq } from "drizzle-orm";
import { inboundRoutes, outboundRoutes, trunks } from "../../db/schema";
import type { Trunk } from "../../shared/inventory";
import { trunkSchema } from "../../shared/inventory";
import type { RouteDef } from "../context";
import { HttpError, json, noContent, parseBody, parseId } from "../http";

type Row = typeof trunks.$inferSelect;

export const toTrunk = ({ secret, ...rest }: Row): Trunk => ({
  ...rest,
  hasSecret: Boolean(secret),
  createdAt: rest.createdAt.toISOString(),
});

export const trunkRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/trunks",
    handler: ({ app }) => json(app.db.select().from(trunks).orderBy(trunks.name).all().map(toTrunk)),
  },
  {
    method: "POST",
    path: "/api/trunks",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, trunkSchema);
      const clash = app.db.select({ id: trunks.id }).from(trunks).where(eq(trunks.name, input.name)).get();
      if (clash)
        throw new HttpError(409, `A trunk named ${input.name} already exists`, { name: "Name already in use" });
      const row = app.db.insert(trunks).values(input).returning().get();
      app.hub.publish({ type: "trunks-updated", data: { id: row.id, action: "created" } });
      return json(toTrunk(row), 201);
    },
  },
  {
    method: "DELETE",
    path: "/api/trunks/:id",
    handler: ({ app, params }) => {
      const id = parseId(params.id, "Trunk");
      const row = app.db.select().from(trunks).where(eq(trunks.id, id)).get();
      if (!row) throw new HttpError(404, "Trunk not found");
      const routes = app.db
        .select({ name: outboundRoutes.name })
        .from(outboundRoutes)
        .where(eq(outboundRoutes.trunkId, id))
        .all()
        .map((r) => r.name);
      if (routes.length) {
        throw new HttpError(
          409,
          `Trunk ${row.name} is used by outbound route(s): ${routes.join(", ")}. Delete or change them first.`,
        );
      }
      // Deleting silently would turn these into "Any Trunk" routes (the FK's ON DELETE SET NULL).
      const inbound = app.db
        .select({ description: inboundRoutes.description })
        .from(inboundRoutes)
        .where(eq(inboundRoutes.trunkId, id))
        .all()
        .map((r) => r.description);
      if (inbound.length) {
        throw new HttpError(
          409,
          `Trunk ${row.name} is used by inbound route(s): ${inbound.join(", ")}. Delete or change them first.`,
        );
      }
      app.db.delete(trunks).where(eq(trunks.id, id)).run();
      app.hub.publish({ type: "trunks-updated", data: { id, action: "deleted" } });
      return noContent();
    },
  },
];
