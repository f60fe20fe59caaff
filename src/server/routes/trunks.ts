import { trunkSchema } from "../../shared/inventory";
import { loadById, type RouteDef, route } from "../context";
import { json, noContent, parseId } from "../http";
import { createTrunk, deleteTrunk, listTrunks } from "../inventory/trunks";

export const trunkRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/trunks",
    summary: "List the SIP trunks by name (never their secrets)",
    etag: ["trunks"],
    handler: ({ app }) => json(listTrunks(app)),
  }),
  route({
    method: "POST",
    path: "/api/trunks",
    summary: "Create a trunk (names are unique)",
    body: trunkSchema,
    publishes: ["trunks-updated"],
    audit: { action: "trunk.create", object: "trunk", load: loadById(listTrunks) },
    handler: ({ app, body }) => json(createTrunk(app, body), 201),
  }),
  route({
    method: "DELETE",
    path: "/api/trunks/:id",
    summary: "Delete a trunk no route uses",
    publishes: ["trunks-updated"],
    audit: { action: "trunk.delete", object: "trunk", load: loadById(listTrunks) },
    handler: ({ app, params }) => {
      deleteTrunk(app, parseId(params.id, "Trunk"));
      return noContent();
    },
  }),
];
