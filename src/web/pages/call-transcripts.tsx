import { CircleAlert, FileText, RotateCw, Search, SearchX } from "lucide-react";
import { type ReactNode, useMemo, useState } from "react";
import { EmptyState } from "@/components/empty-state";
import { CardListSkeleton, LoadMoreFooter, ScreenHeader } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { useDeleteTranscript } from "@/features/ai/api";
import { DELETE_QUESTION } from "@/features/ai/card-parts";
import { TranscriptCard, TranscriptDialog } from "@/features/ai/transcripts";
import { useTranscripts } from "@/features/ai/use-transcripts";
import { useDebounced } from "@/hooks/use-debounced";
import { useWindowList } from "@/hooks/use-window-list";
import { errorText } from "@/lib/error-text";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import { cn } from "@/lib/utils";
import type { TranscriptListItem } from "../../shared/ai";

/** A card with a one-line summary and keywords; cards are measured once mounted. */
const CARD_HEIGHT = 170;
const GAP = 16;

/** The loaded transcripts, only those near the viewport mounted; the end of the list loads the next page. */
function TranscriptList({
  items,
  onEndReached,
  onOpen,
}: {
  items: TranscriptListItem[];
  onEndReached?: () => void;
  onOpen: (t: TranscriptListItem) => void;
}) {
  const list = useWindowList<HTMLDivElement>({
    count: items.length,
    estimateSize: CARD_HEIGHT,
    getItemKey: (i) => items[i]?.id ?? i,
    gap: GAP,
    onEndReached,
  });
  const { items: virtualItems, virtualizer } = list;
  // Re-rendered on every scroll event; the cards only when the window moves.
  const cards = useMemo(
    () =>
      virtualItems.map((v) => {
        const t = items[v.index];
        if (!t) return null;
        return (
          <li
            key={v.key}
            data-index={v.index}
            ref={virtualizer.measureElement}
            aria-setsize={items.length}
            aria-posinset={v.index + 1}
            style={{ paddingBottom: GAP }}
          >
            <TranscriptCard transcript={t} onOpen={() => onOpen(t)} />
          </li>
        );
      }),
    [virtualItems, virtualizer, items, onOpen],
  );
  return (
    <div ref={list.ref} className="relative w-full" style={{ height: list.totalSize }}>
      <ul
        aria-label="Call transcripts"
        className="absolute inset-x-0 top-0"
        style={{ transform: `translateY(${list.offset}px)` }}
      >
        {cards}
      </ul>
    </div>
  );
}

export function CallTranscriptsPage() {
  const [query, setQuery] = useState("");
  const q = useDebounced(query.trim(), 250);
  const { pages, items, total, matched, onEndReached, loadMore } = useTranscripts(q);
  const [open, setOpen] = useState<TranscriptListItem | null>(null);
  const del = useDeleteTranscript(deleteToasts("Transcript deleted successfully", "Failed to delete transcript"));

  let body: ReactNode;
  if (pages.isPending) body = <CardListSkeleton layout="list" />;
  else if (pages.isError && !pages.data) {
    body = (
      <EmptyState
        icon={CircleAlert}
        title="Could not load call transcripts"
        description={errorText(pages.error)}
        action={
          <Button variant="outline" onClick={() => void pages.refetch()} disabled={pages.isFetching}>
            <RotateCw className={cn(pages.isFetching && "animate-spin")} />
            Retry
          </Button>
        }
      />
    );
  } else if (items.length === 0) {
    body = total ? (
      <EmptyState icon={SearchX} title="No matching transcripts" description="Try adjusting your search terms" />
    ) : (
      <EmptyState
        icon={FileText}
        title="No Call Transcripts"
        description="Transcripts appear here when the voice bridge stores finished calls."
      />
    );
  } else {
    body = (
      <>
        <TranscriptList items={items} onEndReached={onEndReached} onOpen={setOpen} />
        <LoadMoreFooter
          shown={items.length}
          noun={["transcript", "transcripts"]}
          hasMore={pages.hasNextPage}
          loadingMore={pages.isFetchingNextPage}
          onLoadMore={loadMore}
          error={pages.isFetchNextPageError ? pages.error : null}
          testId="transcripts-shown"
        />
      </>
    );
  }

  return (
    <>
      <ScreenHeader title="Call Transcripts" subtitle="Search and review transcribed calls" />
      <div className="flex flex-wrap items-center gap-3">
        <div className="relative min-w-64 flex-1">
          <Search className="absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden />
          <Input
            type="search"
            aria-label="Search transcripts"
            placeholder="Search transcripts, phone numbers, extensions..."
            className="pl-9"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        <Badge variant="secondary" data-testid="transcript-count">
          {pages.isPlaceholderData ? "…" : matched} / {total} transcripts
        </Badge>
      </div>
      <div
        aria-busy={pages.isFetching}
        className={cn("grid grid-cols-1 gap-4", pages.isPlaceholderData && "opacity-60 transition-opacity")}
      >
        {body}
      </div>
      <TranscriptDialog
        transcript={open}
        deleting={open ? runningFor(del, open.id) : false}
        onClose={() => setOpen(null)}
        onDelete={() =>
          open &&
          afterConfirm(DELETE_QUESTION.transcript, () => del.mutate(open.id, { onSuccess: () => setOpen(null) }))
        }
      />
    </>
  );
}
