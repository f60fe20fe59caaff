/** AI assistants, routing rules, call transcripts, the call log, the SIP connector details and the rule tester. */
import { queryOptions, useMutation } from "@tanstack/react-query";
import type { z } from "zod";
import { sendJson } from "@/lib/api";
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
} from "../../../shared/ai";

export type AssistantBody = z.output<typeof aiAssistantSchema>;
export type RuleBody = z.output<typeof aiRoutingRuleSchema>;

// The AI screens re-read their lists on every visit.
export const assistantsQuery = () =>
  queryOptions<AiAssistant[]>({ queryKey: queryKeys.aiAssistants, refetchOnMount: "always" });
export const routingRulesQuery = () =>
  queryOptions<AiRoutingRule[]>({ queryKey: queryKeys.aiRoutingRules, refetchOnMount: "always" });
export const transcriptsQuery = () =>
  queryOptions<CallTranscript[]>({ queryKey: queryKeys.aiTranscripts, refetchOnMount: "always" });
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
