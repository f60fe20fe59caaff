/** The Dashboard's data: the counts of the configured objects (GET /api/dashboard/summary, ADR 0031). */
import { queryOptions } from "@tanstack/react-query";
import { POLL_SUMMARY_MS } from "@/lib/constants";
import { queryKeys } from "@/lib/query-keys";
import type { DashboardSummary } from "../../../shared/dashboard";

/**
 * The counts, instead of the full lists: a few bytes, with an ETag, so the browser revalidates with a 304.
 * Made stale by the events of every table it counts (EVENT_QUERY_KEYS); revalidated whenever the Dashboard
 * mounts and, for writes that send no event, every POLL_SUMMARY_MS.
 */
export const dashboardSummaryQuery = () =>
  queryOptions<DashboardSummary>({
    queryKey: queryKeys.dashboardSummary,
    refetchInterval: POLL_SUMMARY_MS,
    refetchOnMount: "always",
  });
