/**
 * The Audit screen's pages with "Load more" that survives live updates. The sync socket invalidates the
 * audit queries whenever rows are added, and an invalidation cancels a page being loaded (then refetches
 * only the pages already there). So the screen keeps how many pages were asked for, per filter, and
 * loads the next one whenever no fetch is running and fewer are there.
 */
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { AuditFilter } from "../../../shared/audit";
import { auditFilterQuery, auditQuery } from "./api";

export function useAuditTrail(filter: AuditFilter) {
  const audit = useInfiniteQuery({ ...auditQuery(filter), placeholderData: keepPreviousData });
  const filterQuery = auditFilterQuery(filter);
  const [asked, setAsked] = useState({ filterQuery, pages: 1 });
  const wanted = asked.filterQuery === filterQuery ? asked.pages : 1;
  const loaded = audit.isPlaceholderData ? 0 : (audit.data?.pages.length ?? 0);
  // After a failed page the button asks again (no retry loop here).
  const missing = loaded > 0 && loaded < wanted && audit.hasNextPage && !audit.isFetchNextPageError;
  const { isFetching, fetchNextPage } = audit;

  useEffect(() => {
    // Never cancel a running refetch (its newer rows would be lost): wait for it, then load on.
    if (missing && !isFetching) void fetchNextPage({ cancelRefetch: false });
  }, [missing, isFetching, fetchNextPage]);

  return {
    audit,
    entries: audit.data?.pages.flatMap((p) => p.items) ?? [],
    /** A next page is asked for and not in yet. */
    loadingMore: missing || audit.isFetchingNextPage,
    loadMore: () => {
      setAsked({ filterQuery, pages: loaded + 1 });
      void fetchNextPage({ cancelRefetch: false });
    },
  };
}
