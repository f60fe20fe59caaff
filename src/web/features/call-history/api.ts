/**
 * The call history from FreePBX's call records (CDR): pages of calls by filter, newest first, the
 * charts' figures, and the CSV export link. The sync socket's `call-history-updated` (a call ended)
 * makes all of them stale (`queryKeys.callHistory`).
 */
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { getJson } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { CDR_PAGE_DEFAULT, type CdrFilter, type CdrPage, type CdrStats } from "../../../shared/live";

const FILTER_KEYS = ["from", "to", "q", "direction", "disposition", "extension", "trunk"] as const;

/** The filter as a query string without its "?" (`from=…&to=…&q=…`, empty values left out). */
export function cdrFilterQuery(filter: CdrFilter): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filter[key];
    if (value) params.set(key, value);
  }
  return params.toString();
}

/** The calls matching the filter, one page per "Load more" (the server's `nextCursor`). */
export const callHistoryQuery = (filter: CdrFilter, pageSize = CDR_PAGE_DEFAULT) => {
  const filterQuery = cdrFilterQuery(filter);
  return infiniteQueryOptions({
    queryKey: queryKeys.callHistoryPages(filterQuery),
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams(filterQuery);
      params.set("limit", String(pageSize));
      if (pageParam) params.set("cursor", pageParam);
      return getJson<CdrPage>(`/api/cdr?${params}`, signal);
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchOnMount: "always",
  });
};

/** The charts and figures (calls per hour or day, by trunk, ASR, average call duration) for the filter. */
export const callStatsQuery = (filter: CdrFilter, bucket: "hour" | "day") => {
  const params = new URLSearchParams(cdrFilterQuery(filter));
  params.set("bucket", bucket);
  const query = params.toString();
  return queryOptions({
    queryKey: queryKeys.callHistoryStats(query),
    queryFn: ({ signal }) => getJson<CdrStats>(`/api/cdr/stats?${query}`, signal),
    refetchOnMount: "always",
  });
};

/** GET /api/cdr/export.csv with the same filter (a plain link: the session cookie goes with it). */
export const callHistoryExportUrl = (filter: CdrFilter) => {
  const query = cdrFilterQuery(filter);
  return `/api/cdr/export.csv${query ? `?${query}` : ""}`;
};
