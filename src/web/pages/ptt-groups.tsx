import { useQuery } from "@tanstack/react-query";
import { Radio } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { extensionsQuery } from "@/features/extensions/api";
import { pttGroupsQuery, useDeletePttGroup } from "@/features/ptt/api";
import { PttGroupCard } from "@/features/ptt/ptt-group-card";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { AddPttGroupDialog } from "@/forms/inventory-deferred";
import { POLL_LIST_MS } from "@/lib/constants";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Extension } from "../../shared/inventory";
import { byNumber } from "../../shared/sort";

const sortExtensions = (list: Extension[]) => [...list].sort((a, b) => byNumber(a.extension, b.extension));

export function PttGroupsPage() {
  const groups = useQuery({ ...pttGroupsQuery(), refetchInterval: POLL_LIST_MS });
  const extensions = useQuery({ ...extensionsQuery(), select: sortExtensions });
  const del = useDeletePttGroup(
    undoableDeleteToasts("PTT Group deleted", "Failed to delete PTT group.", [queryKeys.pttGroups]),
  );

  return (
    <>
      <ScreenHeader
        title="Push-to-Talk Groups"
        subtitle="Manage push-to-talk groups for instant voice"
        action={<AddPttGroupDialog extensions={extensions.data} />}
      />
      <ListBody
        query={groups}
        layout="grid"
        label="PTT groups"
        empty={
          <EmptyState
            icon={Radio}
            title="No PTT Groups"
            description="Create a group to page several extensions at once."
            viewerDescription="No group pages several extensions at once yet."
          />
        }
      >
        {(items) =>
          items.map((g) => (
            <PttGroupCard
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
