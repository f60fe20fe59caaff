import { useQuery } from "@tanstack/react-query";
import { Radio } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { AddPttGroupDialog } from "@/features/ptt/add-ptt-group-dialog";
import { PttGroupCard } from "@/features/ptt/ptt-group-card";
import { keys, POLL_LIST_MS } from "@/lib/constants";
import { useDelete } from "@/lib/mutations";
import type { Extension, PttGroup } from "../../shared/inventory";
import { byNumber } from "../../shared/sort";

const sortExtensions = (list: Extension[]) => [...list].sort((a, b) => byNumber(a.extension, b.extension));

export function PttGroupsPage() {
  const groups = useQuery<PttGroup[]>({ queryKey: keys.pttGroups, refetchInterval: POLL_LIST_MS });
  const extensions = useQuery<Extension[], Error, Extension[]>({ queryKey: keys.extensions, select: sortExtensions });
  const del = useDelete({
    listKey: keys.pttGroups,
    success: "PTT Group deleted",
    failure: "Failed to delete PTT group.",
  });

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
          />
        }
      >
        {(items) =>
          items.map((g) => (
            <PttGroupCard key={g.id} group={g} deleting={del.isDeleting(g.id)} onDelete={() => del.remove(g.id)} />
          ))
        }
      </ListBody>
    </>
  );
}
