import { newApiTokenSchema } from "../../shared/api-tokens";
import { createAccessToken, listAccessTokens, revokeAccessToken } from "../accounts/api-tokens";
import { loadById, type RouteDef, route, signedInUser, WHO_GETS_IN } from "../context";
import { json, noContent } from "../http";

/** REST API tokens (ADR 0074): administrators make, list and revoke them, never with a token. */
export const tokenRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/tokens",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary:
      "List REST API tokens: name, role, expiry, networks, state, who made them, last use (time and address); never a token",
    handler: ({ app }) => json(listAccessTokens(app)),
  }),
  route({
    method: "POST",
    path: "/api/tokens",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary:
      "Create a REST API token with a role (viewer, operator, admin), an optional expiry (at most 2 years ahead) and optional source networks (up to 20); send it as Authorization: Bearer <token>. The answer is the only time it is shown",
    body: newApiTokenSchema,
    publishes: ["api-tokens-updated"],
    audit: { action: "api-token.create", object: "api-token", load: loadById(listAccessTokens) },
    handler: ({ app, user, body }) => json(createAccessToken(app, signedInUser(user), body), 201),
  }),
  route({
    method: "DELETE",
    path: "/api/tokens/:id",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary: "Revoke a REST API token: its very next request is refused (it stays listed as revoked)",
    publishes: ["api-tokens-updated"],
    audit: { action: "api-token.revoke", object: "api-token", load: loadById(listAccessTokens) },
    handler: ({ app, params }) => {
      revokeAccessToken(app, params.id);
      return noContent();
    },
  }),
];
