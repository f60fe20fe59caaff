/**
 * The deploy history (ADR 0026): deployments and roll backs, newest first, each deployment with its backup,
 * and why a backup cannot be rolled back now: once restored, while its deployment runs, and while a newer,
 * not rolled back deployment touched the same objects (the history is unwound newest first).
 */
import { and, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import { configBackups, jobs } from "../../../db/schema";
import type { BackupView, DeployHistoryEntry, RollbackSummary } from "../../../shared/deploy-history";
import type { JobTarget } from "../../../shared/jobs";
import type { Deps } from "../../core/deps";
import { NotFound } from "../../core/errors";
import type { StoredAstdb, StoredRows } from "./format";

export type BackupRow = typeof configBackups.$inferSelect;
type JobRow = typeof jobs.$inferSelect;

const hhmm = (d: Date) => d.toISOString().replace("T", " ").slice(0, 16);
const overlaps = (a: BackupRow, b: BackupRow) => {
  const mine = new Set(a.objects);
  const routes = (x: BackupRow) => x.objects.some((o) => o.startsWith("outbound route "));
  // Routes share the route order (backed up as a whole): any two backups with routes overlap.
  return b.objects.some((o) => mine.has(o)) || (routes(a) && routes(b));
};

/** Why a backup cannot be rolled back now, or null. */
export function blocker(db: Deps["db"], b: BackupRow, job: JobRow | undefined): string | null {
  if (b.restoredAt) return `Already rolled back by ${b.restoredBy ?? "?"} at ${hhmm(b.restoredAt)} UTC`;
  if (job?.state === "running") return "Its deployment is still running";
  const newer = db
    .select()
    .from(configBackups)
    .where(and(gt(configBackups.id, b.id), isNull(configBackups.restoredAt)))
    .orderBy(desc(configBackups.id))
    .all()
    .find((n) => overlaps(b, n));
  if (!newer) return null;
  const what = newer.jobId === null ? `deployment at ${hhmm(newer.createdAt)} UTC` : `deployment job ${newer.jobId}`;
  return `A newer ${what} by ${newer.createdBy} changed the same objects: roll that back first`;
}

function rowCount(b: BackupRow): number {
  const rows = b.rows as StoredRows;
  return rows.tables?.reduce((n, t) => n + t.rows.length, 0) ?? 0;
}

function view(db: Deps["db"], b: BackupRow, job: JobRow | undefined): BackupView {
  const why = blocker(db, b, job);
  const astdb = b.astdb as StoredAstdb | null;
  return {
    id: b.id,
    createdAt: b.createdAt.toISOString(),
    createdBy: b.createdBy,
    objects: b.objects,
    rows: rowCount(b),
    astdb: astdb === null || astdb.entries !== null,
    restoredAt: b.restoredAt?.toISOString() ?? null,
    restoredBy: b.restoredBy,
    restorable: why === null,
    blockedBy: why,
  };
}

export function loadBackup(db: Deps["db"], id: number): BackupRow {
  const b = db.select().from(configBackups).where(eq(configBackups.id, id)).get();
  if (!b) throw new NotFound("Backup");
  return b;
}

/** One backup's view (the audit's before/after of a roll back). */
export function backupView(deps: Pick<Deps, "db">, id: number): BackupView | null {
  const b = deps.db.select().from(configBackups).where(eq(configBackups.id, id)).get();
  if (!b) return null;
  const job = b.jobId === null ? undefined : deps.db.select().from(jobs).where(eq(jobs.id, b.jobId)).get();
  return view(deps.db, b, job);
}

/** The jobs' view the runner gives (counts from their results). */
interface JobViews {
  get(id: number): {
    id: number;
    kind: string;
    title: string;
    target: JobTarget;
    startedBy: string;
    startedAt: string;
    finishedAt: string | null;
    state: DeployHistoryEntry["state"];
    succeeded: number;
    failed: number;
    total: number | null;
    error: string | null;
    summary: unknown;
  };
}

/** Deployments and roll backs, newest first, each deployment with its backup. */
export function deployHistory(deps: Pick<Deps, "db">, runner: JobViews, limit: number): DeployHistoryEntry[] {
  const rows = deps.db
    .select()
    .from(jobs)
    .where(inArray(jobs.kind, ["deploy", "rollback"]))
    .orderBy(desc(jobs.id))
    .limit(limit)
    .all();
  const backups = rows.length
    ? deps.db
        .select()
        .from(configBackups)
        .where(
          inArray(
            configBackups.jobId,
            rows.map((r) => r.id),
          ),
        )
        .all()
    : [];
  return rows.map((row) => {
    const j = runner.get(row.id);
    const b = backups.filter((x) => x.jobId === row.id).at(-1);
    const summary = j.summary as Partial<RollbackSummary> | null;
    return {
      jobId: j.id,
      kind: row.kind as DeployHistoryEntry["kind"],
      title: j.title,
      target: j.target,
      startedBy: j.startedBy,
      startedAt: j.startedAt,
      finishedAt: j.finishedAt,
      state: j.state,
      succeeded: j.succeeded,
      failed: j.failed,
      total: j.total,
      error:
        j.error ??
        (row.kind === "rollback" ? (summary?.results?.find((r) => r.status === "failed")?.message ?? null) : null),
      backup: b ? view(deps.db, b, row) : null,
      rollbackOf: row.kind === "rollback" && typeof summary?.backupId === "number" ? summary.backupId : null,
    };
  });
}
