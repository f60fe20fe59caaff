import { pttGroupSchema } from "../../shared/inventory";
import { loadById, type RouteDef, route } from "../context";
import { json, noContent, parseId } from "../http";
import { createPttGroup, deletePttGroup, listPttGroups } from "../inventory/ptt-groups";

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
    method: "DELETE",
    path: "/api/ptt-groups/:id",
    summary: "Delete a PTT group",
    publishes: ["ptt-groups-updated"],
    audit: { action: "ptt-group.delete", object: "ptt-group", load: loadById(listPttGroups) },
    handler: ({ app, params }) => {
      deletePttGroup(app, parseId(params.id, "PTT group"));
      return noContent();
    },
  }),
];
