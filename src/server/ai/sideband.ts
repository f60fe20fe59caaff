/**
 * The console's side of an accepted AI call (ADR 0042): one `CallSession` per call id,
 * over the call's sideband WebSocket (clients/openai-sideband.ts). It turns input transcription on, runs the
 * model's tools (`transfer_call` → REST refer, `end_call` → REST hangup after the goodbye's `response.done`,
 * `take_message` → a stored message), answers every tool with `function_call_output` + `response.create`,
 * keeps the turns in order and stores them as the call's transcript when the call ends.
 *
 * Bounded: one session per call id, an open deadline, one reconnect after an unexpected drop, a longest call,
 * at most `maxTurns` turns of `maxTurnChars`, messages over `maxMessageChars` dropped, every timer counted
 * (`CallSessions.counts()`), and every session closed when the console stops.
 *
 * Sessions publish typed `CallSessionEvent`s in-process (`CallSessions.subscribe`) so the classification and
 * the live view can follow a call without reading the socket. Each session measures its usage and turn latency
 * (measures.ts), applies its caps (caps.ts) and takes an operator's whisper (ADR 0070).
 */
import { and, desc, eq } from "drizzle-orm";
import type { RealtimeConversationItemSystemMessage } from "openai/resources/realtime/realtime";
import { aiCallLogs, extensions, type TimedTurn } from "../../db/schema";
import type { ModelPrice } from "../../shared/ai/measures";
import { sipSettings } from "../accounts/settings";
import { ServiceError } from "../clients/http";
import {
  openSideband,
  type SidebandClientEvent,
  SidebandOpenError,
  type SidebandServerEvent,
  type SidebandSocket,
  TimerTrack,
} from "../clients/openai-sideband";
import type { Deps } from "../core/deps";
import { DomainError } from "../core/errors";
import { clients } from "../integrations/outside";
import { redact } from "../redact";
import { CallCaps, othersRunning } from "./caps";
import {
  CallClassification,
  type ClassificationResult,
  type ClassifyLimits,
  DEFAULT_CLASSIFY_LIMITS,
  type TranscriptTurn,
} from "./classify";
import { CallMeasures, endReason, storeMeasures } from "./measures";
import { storeAiMessage } from "./messages";
import { priceFor } from "./prices";
import type { AssistantRow } from "./records";
import { messageArgs, parseArgs, transferArgs } from "./tool-args";
import { storeTranscript } from "./transcripts";

/** What a call session needs: the database, events, clock, config (OpenAI URL, SIP host) and the key. */
export type SidebandDeps = Pick<Deps, "db" | "events" | "now" | "config" | "credentials">;

export interface SidebandLimits {
  /** The sideband must open within this time (each attempt). */
  openTimeoutMs: number;
  /** After `end_call`, hang up anyway if the goodbye's `response.done` has not come by then. */
  goodbyeTimeoutMs: number;
  /** The longest call the console follows; then it hangs up. */
  maxCallMs: number;
  /** Sideband messages longer than this (characters) are dropped unread (audio deltas can be large). */
  maxMessageChars: number;
  /** Turns kept per call (the earliest are kept; the transcript says so when more came). */
  maxTurns: number;
  /** Characters kept per turn. */
  maxTurnChars: number;
}

export const DEFAULT_SIDEBAND_LIMITS: SidebandLimits = {
  openTimeoutMs: 10_000,
  goodbyeTimeoutMs: 20_000,
  maxCallMs: 4 * 3600_000,
  maxMessageChars: 2_000_000,
  maxTurns: 500,
  maxTurnChars: 4_000,
};

/** Lines kept in a call log row's `events`; characters per line. */
const MAX_CALL_EVENTS = 50;
const MAX_EVENT_CHARS = 300;
/** Tool call ids remembered per call (a repeated one is not run twice). */
const MAX_TOOL_CALLS = 200;
/** The transcript schema's limit. */
const MAX_TRANSCRIPT_CHARS = 200_000;

/** The model used for input transcription, turned on with `session.update` when the sideband opens. */
export const TRANSCRIPTION_MODEL = "gpt-4o-transcribe";

export type { TranscriptTurn };

