/**
 * The Call Transcripts screen's pages. Scrolling to the end of what is loaded asks for the next page.
 * When the list goes stale (a transcript stored or deleted, "ai-transcripts-updated"), the screen starts
 * again from the newest page instead of fetching every page it had scrolled through again.
 */
import { type InfiniteData, keepPreviousData, useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect } from "react";
import { queryKeys } from "@/lib/query-keys";
import type { TranscriptPage } from "../../../shared/ai";
import { transcriptPagesQuery } from "./api";

const PAGES_PREFIX = queryKeys.aiTranscriptPages("").slice(0, 2);
const isPagesKey = (key: readonly unknown[]) => PAGES_PREFIX.every((part, i) => key[i] === part);

/** On an invalidation of transcript pages holding more than one page: keep the first, then refetch it. */
function useFirstPageOnInvalidate() {
  const client = useQueryClient();
  useEffect(
    () =>
      client.getQueryCache().subscribe((event) => {
        if (event.type !== "updated" || event.action.type !== "invalidate") return;
        const { queryKey } = event.query;
        if (!isPagesKey(queryKey)) return;
        const data = event.query.state.data as InfiniteData<TranscriptPage, string | null> | undefined;
        if (!data || data.pages.length <= 1) return;
        // The invalidation has already started refetching every page: stop it, then fetch the first only.
        void client.cancelQueries({ queryKey, exact: true }).then(() => {
          client.setQueryData<InfiniteData<TranscriptPage, string | null>>(queryKey, (d) =>
            d ? { pages: d.pages.slice(0, 1), pageParams: d.pageParams.slice(0, 1) } : d,
          );
          void client.refetchQueries({ queryKey, exact: true, type: "active" });
        });
      }),
    [client],
  );
}

export function useTranscripts(q: string) {
  useFirstPageOnInvalidate();
  const pages = useInfiniteQuery({ ...transcriptPagesQuery(q), placeholderData: keepPreviousData });
  const { hasNextPage, isFetching, isFetchNextPageError, fetchNextPage } = pages;
  const first = pages.data?.pages[0];
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetching) void fetchNextPage({ cancelRefetch: false });
  }, [hasNextPage, isFetching, fetchNextPage]);
  return {
    pages,
    items: pages.data?.pages.flatMap((p) => p.items) ?? [],
    total: first?.total ?? 0,
    matched: first?.matched ?? 0,
    /** Scrolled to the end: the next page, unless one is loading or the last one failed (then the button). */
    onEndReached: isFetchNextPageError ? undefined : loadMore,
    loadMore,
  };
}
