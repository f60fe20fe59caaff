import { callTranscriptSchema } from "../../shared/ai";
import { deleteTranscript, listTranscripts, storeTranscript } from "../ai/transcripts";
import { loadById, type RouteDef, route } from "../context";
import { json, noContent } from "../http";

/**
 * Call transcripts: the console lists and deletes them (session); the voice
 * bridge stores finished calls with an API token (`transcripts:write`).
 */
export const aiTranscriptRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ai/transcripts",
    summary: "List call transcripts, newest first",
    handler: ({ app }) => json(listTranscripts(app)),
  }),
  route({
    method: "POST",
    path: "/api/ai/transcripts",
    summary: "Store a finished call's transcript (voice bridge, API token with transcripts:write)",
    auth: { apiToken: "transcripts:write" },
    body: callTranscriptSchema,
    publishes: ["ai-transcripts-updated"],
    audit: {
      skip: "Call records posted by the voice bridge (an API token): call activity, not an administrator's change",
    },
    handler: ({ app, body, apiTokenId }) => json(storeTranscript(app, body, apiTokenId), 201),
  }),
  route({
    method: "DELETE",
    path: "/api/ai/transcripts/:id",
    summary: "Delete a call transcript",
    publishes: ["ai-transcripts-updated"],
    audit: { action: "ai.transcript.delete", object: "ai-transcript", load: loadById(listTranscripts) },
    handler: ({ app, params }) => {
      deleteTranscript(app, params.id);
      return noContent();
    },
  }),
];