export type CallSessionEvent =
  | { type: "opened"; callId: string; attempt: number }
  | { type: "turn"; callId: string; turn: TranscriptTurn }
  | { type: "tool"; callId: string; name: string; ok: boolean; detail: string }
  | { type: "note"; callId: string; text: string }
  | { type: "ended"; callId: string; outcome: string; partial: boolean; transcriptId: number | null };

export interface CallStart {
  callId: string;
  assistant: AssistantRow;
  callerNumber: string | null;
  callerName: string | null;
}

type ToolAnswer = { ok: true; [k: string]: unknown } | { ok: false; error: string };

type SystemItem = RealtimeConversationItemSystemMessage;

/** One accepted call followed over its sideband. Made by `CallSessions.start`. */
export class CallSession {
  readonly callId: string;
  readonly assistant: AssistantRow;
  readonly callerNumber: string | null;
  readonly callerName: string | null;
  readonly startedAt: number;
  private socket: SidebandSocket | null = null;
  private connecting = false;
  private reconnects = 0;
  private ended = false;
  private partial = false;
  private droppedTurns = 0;
  private readonly turns: (TranscriptTurn & { seq: number; at: number })[] = [];
  private readonly itemOrder = new Map<string, number>();
  private nextSeq = 0;
  private readonly handledTools = new Set<string>();
  /** Tools still running (a refer in flight): the end waits for them, so the outcome knows the transfer. */
  private readonly pending = new Set<Promise<void>>();
  private transferredTo: string | null = null;
  private endedByAssistant = false;
  private messagesTaken = 0;
  /** A goodbye being said (end_call, a cap): once its response is done, `then` ends or transfers the call. */
  private goodbye: { responseId: string | null; then: () => Promise<void> } | null = null;
  private goodbyeTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly maxTimer: ReturnType<typeof setTimeout>;
  /** Sentiment and intent while the call runs, and the rules applied on them (ADR 0043). */
  readonly classification: CallClassification;
  /** Usage and turn latency (ADR 0070), the price they are costed at (the table's row at the start), the caps. */
  readonly measures: CallMeasures;
  readonly price: ModelPrice | null;
  readonly caps: CallCaps;
  /** What operators whispered to the assistant (live.ts keeps them; the live view shows them). */
  readonly whispers: { at: string; text: string }[] = [];
  /** Resolves once the session has ended and its transcript is stored. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    private readonly owner: CallSessions,
    start: CallStart,
  ) {
    this.callId = start.callId;
    this.assistant = start.assistant;
    this.callerNumber = start.callerNumber;
    this.callerName = start.callerName;
    this.startedAt = owner.deps.now();
    this.done = new Promise((r) => {
      this.resolveDone = r;
    });
    this.classification = new CallClassification(this, owner.deps, owner.classifyLimits, {
      note: (text) => this.note(text),
      problem: (text) => this.problem(text),
    });
    this.maxTimer = owner.timers.set(() => {
      this.note(`the call reached the longest call the console follows (${owner.limits.maxCallMs} ms): hung up`);
      void this.hangup("longest call reached");
    }, owner.limits.maxCallMs);
    this.measures = new CallMeasures(owner.deps.now);
    this.price = priceFor(owner.deps, this.assistant.model);
    this.caps = new CallCaps(
      this,
      owner.deps,
      owner.timers,
      () => othersRunning(owner.list(), this),
      (t) => this.note(t),
    );
    this.caps.start(owner.limits.maxCallMs, this.price);
  }

  /** The cost so far at the call's price; null without usage or price. */
  get runningCost(): number | null {
    return this.measures.cost(this.price);
  }

  get isOpen(): boolean {
    return this.socket?.isOpen ?? false;
  }

  get hasSocket(): boolean {
    return this.socket !== null || this.connecting;
  }

  /** The turns so far, in conversation order. */
  transcriptTurns(): TranscriptTurn[] {
    return [...this.turns].sort((a, b) => a.seq - b.seq).map(({ seq: _s, at: _a, ...t }) => t);
  }

  /** The turns in conversation order with the time each one's words were complete (the call's timeline). */
  timedTurns(): TimedTurn[] {
    return [...this.turns]
      .sort((a, b) => a.seq - b.seq)
      .map((t) => ({ at: new Date(t.at).toISOString(), speaker: t.speaker, text: t.text }));
  }

  // ---------- connection ----------

