/**
 * One test-bench call (ADR 0073): the browser talks to an assistant over OpenAI's Realtime WebRTC flow.
 * The console mints a client secret scoped to the assistant's session; the page posts its SDP offer to the
 * configured OpenAI calls URL with that secret (never the API key, which the page never has), then the
 * Realtime events arrive on the `oai-events` data channel. Tools are shown, not run: each call is answered
 * with an output saying so, so the model goes on talking.
 */
import type {
  ConversationItemCreateEvent,
  RealtimeServerEvent,
  ResponseCreateEvent,
} from "openai/resources/realtime/realtime";
import type { AiClientSecret } from "../../../shared/ai/test-bench";
import { REALTIME_DATA_CHANNEL } from "../../../shared/ai/test-bench";

export type BenchState = "microphone" | "minting" | "connecting" | "connected" | "ended" | "failed";

export interface BenchEntry {
  kind: "caller" | "assistant" | "tool" | "error";
  text: string;
}

/** What one server event means for the bench: a line to show, and events to send back. */
export interface BenchStep {
  entry?: BenchEntry;
  reply?: (ConversationItemCreateEvent | ResponseCreateEvent)[];
}

/** The output a tool call gets on the bench: nothing is transferred, hung up or stored. */
export const BENCH_TOOL_OUTPUT = JSON.stringify({
  ok: false,
  note: "Test bench: the tool was not run. Carry on as if it was unavailable.",
});

/** Reads one Realtime server event (typed by the official SDK) into the bench's transcript and replies. */
export function benchStep(event: RealtimeServerEvent): BenchStep {
  switch (event.type) {
    case "conversation.item.input_audio_transcription.completed":
      return event.transcript.trim() ? { entry: { kind: "caller", text: event.transcript.trim() } } : {};
    case "response.output_audio_transcript.done":
      return event.transcript.trim() ? { entry: { kind: "assistant", text: event.transcript.trim() } } : {};
    case "response.function_call_arguments.done":
      return {
        entry: { kind: "tool", text: `${event.name}(${event.arguments})` },
        reply: [
          {
            type: "conversation.item.create",
            item: { type: "function_call_output", call_id: event.call_id, output: BENCH_TOOL_OUTPUT },
          },
          { type: "response.create" },
        ],
      };
    case "error":
      return { entry: { kind: "error", text: event.error.message } };
    default:
      return {};
  }
}

export interface BenchHandlers {
  onState: (state: BenchState, detail?: string) => void;
  onEntry: (entry: BenchEntry) => void;
  /** The assistant's voice, to play. */
  onRemoteStream: (stream: MediaStream) => void;
}

/** Why the microphone could not be had, in words. */
function microphoneProblem(err: unknown): string {
  const name = (err as { name?: string })?.name;
  if (name === "NotAllowedError") return "The browser was not allowed to use the microphone.";
  if (name === "NotFoundError") return "No microphone was found.";
  if (!navigator.mediaDevices) return "This page cannot use a microphone (it needs HTTPS or localhost).";
  return `The microphone could not be opened: ${(err as Error)?.message ?? String(err)}`;
}

/** OpenAI's refusal of the offer, in words: its own error message when it sent one. */
async function refusal(res: Response): Promise<string> {
  let message = "";
  try {
    const body = (await res.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") message = body.error.message;
  } catch {}
  return `OpenAI refused the call (${res.status})${message ? `: ${message}` : ""}`;
}

/** A running bench call: `start` once, `hangup` any time (also mid-start). */
export class BenchCall {
  private pc: RTCPeerConnection | null = null;
  private channel: RTCDataChannel | null = null;
  private mic: MediaStream | null = null;
  private ended = false;
  /** OpenAI's id of the call (from the answer's Location), once known. */
  callId: string | null = null;

  constructor(
    private readonly mint: () => Promise<AiClientSecret>,
    private readonly on: BenchHandlers,
  ) {}

  async start(): Promise<void> {
    try {
      this.on.onState("microphone");
      try {
        this.mic = await navigator.mediaDevices.getUserMedia({ audio: true });
      } catch (err) {
        throw new Error(microphoneProblem(err));
      }
      if (this.ended) return this.release();
      this.on.onState("minting");
      const secret = await this.mint();
      if (this.ended) return this.release();
      const pc = new RTCPeerConnection();
      this.pc = pc;
      pc.ontrack = (e) => {
        const stream = e.streams[0] ?? new MediaStream([e.track]);
        this.on.onRemoteStream(stream);
      };
      pc.onconnectionstatechange = () => {
        if (this.ended) return;
        if (pc.connectionState === "connected") this.on.onState("connected");
        if (pc.connectionState === "failed") this.fail("The connection to OpenAI failed.");
        if (pc.connectionState === "closed") this.on.onState("ended");
      };
      for (const track of this.mic.getAudioTracks()) pc.addTrack(track, this.mic);
      const channel = pc.createDataChannel(REALTIME_DATA_CHANNEL);
      this.channel = channel;
      channel.onmessage = (e) => this.receive(e.data);
      const offer = await pc.createOffer();
      await pc.setLocalDescription(offer);
      this.on.onState("connecting");
      const res = await fetch(secret.callsUrl, {
        method: "POST",
        body: offer.sdp,
        headers: { Authorization: `Bearer ${secret.value}`, "Content-Type": "application/sdp" },
      });
      if (!res.ok) throw new Error(await refusal(res));
      const location = res.headers.get("Location");
      this.callId = location ? (location.split("/").pop() ?? null) : null;
      const answer = await res.text();
      if (this.ended) return this.release();
      await pc.setRemoteDescription({ type: "answer", sdp: answer });
      // Still connecting until ICE and DTLS are done; the connection state says when.
      const detail = this.callId ? `OpenAI call ${this.callId}` : undefined;
      this.on.onState(pc.connectionState === "connected" ? "connected" : "connecting", detail);
    } catch (err) {
      const message =
        err instanceof TypeError && /fetch/i.test(err.message)
          ? "Could not reach OpenAI from this browser."
          : err instanceof Error
            ? err.message
            : String(err);
      this.fail(message);
    }
  }

  /** Ends the call: the peer connection closes (OpenAI ends the session), the microphone is released. */
  hangup(): void {
    if (this.ended) return;
    this.ended = true;
    this.release();
    this.on.onState("ended");
  }

  private fail(message: string): void {
    if (this.ended) return;
    this.ended = true;
    this.release();
    this.on.onState("failed", message);
  }

  private release(): void {
    this.channel?.close();
    this.pc?.close();
    for (const track of this.mic?.getTracks() ?? []) track.stop();
    this.channel = null;
    this.pc = null;
    this.mic = null;
  }

  private receive(data: unknown): void {
    let event: RealtimeServerEvent;
    try {
      event = JSON.parse(String(data)) as RealtimeServerEvent;
    } catch {
      return;
    }
    const step = benchStep(event);
    if (step.entry) this.on.onEntry(step.entry);
    for (const reply of step.reply ?? []) {
      if (this.channel?.readyState === "open") this.channel.send(JSON.stringify(reply));
    }
  }
}
