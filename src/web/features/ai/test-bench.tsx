import { AudioLines, Mic, PhoneOff } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { errorText } from "@/lib/error-text";
import type { AiAssistant } from "../../../shared/ai/assistants";
import { mintClientSecret } from "./api";
import { BenchCall, type BenchEntry, type BenchState } from "./test-bench-session";

const STATE_LABEL: Record<BenchState | "idle", string> = {
  idle: "Not started",
  microphone: "Asking for the microphone…",
  minting: "Getting a client secret…",
  connecting: "Connecting to OpenAI…",
  connected: "Connected",
  ended: "Call ended",
  failed: "Call failed",
};

const STATE_VARIANT: Record<BenchState | "idle", "secondary" | "success" | "destructive" | "warning"> = {
  idle: "secondary",
  microphone: "warning",
  minting: "warning",
  connecting: "warning",
  connected: "success",
  ended: "secondary",
  failed: "destructive",
};

const WHO: Record<BenchEntry["kind"], string> = { caller: "You", assistant: "Assistant", tool: "Tool", error: "Error" };

/**
 * Talk to an assistant from the browser (ADR 0073): the microphone, a WebRTC call to OpenAI opened with a
 * client secret the console mints for this assistant, the live transcript and the tools it calls (shown, not run).
 */
export function TestBenchDialog({
  assistant,
  open,
  onOpenChange,
}: {
  assistant: AiAssistant;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const [state, setState] = useState<BenchState | "idle">("idle");
  const [detail, setDetail] = useState<string>();
  const [entries, setEntries] = useState<BenchEntry[]>([]);
  const call = useRef<BenchCall | null>(null);
  const audio = useRef<HTMLAudioElement>(null);

  const start = () => {
    call.current?.hangup();
    setEntries([]);
    setDetail(undefined);
    const next = new BenchCall(
      () =>
        mintClientSecret(assistant.id).catch((err: unknown) => {
          throw new Error(errorText(err));
        }),
      {
        onState: (s, d) => {
          if (call.current !== next) return;
          setState(s);
          setDetail(d);
        },
        onEntry: (e) => {
          if (call.current === next) setEntries((list) => [...list, e]);
        },
        onRemoteStream: (stream) => {
          if (audio.current) audio.current.srcObject = stream;
        },
      },
    );
    call.current = next;
    void next.start();
  };

  const hangup = () => call.current?.hangup();

  // Closing the dialog (or leaving the screen) ends the call and frees the microphone.
  useEffect(() => {
    if (!open) call.current?.hangup();
  }, [open]);
  useEffect(() => () => call.current?.hangup(), []);

  const active = state === "microphone" || state === "minting" || state === "connecting" || state === "connected";
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Talk to {assistant.name}</DialogTitle>
          <DialogDescription>
            A call from this browser with the assistant's prompt, voice and tools. Tools are shown, not run.
          </DialogDescription>
        </DialogHeader>
        <div className="flex flex-wrap items-center gap-2" role="status" aria-label="Call state">
          <Badge variant={STATE_VARIANT[state]} data-state={state}>
            {STATE_LABEL[state]}
          </Badge>
          {detail && (
            <span className={state === "failed" ? "text-destructive text-sm" : "text-muted-foreground text-xs"}>
              {detail}
            </span>
          )}
        </div>
        <ol aria-label="Test call transcript" className="grid max-h-72 gap-1.5 overflow-y-auto text-sm">
          {entries.length === 0 && (
            <li className="text-muted-foreground">
              {active ? "Say something: what you and the assistant say appears here." : "No conversation yet."}
            </li>
          )}
          {entries.map((e, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the transcript only grows; an entry never moves
            <li key={i} data-kind={e.kind} className={e.kind === "tool" ? "font-mono text-xs" : undefined}>
              <span className="font-medium">{WHO[e.kind]}:</span> {e.text}
            </li>
          ))}
        </ol>
        {/* biome-ignore lint/a11y/useMediaCaption: the assistant's live voice; its words are the transcript above */}
        <audio ref={audio} autoPlay hidden />
        <DialogFooter>
          {active ? (
            <Button type="button" variant="destructive" onClick={hangup}>
              <PhoneOff />
              Hang up
            </Button>
          ) : (
            <Button type="button" onClick={start}>
              <Mic />
              {state === "idle" ? "Start call" : "Call again"}
            </Button>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/** The card's "Talk" action (operators; an active assistant only: OpenAI is asked for its session). */
export function TestBenchButton({ assistant }: { assistant: AiAssistant }) {
  const [open, setOpen] = useState(false);
  const [mounted, setMounted] = useState(false);
  if (assistant.status !== "active") return null;
  return (
    <Can minRole="operator">
      <Button
        type="button"
        variant="outline"
        size="sm"
        className="justify-self-start"
        aria-label={`Talk to ${assistant.name}`}
        onClick={() => {
          setMounted(true);
          setOpen(true);
        }}
      >
        <AudioLines />
        Talk
      </Button>
      {mounted && <TestBenchDialog assistant={assistant} open={open} onOpenChange={setOpen} />}
    </Can>
  );
}
