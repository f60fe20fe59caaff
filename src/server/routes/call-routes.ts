import {
  inboundRoutePatchSchema,
  inboundRouteSchema,
  outboundRouteOrderSchema,
  outboundRoutePatchSchema,
  outboundRouteSchema,
} from "../../shared/inventory";
import { loadById, type RouteDef, route } from "../context";
import { json, parseId } from "../http";
import {
  createInboundRoute,
  createOutboundRoute,
  deleteInboundRoute,
  deleteOutboundRoute,
  dependentsOfInboundRoute,
  dependentsOfOutboundRoute,
  listInboundRoutes,
  listOutboundRoutes,
  reorderOutboundRoutes,
  updateInboundRoute,
  updateOutboundRoute,
} from "../inventory/call-routes";

export const inboundRouteRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/inbound-routes",
    summary: "List the inbound routes",
    etag: ["inbound_routes"],
    handler: ({ app }) => json(listInboundRoutes(app)),
  }),
  route({
    method: "POST",
    path: "/api/inbound-routes",
    summary: "Create an inbound route (one per DID, one without a DID)",
    body: inboundRouteSchema,
    publishes: ["routes-updated"],
    audit: { action: "inbound-route.create", object: "inbound-route", load: loadById(listInboundRoutes) },
    handler: ({ app, body }) => json(createInboundRoute(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/inbound-routes/:id",
    summary: "Edit an inbound route (fields left out keep their values; one route per DID)",
    body: inboundRoutePatchSchema,
    publishes: ["routes-updated"],
    audit: { action: "inbound-route.update", object: "inbound-route", load: loadById(listInboundRoutes) },
    handler: ({ app, params, body }) => json(updateInboundRoute(app, parseId(params.id, "Inbound route"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/inbound-routes/:id",
    summary: "Delete an inbound route; answers an undo token",
    publishes: ["routes-updated"],
    audit: { action: "inbound-route.delete", object: "inbound-route", load: loadById(listInboundRoutes) },
    handler: ({ app, params }) => json(deleteInboundRoute(app, parseId(params.id, "Inbound route"))),
  }),
  route({
    method: "GET",
    path: "/api/inbound-routes/:id/dependents",
    summary: "What depends on an inbound route (none in the console); any dependent blocks the delete",
    handler: ({ app, params }) => json(dependentsOfInboundRoute(app, parseId(params.id, "Inbound route"))),
  }),
];

export const outboundRouteRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/outbound-routes",
    summary: "List the outbound routes in dial order (the order FreePBX tries them)",
    etag: ["outbound_routes"],
    handler: ({ app }) => json(listOutboundRoutes(app)),
  }),
  route({
    method: "POST",
    path: "/api/outbound-routes",
    summary: "Create an outbound route on an existing trunk (names are unique)",
    body: outboundRouteSchema,
    publishes: ["routes-updated"],
    audit: { action: "outbound-route.create", object: "outbound-route", load: loadById(listOutboundRoutes) },
    handler: ({ app, body }) => json(createOutboundRoute(app, body), 201),
  }),
  route({
    method: "POST",
    path: "/api/outbound-routes/order",
    summary: "Set the dial order: every outbound route's id once, first tried first (answers the list)",
    body: outboundRouteOrderSchema,
    publishes: ["routes-updated"],
    audit: {
      action: "outbound-route.reorder",
      load: (app) => ({
        order: listOutboundRoutes(app)
          .map((r) => `${r.id} ${r.name}`)
          .join(", "),
      }),
    },
    handler: ({ app, body }) => json(reorderOutboundRoutes(app, body.ids)),
  }),
  route({
    method: "PATCH",
    path: "/api/outbound-routes/:id",
    summary: "Edit an outbound route (fields left out keep their values; names are unique; its dial order stays)",
    body: outboundRoutePatchSchema,
    publishes: ["routes-updated"],
    audit: { action: "outbound-route.update", object: "outbound-route", load: loadById(listOutboundRoutes) },
    handler: ({ app, params, body }) => json(updateOutboundRoute(app, parseId(params.id, "Outbound route"), body)),
  }),
  route({
    method: "DELETE",
    path: "/api/outbound-routes/:id",
    summary: "Delete an outbound route; answers an undo token",
    publishes: ["routes-updated"],
    audit: { action: "outbound-route.delete", object: "outbound-route", load: loadById(listOutboundRoutes) },
    handler: ({ app, params }) => json(deleteOutboundRoute(app, parseId(params.id, "Outbound route"))),
  }),
  route({
    method: "GET",
    path: "/api/outbound-routes/:id/dependents",
    summary: "What depends on an outbound route (none in the console); any dependent blocks the delete",
    handler: ({ app, params }) => json(dependentsOfOutboundRoute(app, parseId(params.id, "Outbound route"))),
  }),
];
