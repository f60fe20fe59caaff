import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { CircleAlert, DatabaseZap, History, LoaderCircle, RotateCw, SearchX } from "lucide-react";
import type { ReactNode } from "react";
import { Can } from "@/components/can";
import { EmptyState } from "@/components/empty-state";
import { CardListSkeleton, ExportCsvLink, LoadMoreFooter, ScreenHeader } from "@/components/list-kit";
import { Button } from "@/components/ui/button";
import { callHistoryExportUrl, callStatsQuery } from "@/features/call-history/api";
import { CallHistoryFilters, useCallHistoryFilter } from "@/features/call-history/filters";
import { GroupingNotice } from "@/features/call-history/grouping-notice";
import { HistoryStats } from "@/features/call-history/history-stats";
import { HistoryTable } from "@/features/call-history/history-table";
import { useCallHistory } from "@/features/call-history/use-call-history";
import { trunksQuery } from "@/features/trunks/api";
import { errorText, fieldMessages, refusalStatus } from "@/lib/error-text";
import { cn } from "@/lib/utils";

const TITLE = "Call History";
const SUBTITLE = "Calls from the PBX's call records: who called whom, when, how it ended";

/**
 * The reason the call records cannot be read, or null for any other failure: the server's 503 (the
 * database does not answer) or a 400 without field messages (no database configured, ADR 0027).
 */
function unavailableReason(err: unknown): string | null {
  if (!err) return null;
  const status = refusalStatus(err);
  return status === 503 || (status === 400 && !fieldMessages(err)) ? errorText(err) : null;
}

export function CallHistoryPage() {
  const filterState = useCallHistoryFilter();
  const { filter, bucket } = filterState;
  const { history, calls, loadingMore, loadMore } = useCallHistory(filter);
  const stats = useQuery({ ...callStatsQuery(filter, bucket), placeholderData: keepPreviousData });
  const trunks = useQuery(trunksQuery());
  const unavailable = unavailableReason(history.error) ?? unavailableReason(stats.error);
  const retry = () => {
    void history.refetch();
    void stats.refetch();
  };
  const retrying = history.isFetching || stats.isFetching;

  if (unavailable !== null) {
    return (
      <>
        <ScreenHeader title={TITLE} subtitle={SUBTITLE} />
        <div data-testid="history-unavailable">
          <EmptyState
            icon={DatabaseZap}
            title="Call history unavailable"
            description={unavailable}
            action={
              <div className="flex flex-wrap items-center justify-center gap-3">
                <Button variant="outline" onClick={retry} disabled={retrying}>
                  <RotateCw className={cn(retrying && "animate-spin")} />
                  Retry
                </Button>
                <Can minRole="admin">
                  <Link to="/settings" className="font-medium text-primary text-sm underline-offset-4 hover:underline">
                    Open API Settings
                  </Link>
                </Can>
              </div>
            }
          />
        </div>
      </>
    );
  }

  let body: ReactNode;
  if (history.isPending) body = <CardListSkeleton layout="list" />;
  else if (history.isError && !history.data) {
    body = (
      <EmptyState
        icon={CircleAlert}
        title="Could not load the call history"
        description={errorText(history.error)}
        action={
          <Button variant="outline" onClick={retry} disabled={retrying}>
            <RotateCw className={cn(retrying && "animate-spin")} />
            Retry
          </Button>
        }
      />
    );
  } else if (calls.length === 0 && history.hasNextPage) {
    // A selective filter answers a short (here empty) page with a cursor rather than scanning the whole range.
    body = (
      <EmptyState
        icon={SearchX}
        title="No matching calls yet"
        description="The most recent part of the range has no matching call; older calls may match."
        action={
          <Button variant="outline" onClick={loadMore} disabled={loadingMore}>
            {loadingMore && <LoaderCircle className="animate-spin" />}
            Search older calls
          </Button>
        }
      />
    );
  } else if (calls.length === 0) {
    body = filterState.isFiltered ? (
      <EmptyState
        icon={SearchX}
        title="No matching calls"
        description="No call in the range matches these filters."
        action={
          <Button variant="outline" onClick={filterState.clear}>
            Clear filters
          </Button>
        }
      />
    ) : (
      <EmptyState icon={History} title="No calls in the last 7 days" description="Calls appear here once they end." />
    );
  } else {
    body = (
      <>
        <HistoryTable calls={calls} />
        <LoadMoreFooter
          shown={calls.length}
          noun={["call", "calls"]}
          hasMore={history.hasNextPage}
          loadingMore={loadingMore}
          onLoadMore={loadMore}
          error={history.isError ? history.error : null}
          testId="history-count"
        />
      </>
    );
  }

  return (
    <>
      <ScreenHeader title={TITLE} subtitle={SUBTITLE} action={<ExportCsvLink href={callHistoryExportUrl(filter)} />} />
      <CallHistoryFilters state={filterState} trunks={trunks.data?.map((t) => t.name) ?? []} />
      <GroupingNotice notice={history.data?.pages[0]?.notice ?? stats.data?.notice} />
      <div aria-busy={stats.isFetching} className={cn(stats.isPlaceholderData && "opacity-60 transition-opacity")}>
        <HistoryStats stats={stats} />
      </div>
      <div aria-busy={history.isFetching} className={cn(history.isPlaceholderData && "opacity-60 transition-opacity")}>
        <div className="grid grid-cols-1 gap-4">{body}</div>
      </div>
    </>
  );
}
