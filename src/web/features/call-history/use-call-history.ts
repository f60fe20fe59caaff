/**
 * The Call History screen's pages with "Load more" that survives live updates (the same approach as
 * the Audit screen, features/audit/use-audit-trail.ts): a `call-history-updated` invalidation refetches
 * only the pages already there and cancels a page being loaded, so the screen keeps how many pages were
 * asked for, per filter, and loads the next one whenever no fetch is running and fewer are there.
 */
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { CdrFilter } from "../../../shared/live";
import { callHistoryQuery, cdrFilterQuery } from "./api";

export function useCallHistory(filter: CdrFilter) {
  const history = useInfiniteQuery({ ...callHistoryQuery(filter), placeholderData: keepPreviousData });
  const filterQuery = cdrFilterQuery(filter);
  const [asked, setAsked] = useState({ filterQuery, pages: 1 });
  const wanted = asked.filterQuery === filterQuery ? asked.pages : 1;
  const loaded = history.isPlaceholderData ? 0 : (history.data?.pages.length ?? 0);
  const missing = loaded > 0 && loaded < wanted && history.hasNextPage && !history.isFetchNextPageError;
  const { isFetching, fetchNextPage } = history;

  useEffect(() => {
    if (missing && !isFetching) void fetchNextPage({ cancelRefetch: false });
  }, [missing, isFetching, fetchNextPage]);

  return {
    history,
    calls: history.data?.pages.flatMap((p) => p.items) ?? [],
    loadingMore: missing || history.isFetchingNextPage,
    loadMore: () => {
      setAsked({ filterQuery, pages: loaded + 1 });
      void fetchNextPage({ cancelRefetch: false });
    },
  };
}
