import { desc, eq } from "drizzle-orm";
import { apiTokens } from "../../db/schema";
import { apiTokenSchema } from "../../shared/ai";
import { createApiToken } from "../accounts/tokens";
import { toToken } from "../ai/records";
import type { RouteDef } from "../context";
import { HttpError, json, noContent, parseBody, parseId } from "../http";

/** API tokens for the voice bridge: created (shown once) and revoked from the settings page. */
export const aiTokenRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/ai/tokens",
    handler: ({ app }) => json(app.db.select().from(apiTokens).orderBy(desc(apiTokens.id)).all().map(toToken)),
  },
  {
    method: "POST",
    path: "/api/ai/tokens",
    handler: async ({ app, req }) => {
      const { name } = await parseBody(req, apiTokenSchema);
      return json(createApiToken(app, name, "transcripts:write"), 201);
    },
  },
  {
    method: "DELETE",
    path: "/api/ai/tokens/:id",
    handler: ({ app, params }) => {
      const id = parseId(params.id, "API token");
      const row = app.db.select().from(apiTokens).where(eq(apiTokens.id, id)).get();
      if (!row) throw new HttpError(404, "API token not found");
      if (!row.revokedAt)
        app.db
          .update(apiTokens)
          .set({ revokedAt: new Date(app.now()) })
          .where(eq(apiTokens.id, id))
          .run();
      return noContent();
    },
  },
];
