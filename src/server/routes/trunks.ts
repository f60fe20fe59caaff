import { trunkPatchSchema, trunkSchema } from "../../shared/inventory";
import { loadById, type RouteDef, route } from "../context";
import { json, parseId } from "../http";
import { createTrunk, deleteTrunk, dependentsOfTrunk, listTrunks, updateTrunk } from "../inventory/trunks";

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
    method: "PATCH",
    path: "/api/trunks/:id",
    summary: "Edit a trunk (fields left out keep their values; a blank secret keeps the stored one; names stay unique)",
    body: trunkPatchSchema,
    publishes: ["trunks-updated"],
    audit: { action: "trunk.update", object: "trunk", load: loadById(listTrunks) },
    handler: ({ app, params, body }) => json(updateTrunk(app, parseId(params.id, "Trunk"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/trunks/:id",
    summary: "Delete a trunk no outbound route uses; answers an undo token",
    publishes: ["trunks-updated"],
    audit: { action: "trunk.delete", object: "trunk", load: loadById(listTrunks) },
    handler: ({ app, params }) => json(deleteTrunk(app, parseId(params.id, "Trunk"))),
  }),
  route({
    method: "GET",
    path: "/api/trunks/:id/dependents",
    summary: "What depends on a trunk (the outbound routes using it); any dependent blocks the delete",
    handler: ({ app, params }) => json(dependentsOfTrunk(app, parseId(params.id, "Trunk"))),
  }),
];
