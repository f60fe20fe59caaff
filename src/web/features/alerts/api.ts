/** Alert rules (list, create, edit, delete), the alerts firing now, and the history a page at a time. */
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { getJson, sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { AlertEventsPage, AlertRule, AlertRuleInput, AlertState } from "../../../shared/alerts";

export const alertRulesQuery = () => queryOptions<AlertRule[]>({ queryKey: queryKeys.alertRules });

/** The URL of the alerts firing now (the screen's preload names it: src/shared/screens.ts). */
export const FIRING_ALERTS_URL = "/api/alerts/events?state=firing&limit=200";

/** Every alert firing now (and their count), under `alertEvents`, so the socket's alerts-updated refetches it. */
export const firingAlertsQuery = () =>
  queryOptions<AlertEventsPage>({
    queryKey: queryKeys.alertEventPages("?state=firing&limit=200"),
    queryFn: ({ signal }) => getJson<AlertEventsPage>(FIRING_ALERTS_URL, signal),
  });

export const HISTORY_PAGE = 50;

/** The history, newest first, optionally of one state, a page per "Load more". */
export const alertHistoryQuery = (state: AlertState | null) => {
  const filterQuery = state ? `?state=${state}` : "";
  return infiniteQueryOptions({
    queryKey: queryKeys.alertEventPages(filterQuery),
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams(filterQuery);
      params.set("limit", String(HISTORY_PAGE));
      if (pageParam) params.set("cursor", pageParam);
      return getJson<AlertEventsPage>(`/api/alerts/events?${params}`, signal);
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
};

const invalidates = [queryKeys.alertRules, queryKeys.alertEvents];

export function useCreateAlertRule(ui: MutationUi<AlertRule, AlertRuleInput>) {
  return useApiMutation({
    mutationFn: (body: AlertRuleInput) => sendJson<AlertRule>("POST", "/api/alerts/rules", body),
    invalidates,
    ...ui,
  });
}

/** The edit body: the rule's id and the whole rule (PUT). */
export type AlertRuleEdit = AlertRuleInput & { id: number };

export function useUpdateAlertRule(ui: MutationUi<AlertRule, AlertRuleEdit>) {
  return useApiMutation({
    mutationFn: ({ id, ...body }: AlertRuleEdit) => sendJson<AlertRule>("PUT", `/api/alerts/rules/${id}`, body),
    invalidates,
    ...ui,
  });
}

export function useDeleteAlertRule(ui: MutationUi<unknown, number>) {
  return useApiMutation({
    mutationFn: (id: number) => sendJson<unknown>("DELETE", `/api/alerts/rules/${id}`),
    invalidates,
    refetchAfterFailure: true,
    ...ui,
  });
}
