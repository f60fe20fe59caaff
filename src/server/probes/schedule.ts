/**
 * When test calls run (ADR 0068): each enabled one every `intervalMinutes` after its last run (its newest
 * result, so a restart does not run them all again at once), and on demand ("Run now"). Two runs of the same
 * test call never overlap: Run now while one is in progress answers with that run's result. Scheduled runs
 * start at least `staggerMs` apart and at most `maxConcurrent` at a time, so a console with many test calls does
 * not ring the PBX all at once. Stopping the console aborts the runs in progress (each hangs up its call) and
 * records nothing for them: a restart is not a failed test call.
 */

import type { TestCallResult } from "../../shared/test-calls";
import type { Deps } from "../core/deps";
import { NotFound, Unavailable } from "../core/errors";
import type { LiveMonitor } from "../live/monitor";
import type { ProbeAmi } from "./endpoint";
import { type ProbeOutcome, placeTestCall } from "./run";
import { enabledTestCalls, findTestCall, lastRunTimes, publishTestCalls, recordTestCallResult } from "./test-calls";

type TestCallRow = ReturnType<typeof findTestCall>;
type ScheduleDeps = Pick<Deps, "db" | "events" | "now">;

/** Places one test call and measures it (the real one: `placeTestCall` over the live monitor's connection). */
export type ProbeRunner = (call: TestCallRow, signal: AbortSignal) => Promise<ProbeOutcome>;

export interface ScheduleTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface TestCallSchedulerOptions {
  runner?: ProbeRunner;
  /** How often due test calls are looked for. Default 15,000. */
  tickMs?: number;
  /** The least time between two scheduled runs' starts. Default 10,000. */
  staggerMs?: number;
  /** Scheduled runs in progress at once. Default 2. */
  maxConcurrent?: number;
  timers?: ScheduleTimers;
}

const realTimers: ScheduleTimers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    (t as { unref?: () => void }).unref?.();
    return t;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The manager connection the probe uses: the live monitor's (ADR 0027: the console has one). */
export function liveProbeAmi(live: Pick<LiveMonitor, "managerAction" | "managerList" | "onManagerEvent">): ProbeAmi {
  return {
    action: (name, fields) => live.managerAction(name, fields),
    list: (name, fields) => live.managerList(name, fields),
    onEvent: (listener) => live.onManagerEvent(listener),
  };
}

/** A runner that failed outside `placeTestCall` (which never throws) still leaves a result. */
const crashed = (err: unknown): ProbeOutcome => ({
  ok: false,
  answered: false,
  answerMs: null,
  durationMs: 0,
  rxPackets: null,
  txPackets: null,
  lossPercent: null,
  jitterMs: null,
  error: `The test call could not run: ${err instanceof Error ? err.message : String(err)}`,
});

export class TestCallScheduler {
  private readonly runner: ProbeRunner;
  private readonly tickMs: number;
  private readonly staggerMs: number;
  private readonly maxConcurrent: number;
  private readonly timers: ScheduleTimers;
  private readonly inflight = new Map<number, Promise<TestCallResult | null>>();
  private readonly queue: number[] = [];
  private lastStart = Number.NEGATIVE_INFINITY;
  private tickTimer: unknown = null;
  private pumpTimer: unknown = null;
  private readonly abort = new AbortController();
  private started = false;
  private stopped = false;

  constructor(
    private readonly deps: ScheduleDeps,
    live: () => Pick<LiveMonitor, "managerAction" | "managerList" | "onManagerEvent">,
    opts: TestCallSchedulerOptions = {},
  ) {
    this.runner =
      opts.runner ??
      ((call, signal) =>
        placeTestCall(liveProbeAmi(live()), call, {
          clock: { now: deps.now, sleep: (ms) => Bun.sleep(ms) },
          signal,
        }));
    this.tickMs = opts.tickMs ?? 15_000;
    this.staggerMs = opts.staggerMs ?? 10_000;
    this.maxConcurrent = opts.maxConcurrent ?? 2;
    this.timers = opts.timers ?? realTimers;
  }

  isRunning(id: number): boolean {
    return this.inflight.has(id);
  }

  /** Looks for due test calls every `tickMs` from now on. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    const loop = () => {
      this.tickTimer = null;
      if (this.stopped) return;
      this.tick();
      this.tickTimer = this.timers.set(loop, this.tickMs);
    };
    this.tickTimer = this.timers.set(loop, this.tickMs);
  }

  /** Cancels the timers and aborts the runs in progress (each hangs up its call); waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.tickTimer !== null) this.timers.clear(this.tickTimer);
    if (this.pumpTimer !== null) this.timers.clear(this.pumpTimer);
    this.tickTimer = this.pumpTimer = null;
    this.queue.length = 0;
    this.abort.abort();
    await Promise.allSettled([...this.inflight.values()]);
  }

  /** Queues the enabled test calls whose interval has passed since their last run, then starts what may start. */
  tick(): void {
    if (this.stopped) return;
    let calls: TestCallRow[];
    let last: Map<number, number>;
    try {
      calls = enabledTestCalls(this.deps);
      last = lastRunTimes(this.deps);
    } catch (err) {
      console.error(`Test calls: the schedule could not be read: ${(err as Error).message}`);
      return;
    }
    const now = this.deps.now();
    for (const call of calls.sort((a, b) => a.id - b.id)) {
      if (this.inflight.has(call.id) || this.queue.includes(call.id)) continue;
      const ranAt = last.get(call.id);
      if (ranAt === undefined || now - ranAt >= call.intervalMinutes * 60_000) this.queue.push(call.id);
    }
    this.pump();
  }

  /**
   * Runs a test call now (enabled or not) and answers its result; when a run of it is in progress, that run's.
   * `NotFound` when there is no such test call (or it was deleted while it ran).
   */
  async runNow(id: number): Promise<TestCallResult> {
    findTestCall(this.deps, id);
    if (this.stopped) throw new Unavailable("The console is stopping: test calls do not run now");
    const index = this.queue.indexOf(id);
    if (index !== -1) this.queue.splice(index, 1);
    const result = await (this.inflight.get(id) ?? this.launch(id));
    if (!result) throw new NotFound("Test call", "The test call was deleted while it ran");
    return result;
  }

  /** Starts queued runs while fewer than `maxConcurrent` run, `staggerMs` apart. */
  private pump(): void {
    if (this.stopped || this.pumpTimer !== null) return;
    while (this.queue.length > 0 && this.inflight.size < this.maxConcurrent) {
      const wait = this.lastStart + this.staggerMs - this.deps.now();
      if (wait > 0) {
        this.pumpTimer = this.timers.set(() => {
          this.pumpTimer = null;
          this.pump();
        }, wait);
        return;
      }
      const id = this.queue.shift() as number;
      if (this.inflight.has(id)) continue;
      this.lastStart = this.deps.now();
      void this.launch(id);
    }
  }

  private launch(id: number): Promise<TestCallResult | null> {
    const run = (async (): Promise<TestCallResult | null> => {
      let call: TestCallRow;
      try {
        call = findTestCall(this.deps, id);
      } catch {
        return null;
      }
      const at = this.deps.now();
      publishTestCalls(this.deps, id, "running");
      let outcome: ProbeOutcome;
      try {
        outcome = await this.runner(call, this.abort.signal);
      } catch (err) {
        outcome = crashed(err);
      }
      if (this.abort.signal.aborted) return null;
      return recordTestCallResult(this.deps, id, at, outcome);
    })().finally(() => {
      this.inflight.delete(id);
      this.pump();
    });
    this.inflight.set(id, run);
    return run;
  }
}
