import { useQuery } from "@tanstack/react-query";
import { Grid3x3 } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { ivrsQuery, useDeleteIvr } from "@/features/ivrs/api";
import { IvrCard } from "@/features/ivrs/ivr-card";
import { destinationsQuery } from "@/features/routing/api";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { AddIvrDialog } from "@/forms/inventory-deferred";
import { POLL_LIST_MS } from "@/lib/constants";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

export function IvrsPage() {
  const ivrs = useQuery({ ...ivrsQuery(), refetchInterval: POLL_LIST_MS });
  // The cards name each option's destination as the pickers do ("Extension 1001 · Alice").
  const destinations = useQuery(destinationsQuery());
  const del = useDeleteIvr(
    undoableDeleteToasts("IVR deleted", "Failed to delete IVR.", [queryKeys.ivrs, queryKeys.destinations]),
  );

  return (
    <>
      <ScreenHeader
        title="IVRs"
        subtitle="Menus that play a greeting and send the call on by the key the caller presses"
        action={<AddIvrDialog />}
      />
      <ListBody
        query={ivrs}
        layout="grid"
        label="IVRs"
        waitFor={destinations.isPending}
        empty={
          <EmptyState
            icon={Grid3x3}
            title="No IVRs"
            description="Create an IVR to let callers choose where their call goes with the keypad."
            viewerDescription="No IVR lets callers choose with the keypad yet."
          />
        }
      >
        {(items) =>
          items.map((ivr) => (
            <IvrCard
              key={ivr.id}
              ivr={ivr}
              deleting={runningFor(del, ivr.id)}
              onDelete={() => del.mutateAsync(ivr.id)}
            />
          ))
        }
      </ListBody>
    </>
  );
}
