import { useQuery } from "@tanstack/react-query";
import { PhoneIncoming } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { AddInboundRouteDialog } from "@/features/routes/add-inbound-route-dialog";
import { inboundRoutesQuery, useDeleteInboundRoute } from "@/features/routes/api";
import { InboundRouteCard } from "@/features/routes/inbound-route-card";
import { trunksQuery } from "@/features/trunks/api";
import { POLL_LIST_MS } from "@/lib/constants";
import { deleteToasts, runningFor } from "@/lib/mutations";

export function InboundRoutesPage() {
  const routes = useQuery({ ...inboundRoutesQuery(), refetchInterval: POLL_LIST_MS });
  const trunks = useQuery(trunksQuery());
  const del = useDeleteInboundRoute(deleteToasts("Route deleted", "Failed to delete inbound route."));
  const trunkName = (id: number | null) =>
    id == null ? undefined : (trunks.data?.find((t) => t.id === id)?.name ?? `Trunk ${id}`);

  return (
    <>
      <ScreenHeader
        title="Inbound Routes"
        subtitle="Send incoming calls to the right destination by DID number"
        action={<AddInboundRouteDialog trunks={trunks.data ?? []} />}
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
              trunkName={trunkName(r.trunkId)}
              deleting={runningFor(del, r.id)}
              onDelete={() => del.mutate(r.id)}
            />
          ))
        }
      </ListBody>
    </>
  );
}
