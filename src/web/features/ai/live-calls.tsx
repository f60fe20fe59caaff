/**
 * The Live AI Calls screen's pieces (ADR 0044): a call's card with its running transcript
 * (a polite live region, newest at the bottom), its ticking duration and its last classification; the
 * operator's take-over (transfer to an extension) and End call, each behind a dialog.
 */
import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, PhoneForwarded, PhoneOff } from "lucide-react";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { Can } from "@/components/can";
import { EndCallDialog } from "@/components/end-call-dialog";
import { SuggestField } from "@/components/form-fields";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { toast } from "@/components/ui/use-toast";
import { extensionsQuery } from "@/features/extensions/api";
import { errorText } from "@/lib/error-text";
import { formatTime } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { LiveAiCall } from "../../../shared/ai/live";
import { byNumber } from "../../../shared/sort";
import { useHangupAiCall, useTransferAiCall } from "./api";
import { formatDuration } from "./format";

/** "Jane Doe (+15555550123)", the number alone, or "an unknown caller". */
export function callerText(call: Pick<LiveAiCall, "callerName" | "callerNumber">): string {
  if (call.callerName && call.callerNumber) return `${call.callerName} (${call.callerNumber})`;
  return call.callerName ?? call.callerNumber ?? "an unknown caller";
}

