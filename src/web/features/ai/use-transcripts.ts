/**
 * The Call Transcripts screen's pages. Scrolling to the end of what is loaded asks for the next page.
 * When the list goes stale (a transcript stored or deleted, "ai-transcripts-updated"), only the newest
 * page is fetched again and put on top of the pages already loaded (ADR 0041): new transcripts appear
 * at the top, the pages the user scrolled through stay, and one deleted within the newest page goes.
 */
import { type InfiniteData, keepPreviousData, useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect } from "react";
import { queryKeys } from "@/lib/query-keys";
import type { TranscriptFilter, TranscriptListItem, TranscriptPage } from "../../../shared/ai/transcripts";
import { fetchTranscriptPage, transcriptPagesQuery } from "./api";

type Pages = InfiniteData<TranscriptPage, string | null>;

const PAGES_PREFIX = queryKeys.aiTranscriptPages("").slice(0, 2);
const isPagesKey = (key: readonly unknown[]) => PAGES_PREFIX.every((part, i) => key[i] === part);

/** Whether `a` comes after `b` in the list (older; ties broken by id, as the server's keyset does). */
const olderThan = (a: TranscriptListItem, b: TranscriptListItem) =>
  a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);

/**
 * The newest page on top of the loaded ones: the loaded items older than the newest page's last stay
 * (their pages and cursors unchanged), those within its range are what it says now. When the newest page
 * does not reach back to what was loaded (more than a page arrived), there would be a gap: the list
 * starts again from the newest page.
 */
export function mergeNewest(fresh: TranscriptPage, old: Pages): Pages {
  const last = fresh.items[fresh.items.length - 1];
  const oldFirst = old.pages[0]?.items[0];
  if (!last || fresh.nextCursor === null || (oldFirst && olderThan(oldFirst, last))) {
    return { pages: [fresh], pageParams: [null] };
  }
  const kept = old.pages.slice(1).map((p) => ({ ...p, items: p.items.filter((t) => olderThan(t, last)) }));
  const firstOlder = (old.pages[0]?.items ?? []).filter((t) => olderThan(t, last));
  const first: TranscriptPage = {
    ...fresh,
    items: [...fresh.items, ...firstOlder],
    nextCursor: old.pages[0]?.nextCursor ?? fresh.nextCursor,
  };
  return { pages: [first, ...kept], pageParams: old.pageParams };
}

/** On an invalidation of transcript pages holding more than one page: fetch the newest and merge it. */
function useNewestOnInvalidate(filter: TranscriptFilter) {
  const client = useQueryClient();
  useEffect(
    () =>
      client.getQueryCache().subscribe((event) => {
        if (event.type !== "updated" || event.action.type !== "invalidate") return;
        const { queryKey } = event.query;
        if (!isPagesKey(queryKey)) return;
        const data = event.query.state.data as Pages | undefined;
        if (!data || data.pages.length <= 1) return;
        if (queryKey[2] !== transcriptPagesQuery(filter).queryKey[2]) return;
        // The invalidation refetches every page (a page's cursor is from before the new rows: one row would
        // fall between the pages). Fetch the newest only, stop that refetch, and merge into the pages as
        // they were when the change came.
        void fetchTranscriptPage(filter, null).then(
          async (fresh) => {
            await client.cancelQueries({ queryKey, exact: true });
            client.setQueryData<Pages>(queryKey, mergeNewest(fresh, data));
          },
          () => void client.refetchQueries({ queryKey, exact: true, type: "active" }),
        );
      }),
    [client, filter],
  );
}

export function useTranscripts(filter: TranscriptFilter) {
  useNewestOnInvalidate(filter);
  const pages = useInfiniteQuery({ ...transcriptPagesQuery(filter), placeholderData: keepPreviousData });
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
