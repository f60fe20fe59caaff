import { pttGroupPatchSchema, pttGroupSchema } from "../../shared/inventory";
import { loadById, type RouteDef, route } from "../context";
import { json, parseId } from "../http";
import {
  createPttGroup,
  deletePttGroup,
  dependentsOfPttGroup,
  listPttGroups,
  updatePttGroup,
} from "../inventory/ptt-groups";

export const pttGroupRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ptt-groups",
    summary: "List the PTT (page) groups in numeric order",
    etag: ["ptt_groups"],
    handler: ({ app }) => json(listPttGroups(app)),
  }),
  route({
    method: "POST",
    path: "/api/ptt-groups",
    summary: "Create a PTT group of existing extensions on a free number",
    body: pttGroupSchema,
    publishes: ["ptt-groups-updated"],
    audit: { action: "ptt-group.create", object: "ptt-group", load: loadById(listPttGroups) },
    handler: ({ app, body }) => json(createPttGroup(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/ptt-groups/:id",
    summary: "Edit a PTT group (fields left out keep their values; members are extensions; a new number must be free)",
    body: pttGroupPatchSchema,
    publishes: ["ptt-groups-updated"],
    audit: { action: "ptt-group.update", object: "ptt-group", load: loadById(listPttGroups) },
    handler: ({ app, params, body }) => json(updatePttGroup(app, parseId(params.id, "PTT group"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/ptt-groups/:id",
    summary: "Delete a PTT group; answers an undo token",
    publishes: ["ptt-groups-updated"],
    audit: { action: "ptt-group.delete", object: "ptt-group", load: loadById(listPttGroups) },
    handler: ({ app, params }) => json(deletePttGroup(app, parseId(params.id, "PTT group"))),
  }),
  route({
    method: "GET",
    path: "/api/ptt-groups/:id/dependents",
    summary: "What depends on a PTT group (none in the console); any dependent blocks the delete",
    handler: ({ app, params }) => json(dependentsOfPttGroup(app, parseId(params.id, "PTT group"))),
  }),
];
