/**
 * Jobs: long work (a deployment, a sync import) runs outside the request that started it
 * (docs/decisions/0024). The request answers 202 `{ jobId }`; progress comes as "job-updated" events
 * and from GET /api/jobs.
 */
import { z } from "zod";
import { limitParam } from "./fields";
import { lazySchema } from "./lazy-schema";
import { JOBS_LIST_MAX } from "./limits";
import type { DeployAllResponse, DeployResponse, ImportResult, ReloadResult } from "./pbx";

/** `rollback`: restoring a deployment's backup (docs/decisions/0026); `retention`: deleting old call recordings. */
export const JOB_KINDS = ["deploy", "import", "rollback", "retention"] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** `running` until it ends; `interrupted` when the console stopped while it ran (marked at the next start). */
export const JOB_STATES = ["running", "succeeded", "failed", "cancelled", "interrupted"] as const;
export type JobState = (typeof JOB_STATES)[number];

/** Deploy targets (`/api/deploy/<target>`) and import targets (`/api/sync/<target>/import`). */
export const DEPLOY_JOB_TARGETS = [
  "trunks",
  "extensions",
  "ptt-groups",
  "ring-groups",
  "queues",
  "ivrs",
  "announcements",
  "time-groups",
  "time-conditions",
  "all",
] as const;
export type DeployJobTarget = (typeof DEPLOY_JOB_TARGETS)[number];

/** What a job works on: a deploy or import target, or `recordings` (a retention job). */
export const JOB_TARGETS = [...DEPLOY_JOB_TARGETS, "recordings"] as const;
export type JobTarget = (typeof JOB_TARGETS)[number];

/** One item's result, as it finished. */
export const jobItemResultSchema = lazySchema(() =>
  z.object({
    label: z.string(),
    status: z.enum(["success", "failed"]),
    message: z.string(),
  }),
);
export type JobItemResult = z.infer<typeof jobItemResultSchema>;

/** The summary of a roll back job. */
export interface RollbackSummary {
  backupId: number;
  restored: number;
  failed: number;
  results: JobItemResult[];
  reload: ReloadResult | null;
}

/** The summary of a recordings retention job. */
export interface RetentionSummary {
  /** Recordings older than this many days were deleted. */
  days: number;
  /** Files found older than that, deleted, and not deleted. */
  found: number;
  removed: number;
  failed: number;
  /** Bytes freed. */
  bytes: number;
  results: JobItemResult[];
}

/** The final answer: the shape the deploy and import routes returned before they were jobs. */
export type JobSummary = DeployResponse | DeployAllResponse | ImportResult | RollbackSummary | RetentionSummary;

/** GET /api/jobs and GET /api/jobs/:id. */
export interface Job {
  id: number;
  kind: JobKind;
  target: JobTarget;
  /** "Deploy all", "Import extensions"… */
  title: string;
  /** The username of whoever started it. */
  startedBy: string;
  /** ISO 8601 times. */
  startedAt: string;
  deadlineAt: string;
  finishedAt: string | null;
  state: JobState;
  /** Items in the job; null until known (e.g. while the PBX is read). */
  total: number | null;
  /** Items finished (= results.length). */
  done: number;
  succeeded: number;
  failed: number;
  /** The step or object being worked on now (null once finished). */
  current: string | null;
  results: JobItemResult[];
  /** The final answer once it finished (null while running, and when it failed before having one). */
  summary: JobSummary | null;
  /** Why it failed or stopped early ("deadline exceeded", "cancelled by admin", the error), else null. */
  error: string | null;
  cancelledBy: string | null;
}

/** The payload of a "job-updated" event: the job's progress, and the one result that just finished. */
export const jobEventSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    kind: z.enum(JOB_KINDS),
    target: z.enum(JOB_TARGETS),
    state: z.enum(JOB_STATES),
    total: z.number().int().nullable(),
    done: z.number().int(),
    current: z.string().nullable(),
    result: jobItemResultSchema.optional(),
    error: z.string().nullable(),
    cancelledBy: z.string().nullable(),
  }),
);
export type JobEvent = z.infer<typeof jobEventSchema>;

/** POST /api/deploy/* and POST /api/sync/*\/import: 202. */
export interface JobStarted {
  jobId: number;
}

export { JOBS_LIST_DEFAULT, JOBS_LIST_MAX } from "./limits";

export const jobsQuerySchema = lazySchema(() =>
  z.object({
    limit: limitParam(JOBS_LIST_MAX),
  }),
);
export type JobsQuery = z.output<typeof jobsQuerySchema>;

export const jobTitle = (kind: JobKind, target: JobTarget): string => {
  const what =
    target === "ptt-groups"
      ? "PTT groups"
      : target === "ring-groups"
        ? "ring groups"
        : target === "ivrs"
          ? "IVRs"
          : target;
  if (kind === "rollback") return `Roll back: Deploy ${what}`;
  if (kind === "retention") return "Delete old call recordings";
  return kind === "deploy" ? `Deploy ${what}` : `Import ${what}`;
};
