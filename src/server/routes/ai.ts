import { desc, eq } from "drizzle-orm";
import { aiAssistants, aiCallLogs } from "../../db/schema";
import { aiAssistantSchema, type SipUriInfo, sipUriFor, WEBHOOK_PATH } from "../../shared/ai";
import { parsePatch, toAssistant, toCallLog } from "../ai/records";
import type { AppContext, RouteDef } from "../context";
import { HttpError, json, noContent, parseBody, parseId } from "../http";

const find = (app: AppContext, raw: string | undefined) => {
  const id = parseId(raw, "AI assistant");
  const row = app.db.select().from(aiAssistants).where(eq(aiAssistants.id, id)).get();
  if (!row) throw new HttpError(404, "AI assistant not found");
  return row;
};

/** AI assistants (spec sections 2, 3, 5, 7) and what the AI Assistants page shows about the SIP connector. */
export const aiRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/ai/assistants",
    handler: ({ app }) =>
      json(
        app.db
          .select()
          .from(aiAssistants)
          .orderBy(desc(aiAssistants.createdAt), desc(aiAssistants.id))
          .all()
          .map(toAssistant),
      ),
  },
  {
    method: "POST",
    path: "/api/ai/assistants",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, aiAssistantSchema);
      const now = new Date(app.now());
      const row = app.db
        .insert(aiAssistants)
        .values({ ...input, createdAt: now, updatedAt: now })
        .returning()
        .get();
      return json(toAssistant(row), 201);
    },
  },
  {
    method: "PATCH",
    path: "/api/ai/assistants/:id",
    handler: async ({ app, req, params }) => {
      const { id, createdAt: _c, updatedAt: _u, ...current } = find(app, params.id);
      const input = await parsePatch(req, aiAssistantSchema, current);
      const row = app.db
        .update(aiAssistants)
        .set({ ...input, updatedAt: new Date(app.now()) })
        .where(eq(aiAssistants.id, id))
        .returning()
        .get();
      return json(toAssistant(row));
    },
  },
  {
    method: "DELETE",
    path: "/api/ai/assistants/:id",
    handler: ({ app, params }) => {
      const { id } = find(app, params.id);
      app.db.delete(aiAssistants).where(eq(aiAssistants.id, id)).run();
      return noContent();
    },
  },
  {
    method: "GET",
    path: "/api/ai/sip-uri",
    handler: ({ app }) => {
      const v = app.credentials.values("openai");
      const projectId = v.projectId && /^proj_[A-Za-z0-9]+$/.test(v.projectId) ? v.projectId : null;
      const body: SipUriInfo = {
        uri: projectId ? sipUriFor(projectId) : null,
        webhookPath: WEBHOOK_PATH,
        apiKeySet: Boolean(v.apiKey),
        webhookSecretSet: Boolean(v.webhookSecret),
      };
      return json(body);
    },
  },
  {
    method: "GET",
    path: "/api/ai/calls",
    handler: ({ app }) =>
      json(app.db.select().from(aiCallLogs).orderBy(desc(aiCallLogs.id)).limit(100).all().map(toCallLog)),
  },
];