  /** @internal Opens (attempt 1) or reopens (attempt 2) the sideband. */
  connect(attempt: number): void {
    const { deps, limits } = this.owner;
    const apiKey = deps.credentials.values("openai").apiKey ?? "";
    this.connecting = true;
    openSideband(
      {
        baseUrl: deps.config.endpoints.openai,
        apiKey,
        callId: this.callId,
        openTimeoutMs: limits.openTimeoutMs,
        maxMessageChars: limits.maxMessageChars,
      },
      {
        event: (e) => this.onEvent(e),
        oversized: (n) => this.problem(`a sideband message of ${n} characters was dropped unread`),
        closed: (info) => this.onClosed(info),
      },
      this.owner.timers,
    ).then(
      (socket) => {
        this.connecting = false;
        if (this.ended) {
          socket.close();
          return;
        }
        this.socket = socket;
        if (attempt > 1) this.note("sideband reopened");
        this.emit({ type: "opened", callId: this.callId, attempt });
        // Input transcription on: the caller's words arrive as conversation.item.input_audio_transcription.completed.
        this.send({
          type: "session.update",
          session: { type: "realtime", audio: { input: { transcription: { model: TRANSCRIPTION_MODEL } } } },
        });
      },
      (err: unknown) => {
        this.connecting = false;
        // Ended while it was opening (the call finished, or the console stopped and closed its database):
        // there is nothing left to record it on.
        if (this.ended) return;
        const why = err instanceof SidebandOpenError ? err.message : "could not open";
        this.problem(attempt > 1 ? `sideband reconnect failed: ${why}` : `sideband did not open: ${why}`);
        this.partial = true;
        void this.finish(attempt > 1 ? "connection lost" : "not followed");
      },
    );
  }

  private onClosed(info: { code: number; reason: string; clean: boolean }): void {
    this.socket = null;
    if (this.ended) return;
    if (info.clean) {
      // OpenAI closes the sideband when the call ends.
      void this.finish(null);
      return;
    }
    if (this.reconnects < 1) {
      this.reconnects++;
      this.problem(`sideband dropped (code ${info.code}); reconnecting once`);
      this.connect(2);
      return;
    }
    this.problem(`sideband dropped again (code ${info.code}); the transcript is partial`);
    this.partial = true;
    void this.finish("connection lost");
  }

  private send(event: SidebandClientEvent): boolean {
    return this.socket?.send(event) ?? false;
  }

  // ---------- events ----------

  private seqOf(itemId: string): number {
    let seq = this.itemOrder.get(itemId);
    if (seq === undefined) {
      seq = this.nextSeq++;
      // Bounded like the turns: ids past the cap share the last place (arrival order among them).
      if (this.itemOrder.size < this.owner.limits.maxTurns * 4) this.itemOrder.set(itemId, seq);
    }
    return seq;
  }

  private onEvent(e: SidebandServerEvent): void {
    if (this.ended) return;
    if (this.measures.onEvent(e)) this.caps.checkCost(this.runningCost);
    switch (e.type) {
      case "conversation.item.added":
      case "conversation.item.created":
      case "input_audio_buffer.committed":
        this.seqOf(e.item_id);
        return;
      case "conversation.item.input_audio_transcription.completed":
        this.addTurn("caller", e.item_id, e.transcript);
        return;
      case "response.output_audio_transcript.done":
      case "response.audio_transcript.done":
        this.addTurn("assistant", e.item_id, e.transcript);
        return;
      case "response.function_call_arguments.done":
        void this.runTool(e.call_id, e.name, e.arguments);
        return;
      case "response.created":
        // The first response after end_call's answer is the goodbye.
        if (this.goodbye && this.goodbye.responseId === null) this.goodbye.responseId = e.response.id;
        return;
      case "response.done":
        this.toolsFromResponse(e.response.output);
        if (this.goodbye?.responseId === e.response.id) {
          const { then } = this.goodbye;
          this.goodbye = null;
          this.owner.timers.clear(this.goodbyeTimer);
          this.goodbyeTimer = null;
          void then();
        }
        return;
      case "error": {
        const text = this.owner.secretFree(
          `OpenAI error${e.error.code ? ` ${e.error.code}` : ""}: ${e.error.message}`.slice(0, 250),
        );
        this.problem(text);
        return;
      }
      default:
        return;
    }
  }

