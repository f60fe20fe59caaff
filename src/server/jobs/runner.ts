/**
 * The job runner (docs/decisions/0024): long work runs outside the request that started it, one job at
 * a time, with an overall deadline and a cancel that both take effect between items. Every step is
 * written to the `jobs` / `job_results` tables as it happens and published as a "job-updated" event;
 * a row still `running` when the console starts is marked `interrupted`.
 */
import { desc, eq, inArray } from "drizzle-orm";
import { jobResults, jobs } from "../../db/schema";
import {
  JOBS_LIST_DEFAULT,
  type Job,
  type JobEvent,
  type JobItemResult,
  type JobKind,
  type JobState,
  type JobSummary,
  type JobTarget,
  jobTitle,
} from "../../shared/jobs";
import { recordAudit } from "../accounts/audit";
import { ServiceError } from "../clients/http";
import type { Deps } from "../core/deps";
import { Conflict, DomainError, NotFound } from "../core/errors";
import type { JobProgress } from "./progress";

export type { JobProgress } from "./progress";

/** Who started (or cancels) a job: the signed-in user. */
export interface JobOwner {
  username: string;
  id: string | null;
}

export interface JobSpec<S extends JobSummary> {
  kind: JobKind;
  target: JobTarget;
  /** After this long the job stops after its current item and is failed with "deadline exceeded". */
  deadlineMs: number;
  /** The audit action of the route that started it; the end is recorded as `<action>.finished`. */
  auditAction: string;
  run: (progress: JobProgress) => Promise<S>;
  /** The summary's counts in one line, and whether every item succeeded. */
  outcome: (summary: S) => { ok: boolean; detail: string };
}

type Row = typeof jobs.$inferSelect;

export const DEADLINE_EXCEEDED = "deadline exceeded";
export const INTERRUPTED =
  "interrupted: the console stopped while this job ran; the PBX is as it was before or after each item listed";
const CONSOLE_STOPPING = "the console is stopping";

/** "deploy.extensions" for a deployment, "sync.trunks.import" for an import: the starting route's action. */
export const jobAuditAction = (kind: JobKind, target: JobTarget) =>
  kind === "rollback"
    ? "deploy.rollback"
    : kind === "retention"
      ? `${target}.retention`
      : kind === "deploy"
        ? `deploy.${target}`
        : `sync.${target}.import`;

const hhmm = (ms: number) => new Date(ms).toTimeString().slice(0, 5);
const noun = (kind: JobKind) =>
  kind === "deploy"
    ? "A deployment"
    : kind === "rollback"
      ? "A roll back"
      : kind === "retention"
        ? "A recordings clean-up"
        : "An import";

interface Active {
  id: number;
  row: Row;
  cancelledBy: string | null;
  /** The reason the work was told to stop (it asked `stopped()` and got one). */
  stopSeen: string | null;
  /** Results so far. */
  done: number;
  finished: Promise<void>;
}

export class JobRunner {
  private active: Active | null = null;
  private closed = false;

  constructor(private readonly deps: Pick<Deps, "db" | "events" | "now">) {
    this.markInterrupted();
  }

  /** Starts a job; 409 (`Conflict`) naming the running one when there is one. Returns the job's id. */
  start<S extends JobSummary>(owner: JobOwner, spec: JobSpec<S>): number {
    const running = this.active;
    if (running) {
      const r = running.row;
      throw new Conflict(
        `${noun(r.kind)} (started by ${r.startedBy} at ${hhmm(r.startedAt.getTime())}) is running: wait for it or cancel it`,
      );
    }
    const now = this.deps.now();
    const row = this.deps.db
      .insert(jobs)
      .values({
        kind: spec.kind,
        target: spec.target,
        startedBy: owner.username,
        startedByUserId: owner.id,
        startedAt: new Date(now),
        deadlineAt: new Date(now + spec.deadlineMs),
        state: "running",
      })
      .returning()
      .get();
    const active: Active = { id: row.id, row, cancelledBy: null, stopSeen: null, done: 0, finished: Promise.resolve() };
    this.active = active;
    this.publish(row, 0);
    active.finished = this.execute(active, owner, spec);
    return row.id;
  }

