/**
 * What one AI call cost and how fast it answered, as its sideband events say (ADR 0070). `CallMeasures` is a
 * pure accumulator fed every server event with the console's clock: it sums each `response.done`'s usage and
 * times each caller turn, from `input_audio_buffer.speech_stopped` to the first assistant audio of the response
 * that follows (its transcript or text when the response had no audio event). `storeMeasures` writes them on
 * the call's log row when the session ends.
 */
import { and, desc, eq } from "drizzle-orm";
import { aiCallLogs } from "../../db/schema";
import {
  type AiCallEnd,
  addUsage,
  type CallLatency,
  costOf,
  emptyUsage,
  latencyOf,
  type ModelPrice,
  type RealtimeUsage,
  type TurnLatency,
} from "../../shared/ai/measures";
import type { SidebandServerEvent } from "../clients/openai-sideband";
import type { Deps } from "../core/deps";

/** Turns timed per call (the earliest are kept, like the transcript's turns). */
export const MAX_LATENCY_TURNS = 500;
/** Responses remembered as "already under way when the caller stopped speaking". */
const MAX_OPEN_RESPONSES = 50;

/** A caller turn waiting for the assistant's answer. */
interface PendingTurn {
  stoppedAt: number;
  /** Responses under way when the caller stopped: their output is not the answer to this turn. */
  stale: Set<string>;
  /** The response that answers (the first with output after the stop). */
  responseId: string | null;
  audioAt: number | null;
  textAt: number | null;
}

const AUDIO_EVENTS = new Set(["response.output_audio.delta", "response.audio.delta", "output_audio_buffer.started"]);
const TEXT_EVENTS = new Set([
  "response.output_audio_transcript.delta",
  "response.audio_transcript.delta",
  "response.output_text.delta",
  "response.output_audio_transcript.done",
  "response.audio_transcript.done",
  "response.output_text.done",
]);

/** One call's usage and turn latencies, fed its sideband events in order. */
export class CallMeasures {
  private readonly total: RealtimeUsage = emptyUsage();
  private responsesDone = 0;
  private readonly turns: TurnLatency[] = [];
  private readonly open = new Set<string>();
  private pending: PendingTurn | null = null;

  constructor(
    private readonly now: () => number,
    private readonly maxTurns = MAX_LATENCY_TURNS,
  ) {}

  /** Feeds one event; true when it added usage (the caps check the cost then). */
  onEvent(e: SidebandServerEvent): boolean {
    switch (e.type) {
      case "input_audio_buffer.speech_started":
        // The caller speaks again before an answer came: the turn is timed from the next stop.
        if (this.pending && this.pending.audioAt === null && this.pending.textAt === null) this.pending = null;
        return false;
      case "input_audio_buffer.speech_stopped":
        this.settle();
        this.pending = {
          stoppedAt: this.now(),
          stale: new Set(this.open),
          responseId: null,
          audioAt: null,
          textAt: null,
        };
        return false;
      case "response.created":
        if (this.open.size < MAX_OPEN_RESPONSES) this.open.add(e.response.id);
        return false;
      case "response.done": {
        this.open.delete(e.response.id);
        if (this.pending?.responseId === e.response.id) this.settle();
        if (!e.response.usage) return false;
        addUsage(this.total, e.response.usage);
        this.responsesDone++;
        return true;
      }
      default:
        if (AUDIO_EVENTS.has(e.type)) this.output("audio", (e as { response_id: string }).response_id);
        else if (TEXT_EVENTS.has(e.type)) this.output("text", (e as { response_id: string }).response_id);
        return false;
    }
  }

  /** The assistant's output of a response: the first after a stop answers the turn. */
  private output(kind: "audio" | "text", responseId: string): void {
    const p = this.pending;
    if (!p || p.stale.has(responseId)) return;
    if (p.responseId === null) p.responseId = responseId;
    else if (p.responseId !== responseId) return;
    const at = this.now();
    if (kind === "audio" && p.audioAt === null) p.audioAt = at;
    if (kind === "text" && p.textAt === null) p.textAt = at;
  }

  /** Ends the waiting turn: its latency is to the first audio, else to the first text; none without output. */
  private settle(): void {
    const p = this.pending;
    this.pending = null;
    if (!p) return;
    const end = p.audioAt ?? p.textAt;
    if (end === null || this.turns.length >= this.maxTurns) return;
    this.turns.push({ at: new Date(p.stoppedAt).toISOString(), ms: Math.max(0, Math.round(end - p.stoppedAt)) });
  }

  /** A caller turn has ended and its answer has not been timed yet. */
  get waiting(): boolean {
    return this.pending !== null;
  }

  /** The summed usage; null before the first `response.done` that reported one. */
  usage(): RealtimeUsage | null {
    return this.responsesDone ? structuredClone(this.total) : null;
  }

  /** The cost at `price` so far; null without usage or without a price. */
  cost(price: ModelPrice | null): number | null {
    return price && this.responsesDone ? costOf(this.total, price) : null;
  }

  /** The turns timed so far (a turn still waiting for its response's end counts once it has output). */
  latency(): CallLatency {
    const p = this.pending;
    const end = p ? (p.audioAt ?? p.textAt) : null;
    const turns = [...this.turns];
    if (p && end !== null && turns.length < this.maxTurns)
      turns.push({ at: new Date(p.stoppedAt).toISOString(), ms: Math.max(0, Math.round(end - p.stoppedAt)) });
    return latencyOf(turns);
  }

  /** The call ended: a turn that had output is kept. */
  finish(): void {
    this.settle();
  }
}

/** How a followed call ended, from what its session saw (a cap first: it also transfers or hangs up). */
export function endReason(s: {
  capped: boolean;
  transferred: boolean;
  byAssistant: boolean;
  lost: boolean;
}): AiCallEnd {
  if (s.capped) return "cap-reached";
  if (s.transferred) return "transferred";
  if (s.byAssistant) return "ended-by-assistant";
  return s.lost ? "lost" : "completed";
}

/**
 * Writes a call's measures on its accepted log row (by call id) at its end, with the price the cost was
 * computed with (a snapshot), and announces it; false when there is no such row.
 */
export function storeMeasures(
  deps: Pick<Deps, "db" | "events" | "now">,
  callId: string,
  measures: CallMeasures,
  price: ModelPrice | null,
  end: AiCallEnd,
): boolean {
  measures.finish();
  const usage = measures.usage();
  const latency = measures.latency();
  const row = deps.db
    .select({ id: aiCallLogs.id, outcome: aiCallLogs.outcome })
    .from(aiCallLogs)
    .where(and(eq(aiCallLogs.callId, callId), eq(aiCallLogs.outcome, "accept")))
    .orderBy(desc(aiCallLogs.id))
    .get();
  if (!row) return false;
  deps.db
    .update(aiCallLogs)
    .set({
      endedAt: new Date(deps.now()),
      usage,
      costUsd: measures.cost(price),
      price: usage ? price : null,
      latencyTurns: latency.turns,
      endReason: end,
    })
    .where(eq(aiCallLogs.id, row.id))
    .run();
  deps.events.publish({ type: "ai-calls-updated", data: { id: row.id, action: "updated", outcome: row.outcome } });
  return true;
}
