/**
 * The list-screen layout the trunk, route, PTT and AI screens share: the header with
 * its action, the card list with its loading, error and empty states, and the
 * per-card delete button (hidden from a role that cannot delete).
 */
import type { UseQueryResult } from "@tanstack/react-query";
import { CircleAlert, Download, LoaderCircle, RotateCw, Trash2 } from "lucide-react";
import type { ReactNode } from "react";
import { EmptyState } from "@/components/empty-state";
import { PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { useCan } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import { cn } from "@/lib/utils";

/** The screen title on the left, its main action (usually an "Add …" dialog) on the right. */
export function ScreenHeader({ title, subtitle, action }: { title: string; subtitle: string; action?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-start justify-between gap-4">
      <PageHeader title={title} subtitle={subtitle} />
      {action}
    </div>
  );
}

/** The grid (or stack) the cards of a list screen sit in. */
export function CardList({ layout, children, label }: { layout: "grid" | "list"; children: ReactNode; label: string }) {
  return (
    <ul
      aria-label={label}
      className={cn("grid gap-4", layout === "grid" ? "sm:grid-cols-2 xl:grid-cols-3" : "grid-cols-1")}
    >
      {children}
    </ul>
  );
}

/** Three placeholder cards while a list loads. */
export function CardListSkeleton({ layout }: { layout: "grid" | "list" }) {
  return (
    <div
      role="status"
      aria-label="Loading"
      className={cn("grid gap-4", layout === "grid" ? "sm:grid-cols-2 xl:grid-cols-3" : "grid-cols-1")}
    >
      {[0, 1, 2].map((i) => (
        <Card key={i}>
          <CardHeader>
            <Skeleton className="h-5 w-2/5" />
            <Skeleton className="h-4 w-3/5" />
          </CardHeader>
          <CardContent className="flex gap-2">
            <Skeleton className="h-5 w-16" />
            <Skeleton className="h-5 w-20" />
          </CardContent>
        </Card>
      ))}
    </div>
  );
}

/**
 * The body of a list screen: skeletons while loading, an error with Retry, the
 * empty state, or the cards (`children` runs only with a non-empty list).
 */
export function ListBody<T>({
  query,
  layout,
  label,
  empty,
  waitFor = false,
  children,
}: {
  query: Pick<UseQueryResult<T[]>, "isPending" | "isError" | "error" | "data" | "refetch" | "isFetching">;
  layout: "grid" | "list";
  label: string;
  empty: ReactNode;
  /** Another query the cards need (e.g. trunk names): keep the skeletons until it is in. */
  waitFor?: boolean;
  children: (items: T[]) => ReactNode;
}) {
  if (query.isPending || waitFor) return <CardListSkeleton layout={layout} />;
  if (query.isError && !query.data) {
    return (
      <EmptyState
        icon={CircleAlert}
        title={`Could not load ${label.toLowerCase()}`}
        description={errorText(query.error)}
        action={
          <Button variant="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
            <RotateCw className={cn(query.isFetching && "animate-spin")} />
            Retry
          </Button>
        }
      />
    );
  }
  if (!query.data?.length) return empty;
  return (
    <CardList layout={layout} label={label}>
      {children(query.data)}
    </CardList>
  );
}

/**
 * The icon button on a card; `label` names the thing ("Delete trunk Telnyx"). Not shown to a role
 * that cannot delete (a viewer).
 */
export function DeleteButton({ label, pending, onClick }: { label: string; pending: boolean; onClick: () => void }) {
  if (!useCan("operator")) return null;
  return (
    <Button
      type="button"
      variant="ghost"
      size="icon"
      className="-mt-1.5 -mr-2 size-8 text-muted-foreground hover:text-destructive"
      aria-label={label}
      title={label}
      disabled={pending}
      onClick={onClick}
    >
      {pending ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
    </Button>
  );
}

/**
 * Under a cursor-paged list (audit trail, call history): how many are shown, "Load more" while the
 * server has older ones, and the error of a page that failed to load.
 */
export function LoadMoreFooter({
  shown,
  noun,
  hasMore,
  loadingMore,
  onLoadMore,
  error,
  testId,
}: {
  shown: number;
  /** Singular and plural: ["entry", "entries"]. */
  noun: [string, string];
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  error: unknown;
  testId: string;
}) {
  return (
    <>
      <div className="flex flex-wrap items-center gap-3">
        <p className="text-muted-foreground text-sm" aria-live="polite" data-testid={testId}>
          {shown} {shown === 1 ? noun[0] : noun[1]}
          {hasMore ? " shown, older ones follow" : ""}
        </p>
        {hasMore && (
          <Button type="button" variant="outline" onClick={onLoadMore} disabled={loadingMore}>
            {loadingMore && <LoaderCircle className="animate-spin" />}
            Load more
          </Button>
        )}
      </div>
      {error ? (
        <p role="alert" className="text-destructive text-sm">
          Could not load more {noun[1]}: {errorText(error)}
        </p>
      ) : null}
    </>
  );
}

/** The header's "Export CSV" download link (the same filter as the list). */
export function ExportCsvLink({ href }: { href: string }) {
  return (
    <Button asChild variant="outline">
      <a href={href} download>
        <Download aria-hidden />
        Export CSV
      </a>
    </Button>
  );
}
