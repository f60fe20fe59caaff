/**
 * The alert channels card (the Alerts screen embeds it): each channel with its kind, where it sends and how
 * its last delivery went; for administrators Add, Edit, Send test (its result shown on the row) and Delete.
 * A webhook's signing secret the console made is shown once, right after saving.
 */
import { useQuery } from "@tanstack/react-query";
import { BellRing, Check, Copy, LoaderCircle, Pencil, Plus, Send, Trash2 } from "lucide-react";
import { type RefObject, useRef, useState } from "react";
import { Can } from "@/components/can";
import { focusScreenHeading } from "@/components/confirm-delete-dialog";
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
import { FormError } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { useCopiedFlag } from "@/hooks/use-copied";
import { copyText } from "@/lib/clipboard";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { deleteToasts, runningFor } from "@/lib/mutations";
import {
  ALERT_CHANNEL_KIND_LABELS,
  type AlertChannel,
  type AlertChannelTestResult,
} from "../../../shared/alert-channels";
import { alertChannelsQuery, useDeleteAlertChannel, useTestAlertChannel } from "./api";
import { ChannelDialog } from "./channel-dialog";

const WHAT: Record<string, string> = { firing: "alert", repeat: "repeat", resolved: "resolved", test: "test" };

function LastDelivery({ channel }: { channel: AlertChannel }) {
  const last = channel.lastDelivery;
  if (!last) return <span className="text-muted-foreground text-xs">Nothing sent yet</span>;
  return (
    <span className="text-muted-foreground text-xs">
      Last {WHAT[last.what] ?? last.what} {formatDateTime(last.at)}:{" "}
      {last.ok ? "delivered" : <span className="text-destructive">failed</span>}
    </span>
  );
}

/** A signing secret made by the console: copy it now, it is not shown again. */
function NewSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const [copied, flash] = useCopiedFlag();
  return (
    <div className="grid gap-2 rounded-md border border-warning/50 bg-warning/10 p-3" role="status">
      <p className="font-medium text-sm">
        Copy the signing secret of “{name}” into the receiver now: it is not shown again.
      </p>
      <div className="flex items-center gap-2">
        <Input readOnly aria-label="Signing secret" value={secret} className="min-w-0 flex-1 font-mono text-sm" />
        <Button
          type="button"
          variant="outline"
          size="icon"
          className="size-8"
          aria-label="Copy signing secret"
          onClick={() =>
            copyText(secret).then(flash, (err: Error) =>
              toast({ variant: "destructive", title: "Copy failed", description: err.message }),
            )
          }
        >
          {copied ? <Check /> : <Copy />}
        </Button>
      </div>
      <Button type="button" variant="ghost" size="sm" className="justify-self-end" onClick={onDone}>
        Done
      </Button>
    </div>
  );
}

