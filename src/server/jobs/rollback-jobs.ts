/**
 * Rolling a deployment back as a job (docs/decisions/0026): the route answers 202 `{ jobId }` after the
 * checks that need no PBX (the backup exists, can be rolled back, SSH is configured); the restore runs in
 * the runner, one job at a time with deployments and imports.
 */
import type { RollbackSummary } from "../../shared/deploy-history";
import type { JobStarted, JobTarget } from "../../shared/jobs";
import { checkRollback, type RollbackDeps, rollbackBackup } from "../pbx/backups/rollback";
import { type JobOwner, type JobRunner, jobAuditAction } from "./runner";

/** A roll back's overall deadline (one transaction, AstDB and a reload: like a deployment). */
export const ROLLBACK_JOB_DEADLINE_MS = 10 * 60_000;

export const rollbackDetail = (s: RollbackSummary) => {
  const reload = s.reload ? (s.reload.ok ? "reloaded" : "reload failed") : "not reloaded";
  return `backup ${s.backupId}: ${s.restored} restored, ${s.failed} failed, ${reload}`;
};

/** Starts restoring a backup; 404/409/400 at once (see `checkRollback`), 409 while another job runs. */
export function startRollbackJob(deps: RollbackDeps, jobs: JobRunner, owner: JobOwner, backupId: number): JobStarted {
  const backup = checkRollback(deps, backupId);
  const target = backup.target as JobTarget;
  const jobId = jobs.start<RollbackSummary>(owner, {
    kind: "rollback",
    target,
    deadlineMs: ROLLBACK_JOB_DEADLINE_MS,
    auditAction: jobAuditAction("rollback", target),
    run: (progress) => rollbackBackup(deps, backupId, owner.username, progress),
    outcome: (s) => ({ ok: s.failed === 0 && (s.reload === null || s.reload.ok), detail: rollbackDetail(s) }),
  });
  return { jobId };
}
