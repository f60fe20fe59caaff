import { useQuery } from "@tanstack/react-query";
import { CircleAlert, Download, LoaderCircle, RotateCw, ScrollText, SearchX, ShieldAlert } from "lucide-react";
import type { ReactNode } from "react";
import { EmptyState } from "@/components/empty-state";
import { CardListSkeleton, ScreenHeader } from "@/components/list-kit";
import { Button } from "@/components/ui/button";
import { auditExportUrl } from "@/features/audit/api";
import { AuditFilters, useAuditFilter } from "@/features/audit/audit-filters";
import { AuditTable } from "@/features/audit/audit-table";
import { useAuditTrail } from "@/features/audit/use-audit-trail";
import { usersQuery } from "@/features/users/api";
import { useCan } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import { cn } from "@/lib/utils";

const TITLE = "Audit";
const SUBTITLE = "Who did what, when and from where: sign-ins, changes, deployments, credentials and backups";

export function AuditPage() {
  const isAdmin = useCan("admin");
  if (!isAdmin) {
    return (
      <>
        <ScreenHeader title={TITLE} subtitle={SUBTITLE} />
        <EmptyState
          icon={ShieldAlert}
          title="For administrators"
          description="Only administrators can see the audit trail."
        />
      </>
    );
  }
  return <AuditTrail />;
}

function AuditTrail() {
  const filterState = useAuditFilter();
  const { filter } = filterState;
  const { audit, entries, loadingMore, loadMore } = useAuditTrail(filter);
  const users = useQuery(usersQuery());

  let body: ReactNode;
  if (audit.isPending) body = <CardListSkeleton layout="list" />;
  else if (audit.isError && !audit.data) {
    body = (
      <EmptyState
        icon={CircleAlert}
        title="Could not load the audit trail"
        description={errorText(audit.error)}
        action={
          <Button variant="outline" onClick={() => void audit.refetch()} disabled={audit.isFetching}>
            <RotateCw className={cn(audit.isFetching && "animate-spin")} />
            Retry
          </Button>
        }
      />
    );
  } else if (entries.length === 0) {
    body =
      Object.keys(filter).length > 0 ? (
        <EmptyState
          icon={SearchX}
          title="No matching entries"
          description="No recorded action matches these filters."
          action={
            <Button variant="outline" onClick={filterState.clear}>
              Clear filters
            </Button>
          }
        />
      ) : (
        <EmptyState
          icon={ScrollText}
          title="Nothing recorded yet"
          description="Sign-ins, changes, deployments and backups appear here as they happen."
        />
      );
  } else {
    body = (
      <>
        <AuditTable entries={entries} />
        <div className="flex flex-wrap items-center gap-3">
          <p className="text-muted-foreground text-sm" aria-live="polite" data-testid="audit-count">
            {entries.length} {entries.length === 1 ? "entry" : "entries"}
            {audit.hasNextPage ? " shown, older ones follow" : ""}
          </p>
          {audit.hasNextPage && (
            <Button type="button" variant="outline" onClick={loadMore} disabled={loadingMore}>
              {loadingMore && <LoaderCircle className="animate-spin" />}
              Load more
            </Button>
          )}
        </div>
        {audit.isError && (
          <p role="alert" className="text-destructive text-sm">
            Could not load more entries: {errorText(audit.error)}
          </p>
        )}
      </>
    );
  }

  return (
    <>
      <ScreenHeader
        title={TITLE}
        subtitle={SUBTITLE}
        action={
          <Button asChild variant="outline">
            <a href={auditExportUrl(filter)} download>
              <Download aria-hidden />
              Export CSV
            </a>
          </Button>
        }
      />
      <AuditFilters state={filterState} actors={users.data?.map((u) => u.username) ?? []} />
      <div aria-busy={audit.isFetching} className={cn(audit.isPlaceholderData && "opacity-60 transition-opacity")}>
        <div className="grid gap-4">{body}</div>
      </div>
    </>
  );
}
