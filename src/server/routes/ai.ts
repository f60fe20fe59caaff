import { desc } from "drizzle-orm";
import { aiAssistants } from "../../db/schema";
import type { RouteDef } from "../context";
import { json } from "../http";

/** The AI assistants list (the dashboard counts it); the rest of the AI API builds on it. */
export const aiRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/ai/assistants",
    handler: ({ app }) => json(app.db.select().from(aiAssistants).orderBy(desc(aiAssistants.createdAt)).all()),
  },
];
