import { desc, eq } from "drizzle-orm";
import { callTranscripts } from "../../db/schema";
import { callTranscriptSchema } from "../../shared/ai";
import { toTranscript } from "../ai/records";
import type { RouteDef } from "../context";
import { HttpError, json, noContent, parseBody, parseId } from "../http";

/**
 * Call transcripts: the console lists and deletes them (session); the voice
 * bridge stores finished calls with an API token (`transcripts:write`).
 * Search is done in the browser over the whole list (spec section 5).
 */
export const aiTranscriptRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/ai/transcripts",
    handler: ({ app }) =>
      json(
        app.db
          .select()
          .from(callTranscripts)
          .orderBy(desc(callTranscripts.createdAt), desc(callTranscripts.id))
          .all()
          .map(toTranscript),
      ),
  },
  {
    method: "POST",
    path: "/api/ai/transcripts",
    auth: { apiToken: "transcripts:write" },
    handler: async ({ app, req }) => {
      const input = await parseBody(req, callTranscriptSchema);
      if (input.callId) {
        const clash = app.db
          .select({ id: callTranscripts.id })
          .from(callTranscripts)
          .where(eq(callTranscripts.callId, input.callId))
          .get();
        if (clash)
          throw new HttpError(409, `A transcript for call ${input.callId} is already stored (#${clash.id})`, {
            callId: "A transcript for this call is already stored",
          });
      }
      const row = app.db
        .insert(callTranscripts)
        .values({ ...input, createdAt: new Date(app.now()) })
        .returning()
        .get();
      return json(toTranscript(row), 201);
    },
  },
  {
    method: "DELETE",
    path: "/api/ai/transcripts/:id",
    handler: ({ app, params }) => {
      const id = parseId(params.id, "Transcript");
      const row = app.db
        .select({ id: callTranscripts.id })
        .from(callTranscripts)
        .where(eq(callTranscripts.id, id))
        .get();
      if (!row) throw new HttpError(404, "Transcript not found");
      app.db.delete(callTranscripts).where(eq(callTranscripts.id, id)).run();
      return noContent();
    },
  },
];
