import {
  createConnectionSchema,
  createSipCredentialSchema,
  requirementsQuerySchema,
  routeNumberSchema,
} from "../../shared/telnyx";
import { type RouteDef, route } from "../context";
import { json, noContent, parseId } from "../http";
import {
  createConnection,
  deleteConnection,
  generateSipCredential,
  listConnections,
  listPhoneNumbers,
  listSipCredentials,
  regulatoryRequirements,
  revealSipPassword,
  routePhoneNumber,
  sipServerInfo,
} from "../integrations/telnyx";

export const telnyxRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/telnyx/sip-server",
    summary: "Telnyx's SIP signalling addresses",
    handler: () => json(sipServerInfo()),
  }),
  route({
    method: "GET",
    path: "/api/telnyx/connections",
    summary: "Telnyx credential connections",
    handler: async ({ app }) => json(await listConnections(app)),
  }),
  route({
    method: "POST",
    path: "/api/telnyx/connections",
    summary: "Create a Telnyx credential connection (user name and password generated when empty)",
    body: createConnectionSchema,
    publishes: ["telnyx-updated"],
    audit: { action: "telnyx.connection.create", object: "telnyx-connection" },
    handler: async ({ app, body }) => json(await createConnection(app, body), 201),
  }),
  route({
    method: "DELETE",
    path: "/api/telnyx/connections/:id",
    summary: "Delete a Telnyx credential connection",
    publishes: ["telnyx-updated"],
    audit: { action: "telnyx.connection.delete", object: "telnyx-connection" },
    handler: async ({ app, params }) => {
      await deleteConnection(app, params.id);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: "/api/telnyx/credentials",
    summary: "SIP credentials generated for extensions (passwords masked)",
    handler: ({ app }) => json(listSipCredentials(app)),
  }),
  route({
    method: "GET",
    path: "/api/telnyx/credentials/:id/password",
    minRole: "operator",
    summary: "Reveal a generated SIP credential's password",
    audit: { action: "telnyx.credential.reveal", object: "sip-credential" },
    handler: ({ app, params }) => json(revealSipPassword(app, parseId(params.id, "Credential"))),
  }),
  route({
    method: "POST",
    path: "/api/extensions/:extensionId/telnyx-credentials",
    summary: "Generate a Telnyx SIP credential for an extension",
    body: createSipCredentialSchema,
    publishes: ["telnyx-updated"],
    audit: { action: "telnyx.credential.create", object: "extension" },
    handler: async ({ app, params, body }) =>
      json(await generateSipCredential(app, parseId(params.extensionId, "Extension"), body), 201),
  }),
  route({
    method: "GET",
    path: "/api/telnyx/phone-numbers",
    summary: "Every phone number on the Telnyx account",
    handler: async ({ app }) => json(await listPhoneNumbers(app)),
  }),
  route({
    method: "POST",
    path: "/api/telnyx/phone-numbers/:numberId/route",
    summary: "Route a phone number to a connection, or un-route it",
    body: routeNumberSchema,
    publishes: ["telnyx-updated"],
    audit: { action: "telnyx.number.route", object: "phone-number" },
    handler: async ({ app, params, body }) => json(await routePhoneNumber(app, params.numberId, body)),
  }),
  route({
    method: "GET",
    path: "/api/telnyx/regulatory-requirements",
    summary: "What Telnyx requires to order a number (by country and number type)",
    query: requirementsQuerySchema,
    handler: async ({ app, query }) => json(await regulatoryRequirements(app, query)),
  }),
];
