import { type UpdateQuery, updateQuerySchema, updateStartSchema } from "../../shared/update";
import { type RouteDef, route, signedInUser } from "../context";
import { json } from "../http";
import { startUpdate, updateStatus } from "../update/service";

/** Self-update (docs/decisions/0065-self-update.md): administrators only. */
export const updateRoutes: RouteDef[] = [
  route<undefined, UpdateQuery>({
    method: "GET",
    path: "/api/update",
    minRole: "admin",
    summary:
      "This version, the latest release from the signed manifest at UPDATE_URL (cached for hours; ?refresh=1 reads it now), the update in progress and the last one's outcome",
    query: updateQuerySchema,
    handler: async ({ app, query }) => json(await updateStatus(app, query)),
  }),
  route({
    method: "POST",
    path: "/api/update",
    minRole: "admin",
    summary:
      "Install the latest release (202; 409 while one is in progress, when up to date, or when the latest is not the version given): download and hash-check here, then the updater backs up, swaps, restarts and rolls back unless /healthz answers within 30 s",
    body: updateStartSchema,
    publishes: ["update-updated"],
    audit: { action: "update.start", object: "update", detail: (answer) => (answer as { version?: string }).version },
    handler: async ({ app, user, body }) => json(await startUpdate(app, signedInUser(user), body), 202),
  }),
];