  /** Asks the running job to stop after its current item. */
  cancel(id: number, by: JobOwner): Job {
    const active = this.active;
    if (!active || active.id !== id) {
      const job = this.get(id);
      throw new Conflict(`Job ${id} is not running (${job.state})`);
    }
    if (!active.cancelledBy) {
      active.cancelledBy = by.username;
      this.write(active, { cancelledBy: by.username });
      this.publish(active.row, active.done);
    }
    return this.get(id);
  }

  get(id: number): Job {
    const row = this.deps.db.select().from(jobs).where(eq(jobs.id, id)).get();
    if (!row) throw new NotFound("Job");
    return this.views([row])[0] as Job;
  }

  /** The most recent jobs, newest first. */
  list(limit = JOBS_LIST_DEFAULT): Job[] {
    return this.views(this.deps.db.select().from(jobs).orderBy(desc(jobs.id)).limit(limit).all());
  }

  /** The running job's id, if any. */
  get runningId(): number | null {
    return this.active?.id ?? null;
  }

  /** Resolves when the running job (if any) has ended. */
  async idle(): Promise<void> {
    await this.active?.finished;
  }

  /**
   * The console is stopping: the running job is marked interrupted now (with what it has done) and its
   * work stops at its next item boundary; nothing more is written.
   */
  close(): void {
    const active = this.active;
    if (active && !this.closed) this.interrupt(active.id);
    this.closed = true;
  }

  private markInterrupted(): void {
    const rows = this.deps.db.select().from(jobs).where(eq(jobs.state, "running")).all();
    for (const row of rows) this.interrupt(row.id);
  }

  /** Marks a job interrupted and records its end in the audit trail as its starter. */
  private interrupt(id: number): void {
    const row = this.deps.db
      .update(jobs)
      .set({ state: "interrupted", finishedAt: new Date(this.deps.now()), current: null, error: INTERRUPTED })
      .where(eq(jobs.id, id))
      .returning()
      .get();
    if (!row) return;
    const results = this.resultsOf([id]).get(id) ?? [];
    const ok = results.filter((r) => r.status === "success").length;
    recordAudit(this.deps, {
      actor: row.startedBy,
      actorUserId: row.startedByUserId,
      action: `${jobAuditAction(row.kind, row.target as JobTarget)}.finished`,
      outcome: "failed",
      objectType: "job",
      objectId: String(id),
      objectLabel: jobTitle(row.kind, row.target as JobTarget),
      detail: `${INTERRUPTED} (${ok} succeeded, ${results.length - ok} failed, of ${row.total ?? "?"} items)`,
    });
  }

