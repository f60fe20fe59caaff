import { useQuery } from "@tanstack/react-query";
import { ListOrdered } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { ListBody, ScreenHeader } from "@/components/list-kit";
import { extensionsQuery } from "@/features/extensions/api";
import { queuesQuery, useDeleteQueue } from "@/features/queues/api";
import { QueueCard } from "@/features/queues/queue-card";
import { undoableDeleteToasts } from "@/features/safe-delete/undo-toast";
import { AddQueueDialog } from "@/forms/inventory-deferred";
import { POLL_LIST_MS } from "@/lib/constants";
import { runningFor } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { Extension } from "../../shared/inventory";
import { byNumber } from "../../shared/sort";

const sortExtensions = (list: Extension[]) => [...list].sort((a, b) => byNumber(a.extension, b.extension));

export function QueuesPage() {
  const queues = useQuery({ ...queuesQuery(), refetchInterval: POLL_LIST_MS });
  const extensions = useQuery({ ...extensionsQuery(), select: sortExtensions });
  const del = useDeleteQueue(undoableDeleteToasts("Queue deleted", "Failed to delete queue.", [queryKeys.queues]));

  return (
    <>
      <ScreenHeader
        title="Queues"
        subtitle="Callers wait in line for the next free agent, then go on after the max wait"
        action={<AddQueueDialog extensions={extensions.data} />}
      />
      <ListBody
        query={queues}
        layout="grid"
        label="Queues"
        empty={
          <EmptyState
            icon={ListOrdered}
            title="No Queues"
            description="Create a queue to let callers wait for the next free agent of a team."
            viewerDescription="No queue lets callers wait for an agent yet."
          />
        }
      >
        {(items) =>
          items.map((q) => (
            <QueueCard key={q.id} queue={q} deleting={runningFor(del, q.id)} onDelete={() => del.mutateAsync(q.id)} />
          ))
        }
      </ListBody>
    </>
  );
}
