/** AI assistants, routing rules, call transcripts, the call log, the SIP connector details and the rule tester. */
import { infiniteQueryOptions, queryOptions, useMutation } from "@tanstack/react-query";
import type { z } from "zod";
import { getJson, sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type {
  AiAssistant,
  AiCallLog,
  AiRoutingRule,
  aiAssistantSchema,
  aiRoutingRuleSchema,
  CallTranscript,
  RouteDecision,
  SipUriInfo,
  TranscriptPage,
} from "../../../shared/ai";
import { TRANSCRIPT_PAGE_DEFAULT } from "../../../shared/ai";

export type AssistantBody = z.output<typeof aiAssistantSchema>;
export type RuleBody = z.output<typeof aiRoutingRuleSchema>;

// The AI screens re-read their lists on every visit.
export const assistantsQuery = () =>
  queryOptions<AiAssistant[]>({ queryKey: queryKeys.aiAssistants, refetchOnMount: "always" });
export const routingRulesQuery = () =>
  queryOptions<AiRoutingRule[]>({ queryKey: queryKeys.aiRoutingRules, refetchOnMount: "always" });
/**
 * The transcripts matching `q` (blank: all), newest first, one page (without the text) at a time
 * (the server's `nextCursor`). The sync socket's "ai-transcripts-updated" makes them stale
 * (`queryKeys.aiTranscripts`); the screen then starts again from the first page.
 */
export const transcriptPagesQuery = (q: string, pageSize = TRANSCRIPT_PAGE_DEFAULT) =>
  infiniteQueryOptions({
    queryKey: queryKeys.aiTranscriptPages(q),
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams({ limit: String(pageSize) });
      if (q) params.set("q", q);
      if (pageParam) params.set("cursor", pageParam);
      return getJson<TranscriptPage>(`/api/ai/transcripts?${params}`, signal);
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchOnMount: "always",
  });
/** One transcript with its whole text (the detail dialog). */
export const transcriptQuery = (id: number) => queryOptions<CallTranscript>({ queryKey: queryKeys.aiTranscript(id) });
export const aiCallsQuery = () => queryOptions<AiCallLog[]>({ queryKey: queryKeys.aiCalls, refetchOnMount: "always" });
export const sipUriQuery = () => queryOptions<SipUriInfo>({ queryKey: queryKeys.aiSipUri, refetchOnMount: "always" });

/** POST to `listUrl` (create, `id` null) or PATCH `<listUrl>/<id>` (edit). */
const save = <T>(listUrl: string, id: number | null, body: unknown) =>
  id === null ? sendJson<T>("POST", listUrl, body) : sendJson<T>("PATCH", `${listUrl}/${id}`, body);

/** Creates an assistant, or edits the one with `editingId`. */
export function useSaveAssistant(editingId: number | null, ui: MutationUi<AiAssistant, AssistantBody>) {
  return useApiMutation({
    mutationFn: (body: AssistantBody) => save<AiAssistant>("/api/ai/assistants", editingId, body),
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

const useDelete = (listUrl: string, listKey: readonly string[], ui: MutationUi<unknown, number>) =>
  useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `${listUrl}/${id}`),
    invalidates: [listKey],
    ...ui,
  });

export const useDeleteAssistant = (ui: MutationUi<unknown, number>) =>
  useDelete("/api/ai/assistants", queryKeys.aiAssistants, ui);
export const useDeleteRule = (ui: MutationUi<unknown, number>) =>
  useDelete("/api/ai/routing-rules", queryKeys.aiRoutingRules, ui);
export const useDeleteTranscript = (ui: MutationUi<unknown, number>) =>
  useDelete("/api/ai/transcripts", queryKeys.aiTranscripts, ui);

/** Tries the rules against the facts of a call (POST /api/ai/route); changes nothing. */
export function useRouteTest(ui: MutationUi<RouteDecision, Record<string, unknown>>) {
  return useMutation<RouteDecision, Error, Record<string, unknown>>({
    mutationFn: (facts) => sendJson<RouteDecision>("POST", "/api/ai/route", facts),
    onSuccess: ui.onSuccess,
    onError: ui.onError,
  });
}