  /** Function calls in a `response.done` that `response.function_call_arguments.done` did not bring (run once). */
  private toolsFromResponse(output: unknown[] | undefined): void {
    for (const item of output ?? []) {
      if (typeof item !== "object" || item === null) continue;
      const i = item as Record<string, unknown>;
      if (i.type !== "function_call" || typeof i.call_id !== "string" || typeof i.name !== "string") continue;
      if (this.handledTools.has(i.call_id)) continue;
      void this.runTool(i.call_id, i.name, typeof i.arguments === "string" ? i.arguments : "");
    }
  }

  private addTurn(speaker: TranscriptTurn["speaker"], itemId: string, raw: string): void {
    const text = raw.trim().slice(0, this.owner.limits.maxTurnChars);
    if (!text) return;
    if (this.turns.length >= this.owner.limits.maxTurns) {
      this.droppedTurns++;
      return;
    }
    const turn: TranscriptTurn = { speaker, text, itemId };
    this.turns.push({ ...turn, seq: this.seqOf(itemId), at: this.owner.deps.now() });
    this.emit({ type: "turn", callId: this.callId, turn });
    this.classification.onTurn(turn);
  }

  // ---------- tools ----------

  private runTool(toolCallId: string, name: string, args: string): Promise<void> {
    const run = this.runToolOnce(toolCallId, name, args);
    this.pending.add(run);
    return run.finally(() => this.pending.delete(run));
  }

  private async runToolOnce(toolCallId: string, name: string, args: string): Promise<void> {
    if (this.handledTools.has(toolCallId)) return;
    if (this.handledTools.size >= MAX_TOOL_CALLS) {
      this.answer(toolCallId, { ok: false, error: "Too many tool calls on this call" });
      return;
    }
    this.handledTools.add(toolCallId);
    const parsed = parseArgs(args);
    let answer: ToolAnswer;
    if (parsed === null) answer = { ok: false, error: "The arguments were not a JSON object; call the tool again" };
    else if (name === "transfer_call") answer = await this.transferTool(parsed);
    else if (name === "end_call") answer = this.endCallTool();
    else if (name === "take_message") answer = this.takeMessageTool(parsed);
    else answer = { ok: false, error: `There is no tool named ${name.slice(0, 64)}` };
    const detail = answer.ok ? JSON.stringify(answer).slice(0, 200) : answer.error;
    this.emit({ type: "tool", callId: this.callId, name: name.slice(0, 64), ok: answer.ok, detail });
    // The result goes on the call's record: the call's page shows each tool with what came of it.
    this.note(`${name.slice(0, 64)}: ${answer.ok ? `done ${detail}` : `refused: ${answer.error}`}`);
    this.answer(toolCallId, answer);
  }

  /** The tool's result to the model, then a response so the model speaks about it (also after failures). */
  private answer(toolCallId: string, answer: ToolAnswer): void {
    if (this.ended) return;
    this.send({
      type: "conversation.item.create",
      item: { type: "function_call_output", call_id: toolCallId, output: JSON.stringify(answer) },
    });
    this.send({ type: "response.create" });
  }

