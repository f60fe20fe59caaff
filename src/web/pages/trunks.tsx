import { useQuery } from "@tanstack/react-query";
import { Network } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { AddTrunkDialog } from "@/features/trunks/add-trunk-dialog";
import { TrunkCard } from "@/features/trunks/trunk-card";
import { keys, POLL_LIST_MS } from "@/lib/constants";
import { useDelete } from "@/lib/mutations";
import type { Trunk } from "../../shared/inventory";

export function TrunksPage() {
  const trunks = useQuery<Trunk[]>({ queryKey: keys.trunks, refetchInterval: POLL_LIST_MS });
  const del = useDelete({ listKey: keys.trunks, success: "Trunk deleted", failure: "Failed to delete trunk." });

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
          />
        }
      >
        {(items) =>
          items.map((t) => (
            <TrunkCard key={t.id} trunk={t} deleting={del.isDeleting(t.id)} onDelete={() => del.remove(t.id)} />
          ))
        }
      </ListBody>
    </>
  );
}
