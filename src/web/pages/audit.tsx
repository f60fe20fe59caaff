import { useQuery } from "@tanstack/react-query";
import { CircleAlert, RotateCw, ScrollText, SearchX, ShieldAlert } from "lucide-react";
import type { ReactNode } from "react";
import { EmptyState } from "@/components/empty-state";
import { CardListSkeleton, ExportCsvLink, LoadMoreFooter, ScreenHeader } from "@/components/list-kit";
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
        <LoadMoreFooter
          shown={entries.length}
          noun={["entry", "entries"]}
          hasMore={audit.hasNextPage}
          loadingMore={loadingMore}
          onLoadMore={loadMore}
          error={audit.isError ? audit.error : null}
          testId="audit-count"
        />
      </>
    );
  }

  return (
    <>
      <ScreenHeader title={TITLE} subtitle={SUBTITLE} action={<ExportCsvLink href={auditExportUrl(filter)} />} />
      <AuditFilters state={filterState} actors={users.data?.map((u) => u.username) ?? []} />
      <div aria-busy={audit.isFetching} className={cn(audit.isPlaceholderData && "opacity-60 transition-opacity")}>
        <div className="grid gap-4">{body}</div>
      </div>
    </>
  );
}