  /** The SIP URI of an extension (or the assistant's IVR number) on the PBX's public SIP host, or why not. */
  transferTarget(extension: string): { uri: string } | { error: string } {
    const { deps } = this.owner;
    if (!/^[0-9*#]{1,20}$/.test(extension)) return { error: `${extension.slice(0, 30)} is not an extension number` };
    const ivr = this.assistant.ivrId?.trim();
    const known =
      (ivr && ivr === extension) ||
      deps.db.select({ id: extensions.id }).from(extensions).where(eq(extensions.extension, extension)).get();
    if (!known) return { error: `Extension ${extension} does not exist` };
    const host = sipSettings(deps.db, deps.config).effective.host.trim();
    if (!host) return { error: "The PBX public SIP host is not set, so calls cannot be transferred" };
    return { uri: `sip:${extension}@${host}` };
  }

  /** Transfers the call (the `transfer_call` tool, and the live view's take-over later). */
  async transfer(extension: string): Promise<ToolAnswer> {
    const target = this.transferTarget(extension);
    if ("error" in target) return { ok: false, error: target.error };
    return this.refer(target.uri, extension);
  }

  /** A REST refer of the call to a SIP/tel URI (a transfer, a rule's IVR or voicemail target). */
  async refer(uri: string, label: string = uri): Promise<ToolAnswer> {
    try {
      await clients.openai(this.owner.deps).referCall(this.callId, uri);
    } catch (err) {
      const why = this.owner.secretFree(
        err instanceof ServiceError || err instanceof DomainError ? err.message : "unexpected error",
      );
      this.problem(`transfer to ${uri} refused: ${why}`);
      return { ok: false, error: `The transfer failed: ${why}` };
    }
    this.transferredTo = label;
    this.note(`transferred to ${uri}`);
    return { ok: true, transferred_to: label };
  }

  /** @internal Work the end of the call waits for (a rule's refer), like a running tool. */
  track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async transferTool(args: Record<string, unknown>): Promise<ToolAnswer> {
    const parsed = transferArgs.safeParse(args);
    if (!parsed.success) return { ok: false, error: "Say which extension: the argument extension is required" };
    return this.transfer(parsed.data.extension);
  }

  private endCallTool(): ToolAnswer {
    this.endedByAssistant = true;
    // The answer below asks for a response: that response is the goodbye; its response.done hangs up.
    this.awaitGoodbye(() => this.hangup("goodbye said"));
    return { ok: true, note: "Say a short goodbye now; the call ends when you finish." };
  }

  /** The next response is a goodbye: `then` runs at its response.done, or after `goodbyeTimeoutMs`. */
  private awaitGoodbye(then: () => Promise<void>): void {
    this.goodbye = { responseId: null, then };
    this.owner.timers.clear(this.goodbyeTimer);
    this.goodbyeTimer = this.owner.timers.set(() => {
      this.goodbyeTimer = null;
      this.goodbye = null;
      this.note("the goodbye did not finish in time");
      void then();
    }, this.owner.limits.goodbyeTimeoutMs);
  }

  /**
   * Ends the call politely (a cap): the assistant gets `instruction` as a system item and a response to say it;
   * `then` runs once that response is done (at once when the sideband is not open to say it).
   */
  endPolitely(instruction: string, then: () => Promise<void>): void {
    if (this.ended || this.goodbye) return;
    // The goodbye is the next response: awaited before it is asked for.
    this.awaitGoodbye(then);
    if (this.instruct(instruction)) return;
    this.owner.timers.clear(this.goodbyeTimer);
    this.goodbyeTimer = null;
    this.goodbye = null;
    void then();
  }

  /** An instruction only the assistant gets (a whisper): a system item, then a response so it acts on it. */
  instruct(text: string): boolean {
    const item: SystemItem = { type: "message", role: "system", content: [{ type: "input_text", text }] };
    return (
      !this.ended && this.send({ type: "conversation.item.create", item }) && this.send({ type: "response.create" })
    );
  }

  private takeMessageTool(args: Record<string, unknown>): ToolAnswer {
    const parsed = messageArgs.safeParse(args);
    if (!parsed.success) return { ok: false, error: "Say who the message is for and what it is (recipient, message)" };
    const m = storeAiMessage(this.owner.deps, {
      callId: this.callId,
      assistantId: this.assistant.id,
      callerNumber: this.callerNumber,
      callerName: this.callerName,
      recipient: parsed.data.recipient,
      message: parsed.data.message,
      callbackNumber: parsed.data.callback_number || null,
    });
    this.messagesTaken++;
    return { ok: true, message_id: m.id };
  }

  // ---------- ending ----------

  /** Hangs the call up at OpenAI (REST), then ends the session. */
  async hangup(why: string): Promise<void> {
    if (this.ended) return;
    try {
      await clients.openai(this.owner.deps).hangupCall(this.callId);
    } catch (err) {
      const text = this.owner.secretFree(err instanceof Error ? err.message : "unexpected error");
      this.problem(`hang-up (${why}) failed: ${text}`);
    }
    await this.finish(null);
  }

  /**
   * Ends the session once: timers cleared, socket closed, transcript stored. `lost`: why it was not a normal
   * end; `partial`: turns may be missing.
   */
  async finish(lost: string | null, opts: { partial?: boolean } = {}): Promise<void> {
    if (this.ended) return this.done;
    this.ended = true;
    if (opts.partial) this.partial = true;
    const timers = this.owner.timers;
    this.caps.stop();
    timers.clear(this.maxTimer);
    timers.clear(this.goodbyeTimer);
    this.goodbyeTimer = null;
    this.socket?.close();
    this.socket = null;
    // A transfer's refer may still be answering (the call leaves OpenAI as the refer succeeds).
    await Promise.allSettled([...this.pending]);
    // The end's classification (not when the console is stopping: it would hold the shutdown up).
    const classified = await this.classification.atEnd({ classify: !this.owner.stopping });
    const outcome = this.outcome(lost);
    let transcriptId: number | null = null;
    try {
      transcriptId = this.store(outcome, classified);
    } catch (err) {
      this.problem(`the transcript was not stored: ${(err as Error).message.slice(0, 200)}`);
    }
    this.note(`ended: ${outcome}${this.partial ? " (partial)" : ""}`);
    this.storeMeasures();
    this.owner.remove(this);
    this.emit({ type: "ended", callId: this.callId, outcome, partial: this.partial, transcriptId });
    this.resolveDone();
  }

  /** The usage, cost, latency and end reason on the call's log row (the call ends without them on a failure). */
  private storeMeasures(): void {
    const end = endReason({
      capped: this.caps.reached !== null,
      transferred: this.transferredTo !== null,
      byAssistant: this.endedByAssistant,
      lost: this.partial,
    });
    try {
      storeMeasures(this.owner.deps, this.callId, this.measures, this.price, end);
    } catch (err) {
      this.owner.log(`ai-call ${this.callId} measures not stored: ${(err as Error).message.slice(0, 200)}`);
    }
  }

  private outcome(lost: string | null): string {
    const parts: string[] = [];
    if (this.messagesTaken)
      parts.push(this.messagesTaken > 1 ? `${this.messagesTaken} messages taken` : "message taken");
    if (this.transferredTo) parts.push(`transferred to ${this.transferredTo}`);
    else if (this.endedByAssistant) parts.push("ended by assistant");
    if (!this.transferredTo && !this.endedByAssistant) parts.push(lost ?? "caller hung up");
    return parts.join("; ");
  }

  /** The transcript row (when any words were heard); null when there were none. */
  private store(outcome: string, classified: ClassificationResult): number | null {
    const turns = this.transcriptTurns();
    if (turns.length === 0) return null;
    let text = turns.map((t) => `${t.speaker === "caller" ? "Caller" : "Assistant"}: ${t.text}`).join("\n");
    if (this.droppedTurns) text += `\n[${this.droppedTurns} more turns not kept]`;
    if (text.length > MAX_TRANSCRIPT_CHARS) text = `${text.slice(0, MAX_TRANSCRIPT_CHARS - 20)}\n[truncated]`;
    const { deps } = this.owner;
    const stored = storeTranscript(deps, {
      callId: this.callId,
      extensionId: this.assistant.extensionId,
      phoneNumber: this.callerNumber,
      direction: "inbound",
      transcript: text,
      summary: classified.summary,
      sentiment: classified.sentiment,
      intent: classified.intent,
      ruleDecision: classified.ruleDecision,
      keywords: [],
      duration: Math.max(0, Math.round((deps.now() - this.startedAt) / 1000)),
      recordingUrl: null,
      turns: this.timedTurns(),
      outcome,
      partial: this.partial,
    });
    return stored.id;
  }

  // ---------- records ----------

  /** A fault: on the call's record and in the log (secrets masked in both). */
  private problem(text: string): void {
    this.note(text);
    this.owner.log(`ai-call ${this.callId} ${text}`);
  }

  private note(text: string): void {
    this.owner.appendCallEvent(this.callId, text);
    this.emit({ type: "note", callId: this.callId, text });
  }

  private emit(e: CallSessionEvent): void {
    this.owner.emit(e);
  }
}

/**
 * The console's call sessions (one per call id) and their timers. One per app (`AppContext.aiCalls`);
 * `closeAll()` when the console stops.
 */
export class CallSessions {
  readonly timers = new TimerTrack();
  readonly limits: SidebandLimits;
  /** The classification's model, timeout and budgets (ADR 0043); tests shorten them. */
  readonly classifyLimits: ClassifyLimits = { ...DEFAULT_CLASSIFY_LIMITS };
  /** Where problem lines go (OpenAI errors, refused transfers); secrets are masked before. */
  logger: (line: string) => void;
  private readonly sessions = new Map<string, CallSession>();
  private readonly listeners = new Set<(e: CallSessionEvent) => void>();
  private closing = false;

  constructor(
    readonly deps: SidebandDeps,
    limits: Partial<SidebandLimits> = {},
  ) {
    this.limits = { ...DEFAULT_SIDEBAND_LIMITS, ...limits };
    this.logger = (line) => {
      if (deps.config.logRequests) console.warn(`${new Date(deps.now()).toISOString()} ${line}`);
    };
  }

  /**
   * Starts following an accepted call (opens its sideband in the background); null when the call already
   * has a session or the console is stopping.
   */
  start(call: CallStart): CallSession | null {
    if (this.closing || this.sessions.has(call.callId)) return null;
    const session = new CallSession(this, call);
    this.sessions.set(call.callId, session);
    session.connect(1);
    return session;
  }

  /** True once `closeAll` began (the console is stopping). */
  get stopping(): boolean {
    return this.closing;
  }

  get(callId: string): CallSession | undefined {
    return this.sessions.get(callId);
  }

  list(): CallSession[] {
    return [...this.sessions.values()];
  }

  /** Open sessions, sockets (open or opening) and timers: all zero once every call has ended. */
  counts(): { sessions: number; sockets: number; timers: number } {
    let sockets = 0;
    for (const s of this.sessions.values()) if (s.hasSocket) sockets++;
    return { sessions: this.sessions.size, sockets, timers: this.timers.size };
  }

  /** Every session event, in-process (the live view and the classification hook in here). Returns unsubscribe. */
  subscribe(listener: (e: CallSessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends every session (console stopping): sockets closed, timers cleared, transcripts stored as partial. */
  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.list().map((s) => {
        this.appendCallEvent(s.callId, "the console stopped while the call was running");
        // The call may go on at OpenAI without the console: what follows is not captured.
        return s.finish("console stopped", { partial: true });
      }),
    );
  }

  /** @internal */
  remove(session: CallSession): void {
    if (this.sessions.get(session.callId) === session) this.sessions.delete(session.callId);
  }

  /** @internal */
  emit(e: CallSessionEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        this.log(`ai-call listener failed: ${(err as Error).message}`);
      }
    }
  }

