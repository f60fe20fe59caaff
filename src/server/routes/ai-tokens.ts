import { apiTokenSchema } from "../../shared/ai/api-tokens";
import { createApiToken, listApiTokens, revokeApiToken } from "../accounts/tokens";
import { loadById, type RouteDef, route, WHO_GETS_IN } from "../context";
import { json, noContent } from "../http";

/** API tokens for the voice bridge: created (shown once) and revoked from the settings page. */
export const aiTokenRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ai/tokens",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary: "List API tokens (never their secrets)",
    handler: ({ app }) => json(listApiTokens(app)),
  }),
  route({
    method: "POST",
    path: "/api/ai/tokens",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary: "Create an API token for the transcript intake; the answer is the only time it is shown",
    body: apiTokenSchema,
    publishes: ["api-tokens-updated"],
    audit: { action: "api-token.create", object: "api-token", load: loadById(listApiTokens) },
    handler: ({ app, body }) => json(createApiToken(app, body), 201),
  }),
  route({
    method: "DELETE",
    path: "/api/ai/tokens/:id",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary: "Revoke an API token (it stays listed)",
    publishes: ["api-tokens-updated"],
    audit: { action: "api-token.revoke", object: "api-token", load: loadById(listApiTokens) },
    handler: ({ app, params }) => {
      revokeApiToken(app, params.id);
      return noContent();
    },
  }),
];
