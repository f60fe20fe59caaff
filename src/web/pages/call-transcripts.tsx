import { useQuery } from "@tanstack/react-query";
import { CircleAlert, Download, FileText, RotateCw, Search, SearchX, X } from "lucide-react";
import { type ReactNode, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from "react";
import { EmptyState } from "@/components/empty-state";
import { CardListSkeleton, LoadMoreFooter, ScreenHeader } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { assistantsQuery, transcriptExportUrl, useDeleteTranscript } from "@/features/ai/api";
import { DELETE_QUESTION } from "@/features/ai/card-parts";
import { type TranscriptFilterForm, useTranscriptFilter } from "@/features/ai/transcript-filter";
import { TranscriptCard, TranscriptDialog } from "@/features/ai/transcripts";
import { useTranscripts } from "@/features/ai/use-transcripts";
import { useDebounced } from "@/hooks/use-debounced";
import { useWindowList } from "@/hooks/use-window-list";
import { errorText } from "@/lib/error-text";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import { cn } from "@/lib/utils";
import { TRANSCRIPT_SENTIMENTS, type TranscriptFilter, type TranscriptListItem } from "../../shared/ai/transcripts";

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
  // New transcripts arriving on top while the user reads further down: the card at the top of the
  // viewport is the anchor; when the list changes, the page scrolls by as much as that card moved, so
  // what the user was reading stays where it was.
  const anchor = useRef<{ items: TranscriptListItem[]; key: number; start: number } | null>(null);
  useLayoutEffect(() => {
    const scrolledIn = (list.ref.current?.getBoundingClientRect().top ?? 0) < 0;
    const was = anchor.current;
    if (was && was.items !== items && scrolledIn) {
      const now = virtualizer.measurementsCache.find((m) => m.key === was.key);
      if (now && now.start !== was.start) window.scrollBy(0, now.start - was.start);
    }
    const at = scrolledIn ? virtualizer.getVirtualItemForOffset(window.scrollY) : undefined;
    anchor.current = at ? { items, key: Number(at.key), start: at.start } : { items, key: -1, start: 0 };
  });
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

const SELECT =
  "h-9 rounded-md border border-input bg-transparent px-3 text-sm shadow-xs outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50 dark:bg-input/30";

/** A text control written to the URL once typing pauses. */
function useTyped(value: string, write: (v: string) => void) {
  const [text, setText] = useState(value);
  const settled = useDebounced(text.trim(), 250);
  const written = useRef(value);
  useEffect(() => {
    if (settled !== written.current) {
      written.current = settled;
      write(settled);
    }
  }, [settled, write]);
  return [text, setText] as const;
}

/** The filters (date range, sentiment, assistant, caller number) and the exports of what they match. */
function FilterBar({
  form,
  setForm,
  filter,
  active,
}: {
  form: TranscriptFilterForm;
  setForm: (patch: Partial<TranscriptFilterForm>) => void;
  filter: TranscriptFilter;
  active: boolean;
}) {
  const assistants = useQuery(assistantsQuery());
  const id = useId();
  const writeCaller = useMemo(() => (caller: string) => setForm({ caller }), [setForm]);
  const [caller, setCaller] = useTyped(form.caller, writeCaller);
  const writeField = useMemo(() => (field: string) => setForm({ field }), [setForm]);
  const [field, setField] = useTyped(form.field, writeField);
  return (
    <div className="flex flex-wrap items-end gap-3" data-testid="transcript-filters">
      <div className="grid gap-1">
        <label className="text-muted-foreground text-xs" htmlFor={`${id}-from`}>
          From
        </label>
        <Input
          type="date"
          id={`${id}-from`}
          className="w-40"
          value={form.from}
          max={form.to || undefined}
          onChange={(e) => setForm({ from: e.target.value })}
        />
      </div>
      <div className="grid gap-1">
        <label className="text-muted-foreground text-xs" htmlFor={`${id}-to`}>
          To
        </label>
        <Input
          type="date"
          id={`${id}-to`}
          className="w-40"
          value={form.to}
          min={form.from || undefined}
          onChange={(e) => setForm({ to: e.target.value })}
        />
      </div>
      <div className="grid gap-1">
        <label className="text-muted-foreground text-xs" htmlFor={`${id}-sentiment`}>
          Sentiment
        </label>
        <select
          id={`${id}-sentiment`}
          className={SELECT}
          value={form.sentiment}
          onChange={(e) => setForm({ sentiment: e.target.value })}
        >
          <option value="">Any</option>
          {TRANSCRIPT_SENTIMENTS.map((s) => (
            <option key={s} value={s}>
              {s[0]?.toUpperCase()}
              {s.slice(1)}
            </option>
          ))}
        </select>
      </div>
      <div className="grid gap-1">
        <label className="text-muted-foreground text-xs" htmlFor={`${id}-assistant`}>
          Assistant
        </label>
        <select
          id={`${id}-assistant`}
          className={cn(SELECT, "max-w-52")}
          value={form.assistant}
          onChange={(e) => setForm({ assistant: e.target.value })}
        >
          <option value="">Any</option>
          {(assistants.data ?? []).map((a) => (
            <option key={a.id} value={String(a.id)}>
              {a.name}
            </option>
          ))}
        </select>
      </div>
      <div className="grid gap-1">
        <label className="text-muted-foreground text-xs" htmlFor={`${id}-caller`}>
          Caller number
        </label>
        <Input
          type="search"
          inputMode="tel"
          id={`${id}-caller`}
          placeholder="+1555…"
          className="w-40"
          value={caller}
          onChange={(e) => setCaller(e.target.value)}
        />
      </div>
      <div className="grid gap-1">
        <label className="text-muted-foreground text-xs" htmlFor={`${id}-field`}>
          Analysis field
        </label>
        <Input
          type="search"
          id={`${id}-field`}
          placeholder="order_id=A-1742"
          className="w-48"
          value={field}
          onChange={(e) => setField(e.target.value)}
        />
      </div>
      {active && (
        <Button
          variant="ghost"
          onClick={() => {
            setCaller("");
            setField("");
            setForm({ from: "", to: "", sentiment: "", assistant: "", caller: "", field: "" });
          }}
        >
          <X />
          Clear filters
        </Button>
      )}
      <div className="ml-auto flex flex-wrap gap-2">
        <Button asChild variant="outline">
          <a href={transcriptExportUrl("csv", filter)} download>
            <Download aria-hidden />
            Export CSV
          </a>
        </Button>
        <Button asChild variant="outline">
          <a href={transcriptExportUrl("json", filter)} download>
            <Download aria-hidden />
            Export JSON
          </a>
        </Button>
      </div>
    </div>
  );
}

export function CallTranscriptsPage() {
  const { form, filter, setForm, active } = useTranscriptFilter();
  const writeQ = useMemo(() => (q: string) => setForm({ q }), [setForm]);
  const [query, setQuery] = useTyped(form.q, writeQ);
  const { pages, items, total, matched, onEndReached, loadMore } = useTranscripts(filter);
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
      <EmptyState
        icon={SearchX}
        title="No matching transcripts"
        description={active ? "Try other filters or clear them" : "Try adjusting your search terms"}
      />
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
      <FilterBar form={form} setForm={setForm} filter={filter} active={active} />
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
