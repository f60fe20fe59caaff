/**
 * Spend and time caps of AI calls (ADR 0070). Per call: `callCostCapUsd` (the running cost from the usage
 * reported so far) and `callSecondsCap` (a timer; the longest-call timer stays, the smaller wins); per
 * assistant: `dailySpendCapUsd` (today's stored call costs, UTC, plus the running cost of its calls in
 * progress). A call that reaches a cap ends politely: the assistant is told (a system item and a response) to
 * say so briefly and goodbye, then the call is hung up or referred to `capTransferTo`. A call that comes in
 * while its assistant is over the daily cap is not taken (`capAtAnswer`).
 */
import { and, eq, gte, sql } from "drizzle-orm";
import { aiCallLogs } from "../../db/schema";
import type { ModelPrice } from "../../shared/ai/measures";
import { sipSettings } from "../accounts/settings";
import type { TimerTrack } from "../clients/openai-sideband";
import type { Deps } from "../core/deps";
import type { AssistantRow } from "./records";
import { referTarget } from "./refer-target";

type CapDeps = Pick<Deps, "db" | "config" | "now">;

/** What a capped call needs of its session (sideband.ts's `CallSession` is one). */
export interface CappedCall {
  readonly callId: string;
  readonly assistant: AssistantRow;
  /** Tells the assistant to say `instruction`'s goodbye; runs `then` once that response is done (or timed out). */
  endPolitely(instruction: string, then: () => Promise<void>): void;
  hangup(why: string): Promise<void>;
  refer(uri: string, label?: string): Promise<{ ok: boolean; error?: string }>;
  track(work: Promise<void>): void;
}

/** The running cost (USD) of the calls in progress of `call`'s assistant other than `call` (the daily cap counts them). */
export function othersRunning(
  calls: readonly { assistant: { id: number }; runningCost: number | null }[],
  call: { assistant: { id: number } },
): number {
  let sum = 0;
  for (const c of calls) if (c !== call && c.assistant.id === call.assistant.id) sum += c.runningCost ?? 0;
  return sum;
}

/** Midnight UTC of the day `at` falls in (ms). */
export const utcDayStart = (at: number): number => {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
};

/** The stored cost (USD) of an assistant's calls that started today (UTC); calls in progress are not stored yet. */
export function storedSpentToday(deps: Pick<Deps, "db" | "now">, assistantId: number): number {
  const row = deps.db
    .select({ sum: sql<number | null>`sum(${aiCallLogs.costUsd})` })
    .from(aiCallLogs)
    .where(and(eq(aiCallLogs.assistantId, assistantId), gte(aiCallLogs.createdAt, new Date(utcDayStart(deps.now())))))
    .get();
  return row?.sum ?? 0;
}

const usd = (v: number) => `${Number(v.toFixed(4))} USD`;

/** The instruction the assistant gets at a cap: the caller hears only the assistant's own short goodbye. */
export const capInstruction = (transfer: boolean): string =>
  "A limit set for this call has been reached. In one or two short sentences, tell the caller that you have to " +
  (transfer ? "pass the call to a colleague now" : "end the call now") +
  ", then say goodbye. Do not call any tool.";

/** Where a capped call is referred: `capTransferTo` on the PBX host; null when it has none or no host. */
export function capTarget(a: AssistantRow, pbxHost: string | null): string | null {
  if (a.capAction !== "transfer" || !a.capTransferTo) return null;
  return referTarget("route_to_extension", { extensionId: a.capTransferTo }, pbxHost);
}

