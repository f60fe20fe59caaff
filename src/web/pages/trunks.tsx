import { useQuery } from "@tanstack/react-query";
import { Network } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { trunksQuery, useDeleteTrunk } from "@/features/trunks/api";
import { TrunkCard } from "@/features/trunks/trunk-card";
import { AddTrunkDialog } from "@/forms/inventory-deferred";
import { POLL_LIST_MS } from "@/lib/constants";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

export function TrunksPage() {
  const trunks = useQuery({ ...trunksQuery(), refetchInterval: POLL_LIST_MS });
  const del = useDeleteTrunk(undoableDeleteToasts("Trunk deleted", "Failed to delete trunk.", [queryKeys.trunks]));

  return (
    <>
      <ScreenHeader title="Trunks" subtitle="Connect the PBX to your SIP carriers" action={<AddTrunkDialog />} />
      <ListBody
        query={trunks}
        layout="grid"
        label="Trunks"
        empty={
          <EmptyState
            icon={Network}
            title="No trunks configured"
            description="Add a trunk to connect the PBX to a carrier."
            viewerDescription="No trunk connects the PBX to a carrier yet."
          />
        }
      >
        {(items) =>
          items.map((t) => (
            <TrunkCard key={t.id} trunk={t} deleting={runningFor(del, t.id)} onDelete={() => del.mutateAsync(t.id)} />
          ))
        }
      </ListBody>
    </>
  );
}
