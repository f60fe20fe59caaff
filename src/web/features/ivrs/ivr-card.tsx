import { FileAudio, PhoneForwarded, PhoneOff, Timer } from "lucide-react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { EditIvrDialog } from "@/forms/inventory-deferred";
import { queryKeys } from "@/lib/query-keys";
import type { Ivr } from "../../../shared/call-flow";
import { useDestinationText, useRecordingText } from "./labels";

/** The options a card lists before "+N more": enough for a usual menu (0-9), not a 40-row wall. */
const OPTIONS_SHOWN = 6;

export function IvrCard({
  ivr,
  deleting,
  onDelete,
}: {
  ivr: Ivr;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const edit = useEditDialog<Ivr>();
  const destinationText = useDestinationText();
  const greeting = useRecordingText(ivr.greeting);
  const shown = ivr.options.slice(0, OPTIONS_SHOWN);
  const more = ivr.options.length - shown.length;
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <div className="flex min-w-0 flex-wrap items-center gap-2">
            <CardTitle className="truncate">{ivr.name}</CardTitle>
            {/* The number a destination names the IVR by (the console's, ADR 0059). */}
            <Badge variant="outline" className="font-mono">
              IVR {ivr.id}
            </Badge>
          </div>
          <EditButton label={`Edit IVR ${ivr.name}`} buttonRef={edit.buttonRef} onClick={() => edit.show(ivr)} />
          <EditDialogSlot dialog={edit.editing && <EditIvrDialog ivr={edit.editing} onClose={edit.close} />} />
          <ConfirmDeleteDialog what="IVR" name={ivr.name} list={queryKeys.ivrs} id={ivr.id} onDelete={onDelete}>
            {(ask) => <DeleteButton label={`Delete IVR ${ivr.name}`} pending={deleting} onClick={ask} />}
          </ConfirmDeleteDialog>
        </CardHeader>
        <CardContent className="grid gap-3">
          <div className="flex flex-wrap gap-x-4 gap-y-2 text-muted-foreground text-sm">
            <span className="flex min-w-0 items-center gap-1.5">
              <FileAudio className="size-4 shrink-0" aria-hidden />
              <span className="truncate">Greeting: {greeting}</span>
            </span>
            <span className="flex items-center gap-1.5">
              <Timer className="size-4" aria-hidden />
              {ivr.timeout} s, {ivr.retries} {ivr.retries === 1 ? "retry" : "retries"}
            </span>
          </div>
          {ivr.options.length === 0 ? (
            <p className="text-muted-foreground text-sm">No options</p>
          ) : (
            <ul aria-label={`Options of ${ivr.name}`} className="grid gap-1 text-sm">
              {shown.map((o) => (
                <li key={o.digits} className="flex min-w-0 items-center gap-2">
                  <Badge variant="outline" className="font-mono">
                    {o.digits}
                  </Badge>{" "}
                  <span className="truncate">→ {destinationText(o.destination)}</span>
                </li>
              ))}
              {more > 0 && <li className="text-muted-foreground">+{more} more</li>}
            </ul>
          )}
          <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
            <PhoneForwarded className="size-4" aria-hidden />
            Wrong key → {destinationText(ivr.invalidDestination)}
          </span>
          <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
            <PhoneOff className="size-4" aria-hidden />
            No key → {destinationText(ivr.timeoutDestination)}
          </span>
        </CardContent>
      </Card>
    </li>
  );
}
