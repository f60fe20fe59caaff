import { useQuery } from "@tanstack/react-query";
import { PhoneCall } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { extensionsQuery } from "@/features/extensions/api";
import { ringGroupsQuery, useDeleteRingGroup } from "@/features/ring-groups/api";
import { RingGroupCard } from "@/features/ring-groups/ring-group-card";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { AddRingGroupDialog } from "@/forms/inventory-deferred";
import { POLL_LIST_MS } from "@/lib/constants";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Extension } from "../../shared/inventory";
import { byNumber } from "../../shared/sort";

const sortExtensions = (list: Extension[]) => [...list].sort((a, b) => byNumber(a.extension, b.extension));

export function RingGroupsPage() {
  const groups = useQuery({ ...ringGroupsQuery(), refetchInterval: POLL_LIST_MS });
  const extensions = useQuery({ ...extensionsQuery(), select: sortExtensions });
  const del = useDeleteRingGroup(
    undoableDeleteToasts("Ring Group deleted", "Failed to delete ring group.", [queryKeys.ringGroups]),
  );

  return (
    <>
      <ScreenHeader
        title="Ring Groups"
        subtitle="Ring several phones for one number, then send unanswered calls on"
        action={<AddRingGroupDialog extensions={extensions.data} />}
      />
      <ListBody
        query={groups}
        layout="grid"
        label="Ring groups"
        empty={
          <EmptyState
            icon={PhoneCall}
            title="No Ring Groups"
            description="Create a group to ring several extensions (or outside numbers) for one number."
            viewerDescription="No group rings several extensions for one number yet."
          />
        }
      >
        {(items) =>
          items.map((g) => (
            <RingGroupCard
              key={g.id}
              group={g}
              deleting={runningFor(del, g.id)}
              onDelete={() => del.mutateAsync(g.id)}
            />
          ))
        }
      </ListBody>
    </>
  );
}