  /** @internal Text with the OpenAI key and webhook secret masked in every encoding. */
  secretFree(text: string): string {
    const v = this.deps.credentials.values("openai");
    return redact(text, [v.apiKey, v.webhookSecret]);
  }

  /**
   * @internal A log line, secrets masked. Never throws: it runs from socket and timer callbacks, where a
   * throw is an unhandled error; when the credentials cannot be read (the database closing with the
   * console) the line cannot be checked for secrets and is dropped, saying why.
   */
  log(line: string): void {
    let text: string;
    try {
      text = this.secretFree(line);
    } catch (err) {
      text = `ai-call log line dropped (secrets could not be masked): ${(err as Error).message}`;
    }
    this.logger(text);
  }

  /** @internal One line on the call's log row (the accepted one), at most `MAX_CALL_EVENTS` kept. */
  appendCallEvent(callId: string, text: string): void {
    try {
      const { db } = this.deps;
      const row = db
        .select({ id: aiCallLogs.id, events: aiCallLogs.events, outcome: aiCallLogs.outcome })
        .from(aiCallLogs)
        .where(and(eq(aiCallLogs.callId, callId), eq(aiCallLogs.outcome, "accept")))
        .orderBy(desc(aiCallLogs.id))
        .get();
      if (!row) return;
      const line = `${new Date(this.deps.now()).toISOString()} ${this.secretFree(text)}`.slice(0, MAX_EVENT_CHARS);
      const events = [...row.events, line].slice(-MAX_CALL_EVENTS);
      db.update(aiCallLogs).set({ events }).where(eq(aiCallLogs.id, row.id)).run();
      this.deps.events.publish({
        type: "ai-calls-updated",
        data: { id: row.id, action: "updated", outcome: row.outcome },
      });
    } catch (err) {
      // The database may be closing with the console: the line is lost, the call goes on.
      this.logger(`ai-call ${callId} event not recorded: ${(err as Error).message}`);
    }
  }
}
