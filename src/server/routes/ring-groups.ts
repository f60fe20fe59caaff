import { ringGroupPatchSchema, ringGroupSchema } from "../../shared/inventory";
import { loadById, type RouteDef, route } from "../context";
import { json, parseId } from "../http";
import {
  createRingGroup,
  deleteRingGroup,
  dependentsOfRingGroup,
  listRingGroups,
  updateRingGroup,
} from "../inventory/ring-groups";

export const ringGroupRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ring-groups",
    summary: "List the ring groups in numeric order",
    etag: ["ring_groups"],
    handler: ({ app }) => json(listRingGroups(app)),
  }),
  route({
    method: "POST",
    path: "/api/ring-groups",
    summary:
      "Create a ring group on a free number: strategy, ring time, members (extensions, external numbers ending in #) and the no-answer destination",
    body: ringGroupSchema,
    publishes: ["ring-groups-updated"],
    audit: { action: "ring-group.create", object: "ring-group", load: loadById(listRingGroups) },
    handler: ({ app, body }) => json(createRingGroup(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/ring-groups/:id",
    summary:
      "Edit a ring group (fields left out keep their values; a new number must be free and unused as a destination)",
    body: ringGroupPatchSchema,
    publishes: ["ring-groups-updated"],
    audit: { action: "ring-group.update", object: "ring-group", load: loadById(listRingGroups) },
    handler: ({ app, params, body }) => json(updateRingGroup(app, parseId(params.id, "Ring group"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/ring-groups/:id",
    summary:
      "Delete a ring group no inbound route, ring group or queue sends calls to (409 naming them); answers an undo token",
    publishes: ["ring-groups-updated"],
    audit: { action: "ring-group.delete", object: "ring-group", load: loadById(listRingGroups) },
    handler: ({ app, params }) => json(deleteRingGroup(app, parseId(params.id, "Ring group"))),
  }),
  route({
    method: "GET",
    path: "/api/ring-groups/:id/dependents",
    summary:
      "What sends calls to a ring group (inbound routes, other ring groups, queues); any of them blocks the delete",
    handler: ({ app, params }) => json(dependentsOfRingGroup(app, parseId(params.id, "Ring group"))),
  }),
];
