import { FileAudio, PhoneForwarded, SkipForward } from "lucide-react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { useDestinationText, useRecordingText } from "@/features/ivrs/labels";
import { EditAnnouncementDialog } from "@/forms/inventory-deferred";
import { queryKeys } from "@/lib/query-keys";
import type { Announcement } from "../../../shared/call-flow";

export function AnnouncementCard({
  announcement,
  deleting,
  onDelete,
}: {
  announcement: Announcement;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const edit = useEditDialog<Announcement>();
  const destinationText = useDestinationText();
  const recording = useRecordingText(announcement.recording);
  const { name } = announcement;
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <div className="flex min-w-0 flex-wrap items-center gap-2">
            <CardTitle className="truncate">{name}</CardTitle>
            {/* The number a destination names the announcement by (the console's, ADR 0059). */}
            <Badge variant="outline" className="font-mono">
              Announcement {announcement.id}
            </Badge>
          </div>
          <EditButton
            label={`Edit announcement ${name}`}
            buttonRef={edit.buttonRef}
            onClick={() => edit.show(announcement)}
          />
          <EditDialogSlot
            dialog={edit.editing && <EditAnnouncementDialog announcement={edit.editing} onClose={edit.close} />}
          />
          <ConfirmDeleteDialog
            what="announcement"
            name={name}
            list={queryKeys.announcements}
            id={announcement.id}
            onDelete={onDelete}
          >
            {(ask) => <DeleteButton label={`Delete announcement ${name}`} pending={deleting} onClick={ask} />}
          </ConfirmDeleteDialog>
        </CardHeader>
        <CardContent className="grid gap-3 text-muted-foreground text-sm">
          <span className="flex min-w-0 items-center gap-1.5">
            <FileAudio className="size-4 shrink-0" aria-hidden />
            <span className="truncate">Recording: {recording}</span>
          </span>
          <span className="flex items-center gap-1.5">
            <SkipForward className="size-4" aria-hidden />
            {announcement.allowSkip ? "Callers may skip it" : "Plays to the end"}
          </span>
          <span className="flex items-center gap-1.5">
            <PhoneForwarded className="size-4" aria-hidden />
            Then → {destinationText(announcement.after)}
          </span>
        </CardContent>
      </Card>
    </li>
  );
}