  private async execute<S extends JobSummary>(active: Active, owner: JobOwner, spec: JobSpec<S>): Promise<void> {
    const progress: JobProgress = {
      job: { id: active.id, startedBy: owner.username, target: spec.target },
      total: (n) => {
        this.write(active, { total: n });
        this.publish(active.row, active.done);
      },
      item: (label) => {
        this.write(active, { current: label });
        this.publish(active.row, active.done);
      },
      result: (r) => {
        const result: JobItemResult = { label: r.label, status: r.status, message: r.message };
        if (!this.closed)
          this.deps.db
            .insert(jobResults)
            .values({ jobId: active.id, ...result })
            .run();
        active.done++;
        this.publish(active.row, active.done, result);
      },
      stopped: () => {
        const why = this.closed
          ? CONSOLE_STOPPING
          : active.cancelledBy
            ? `cancelled by ${active.cancelledBy}`
            : this.deps.now() >= active.row.deadlineAt.getTime()
              ? DEADLINE_EXCEEDED
              : null;
        if (why && !active.stopSeen) active.stopSeen = why;
        return why;
      },
    };
    let state: JobState;
    let summary: S | null = null;
    let error: string | null = null;
    let detail: string;
    try {
      // Not in the request's turn: the 202 goes out first.
      await Promise.resolve();
      summary = await spec.run(progress);
      const outcome = spec.outcome(summary);
      const stop = active.stopSeen;
      state =
        stop === null ? (outcome.ok ? "succeeded" : "failed") : stop === DEADLINE_EXCEEDED ? "failed" : "cancelled";
      error = stop;
      detail = stop ? `${stop}: ${outcome.detail}` : outcome.detail;
    } catch (err) {
      state = "failed";
      error = errorText(err);
      detail = error;
    }
    if (this.closed) return;
    try {
      this.write(active, {
        state,
        finishedAt: new Date(this.deps.now()),
        current: null,
        summary: summary as unknown,
        error,
      });
      this.publish(active.row, active.done);
      recordAudit(this.deps, {
        actor: owner.username,
        actorUserId: owner.id,
        action: `${spec.auditAction}.finished`,
        outcome: state === "succeeded" ? "ok" : "failed",
        objectType: "job",
        objectId: String(active.id),
        objectLabel: jobTitle(spec.kind, spec.target),
        detail,
      });
    } catch (err) {
      console.error(`job ${active.id}: could not record its end: ${errorText(err)}`);
    } finally {
      if (this.active === active) this.active = null;
    }
  }

  private write(active: Active, values: Partial<typeof jobs.$inferInsert>): void {
    if (this.closed) return;
    active.row = this.deps.db.update(jobs).set(values).where(eq(jobs.id, active.id)).returning().get() ?? active.row;
  }

  private publish(row: Row, done: number, result?: JobItemResult): void {
    if (this.closed) return;
    const data: JobEvent = {
      id: row.id,
      kind: row.kind,
      target: row.target as JobTarget,
      state: row.state,
      total: row.total,
      done,
      current: row.current,
      ...(result ? { result } : {}),
      error: row.error,
      cancelledBy: row.cancelledBy,
    };
    this.deps.events.publish({ type: "job-updated", data });
  }

  private resultsOf(ids: number[]): Map<number, JobItemResult[]> {
    const out = new Map<number, JobItemResult[]>();
    if (!ids.length) return out;
    const rows = this.deps.db
      .select()
      .from(jobResults)
      .where(inArray(jobResults.jobId, ids))
      .orderBy(jobResults.id)
      .all();
    for (const r of rows) {
      const list = out.get(r.jobId) ?? [];
      list.push({ label: r.label, status: r.status, message: r.message });
      out.set(r.jobId, list);
    }
    return out;
  }

  private views(rows: Row[]): Job[] {
    const results = this.resultsOf(rows.map((r) => r.id));
    return rows.map((row) => {
      const list = results.get(row.id) ?? [];
      const succeeded = list.filter((r) => r.status === "success").length;
      return {
        id: row.id,
        kind: row.kind,
        target: row.target as JobTarget,
        title: jobTitle(row.kind, row.target as JobTarget),
        startedBy: row.startedBy,
        startedAt: row.startedAt.toISOString(),
        deadlineAt: row.deadlineAt.toISOString(),
        finishedAt: row.finishedAt?.toISOString() ?? null,
        state: row.state,
        total: row.total,
        done: list.length,
        succeeded,
        failed: list.length - succeeded,
        current: row.current,
        results: list,
        summary: (row.summary as JobSummary | null) ?? null,
        error: row.error,
        cancelledBy: row.cancelledBy,
      };
    });
  }
}

/** A failure's text: a domain or outside-service message is safe to show; anything else is logged. */
function errorText(err: unknown): string {
  if (err instanceof DomainError || err instanceof ServiceError) return err.message;
  console.error(`job failed: ${err instanceof Error ? err.message : String(err)}`);
  return "The job failed with an internal error (see the console's log)";
}
