/**
 * AI assistants, routing rules, call transcripts, the call log with each call's measures, the price table, the SIP
 * connector details, the rule tester, and the supervision of a live call (whisper, take-over, hang-up).
 */
import { infiniteQueryOptions, queryOptions, useMutation } from "@tanstack/react-query";
import type { z } from "zod";
import { getJson, sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { AiAssistant, aiAssistantSchema } from "../../../shared/ai/assistants";
import type { AiCallLog, SipUriInfo } from "../../../shared/ai/calls";
import type { AiHangupAnswer, AiTransferAnswer, LiveAiCall } from "../../../shared/ai/live";
import type {
  AiCallDetail,
  AiPrices,
  AiPricesRequest,
  AiWhisperAnswer,
  AssistantStats,
} from "../../../shared/ai/measures";
import type { AiMessage } from "../../../shared/ai/messages";
import type { AiRoutingRule, aiRoutingRuleSchema, RouteDecision } from "../../../shared/ai/routing-rules";
import type { AiClientSecret } from "../../../shared/ai/test-bench";
import type { TestRun, TestScript, TestScriptRequest } from "../../../shared/ai/test-scripts";
import type { CallTranscript, TranscriptFilter, TranscriptPage } from "../../../shared/ai/transcripts";
import { TRANSCRIPT_PAGE_DEFAULT } from "../../../shared/ai/transcripts";
import type { DeleteAnswer } from "../../../shared/safe-delete";

export type AssistantBody = z.output<typeof aiAssistantSchema>;
/** What the assistant form sends: no temperature (the GA session has none; ADR 0044). */
export type AssistantFormBody = Omit<AssistantBody, "temperature">;
export type RuleBody = z.output<typeof aiRoutingRuleSchema>;

// The AI screens re-read their lists on every visit.
export const assistantsQuery = () =>
  queryOptions<AiAssistant[]>({ queryKey: queryKeys.aiAssistants, refetchOnMount: "always" });
export const routingRulesQuery = () =>
  queryOptions<AiRoutingRule[]>({ queryKey: queryKeys.aiRoutingRules, refetchOnMount: "always" });
/** The query string of a transcript filter (blank values left out), in a fixed order: also the query key. */
export function transcriptFilterQuery(filter: TranscriptFilter): string {
  const params = new URLSearchParams();
  for (const key of ["q", "from", "to", "sentiment", "assistant", "caller", "field"] as const) {
    const value = filter[key];
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  return params.toString();
}

/** One page of the filtered transcripts, older than `cursor` (null: the newest). */
export function fetchTranscriptPage(
  filter: TranscriptFilter,
  cursor: string | null,
  signal?: AbortSignal,
  pageSize = TRANSCRIPT_PAGE_DEFAULT,
): Promise<TranscriptPage> {
  const params = new URLSearchParams(transcriptFilterQuery(filter));
  params.set("limit", String(pageSize));
  if (cursor) params.set("cursor", cursor);
  return getJson<TranscriptPage>(`/api/ai/transcripts?${params}`, signal);
}

/**
 * The transcripts matching the filter (none: all), newest first, one page (without the text) at a time
 * (the server's `nextCursor`). The sync socket's "ai-transcripts-updated" makes them stale
 * (`queryKeys.aiTranscripts`); the screen then puts the newest page on top of what it has (use-transcripts.ts).
 */
export const transcriptPagesQuery = (filter: TranscriptFilter, pageSize = TRANSCRIPT_PAGE_DEFAULT) =>
  infiniteQueryOptions({
    queryKey: queryKeys.aiTranscriptPages(transcriptFilterQuery(filter)),
    queryFn: ({ pageParam, signal }) => fetchTranscriptPage(filter, pageParam, signal, pageSize),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchOnMount: "always",
  });

/** GET /api/ai/transcripts/export.csv|json with the same filter (a plain link: the session cookie goes with it). */
export const transcriptExportUrl = (format: "csv" | "json", filter: TranscriptFilter) => {
  const query = transcriptFilterQuery(filter);
  return `/api/ai/transcripts/export.${format}${query ? `?${query}` : ""}`;
};
/** One transcript with its whole text (the detail dialog). */
export const transcriptQuery = (id: number) => queryOptions<CallTranscript>({ queryKey: queryKeys.aiTranscript(id) });
export const aiCallsQuery = () => queryOptions<AiCallLog[]>({ queryKey: queryKeys.aiCalls, refetchOnMount: "always" });
export const sipUriQuery = () => queryOptions<SipUriInfo>({ queryKey: queryKeys.aiSipUri, refetchOnMount: "always" });

/** POST to `listUrl` (create, `id` null) or PATCH `<listUrl>/<id>` (edit). */
const save = <T>(listUrl: string, id: number | null, body: unknown) =>
  id === null ? sendJson<T>("POST", listUrl, body) : sendJson<T>("PATCH", `${listUrl}/${id}`, body);

/** Creates an assistant, or edits the one with `editingId`. */
export function useSaveAssistant(editingId: number | null, ui: MutationUi<AiAssistant, AssistantFormBody>) {
  return useApiMutation({
    mutationFn: (body: AssistantFormBody) => save<AiAssistant>("/api/ai/assistants", editingId, body),
    invalidates: [queryKeys.aiAssistants],
    ...ui,
  });
}

/** Creates a routing rule, or edits the one with `editingId`. */
export function useSaveRule(editingId: number | null, ui: MutationUi<AiRoutingRule, RuleBody>) {
  return useApiMutation({
    mutationFn: (body: RuleBody) => save<AiRoutingRule>("/api/ai/routing-rules", editingId, body),
    invalidates: [queryKeys.aiRoutingRules],
    ...ui,
  });
}

const useDelete = <T = unknown>(listUrl: string, listKey: readonly string[], ui: MutationUi<T, number>) =>
  useApiMutation({
    mutationFn: (id: number) => sendJson<T>("DELETE", `${listUrl}/${id}`),
    invalidates: [listKey],
    ...ui,
  });

/** Assistants and rules answer an undo token (ADR 0037). */
export const useDeleteAssistant = (ui: MutationUi<DeleteAnswer, number>) =>
  useDelete<DeleteAnswer>("/api/ai/assistants", queryKeys.aiAssistants, ui);
export const useDeleteRule = (ui: MutationUi<DeleteAnswer, number>) =>
  useDelete<DeleteAnswer>("/api/ai/routing-rules", queryKeys.aiRoutingRules, ui);
export const useDeleteTranscript = (ui: MutationUi<unknown, number>) =>
  useDelete("/api/ai/transcripts", queryKeys.aiTranscripts, ui);

/** A 60-second client secret for a test-bench call to one assistant (ADR 0073); stores nothing. */
export const mintClientSecret = (assistantId: number) =>
  sendJson<AiClientSecret>("POST", `/api/ai/assistants/${assistantId}/client-secret`, {});

/** Tries the rules against the facts of a call (POST /api/ai/route); changes nothing. */
export function useRouteTest(ui: MutationUi<RouteDecision, Record<string, unknown>>) {
  return useMutation<RouteDecision, Error, Record<string, unknown>>({
    mutationFn: (facts) => sendJson<RouteDecision>("POST", "/api/ai/route", facts),
    onSuccess: ui.onSuccess,
    onError: ui.onError,
  });
}

/** AI calls in progress (never polled: the sync socket's "ai-live-updated" refetches it; ADR 0044). */
export const liveAiCallsQuery = () =>
  queryOptions<LiveAiCall[]>({ queryKey: queryKeys.aiLiveCalls, refetchOnMount: "always" });
/** Messages the assistants took, newest first ("ai-messages-updated" refetches them). */
export const aiMessagesQuery = () =>
  queryOptions<AiMessage[]>({ queryKey: queryKeys.aiMessages, refetchOnMount: "always" });

/** An operator takes a call over: refers it to an extension. */
export const useTransferAiCall = (ui: MutationUi<AiTransferAnswer, { callId: string; extension: string }>) =>
  useApiMutation({
    mutationFn: ({ callId, extension }: { callId: string; extension: string }) =>
      sendJson<AiTransferAnswer>("POST", `/api/ai/calls/${encodeURIComponent(callId)}/transfer`, { extension }),
    invalidates: [queryKeys.aiLiveCalls],
    refetchAfterFailure: true,
    ...ui,
  });

/** An operator ends a call. */
export const useHangupAiCall = (ui: MutationUi<AiHangupAnswer, string>) =>
  useApiMutation({
    mutationFn: (callId: string) =>
      sendJson<AiHangupAnswer>("POST", `/api/ai/calls/${encodeURIComponent(callId)}/hangup`, {}),
    invalidates: [queryKeys.aiLiveCalls],
    refetchAfterFailure: true,
    ...ui,
  });

/** An operator whispers to the assistant of a live call: an instruction the caller never hears. */
export const useWhisperAiCall = (ui: MutationUi<AiWhisperAnswer, { callId: string; text: string }>) =>
  useApiMutation({
    mutationFn: ({ callId, text }: { callId: string; text: string }) =>
      sendJson<AiWhisperAnswer>("POST", `/api/ai/calls/${encodeURIComponent(callId)}/whisper`, { text }),
    // The whisper changes nothing the screens list; the call's own events refresh it.
    invalidates: [],
    ...ui,
  });

/**
 * One AI call with its usage, cost, latency and analysis (the AI call page). A call still in progress has no
 * measures yet: the page re-reads it while `live`, and "ai-calls-updated" refreshes it once they are stored.
 */
export const aiCallQuery = (callId: string) => queryOptions<AiCallDetail>({ queryKey: queryKeys.aiCall(callId) });

/** The price table per model (USD per million tokens of each kind). */
export const aiPricesQuery = () => queryOptions<AiPrices>({ queryKey: queryKeys.aiPrices, refetchOnMount: "always" });

/** Saves the whole price table (administrators only). */
export const useSaveAiPrices = (ui: MutationUi<AiPrices, AiPricesRequest>) =>
  useApiMutation({
    mutationFn: (body: AiPricesRequest) => sendJson<AiPrices>("PUT", "/api/ai/prices", body),
    invalidates: [queryKeys.aiPrices],
    ...ui,
  });

/** The days the assistant cards chart. */
export const ASSISTANT_STATS_DAYS = 30;

/** One assistant's calls, cost, latency and success per day over the last `days` (its card). */
export const assistantStatsQuery = (id: number, days = ASSISTANT_STATS_DAYS) =>
  queryOptions<AssistantStats>({ queryKey: queryKeys.aiAssistantStats(id, days), refetchOnMount: "always" });

/** An assistant's test scripts, each with its last run (ADR 0072); "ai-test-scripts-updated" and "ai-test-runs-updated" refresh them. */
export const testScriptsQuery = (assistantId: number) =>
  queryOptions<TestScript[]>({ queryKey: queryKeys.aiTestScripts(assistantId), refetchOnMount: "always" });
/** The assistant's runs, newest first. */
export const testRunsQuery = (assistantId: number, limit = 50) =>
  queryOptions<TestRun[]>({ queryKey: queryKeys.aiTestRuns(assistantId, limit), refetchOnMount: "always" });

/** Both lists above: what a script's change or a run makes stale. */
const testKeys = (assistantId: number) => [["/api/ai/assistants", String(assistantId)]];

/** Adds a test script to the assistant, or replaces the one with `editingId`. */
export const useSaveTestScript = (
  assistantId: number,
  editingId: number | null,
  ui: MutationUi<TestScript, TestScriptRequest>,
) =>
  useApiMutation({
    mutationFn: (body: TestScriptRequest) =>
      editingId === null
        ? sendJson<TestScript>("POST", `/api/ai/assistants/${assistantId}/test-scripts`, body)
        : sendJson<TestScript>("PUT", `/api/ai/test-scripts/${editingId}`, body),
    invalidates: testKeys(assistantId),
    ...ui,
  });

export const useDeleteTestScript = (assistantId: number, ui: MutationUi<unknown, number>) =>
  useApiMutation({
    mutationFn: (id: number) => sendJson("DELETE", `/api/ai/test-scripts/${id}`),
    invalidates: testKeys(assistantId),
    ...ui,
  });

/** Queues a run of one script (`scriptId`) or, with null, of every script of the assistant. */
export const useRunTestScripts = (assistantId: number, ui: MutationUi<unknown, number | null>) =>
  useApiMutation({
    mutationFn: (scriptId: number | null) =>
      sendJson(
        "POST",
        scriptId === null
          ? `/api/ai/assistants/${assistantId}/test-scripts/run`
          : `/api/ai/test-scripts/${scriptId}/run`,
        {},
      ),
    invalidates: testKeys(assistantId),
    ...ui,
  });
