import { Hourglass, PhoneForwarded, Users } from "lucide-react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { EditQueueDialog } from "@/forms/inventory-deferred";
import { PTT_MEMBERS_SHOWN } from "@/lib/constants";
import { queryKeys } from "@/lib/query-keys";
import { destinationLabel } from "../../../shared/destinations";
import type { Queue } from "../../../shared/inventory";
import { maxWaitText, STRATEGY_TEXT } from "./strategies";

export function QueueCard({
  queue,
  deleting,
  onDelete,
}: {
  queue: Queue;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const shown = queue.agents.slice(0, PTT_MEMBERS_SHOWN);
  const more = queue.agents.length - shown.length;
  const count = queue.agents.length;
  const edit = useEditDialog<Queue>();
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <div className="flex min-w-0 flex-wrap items-center gap-2">
            <CardTitle className="truncate">{queue.name}</CardTitle>
            <Badge variant="outline" className="font-mono">
              {queue.number}
            </Badge>
          </div>
          <EditButton label={`Edit queue ${queue.name}`} buttonRef={edit.buttonRef} onClick={() => edit.show(queue)} />
          <EditDialogSlot dialog={edit.editing && <EditQueueDialog queue={edit.editing} onClose={edit.close} />} />
          <ConfirmDeleteDialog what="queue" name={queue.name} list={queryKeys.queues} id={queue.id} onDelete={onDelete}>
            {(ask) => <DeleteButton label={`Delete queue ${queue.name}`} pending={deleting} onClick={ask} />}
          </ConfirmDeleteDialog>
        </CardHeader>
        <CardContent className="grid gap-3">
          <div className="flex flex-wrap gap-2">
            <Badge variant="secondary">{STRATEGY_TEXT[queue.strategy]}</Badge>
            <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
              <Hourglass className="size-4" aria-hidden />
              Max wait: {maxWaitText(queue.maxWait)}
            </span>
          </div>
          <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
            <Users className="size-4" aria-hidden />
            {count} {count === 1 ? "agent" : "agents"}
          </span>
          <ul aria-label={`Agents of ${queue.name}`} className="flex flex-wrap gap-1.5">
            {shown.map((a) => (
              <li key={a}>
                <Badge variant="outline" className="font-mono">
                  {a}
                </Badge>
              </li>
            ))}
            {more > 0 && (
              <li>
                <Badge variant="outline" className="text-muted-foreground">
                  +{more} more
                </Badge>
              </li>
            )}
          </ul>
          <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
            <PhoneForwarded className="size-4" aria-hidden />
            After the max wait → {queue.timeoutDestination ? destinationLabel(queue.timeoutDestination) : "hang up"}
          </span>
        </CardContent>
      </Card>
    </li>
  );
}
