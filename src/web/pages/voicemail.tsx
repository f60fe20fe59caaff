import { useQuery } from "@tanstack/react-query";
import { ChevronDownIcon, CircleAlert, Lock, MailOpen, RotateCw, Voicemail } from "lucide-react";
import { type ReactNode, useId, useState } from "react";
import { EmptyState } from "@/components/empty-state";
import { CardListSkeleton, ScreenHeader } from "@/components/list-kit";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { audioSettingsQuery } from "@/features/audio-settings/api";
import { voicemailBoxesQuery, voicemailMessagesQuery } from "@/features/voicemail/api";
import { Greetings } from "@/features/voicemail/greetings";
import { MessageList, UsageBar } from "@/features/voicemail/messages";
import { useRole } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import { cn } from "@/lib/utils";
import type { VoicemailBox } from "../../shared/voicemail";

const TITLE = "Voicemail";
const SUBTITLE = "Messages and greetings of the PBX's mailboxes, played and changed on the PBX at once";
export const VOICEMAIL_FOR_OPERATORS =
  "Voicemail is for operators and administrators: an administrator can let viewers listen in API Settings.";

const boxLabel = (b: VoicemailBox) => {
  const counts =
    b.onPbx === false
      ? " (not on the PBX yet: deploy it)"
      : b.newMessages !== null
        ? ` (${b.newMessages} new, ${b.oldMessages ?? 0} old)`
        : "";
  return `${b.mailbox} ${b.name}${counts}`;
};

/** Whether this user may listen: operators and administrators always, a viewer when an administrator allows it. */
function useMayListen(): boolean | null {
  const role = useRole();
  const viewer = role === "viewer";
  const settings = useQuery({ ...audioSettingsQuery(), enabled: viewer });
  if (role === null) return null;
  if (!viewer) return true;
  if (settings.data) return settings.data.viewersMayListen;
  return settings.isError ? false : null;
}

export function VoicemailPage() {
  const mayListen = useMayListen();
  return (
    <>
      <ScreenHeader title={TITLE} subtitle={SUBTITLE} />
      {mayListen === null ? (
        <CardListSkeleton layout="list" />
      ) : mayListen ? (
        <Mailboxes />
      ) : (
        <p
          data-testid="voicemail-not-allowed"
          className="flex items-start gap-2 rounded-lg border border-dashed bg-muted/40 px-4 py-3 text-muted-foreground text-sm"
        >
          <Lock className="mt-0.5 size-4 shrink-0" aria-hidden />
          <span>{VOICEMAIL_FOR_OPERATORS}</span>
        </p>
      )}
    </>
  );
}

function Mailboxes() {
  const boxes = useQuery(voicemailBoxesQuery());
  const [picked, setPicked] = useState<string | null>(null);
  const id = useId();
  if (boxes.isPending) return <CardListSkeleton layout="list" />;
  if (boxes.isError && !boxes.data)
    return (
      <EmptyState
        icon={CircleAlert}
        title="Could not load the mailboxes"
        description={errorText(boxes.error)}
        action={
          <Button variant="outline" onClick={() => void boxes.refetch()} disabled={boxes.isFetching}>
            <RotateCw className={cn(boxes.isFetching && "animate-spin")} />
            Retry
          </Button>
        }
      />
    );
  const items = boxes.data.items;
  if (items.length === 0)
    return (
      <EmptyState
        icon={Voicemail}
        title="No mailboxes"
        description="Turn voicemail on for an extension (Extensions) and deploy it: its mailbox shows here."
        viewerDescription="No extension of this console has voicemail."
      />
    );
  const mailbox = picked !== null && items.some((b) => b.mailbox === picked) ? picked : (items[0]?.mailbox as string);
  return (
    <div className="grid gap-4">
      <div className="grid gap-2">
        <label htmlFor={id} className="font-medium text-sm">
          Mailbox
        </label>
        <div className="relative sm:max-w-md">
          <select
            id={id}
            value={mailbox}
            onChange={(e) => setPicked(e.target.value)}
            className="h-9 w-full cursor-pointer appearance-none rounded-md border border-input bg-transparent py-1 pr-9 pl-3 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 dark:bg-input/30"
          >
            {items.map((b) => (
              <option key={b.mailbox} value={b.mailbox} className="bg-popover text-popover-foreground">
                {boxLabel(b)}
              </option>
            ))}
          </select>
          <ChevronDownIcon
            className="pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2 opacity-50"
            aria-hidden
          />
        </div>
        {boxes.data.reason && (
          <p className="text-muted-foreground text-sm" data-testid="voicemail-counts-unknown">
            Message counts unknown: {boxes.data.reason}
          </p>
        )}
      </div>
      <Mailbox key={mailbox} mailbox={mailbox} />
    </div>
  );
}

function Mailbox({ mailbox }: { mailbox: string }) {
  const messages = useQuery(voicemailMessagesQuery(mailbox));
  let body: ReactNode;
  if (messages.isPending) body = <p className="text-muted-foreground text-sm">Loading the messages…</p>;
  else if (messages.isError && !messages.data)
    body = (
      <div data-testid="voicemail-unavailable" className="grid justify-items-start gap-3">
        <p className="flex items-start gap-2 text-sm">
          <CircleAlert className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
          <span>{errorText(messages.error)}</span>
        </p>
        <Button variant="outline" size="sm" onClick={() => void messages.refetch()} disabled={messages.isFetching}>
          <RotateCw className={cn(messages.isFetching && "animate-spin")} />
          Retry
        </Button>
      </div>
    );
  else
    body = (
      <div className="grid gap-4">
        <UsageBar usage={messages.data.usage} />
        {messages.data.items.length === 0 ? (
          <p className="flex items-center gap-2 text-muted-foreground text-sm" data-testid="voicemail-empty">
            <MailOpen className="size-4" aria-hidden />
            No messages in this mailbox
          </p>
        ) : (
          <MessageList mailbox={mailbox} messages={messages.data.items} />
        )}
      </div>
    );
  return (
    <>
      <Card>
        <CardHeader>
          <CardTitle>
            <h2>Messages of {mailbox}</h2>
          </CardTitle>
        </CardHeader>
        <CardContent>{body}</CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>
            <h2>Greetings of {mailbox}</h2>
          </CardTitle>
        </CardHeader>
        <CardContent>
          <Greetings mailbox={mailbox} />
        </CardContent>
      </Card>
    </>
  );
}
