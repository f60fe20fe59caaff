import { useQuery } from "@tanstack/react-query";
import { PhoneOutgoing } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { outboundRoutesQuery, useDeleteOutboundRoute } from "@/features/call-routes/api";
import { OutboundRouteCard } from "@/features/call-routes/outbound-route-card";
import { useOutboundRouteOrder } from "@/features/call-routes/outbound-route-order";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { trunksQuery } from "@/features/trunks/api";
import { AddOutboundRouteDialog } from "@/forms/inventory-deferred";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

/** Not polled (outbound routes change rarely); the sync socket refetches it when routes change. */
export function OutboundRoutesPage() {
  const routes = useQuery(outboundRoutesQuery());
  const trunks = useQuery(trunksQuery());
  const del = useDeleteOutboundRoute(
    undoableDeleteToasts("Route deleted", "Failed to delete outbound route.", [queryKeys.outboundRoutes]),
  );
  const trunkName = (id: number) => trunks.data?.find((t) => t.id === id)?.name ?? "Unknown Trunk";
  // The list comes in dial order; each card shows its place and moves (ADR 0040).
  const order = useOutboundRouteOrder(routes.data);

  return (
    <>
      <ScreenHeader
        title="Outbound Routes"
        subtitle="Choose which trunk places outgoing calls by dial pattern"
        action={<AddOutboundRouteDialog trunks={trunks.data ?? []} />}
      />
      <ListBody
        query={routes}
        waitFor={trunks.isPending}
        layout="list"
        label="Outbound routes"
        empty={
          <EmptyState
            icon={PhoneOutgoing}
            title="No outbound routes"
            description="Add a route to send outgoing calls through a trunk."
            viewerDescription="No route sends outgoing calls through a trunk yet."
          />
        }
      >
        {(items) =>
          items.map((r, i) => (
            <OutboundRouteCard
              key={r.id}
              order={order.handles(r, i)}
              route={r}
              trunkName={trunkName(r.trunkId)}
              deleting={runningFor(del, r.id)}
              onDelete={() => del.mutateAsync(r.id)}
            />
          ))
        }
      </ListBody>
      {order.status}
    </>
  );
}
