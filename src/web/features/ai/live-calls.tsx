/**
 * The Live AI Calls screen's pieces (ADR 0044): a call's card with its running transcript
 * (a polite live region, newest at the bottom), its ticking duration and its last classification; the
 * operator's whisper (an instruction only the assistant receives, ADR 0070), take-over (transfer to an
 * extension: the operator's own, remembered in this browser, in one click) and End call behind a dialog.
 */
import { useQuery } from "@tanstack/react-query";
import { EarOff, LoaderCircle, Pencil, PhoneForwarded, PhoneOff, Send } from "lucide-react";
import { type FormEvent, useEffect, useId, useRef, useState, useSyncExternalStore } from "react";
import { Can } from "@/components/can";
import { EndCallDialog } from "@/components/end-call-dialog";
import { SuggestField } from "@/components/form-fields";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { toast } from "@/components/ui/use-toast";
import { extensionsQuery } from "@/features/extensions/api";
import { errorText } from "@/lib/error-text";
import { formatTime } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { LiveAiCall } from "../../../shared/ai/live";
import { aiWhisperSchema, WHISPER_MAX } from "../../../shared/ai/measures";
import { byNumber } from "../../../shared/sort";
import { useHangupAiCall, useTransferAiCall, useWhisperAiCall } from "./api";
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

/** Where this browser keeps the operator's own extension, the target of a one-click take-over. */
const MY_EXTENSION_KEY = "ai.takeOverExtension";
const MY_EXTENSION_EVENT = "pbx-console:my-extension";

function readMyExtension(): string | null {
  try {
    return localStorage.getItem(MY_EXTENSION_KEY) || null;
  } catch {
    return null;
  }
}

function saveMyExtension(extension: string) {
  try {
    localStorage.setItem(MY_EXTENSION_KEY, extension);
  } catch {
    // Storage refused (private mode): the operator picks the extension each time.
  }
  window.dispatchEvent(new Event(MY_EXTENSION_EVENT));
}

function subscribeMyExtension(changed: () => void) {
  window.addEventListener(MY_EXTENSION_EVENT, changed);
  window.addEventListener("storage", changed);
  return () => {
    window.removeEventListener(MY_EXTENSION_EVENT, changed);
    window.removeEventListener("storage", changed);
  };
}

/** The operator's own extension as remembered in this browser (every card follows a change). */
export const useMyExtension = () => useSyncExternalStore(subscribeMyExtension, readMyExtension, () => null);

/**
 * The whisper box: an instruction the assistant receives as a system message over the call's sideband and acts
 * on; the caller hears nothing of it. What was whispered (by anyone, as the server keeps it with the live call) is
 * listed apart from the transcript, marked as such.
 */
function WhisperBox({ call }: { call: LiveAiCall }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | undefined>();
  const id = useId();
  const whisper = useWhisperAiCall({
    onSuccess: () => setText(""),
    onError: (err) => setError(errorText(err)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // The server's own schema, so the box says what the server would.
    const parsed = aiWhisperSchema.safeParse({ text });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    whisper.mutate({ callId: call.callId, text: parsed.data.text });
  };
  return (
    <div className="grid gap-2" data-testid="whisper">
      {call.whispers.length > 0 && (
        <ul className="grid gap-1.5" aria-label="Whispered to the assistant" data-testid="whispered">
          {call.whispers.map((w, i) => (
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: the whispers only grow at the end
              key={i}
              className="flex items-start gap-2 rounded-md border border-dashed px-3 py-2 text-sm"
            >
              <EarOff className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden />
              <span className="min-w-0">
                <span className="block font-medium text-muted-foreground text-xs">
                  Whispered at {formatTime(w.at, false)} · not heard by the caller
                </span>
                <span className="whitespace-pre-wrap break-words">{w.text}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={submit} noValidate className="grid gap-1.5">
        <Label htmlFor={id}>Whisper to the assistant</Label>
        <div className="flex gap-2">
          <Input
            id={id}
            value={text}
            maxLength={WHISPER_MAX}
            placeholder="e.g. Offer the caller a callback tomorrow morning"
            aria-invalid={Boolean(error)}
            aria-describedby={`${id}-help${error ? ` ${id}-error` : ""}`}
            onChange={(e) => {
              setText(e.target.value);
              setError(undefined);
            }}
          />
          <Button type="submit" variant="outline" disabled={whisper.isPending}>
            {whisper.isPending ? <LoaderCircle className="animate-spin" /> : <Send />}
            Whisper
          </Button>
        </div>
        <p id={`${id}-help`} className="text-muted-foreground text-xs">
          Only the assistant receives it, as an instruction; the caller hears nothing of it.
        </p>
        {error && (
          <p id={`${id}-error`} className="text-destructive text-sm">
            {error}
          </p>
        )}
      </form>
    </div>
  );
}

/** Take over: to the operator's remembered extension in one click, or through the dialog to any extension. */
function TakeOverButtons({ call, onTakeOver }: { call: LiveAiCall; onTakeOver: () => void }) {
  const mine = useMyExtension();
  const transfer = useTransferAiCall({
    onSuccess: (answer) => toast({ title: `Call transferred to ${answer.transferredTo}` }),
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to take over the call", description: errorText(err) }),
  });
  if (!mine)
    return (
      <Button variant="outline" onClick={onTakeOver}>
        <PhoneForwarded />
        Take over
      </Button>
    );
  return (
    <div className="flex">
      <Button
        variant="outline"
        className="rounded-r-none"
        disabled={transfer.isPending}
        onClick={() => transfer.mutate({ callId: call.callId, extension: mine })}
      >
        {transfer.isPending ? <LoaderCircle className="animate-spin" /> : <PhoneForwarded />}
        Take over to {mine}
      </Button>
      <Button
        variant="outline"
        size="icon"
        className="-ml-px rounded-l-none"
        aria-label="Transfer to another extension"
        title="Transfer to another extension"
        onClick={onTakeOver}
      >
        <Pencil />
      </Button>
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
              <TakeOverButtons call={call} onTakeOver={onTakeOver} />
              <Button variant="destructive" onClick={onEnd}>
                <PhoneOff />
                End call
              </Button>
            </div>
          </Can>
        </CardHeader>
        <CardContent className="grid gap-3">
          <RunningTranscript call={call} />
          <Can minRole="operator">
            <WhisperBox call={call} />
          </Can>
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
  const [remember, setRemember] = useState(true);
  const [error, setError] = useState<string | undefined>();
  const rememberId = useId();
  const extensions = useQuery({ ...extensionsQuery(), enabled: asked !== null });
  const suggestions = [...(extensions.data ?? [])]
    .sort((a, b) => byNumber(a.extension, b.extension))
    .map((x) => `${x.extension} - ${x.name}`);
  const transfer = useTransferAiCall({
    onSuccess: (answer, vars) => {
      if (remember) saveMyExtension(vars.extension);
      toast({ title: `Call transferred to ${answer.transferredTo}` });
      onClose();
    },
    onError: (err) => setError(errorText(err)),
  });
  useEffect(() => {
    if (asked) {
      setTyped(readMyExtension() ?? "");
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
          <div className="flex items-center gap-2">
            <Checkbox id={rememberId} checked={remember} onCheckedChange={(on) => setRemember(on === true)} />
            <Label htmlFor={rememberId} className="font-normal">
              Remember as my extension: take over in one click next time
            </Label>
          </div>
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
