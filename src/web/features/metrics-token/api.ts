/** The scrape token of GET /metrics made in the console (ADR 0066): its state, create/rotate (shown once), revoke. */
import { queryOptions } from "@tanstack/react-query";
import { sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { CreatedMetricsToken, MetricsTokenView } from "../../../shared/metrics";

export const metricsTokenQuery = () => queryOptions<MetricsTokenView>({ queryKey: queryKeys.metricsToken });

export function useCreateMetricsToken(ui: MutationUi<CreatedMetricsToken, void>) {
  return useApiMutation({
    mutationFn: () => sendJson<CreatedMetricsToken>("POST", "/api/settings/metrics-token", {}),
    invalidates: [queryKeys.metricsToken],
    ...ui,
  });
}

export function useRevokeMetricsToken(ui: MutationUi<MetricsTokenView, void>) {
  return useApiMutation({
    mutationFn: () => sendJson<MetricsTokenView>("DELETE", "/api/settings/metrics-token"),
    invalidates: [queryKeys.metricsToken],
    ...ui,
  });
}
