import { inboundRouteSchema, outboundRouteSchema } from "../../shared/inventory";
import { loadById, type RouteDef, route } from "../context";
import { json, noContent, parseId } from "../http";
import {
  createInboundRoute,
  createOutboundRoute,
  deleteInboundRoute,
  deleteOutboundRoute,
  listInboundRoutes,
  listOutboundRoutes,
} from "../inventory/routes";

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
    method: "DELETE",
    path: "/api/inbound-routes/:id",
    summary: "Delete an inbound route",
    publishes: ["routes-updated"],
    audit: { action: "inbound-route.delete", object: "inbound-route", load: loadById(listInboundRoutes) },
    handler: ({ app, params }) => {
      deleteInboundRoute(app, parseId(params.id, "Inbound route"));
      return noContent();
    },
  }),
];

export const outboundRouteRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/outbound-routes",
    summary: "List the outbound routes, highest route order first",
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
    method: "DELETE",
    path: "/api/outbound-routes/:id",
    summary: "Delete an outbound route",
    publishes: ["routes-updated"],
    audit: { action: "outbound-route.delete", object: "outbound-route", load: loadById(listOutboundRoutes) },
    handler: ({ app, params }) => {
      deleteOutboundRoute(app, parseId(params.id, "Outbound route"));
      return noContent();
    },
  }),
];