/** The running transcript: a polite live region, scrolled to the newest turn as it comes. */
function RunningTranscript({ call }: { call: LiveAiCall }) {
  const box = useRef<HTMLDivElement>(null);
  const count = call.turns.length;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls when a turn arrives
  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [count]);
  return (
    <div
      ref={box}
      role="log"
      aria-live="polite"
      aria-label={`Transcript of the call from ${callerText(call)}`}
      // Scrollable: reachable by keyboard.
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable
      tabIndex={0}
      className="max-h-72 overflow-y-auto rounded-md border bg-muted/30 p-3 focus-visible:outline-2 focus-visible:outline-ring"
      data-testid="live-transcript"
    >
      {call.earlierTurns > 0 && (
        <p className="mb-2 text-muted-foreground text-xs">{call.earlierTurns} earlier turns not shown</p>
      )}
      {count === 0 ? (
        <p className="text-muted-foreground text-sm">No words yet.</p>
      ) : (
        <ol className="grid gap-2">
          {call.turns.map((t, i) => (
            <li
              // Turns only grow at the end (conversation order; a caller's words may slot in before the answer).
              // biome-ignore lint/suspicious/noArrayIndexKey: turns have no id of their own on the wire
              key={i}
              data-speaker={t.speaker}
              className={cn(
                "max-w-[85%] rounded-lg px-3 py-2 text-sm",
                t.speaker === "caller" ? "bg-card" : "ml-auto bg-primary/10",
              )}
            >
              <span className="block font-medium text-muted-foreground text-xs">
                {t.speaker === "caller" ? "Caller" : "Assistant"}
              </span>
              <span className="whitespace-pre-wrap break-words">{t.text}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function LiveCallCard({
  call,
  now,
  onTakeOver,
  onEnd,
}: {
  call: LiveAiCall;
  now: number;
  onTakeOver: () => void;
  onEnd: () => void;
}) {
  const seconds = Math.max(0, (now - Date.parse(call.startedAt)) / 1000);
  const c = call.classification;
  return (
    <li data-testid="live-ai-call" data-call-id={call.callId}>
      <Card className="gap-4">
        <CardHeader className="flex flex-wrap items-start justify-between gap-2">
          <div className="grid min-w-0 gap-1">
            <CardTitle className="flex flex-wrap items-center gap-2 leading-normal">
              <span className="break-words">{callerText(call)}</span>
              {!call.connected && <Badge variant="outline">Connecting</Badge>}
            </CardTitle>
            <p className="text-muted-foreground text-sm">
              Answered by {call.assistantName} at {formatTime(call.startedAt, false)} ·{" "}
              <span data-testid="live-duration" className="tabular-nums">
                {formatDuration(seconds)}
              </span>
            </p>
            {c && (
              <p className="flex flex-wrap items-center gap-2 text-sm" data-testid="live-classification">
                {c.sentiment && <Badge variant="outline">Sentiment: {c.sentiment}</Badge>}
                {c.intent && <Badge variant="outline">Intent: {c.intent}</Badge>}
                {c.summary && <span className="text-muted-foreground">{c.summary}</span>}
              </p>
            )}
          </div>
          <Can minRole="operator">
            <div className="flex flex-wrap gap-2">
              <Button variant="outline" onClick={onTakeOver}>
                <PhoneForwarded />
                Take over
              </Button>
              <Button variant="destructive" onClick={onEnd}>
                <PhoneOff />
                End call
              </Button>
            </div>
          </Can>
        </CardHeader>
        <CardContent>
          <RunningTranscript call={call} />
        </CardContent>
      </Card>
    </li>
  );
}

/** "1001 - Sales" (picked from the list) or "1001" (typed) → "1001". */
const extensionOf = (typed: string) => typed.split(" - ")[0]?.trim() ?? "";

/** Transfers `call` (null: closed) to an extension picked or typed; the server's refusal is shown in the dialog. */
export function TakeOverDialog({ call: asked, onClose }: { call: LiveAiCall | null; onClose: () => void }) {
  const last = useRef<LiveAiCall | null>(null);
  if (asked) last.current = asked;
  const call = asked ?? last.current;
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string | undefined>();
  const extensions = useQuery({ ...extensionsQuery(), enabled: asked !== null });
  const suggestions = [...(extensions.data ?? [])]
    .sort((a, b) => byNumber(a.extension, b.extension))
    .map((x) => `${x.extension} - ${x.name}`);
  const transfer = useTransferAiCall({
    onSuccess: (answer) => {
      toast({ title: `Call transferred to ${answer.transferredTo}` });
      onClose();
    },
    onError: (err) => setError(errorText(err)),
  });
  useEffect(() => {
    if (asked) {
      setTyped("");
      setError(undefined);
    }
  }, [asked]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const extension = extensionOf(typed);
    if (!extension) {
      setError("Extension is required");
      return;
    }
    if (call) transfer.mutate({ callId: call.callId, extension });
  };
  return (
    <Dialog open={asked !== null} onOpenChange={(open) => !open && !transfer.isPending && onClose()}>
      <DialogContent>
        <form onSubmit={submit} className="grid gap-4">
          <DialogHeader>
            <DialogTitle>Take over this call</DialogTitle>
            <DialogDescription>
              {call ? `Transfer the call from ${callerText(call)} to an extension; the assistant leaves the call.` : ""}
            </DialogDescription>
          </DialogHeader>
          <SuggestField
            label="Extension"
            value={typed}
            onChange={(v) => {
              setTyped(v);
              setError(undefined);
            }}
            suggestions={suggestions}
            placeholder="Type a number or a name"
            error={error}
          />
          <DialogFooter>
            <DialogClose asChild>
              <Button type="button" variant="outline" disabled={transfer.isPending}>
                Cancel
              </Button>
            </DialogClose>
            <Button type="submit" disabled={transfer.isPending}>
              {transfer.isPending ? <LoaderCircle className="animate-spin" /> : <PhoneForwarded />}
              Transfer
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** Asks before ending `call` (null: closed); toasts the outcome. */
export function EndAiCallDialog({ call, onClose }: { call: LiveAiCall | null; onClose: () => void }) {
  const hangup = useHangupAiCall({
    onSuccess: () => {
      toast({ title: "Call ended" });
      onClose();
    },
    onError: (err) => {
      toast({ variant: "destructive", title: "Failed to end the call", description: errorText(err) });
      onClose();
    },
  });
  return (
    <EndCallDialog
      call={call}
      onClose={onClose}
      title="End this call?"
      describe={(c) => `This hangs up the call from ${callerText(c)} with ${c.assistantName}.`}
      action="End call"
      pending={hangup.isPending}
      onConfirm={(c) => hangup.mutate(c.callId)}
    />
  );
}
