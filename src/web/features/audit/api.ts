/** The audit trail (administrators only): pages of entries by filter, newest first, and the CSV export link. */
import { infiniteQueryOptions } from "@tanstack/react-query";
import { getJson } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { AUDIT_PAGE_DEFAULT, type AuditFilter, type AuditPage } from "../../../shared/audit";

/** The filter as a query string (`?actor=…&action=…`, empty values left out; "" with no filter). */
export function auditFilterQuery(filter: AuditFilter): string {
  const params = new URLSearchParams();
  for (const key of ["actor", "action", "q", "outcome"] as const) {
    const value = filter[key];
    if (value) params.set(key, value);
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/**
 * The entries matching `filter`, one page per "Load more" (the server's `nextCursor`). The sync socket's
 * "audit-updated" invalidates every filter's pages (`queryKeys.audit`), so new rows come in live.
 */
export const auditQuery = (filter: AuditFilter, pageSize = AUDIT_PAGE_DEFAULT) => {
  const filterQuery = auditFilterQuery(filter);
  return infiniteQueryOptions({
    queryKey: queryKeys.auditPages(filterQuery),
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams(filterQuery);
      params.set("limit", String(pageSize));
      if (pageParam) params.set("cursor", pageParam);
      return getJson<AuditPage>(`/api/audit?${params}`, signal);
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchOnMount: "always",
  });
};

/** GET /api/audit/export.csv with the same filter (a plain link: the session cookie goes with it). */
export const auditExportUrl = (filter: AuditFilter) => `/api/audit/export.csv${auditFilterQuery(filter)}`;
