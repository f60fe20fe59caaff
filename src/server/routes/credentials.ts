import { saveCredentialSchema, testCredentialSchema } from "../../shared/credentials";
import { type RouteDef, route } from "../context";
import { json, noContent } from "../http";
import {
  connectionStatus,
  listCredentials,
  removeCredential,
  saveCredential,
  testCredential,
} from "../integrations/credential-actions";

export const credentialRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/credentials",
    minRole: "admin",
    summary: "Every outside service's credentials (secrets as set/last 4 only)",
    handler: ({ app }) => json(listCredentials(app)),
  }),
  route({
    method: "GET",
    path: "/api/credentials/connection-status",
    minRole: "admin",
    summary: "Whether each outside service is configured and its last test passed",
    handler: ({ app }) => json(connectionStatus(app)),
  }),
  route({
    method: "POST",
    path: "/api/credentials",
    minRole: "admin",
    summary: "Save a service's credentials (an empty secret keeps the stored one)",
    body: saveCredentialSchema,
    publishes: ["credentials-updated"],
    handler: ({ app, body }) => json(saveCredential(app, body)),
  }),
  route({
    method: "POST",
    path: "/api/credentials/test",
    minRole: "admin",
    summary: "Test Connection with the given or stored credentials (records the result for the saved ones)",
    body: testCredentialSchema,
    publishes: ["credentials-updated"],
    handler: async ({ app, body }) => json(await testCredential(app, body)),
  }),
  route({
    method: "DELETE",
    path: "/api/credentials/:type",
    minRole: "admin",
    summary: "Forget a service's stored credentials",
    publishes: ["credentials-updated"],
    handler: ({ app, params }) => {
      removeCredential(app, params.type);
      return noContent();
    },
  }),
];
