/**
 * A mailbox's messages by folder, newest first: who called, when, how long, a player (`preload="none"`: nothing is
 * fetched, nor audited, until Play), Download, and for operators Move to Old and Delete (confirmed). Above them the
 * mailbox's usage against its limit.
 */
import { Archive, Download, Trash2 } from "lucide-react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Progress } from "@/components/ui/progress";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { deleteToasts } from "@/lib/mutations";
import {
  FOLDER_LABELS,
  VOICEMAIL_FOLDERS,
  type VoicemailFolder,
  type VoicemailMessage,
  type VoicemailUsage,
} from "../../../shared/voicemail";
import { downloadUrl, messageAudioUrl, useDeleteMessage, useMoveMessage } from "./api";
import { ConfirmVoicemailDelete } from "./confirm";
import { callerText, lengthText } from "./format";

/** "New" is app_voicemail's INBOX. */
const folderTitle = (f: VoicemailFolder) => (f === "INBOX" ? "New (INBOX)" : FOLDER_LABELS[f]);

/** How full the mailbox is: each folder that holds messages against app_voicemail's limit per folder. */
export function UsageBar({ usage }: { usage: VoicemailUsage }) {
  const inbox = usage.folders.INBOX;
  const total = VOICEMAIL_FOLDERS.reduce((n, f) => n + usage.folders[f], 0);
  const percent = Math.min(100, Math.round((inbox / Math.max(1, usage.maxMessages)) * 100));
  const full = inbox >= usage.maxMessages;
  return (
    <div className="grid gap-1.5" data-testid="voicemail-usage">
      <div className="flex flex-wrap items-baseline justify-between gap-2 text-sm">
        <span id="voicemail-usage-label" className="font-medium">
          New messages: {inbox} of {usage.maxMessages} messages
        </span>
        <span className="text-muted-foreground">
          {total} in all
          {VOICEMAIL_FOLDERS.filter((f) => f !== "INBOX" && usage.folders[f] > 0)
            .map((f) => ` · ${FOLDER_LABELS[f]} ${usage.folders[f]} of ${usage.maxMessages}`)
            .join("")}
        </span>
      </div>
      <Progress
        value={percent}
        aria-labelledby="voicemail-usage-label"
        indicatorClassName={full ? "bg-destructive" : percent >= 80 ? "bg-amber-500" : undefined}
      />
      {full && (
        <p className="text-destructive text-sm">
          The mailbox is full: callers cannot leave a message until messages are moved or deleted.
        </p>
      )}
    </div>
  );
}

function MessageRow({
  mailbox,
  message,
  moving,
  deleting,
  onMove,
  onDelete,
}: {
  mailbox: string;
  message: VoicemailMessage;
  moving: boolean;
  deleting: boolean;
  onMove: () => void;
  onDelete: () => Promise<unknown>;
}) {
  const url = messageAudioUrl(mailbox, message.id);
  const who = callerText(message.callerId);
  const when = formatDateTime(message.receivedAt);
  return (
    <li
      className="grid gap-2 border-b px-3 py-3 last:border-b-0 md:grid-cols-[minmax(0,1fr)_auto] md:items-center"
      data-testid="voicemail-message"
      data-message-id={message.id}
    >
      <div className="grid min-w-0 gap-1">
        <p className="flex min-w-0 flex-wrap items-center gap-x-2 text-sm">
          <span className="min-w-0 break-all font-medium">{who}</span>
          <span className="text-muted-foreground">{when}</span>
          <span className="text-muted-foreground tabular-nums" title="Length">
            {lengthText(message.durationS)}
          </span>
        </p>
        {/* biome-ignore lint/a11y/useMediaCaption: a caller's voicemail has no caption track to offer */}
        <audio
          controls
          preload="none"
          src={url}
          aria-label={`Play message from ${who}, ${when}`}
          className="h-10 w-full min-w-0 md:w-96"
        />
      </div>
      <div className="flex flex-wrap items-center gap-2 md:justify-end">
        <Button asChild variant="outline" size="sm">
          <a href={downloadUrl(url)} download aria-label={`Download message from ${who}, ${when}`}>
            <Download aria-hidden />
            Download
          </a>
        </Button>
        <Can minRole="operator">
          {message.folder !== "Old" && (
            <Button
              type="button"
              variant="outline"
              size="sm"
              disabled={moving}
              onClick={onMove}
              aria-label={`Move message from ${who}, ${when} to Old`}
            >
              <Archive aria-hidden />
              Move to Old
            </Button>
          )}
          <ConfirmVoicemailDelete
            title={`Delete the message from ${who}?`}
            description={`Left ${when}. It is removed from the PBX at once; this cannot be undone.`}
            onDelete={onDelete}
          >
            {(ask) => (
              <Button
                type="button"
                variant="outline"
                size="sm"
                disabled={deleting}
                onClick={ask}
                aria-label={`Delete message from ${who}, ${when}`}
              >
                <Trash2 aria-hidden />
                Delete
              </Button>
            )}
          </ConfirmVoicemailDelete>
        </Can>
      </div>
    </li>
  );
}

/** The messages grouped by folder (folders in app_voicemail's order, empty ones left out). */
export function MessageList({ mailbox, messages }: { mailbox: string; messages: VoicemailMessage[] }) {
  const move = useMoveMessage({
    onSuccess: () => toast({ title: "Message moved to Old" }),
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to move the message.", description: errorText(err) }),
  });
  const del = useDeleteMessage(deleteToasts("Message deleted", "Failed to delete the message."));
  const folders = VOICEMAIL_FOLDERS.filter((f) => messages.some((m) => m.folder === f));
  return (
    <div className="grid gap-4">
      {folders.map((folder) => {
        const inFolder = messages.filter((m) => m.folder === folder);
        const heading = `voicemail-folder-${folder}`;
        return (
          <section key={folder} aria-labelledby={heading} className="grid gap-2">
            <h3 id={heading} className="flex items-center gap-2 font-medium text-sm">
              {folderTitle(folder)}
              <Badge variant="secondary">{inFolder.length}</Badge>
            </h3>
            <ul aria-label={`${folderTitle(folder)} messages`} className="rounded-md border">
              {inFolder.map((m) => {
                const ref = { mailbox, id: m.id };
                return (
                  <MessageRow
                    key={m.id}
                    mailbox={mailbox}
                    message={m}
                    moving={move.isPending && move.variables?.id === m.id}
                    deleting={del.isPending && del.variables?.id === m.id}
                    onMove={() => move.mutate({ ...ref, folder: "Old" })}
                    onDelete={() => del.mutateAsync(ref)}
                  />
                );
              })}
            </ul>
          </section>
        );
      })}
    </div>
  );
}
