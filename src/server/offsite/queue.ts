/**
 * The off-site work queue (ADR 0064): uploads and restore drills run here one at a time, in the order asked,
 * outside the job runner, so an upload of an hour never holds the one job slot a deployment needs. Each task has
 * its own deadline; stopping the console aborts the running one and drops the rest. One queue per database.
 */
import type { Db } from "../../db/client";

export type TaskKind = "upload" | "drill";

export interface OffsiteTask {
  /** The target it works on. */
  targetId: number;
  kind: TaskKind;
  /** Runs the task; `signal` aborts when the console stops. Errors are the task's own to record. */
  run(signal: AbortSignal): Promise<void>;
}

export class OffsiteQueue {
  private readonly tasks: OffsiteTask[] = [];
  private running: OffsiteTask | null = null;
  private readonly stop = new AbortController();
  private idleWaiters: (() => void)[] = [];
  private pumping: Promise<void> | null = null;

  enqueue(task: OffsiteTask): void {
    if (this.stop.signal.aborted) return;
    this.tasks.push(task);
    this.pumping ??= this.pump();
  }

  private async pump(): Promise<void> {
    for (let task = this.tasks.shift(); task; task = this.tasks.shift()) {
      this.running = task;
      try {
        await task.run(this.stop.signal);
      } catch (err) {
        console.error(`off-site ${task.kind} of target ${task.targetId} failed: ${(err as Error).message}`);
      }
      this.running = null;
      if (this.stop.signal.aborted) break;
    }
    this.pumping = null;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** What is queued or running for a target (the running task first). */
  busy(targetId: number): TaskKind | null {
    if (this.running?.targetId === targetId) return this.running.kind;
    return this.tasks.find((t) => t.targetId === targetId)?.kind ?? null;
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    if (!this.pumping) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Aborts the running task, drops the queued ones and waits for the running one to end. */
  async close(): Promise<void> {
    this.tasks.length = 0;
    this.stop.abort(new Error("The console is stopping"));
    await this.pumping;
  }
}

const queues = new WeakMap<Db, OffsiteQueue>();

/** The queue of this database's console. */
export function offsiteQueue(db: Db): OffsiteQueue {
  let q = queues.get(db);
  if (!q) {
    q = new OffsiteQueue();
    queues.set(db, q);
  }
  return q;
}

/** Closes the queue (the console stops); the next use makes a new one. */
export async function closeOffsiteQueue(db: Db): Promise<void> {
  const q = queues.get(db);
  queues.delete(db);
  await q?.close();
}
