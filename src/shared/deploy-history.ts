/**
 * The deploy history and its roll back (docs/decisions/0026): every deployment and roll
 * back, newest first, with the snapshot the deployment took of every PBX row it was about to touch.
 */
import { z } from "zod";
import { limitParam } from "./fields";
import type { JobKind, JobState, JobTarget } from "./jobs";
import { lazySchema } from "./lazy-schema";

export type { RollbackSummary } from "./jobs";

export const DEPLOY_HISTORY_DEFAULT = 20;
export const DEPLOY_HISTORY_MAX = 100;

export const deployHistoryQuerySchema = lazySchema(() =>
  z.object({
    limit: limitParam(DEPLOY_HISTORY_MAX),
  }),
);
export type DeployHistoryQuery = z.output<typeof deployHistoryQuerySchema>;

/** The snapshot a deployment took before it wrote. */
export interface BackupView {
  id: number;
  /** ISO 8601. */
  createdAt: string;
  createdBy: string;
  /** The objects covered, one line each ("extension 1001", "trunk Carrier"). */
  objects: string[];
  /** How many PBX rows it holds (present before the deployment). */
  rows: number;
  /** Whether Asterisk's database (AstDB) of its extensions was backed up too (false: Asterisk did not answer). */
  astdb: boolean;
  restoredAt: string | null;
  restoredBy: string | null;
  /** Roll back is possible now (not restored, its job ended, no newer deployment of the same objects). */
  restorable: boolean;
  /** Why it cannot be rolled back, when it cannot. */
  blockedBy: string | null;
}

/** One run in the deploy history: a deployment (with its backup, when it took one) or a roll back. */
export interface DeployHistoryEntry {
  jobId: number;
  kind: Extract<JobKind, "deploy" | "rollback">;
  title: string;
  target: JobTarget;
  startedBy: string;
  startedAt: string;
  finishedAt: string | null;
  state: JobState;
  succeeded: number;
  failed: number;
  total: number | null;
  error: string | null;
  /** A deployment's backup (null: none was taken, e.g. through the FreePBX API, or it failed before). */
  backup: BackupView | null;
  /** A roll back: the backup it restored. */
  rollbackOf: number | null;
}
