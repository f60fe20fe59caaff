import { useQuery } from "@tanstack/react-query";
import { PhoneIncoming } from "lucide-react";
import { Can } from "@/components/can";
import { EmptyState } from "@/components/empty-state";
import { ExportCsvLink, ListBody, ScreenHeader } from "@/components/list-kit";
import { bulkExportUrl } from "@/features/bulk-csv/api";
import { ImportCsvDialog } from "@/features/bulk-csv/import-dialog";
import { inboundRoutesQuery, useDeleteInboundRoute } from "@/features/call-routes/api";
import { InboundRouteCard } from "@/features/call-routes/inbound-route-card";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { AddInboundRouteDialog } from "@/forms/inventory-deferred";
import { POLL_LIST_MS } from "@/lib/constants";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

export function InboundRoutesPage() {
  const routes = useQuery({ ...inboundRoutesQuery(), refetchInterval: POLL_LIST_MS });
  const del = useDeleteInboundRoute(
    undoableDeleteToasts("Route deleted", "Failed to delete inbound route.", [queryKeys.inboundRoutes]),
  );

  return (
    <>
      <ScreenHeader
        title="Inbound Routes"
        subtitle="Send incoming calls to the right destination by DID number"
        action={
          <div className="flex flex-wrap gap-2">
            <Can minRole="operator">
              <ExportCsvLink href={bulkExportUrl("inbound-routes")} />
              <ImportCsvDialog kind="inbound-routes" />
            </Can>
            <AddInboundRouteDialog />
          </div>
        }
      />
      <ListBody
        query={routes}
        layout="list"
        label="Inbound routes"
        empty={
          <EmptyState
            icon={PhoneIncoming}
            title="No inbound routes"
            description="Add a route to decide where incoming calls ring."
            viewerDescription="No route decides where incoming calls ring yet."
          />
        }
      >
        {(items) =>
          items.map((r) => (
            <InboundRouteCard
              key={r.id}
              route={r}
              deleting={runningFor(del, r.id)}
              onDelete={() => del.mutateAsync(r.id)}
            />
          ))
        }
      </ListBody>
    </>
  );
}
