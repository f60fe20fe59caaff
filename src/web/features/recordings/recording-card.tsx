import { FileAudio, LoaderCircle } from "lucide-react";
import { type ReactNode, useRef, useState } from "react";
import { focusScreenHeading } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { EditRecordingDialog } from "@/forms/inventory-deferred";
import type { Recording } from "../../../shared/recordings";
import { recordingAudioUrl } from "./api";

/** One recording: its files and formats on the PBX, a player, Edit and Delete. */
export function RecordingCard({
  recording,
  deleting,
  onDelete,
}: {
  recording: Recording;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const edit = useEditDialog<Recording>();
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <div className="grid min-w-0 gap-1">
            <CardTitle className="truncate">{recording.name}</CardTitle>
            {recording.description && <CardDescription>{recording.description}</CardDescription>}
          </div>
          <EditButton
            label={`Edit recording ${recording.name}`}
            buttonRef={edit.buttonRef}
            onClick={() => edit.show(recording)}
          />
          <EditDialogSlot
            dialog={edit.editing && <EditRecordingDialog recording={edit.editing} onClose={edit.close} />}
          />
          <ConfirmRecordingDelete name={recording.name} onDelete={onDelete}>
            {(ask) => <DeleteButton label={`Delete recording ${recording.name}`} pending={deleting} onClick={ask} />}
          </ConfirmRecordingDelete>
        </CardHeader>
        <CardContent className="grid gap-3">
          <ul aria-label={`Files of ${recording.name}`} className="flex flex-wrap gap-1.5">
            {recording.files.map((f) => (
              <li key={f}>
                <Badge variant="outline" className="font-mono">
                  {f}
                </Badge>
              </li>
            ))}
            {recording.formats.map((f) => (
              <li key={`format-${f}`}>
                <Badge variant="secondary">{f}</Badge>
              </li>
            ))}
          </ul>
          {recording.playable ? (
            // biome-ignore lint/a11y/useMediaCaption: a recorded prompt of the PBX has no caption track to offer
            <audio
              controls
              preload="none"
              src={recordingAudioUrl(recording.id)}
              aria-label={`Play ${recording.name}`}
              className="w-full"
            />
          ) : (
            <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
              <FileAudio className="size-4" aria-hidden />
              No WAV file on the PBX to play here
            </span>
          )}
        </CardContent>
      </Card>
    </li>
  );
}

/**
 * The confirmation before a recording is deleted from the PBX. What plays it there (IVRs, announcements) is
 * checked by the server when Delete is pressed: its 409 names them, in the delete's failure toast.
 */
function ConfirmRecordingDelete({
  name,
  onDelete,
  children,
}: {
  name: string;
  onDelete: () => Promise<unknown>;
  children: (ask: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const opener = useRef<HTMLElement | null>(null);
  const ask = () => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setOpen(true);
  };
  const confirm = async () => {
    setPending(true);
    try {
      await onDelete();
      setOpen(false);
      focusScreenHeading();
    } catch {
      // The delete's own toast says why; the dialog closes and the card stays.
      setOpen(false);
    } finally {
      setPending(false);
    }
  };
  return (
    <>
      {children(ask)}
      <Dialog
        open={open}
        onOpenChange={(next) => {
          if (!pending) setOpen(next);
          if (!next) opener.current?.focus();
        }}
      >
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete recording {name}?</DialogTitle>
            <DialogDescription>
              Its row and its sound files are removed from the PBX at once; this cannot be undone. A recording an IVR or
              announcement plays is not deleted.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => setOpen(false)} disabled={pending}>
              Cancel
            </Button>
            <Button type="button" variant="destructive" onClick={() => void confirm()} disabled={pending}>
              {pending && <LoaderCircle className="animate-spin" />}
              Delete
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </>
  );
}
