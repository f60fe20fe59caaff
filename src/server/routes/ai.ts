import { aiAssistantPatchSchema, aiAssistantSchema } from "../../shared/ai/assistants";
import { type AiTransferRequest, aiTransferSchema } from "../../shared/ai/live";
import {
  type AiWhisperRequest,
  type AssistantStatsQuery,
  aiWhisperSchema,
  assistantStatsQuerySchema,
} from "../../shared/ai/measures";
import {
  createAssistant,
  deleteAssistant,
  dependentsOfAssistant,
  listAssistants,
  sipUriInfo,
  updateAssistant,
} from "../ai/assistants";
import { aiCallDetail } from "../ai/call-detail";
import { listCallLogs } from "../ai/calls";
import { hangupLiveAiCall, listLiveAiCalls, transferLiveAiCall, whisperLiveAiCall } from "../ai/live";
import { listAiMessages } from "../ai/messages";
import { assistantStats } from "../ai/stats";
import { loadById, type RouteDef, route } from "../context";
import { json } from "../http";

/** AI assistants, what the AI Assistants page shows about the SIP connector, and the call log. */
export const aiRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ai/assistants",
    summary: "List AI assistants, newest first",
    etag: ["ai_assistants"],
    handler: ({ app }) => json(listAssistants(app)),
  }),
  route({
    method: "POST",
    path: "/api/ai/assistants",
    summary: "Create an AI assistant",
    body: aiAssistantSchema,
    publishes: ["ai-assistants-updated"],
    audit: { action: "ai.assistant.create", object: "ai-assistant", load: loadById(listAssistants) },
    handler: ({ app, body }) => json(createAssistant(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/ai/assistants/:id",
    summary: "Change some fields of an AI assistant",
    body: aiAssistantPatchSchema,
    publishes: ["ai-assistants-updated"],
    audit: { action: "ai.assistant.update", object: "ai-assistant", load: loadById(listAssistants) },
    handler: ({ app, params, body }) => json(updateAssistant(app, params.id, body)),
  }),
  route({
    method: "DELETE",
    path: "/api/ai/assistants/:id",
    summary: "Delete an AI assistant no routing rule transfers to; answers an undo token",
    publishes: ["ai-assistants-updated"],
    audit: { action: "ai.assistant.delete", object: "ai-assistant", load: loadById(listAssistants) },
    handler: ({ app, params }) => json(deleteAssistant(app, params.id)),
  }),
  route({
    method: "GET",
    path: "/api/ai/assistants/:id/dependents",
    summary:
      "What depends on an AI assistant (the routing rules transferring calls to it); any dependent blocks the delete",
    handler: ({ app, params }) => json(dependentsOfAssistant(app, params.id)),
  }),
  route<undefined, AssistantStatsQuery>({
    method: "GET",
    path: "/api/ai/assistants/:id/stats",
    summary:
      "An AI assistant's calls per UTC day over the last `days` (default 30): calls, cost, p50/p95 turn latency, analysis verdicts; totals; spent today",
    query: assistantStatsQuerySchema,
    handler: ({ app, params, query }) => json(assistantStats(app, params.id, query)),
  }),
  route({
    method: "GET",
    path: "/api/ai/sip-uri",
    summary: "The SIP URI the PBX dials for AI calls, and which OpenAI settings are present",
    handler: ({ app }) => json(sipUriInfo(app)),
  }),
  route({
    method: "GET",
    path: "/api/ai/calls",
    summary: "The last 100 incoming AI calls and what was done with each",
    handler: ({ app }) => json(listCallLogs(app)),
  }),
  route({
    method: "GET",
    path: "/api/ai/messages",
    summary:
      "Messages AI assistants took during calls (take_message), newest first, at most 500, each with its call's transcript id once stored",
    etag: ["ai_messages", "call_transcripts"],
    handler: ({ app }) => json(listAiMessages(app)),
  }),
  route({
    method: "GET",
    path: "/api/ai/calls/live",
    summary:
      "AI calls in progress (ADR 0044): caller, assistant, start, the running transcript and the last classification; ai-live-updated says when it changed",
    handler: ({ app }) => json(listLiveAiCalls(app)),
  }),
  // After /live: a call id is never read as "live".
  route({
    method: "GET",
    path: "/api/ai/calls/:callId",
    summary:
      "One AI call: its log, usage (summed as OpenAI reports it), costUsd, latency {p50Ms, p95Ms, turns}, end reason, analysis and transcript id; the measures so far while it is live",
    handler: ({ app, params }) => json(aiCallDetail(app, params.callId)),
  }),
  route<AiWhisperRequest>({
    method: "POST",
    path: "/api/ai/calls/:callId/whisper",
    summary:
      "Whisper to the assistant of a live AI call: an instruction it receives as a system message (never heard by the caller); 404 when the call is not live, 409 while its sideband is not open",
    minRole: "operator",
    body: aiWhisperSchema,
    // A note on the call's log line, and the whisper on its live card.
    publishes: ["ai-calls-updated", "ai-live-updated"],
    audit: {
      action: "ai.call.whisper",
      object: "ai-call",
      omitBody: true,
      detail: () => "Whispered to the assistant",
    },
    handler: ({ app, params, body }) => json(whisperLiveAiCall(app, params.callId, body.text)),
  }),
  route<AiTransferRequest>({
    method: "POST",
    path: "/api/ai/calls/:callId/transfer",
    summary:
      "Take an AI call over: refer it to an extension (or the assistant's IVR number); 404 when the call ended, 400 for an unknown extension, 502 with the reason when the refer is refused",
    minRole: "operator",
    body: aiTransferSchema,
    // The call's log line at once; the card goes and the transcript is stored as the call leaves OpenAI.
    publishes: ["ai-calls-updated", "ai-live-updated", "ai-transcripts-updated"],
    audit: {
      action: "ai.call.transfer",
      object: "ai-call",
      detail: (answer) => `Transferred to ${(answer as { transferredTo?: string }).transferredTo ?? "?"}`,
    },
    handler: async ({ app, params, body }) => json(await transferLiveAiCall(app, params.callId, body.extension)),
  }),
  route({
    method: "POST",
    path: "/api/ai/calls/:callId/hangup",
    summary: "End an AI call in progress (REST hangup); 404 when it has ended, 502 with the reason when refused",
    minRole: "operator",
    publishes: ["ai-calls-updated", "ai-live-updated", "ai-transcripts-updated"],
    audit: { action: "ai.call.hangup", object: "ai-call" },
    handler: async ({ app, params }) => json(await hangupLiveAiCall(app, params.callId)),
  }),
];