/** One call's caps: checked when its usage grows and by its time-cap timer; acts once. */
export class CallCaps {
  private reachedWhy: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly call: CappedCall,
    private readonly deps: CapDeps,
    private readonly timers: TimerTrack,
    /** The running cost (USD) of the assistant's other calls in progress. */
    private readonly othersRunning: () => number,
    private readonly note: (text: string) => void,
  ) {}

  /** Why the call reached a cap (its end reason is "cap-reached"); null while it has not. */
  get reached(): string | null {
    return this.reachedWhy;
  }

  /** Starts the time cap when it comes before the longest call the console follows (that timer stays). */
  start(maxCallMs: number, price: ModelPrice | null): void {
    const a = this.call.assistant;
    const seconds = a.callSecondsCap;
    if (seconds !== null && seconds > 0 && seconds * 1000 < maxCallMs)
      this.timer = this.timers.set(() => {
        this.timer = null;
        this.reach(`the time cap of ${seconds} s`);
      }, seconds * 1000);
    if (!price && (a.callCostCapUsd !== null || a.dailySpendCapUsd !== null))
      this.note(`no price for model ${a.model} in the price table: the spend caps cannot be applied to this call`);
  }

  stop(): void {
    this.timers.clear(this.timer);
    this.timer = null;
  }

  /** The call's running cost changed: a cost or daily cap reached ends the call. */
  checkCost(running: number | null): void {
    if (this.reachedWhy !== null || running === null) return;
    const a = this.call.assistant;
    if (a.callCostCapUsd !== null && running >= a.callCostCapUsd) {
      this.reach(`the cost cap of ${usd(a.callCostCapUsd)} per call (${usd(running)} so far)`);
      return;
    }
    const cap = a.dailySpendCapUsd;
    if (cap === null) return;
    this.guarded(() => {
      const today = storedSpentToday(this.deps, a.id) + this.othersRunning() + running;
      if (today >= cap) this.reach(`the daily spend cap of ${usd(cap)} (${usd(today)} today)`);
    });
  }

  /** Runs from socket and timer callbacks: a failure (the database closing with the console) is noted, never thrown. */
  private guarded(work: () => void): void {
    try {
      work();
    } catch (err) {
      this.note(`the caps failed: ${(err as Error).message.slice(0, 200)}`);
    }
  }

  private reach(why: string): void {
    if (this.reachedWhy !== null) return;
    this.reachedWhy = why;
    this.guarded(() => this.endAtCap(why));
  }

  private endAtCap(why: string): void {
    this.stop();
    const a = this.call.assistant;
    const host = sipSettings(this.deps.db, this.deps.config).effective.host.trim() || null;
    const target = capTarget(a, host);
    if (a.capAction === "transfer" && !target)
      this.note(
        `cap: no SIP URI for ${a.capTransferTo ?? "the transfer target"} (is the public SIP host set?): hanging up instead`,
      );
    this.note(
      `cap reached: ${why}; ${target ? `transferring to ${a.capTransferTo}` : "ending the call"} after a goodbye`,
    );
    this.call.endPolitely(capInstruction(target !== null), async () => {
      if (!target) return this.call.hangup("cap reached");
      const work = this.call.refer(target, a.capTransferTo ?? target);
      this.call.track(work.then(() => {}));
      const answer = await work;
      if (!answer.ok) await this.call.hangup("cap reached; the transfer failed");
    });
  }
}

/**
 * At the webhook: the assistant about to take a call is over its daily spend cap (stored costs today plus its
 * calls in progress); null when it is not (or has no cap).
 */
export function overDailyCap(
  deps: Pick<Deps, "db" | "now">,
  a: AssistantRow,
  liveRunning: number,
): { spent: number; cap: number } | null {
  if (a.dailySpendCapUsd === null) return null;
  const spent = storedSpentToday(deps, a.id) + liveRunning;
  return spent >= a.dailySpendCapUsd ? { spent, cap: a.dailySpendCapUsd } : null;
}

/** The detail a call refused at the daily cap is logged with. */
export const overCapText = (a: AssistantRow, o: { spent: number; cap: number }) =>
  `assistant '${a.name}' (#${a.id}) is over its daily spend cap (${usd(o.spent)} of ${usd(o.cap)} today)`;