function ConfirmDelete({
  channel,
  pending,
  deleted,
  onConfirm,
  onCancel,
}: {
  channel: AlertChannel;
  pending: boolean;
  /** Set once the delete went through: focus then goes to the screen's heading (the row and its button go). */
  deleted: RefObject<boolean>;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog open onOpenChange={(open) => !open && !pending && onCancel()}>
      <DialogContent
        onCloseAutoFocus={(e) => {
          if (!deleted.current) return;
          e.preventDefault();
          focusScreenHeading();
        }}
      >
        <DialogHeader>
          <DialogTitle>Delete {channel.name}?</DialogTitle>
          <DialogDescription>
            Alerts stop going to {channel.target}. A rule that still sends to this channel keeps it from being deleted;
            its past deliveries stay in the history.
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button type="button" variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="button" variant="destructive" disabled={pending} onClick={onConfirm}>
            {pending && <LoaderCircle className="animate-spin" />}
            Delete
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

type Editing = { channel: AlertChannel | null } | null;

export function AlertChannelsCard() {
  const channels = useQuery(alertChannelsQuery());
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<AlertChannel | null>(null);
  const [made, setMade] = useState<{ name: string; secret: string } | null>(null);
  const [results, setResults] = useState<Record<number, AlertChannelTestResult>>({});
  const deleted = useRef(false);

  const test = useTestAlertChannel({
    onSuccess: (result, id) => setResults((r) => ({ ...r, [id]: result })),
    onError: (err, id) => setResults((r) => ({ ...r, [id]: { ok: false, error: errorText(err) } })),
  });
  const toasts = deleteToasts("Alert channel deleted", "Failed to delete the alert channel");
  const remove = useDeleteAlertChannel({
    onSuccess: (data, id) => {
      deleted.current = true;
      setDeleting(null);
      toasts.onSuccess?.(data, id);
    },
    onError: (err, id) => {
      setDeleting(null);
      toasts.onError?.(err, id);
    },
  });

  return (
    <Card className="gap-4">
      <CardHeader className="flex flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1.5">
          <CardTitle className="flex items-center gap-2">
            <BellRing className="size-4 text-muted-foreground" aria-hidden />
            Alert Channels
          </CardTitle>
          <CardDescription>Where alerts go: e-mail, Slack, Telegram or a signed webhook.</CardDescription>
        </div>
        <Can minRole="admin">
          <Button type="button" onClick={() => setEditing({ channel: null })}>
            <Plus />
            Add Channel
          </Button>
        </Can>
      </CardHeader>
      <CardContent className="grid gap-4">
        {made && <NewSecret name={made.name} secret={made.secret} onDone={() => setMade(null)} />}
        {channels.isError && <FormError message={`Could not load the alert channels: ${errorText(channels.error)}`} />}
        {channels.data?.length ? (
          <ul className="grid gap-2" aria-label="Alert channels">
            {channels.data.map((c) => {
              const result = results[c.id];
              return (
                <li key={c.id} className="grid gap-2 rounded-md border p-3 text-sm" aria-label={c.name}>
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                    <span className="font-medium">{c.name}</span>
                    <Badge variant="outline">{ALERT_CHANNEL_KIND_LABELS[c.kind]}</Badge>
                    {!c.enabled && <Badge variant="secondary">Disabled</Badge>}
                    {c.lastDelivery && (
                      <Badge variant={c.lastDelivery.ok ? "success" : "destructive"}>
                        {c.lastDelivery.ok ? "Delivered" : "Failing"}
                      </Badge>
                    )}
                    <Can minRole="admin">
                      <div className="ml-auto flex flex-wrap gap-2">
                        <Button
                          type="button"
                          variant="outline"
                          size="sm"
                          disabled={runningFor(test, c.id)}
                          onClick={() => {
                            setResults(({ [c.id]: _, ...rest }) => rest);
                            test.mutate(c.id);
                          }}
                          aria-label={`Send test to ${c.name}`}
                        >
                          {runningFor(test, c.id) ? <LoaderCircle className="animate-spin" /> : <Send />}
                          Send test
                        </Button>
                        <Button
                          type="button"
                          variant="outline"
                          size="sm"
                          onClick={() => setEditing({ channel: c })}
                          aria-label={`Edit ${c.name}`}
                        >
                          <Pencil />
                          Edit
                        </Button>
                        <Button
                          type="button"
                          variant="outline"
                          size="sm"
                          className="text-destructive hover:text-destructive"
                          onClick={() => setDeleting(c)}
                          aria-label={`Delete ${c.name}`}
                        >
                          <Trash2 />
                          Delete
                        </Button>
                      </div>
                    </Can>
                  </div>
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                    <span className="break-all text-muted-foreground">{c.target}</span>
                    <LastDelivery channel={c} />
                  </div>
                  {c.lastDelivery && !c.lastDelivery.ok && c.lastDelivery.error && !result && (
                    <p className="break-words text-destructive text-xs">{c.lastDelivery.error}</p>
                  )}
                  {result && (
                    <p
                      role={result.ok ? "status" : "alert"}
                      className={result.ok ? "text-sm" : "break-words text-destructive text-sm"}
                    >
                      {result.ok ? "Test message delivered." : `Test failed: ${result.error ?? "unknown error"}`}
                    </p>
                  )}
                </li>
              );
            })}
          </ul>
        ) : channels.data ? (
          <p className="text-muted-foreground text-sm">No alert channels yet.</p>
        ) : null}
      </CardContent>
      {editing && (
        <ChannelDialog
          editing={editing.channel}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            if (saved.signingSecret) setMade({ name: saved.name, secret: saved.signingSecret });
          }}
        />
      )}
      {deleting && (
        <ConfirmDelete
          channel={deleting}
          pending={remove.isPending}
          deleted={deleted}
          onConfirm={() => {
            deleted.current = false;
            remove.mutate(deleting.id);
          }}
          onCancel={() => setDeleting(null)}
        />
      )}
    </Card>
  );
}
