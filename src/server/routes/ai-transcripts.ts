import { callTranscriptSchema, transcriptFilterSchema, transcriptQuerySchema } from "../../shared/ai/transcripts";
import {
  deleteTranscript,
  findTranscript,
  getTranscript,
  listTranscripts,
  pageTranscripts,
  storeTranscript,
  transcriptCsvStream,
  transcriptJsonStream,
} from "../ai/transcripts";
import { type RouteDef, route } from "../context";
import { download, json, noContent } from "../http";

/**
 * Call transcripts: the console lists and deletes them (session); the voice
 * bridge stores finished calls with an API token (`transcripts:write`).
 */
export const aiTranscriptRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ai/transcripts",
    summary:
      "Call transcripts, newest first, each with its call's post-call analysis (or null); filters: q searches text and summary (case-insensitive), phone number, extension and the analysis (summary, field values); from (inclusive) and to (exclusive) ISO 8601 times; sentiment; assistant (id); caller (part of the number); field (name=value: an analysis field's value, case-insensitive). With limit or cursor: one page { items (without the text, its first characters as preview), nextCursor, total, matched }; without: the whole list with the text",
    query: transcriptQuerySchema,
    etag: ["call_transcripts"],
    handler: ({ app, query }) =>
      json(
        query.limit !== undefined || query.cursor !== undefined
          ? pageTranscripts(app, query)
          : listTranscripts(app, query),
      ),
  }),
  // Before /:id, which would take "export.csv" for an id.
  route({
    method: "GET",
    path: "/api/ai/transcripts/export.csv",
    summary:
      "The filtered call transcripts as CSV (the list's filters; a header line, then one line per transcript with its text and its analysis: summary, success, reason and one analysis_<name> column per analysis field; newest first; streamed)",
    query: transcriptFilterSchema,
    audit: { action: "ai.transcripts.export" },
    handler: ({ app, query }) =>
      download(transcriptCsvStream(app, query), {
        filename: "call-transcripts.csv",
        contentType: "text/csv;charset=utf-8",
      }),
  }),
  route({
    method: "GET",
    path: "/api/ai/transcripts/export.json",
    summary:
      "The filtered call transcripts as a JSON array (the list's filters; each with its text, newest first; streamed)",
    query: transcriptFilterSchema,
    audit: { action: "ai.transcripts.export" },
    handler: ({ app, query }) =>
      download(transcriptJsonStream(app, query), {
        filename: "call-transcripts.json",
        contentType: "application/json;charset=utf-8",
      }),
  }),
  route({
    method: "GET",
    path: "/api/ai/transcripts/:id",
    summary: "One call transcript with its whole text",
    handler: ({ app, params }) => json(getTranscript(app, params.id)),
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
    audit: {
      action: "ai.transcript.delete",
      object: "ai-transcript",
      load: (app, params) => findTranscript(app, params.id),
    },
    handler: ({ app, params }) => {
      deleteTranscript(app, params.id);
      return noContent();
    },
  }),
];
