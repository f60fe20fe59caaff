import { PhoneOff, Search, SearchX, TriangleAlert } from "lucide-react";
import { useCallback, useDeferredValue, useMemo, useState } from "react";
import { EmptyState } from "@/components/empty-state";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Skeleton } from "@/components/ui/skeleton";
import { errorMessage } from "@/lib/error-text";
import type { Extension } from "../../../shared/inventory";
import { useExtensions } from "./api";
import { ExtensionCard } from "./extension-card";
import { filterExtensions, sortExtensions } from "./filter";
import { QrCodeDialog } from "./qr-code-dialog";
import { VirtualGrid } from "./virtual-grid";

const fmt = (n: number) => n.toLocaleString("en-US");

function SkeletonCards() {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-busy="true">
      <span className="sr-only" role="status">
        Loading extensions…
      </span>
      {[0, 1, 2].map((i) => (
        <Card key={i} className="h-[184px] gap-3 px-5 py-4" data-testid="extension-skeleton">
          <div className="flex justify-between">
            <Skeleton className="h-7 w-20" />
            <Skeleton className="h-5 w-16" />
          </div>
          <Skeleton className="h-4 w-32" />
          <Skeleton className="h-4 w-44" />
          <Skeleton className="mt-auto h-8 w-full" />
        </Card>
      ))}
    </div>
  );
}

function FilterBar({
  query,
  onQuery,
  shown,
  total,
}: {
  query: string;
  onQuery: (q: string) => void;
  shown: number;
  total: number;
}) {
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
      <div className="relative w-full sm:max-w-sm">
        <Search className="-translate-y-1/2 absolute top-1/2 left-3 size-4 text-muted-foreground" aria-hidden />
        <Input
          type="search"
          value={query}
          onChange={(e) => onQuery(e.target.value)}
          placeholder="Filter by number, name or email"
          aria-label="Filter extensions"
          className="pl-9"
        />
      </div>
      <p className="text-muted-foreground text-sm tabular-nums" role="status" data-testid="extension-count">
        {shown === total
          ? `${fmt(total)} ${total === 1 ? "extension" : "extensions"}`
          : `${fmt(shown)} of ${fmt(total)}`}
      </p>
    </div>
  );
}

/** The extension cards: loading, error, empty, filter and the windowed grid. */
export function ExtensionsList() {
  const list = useExtensions();
  const [query, setQuery] = useState("");
  const deferredQuery = useDeferredValue(query);
  const [qrFor, setQrFor] = useState<Extension | null>(null);
  const closeQr = useCallback(() => setQrFor(null), []);

  const sorted = useMemo(() => sortExtensions(list.data ?? []), [list.data]);
  const shown = useMemo(() => filterExtensions(sorted, deferredQuery), [sorted, deferredQuery]);
  const renderCard = useCallback((ext: Extension) => <ExtensionCard ext={ext} onShowQr={setQrFor} />, []);

  if (!list.data) {
    if (list.isError) {
      return (
        <EmptyState
          icon={TriangleAlert}
          title="Could not load extensions"
          description={errorMessage(list.error)}
          action={
            <Button variant="outline" onClick={() => list.refetch()}>
              Try again
            </Button>
          }
        />
      );
    }
    return <SkeletonCards />;
  }

  if (sorted.length === 0) {
    return (
      <EmptyState
        icon={PhoneOff}
        title="No extensions yet"
        description="Create your first extension to get started"
        viewerDescription="No extension has been added yet."
      />
    );
  }

  return (
    <>
      <FilterBar query={query} onQuery={setQuery} shown={shown.length} total={sorted.length} />
      {shown.length === 0 ? (
        <EmptyState
          icon={SearchX}
          title="No matching extensions"
          description={`Nothing matches “${deferredQuery.trim()}”. Try a number, a name or an email.`}
        />
      ) : (
        <VirtualGrid items={shown} getKey={(e) => e.id} renderItem={renderCard} label="Extensions" />
      )}
      <QrCodeDialog ext={qrFor} onClose={closeQr} />
    </>
  );
}
