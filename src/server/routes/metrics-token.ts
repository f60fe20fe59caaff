import { type RouteDef, route, signedInUser, WHO_GETS_IN } from "../context";
import { json } from "../http";
import { createMetricsToken, metricsTokenView, revokeMetricsToken } from "../metrics/token";

/** The scrape token of GET /metrics made in the console (ADR 0066): administrators only. */
export const metricsTokenRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/settings/metrics-token",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary:
      "Whether GET /metrics has a scrape token: METRICS_TOKEN from the environment, and the one made in the console (its first and last characters, never the token)",
    handler: ({ app }) => json(metricsTokenView(app)),
  }),
  route({
    method: "POST",
    path: "/api/settings/metrics-token",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary:
      "Make a new scrape token for GET /metrics (Authorization: Bearer …), replacing the console's earlier one; the token is in this answer only",
    publishes: ["metrics-token-updated"],
    audit: { action: "metrics.token.create", object: "settings", load: (app) => metricsTokenView(app) },
    handler: ({ app, user }) => json(createMetricsToken(app, signedInUser(user)), 201),
  }),
  route({
    method: "DELETE",
    path: "/api/settings/metrics-token",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary: "Revoke the console's scrape token (METRICS_TOKEN, when set, goes on working); 404 when there is none",
    publishes: ["metrics-token-updated"],
    audit: { action: "metrics.token.revoke", object: "settings", load: (app) => metricsTokenView(app) },
    handler: ({ app }) => json(revokeMetricsToken(app)),
  }),
];
