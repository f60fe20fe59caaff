/**
 * Deployments and sync imports as jobs (docs/decisions/0024): the route answers 202 `{ jobId }` at once,
 * after the checks that need no PBX (a way to the PBX is configured); the work runs in the runner.
 */

import type { JobStarted } from "../../shared/jobs";
import type { DeployAllResponse, DeployGroupResult, DeployResponse, ImportResult } from "../../shared/pbx";
import type {
  ApplyRequest,
  DeployPlan,
  ImportExtensionsRequest,
  ImportKind,
  ImportPlan,
  ImportQueuesRequest,
  ImportRequest,
  ImportRingGroupsRequest,
  ImportTrunksRequest,
} from "../../shared/plan";
import type { Deps } from "../core/deps";
import { deployTarget } from "../pbx/deploy/apply";
import { type DeployDeps, type DeployTarget, deployPaths } from "../pbx/deploy/deploy";
import { closeReviewed, planForApply } from "../pbx/plan/plan";
import type { CallFlowImportKind, ImportCallFlowRequest } from "../pbx/sync/call-flow";
import { importCallFlowKind, importExtensions, importQueues, importRingGroups, importTrunks } from "../pbx/sync/import";
import { pbxReadPath } from "../pbx/sync/read";
import { syncImportPlan } from "../pbx/sync/sync-plan";
import type { JobProgress } from "./progress";
import { type JobOwner, type JobRunner, jobAuditAction } from "./runner";

/** A deployment's overall deadline: after it, the job stops after its current item (failed, "deadline exceeded"). */
export const DEPLOY_JOB_DEADLINE_MS = 10 * 60_000;
/** A sync import's overall deadline (reading the PBX is most of it). */
export const IMPORT_JOB_DEADLINE_MS = 10 * 60_000;

/** A deployment's counts in one line: items written and failed, and the reload. */
/** Every group of a deploy's answer (one target's, or each kind's of "all"). */
const groupsOf = (a: DeployResponse | DeployAllResponse): DeployGroupResult[] =>
  "results" in a
    ? [a]
    : [
        a.trunks,
        a.extensions,
        a.ringGroups,
        a.queues,
        a.announcements,
        a.ivrs,
        a.outboundRoutes,
        a.inboundRoutes,
      ].filter((g): g is DeployGroupResult => g !== undefined);

export function deployDetail(a: DeployResponse | DeployAllResponse): string {
  const groups = groupsOf(a);
  const deployed = groups.reduce((n, g) => n + g.deployed, 0);
  const failed = groups.reduce((n, g) => n + g.failed, 0);
  const reload = a.reload ? (a.reload.ok ? "reloaded" : "reload failed") : "not reloaded";
  return `${deployed} deployed, ${failed} failed, ${reload}`;
}

const deployOk = (a: DeployResponse | DeployAllResponse) => {
  const groups = groupsOf(a);
  return groups.every((g) => g.failed === 0) && (a.reload === null || a.reload.ok);
};

export const importDetail = (a: ImportResult) =>
  `${a.created} created, ${a.updated} updated, ${a.failed} failed${a.unchanged ? `, ${a.unchanged} unchanged` : ""}`;

type JobDeps = DeployDeps & Pick<Deps, "now">;

/**
 * Starts applying the plan the user reviewed (ADR 0025): the plan is made again here; when its
 * fingerprint is not the reviewed one, no job starts and the new plan comes back (the route's 409).
 * The job writes exactly that plan, in the SSH session that read it (ADR 0053).
 */
export async function startApplyJob(
  deps: JobDeps,
  jobs: JobRunner,
  owner: JobOwner,
  input: ApplyRequest,
): Promise<JobStarted | { stale: DeployPlan }> {
  const reviewed = await planForApply(deps, input.target);
  if (reviewed.plan.wire.fingerprint !== input.fingerprint) {
    await closeReviewed(reviewed);
    return { stale: reviewed.plan.wire };
  }
  const { target, fingerprint, resolutions } = input;
  try {
    const jobId = jobs.start<DeployResponse | DeployAllResponse>(owner, {
      kind: "deploy",
      target,
      deadlineMs: DEPLOY_JOB_DEADLINE_MS,
      auditAction: jobAuditAction("deploy", target),
      run: (progress) => {
        const opts = { mode: "review" as const, fingerprint, resolutions, reviewed };
        return target === "all"
          ? deployTarget(deps, "all", progress, opts)
          : deployTarget(deps, target, progress, opts);
      },
      outcome: (summary) => ({ ok: deployOk(summary), detail: deployDetail(summary) }),
    });
    return { jobId };
  } catch (err) {
    // No job took the session (another job runs): it is closed here.
    await closeReviewed(reviewed);
    throw err;
  }
}

/** Starts deploying a target; `Invalid` at once when no way to the PBX is configured, 409 while a job runs. */
export function startDeployJob(deps: JobDeps, jobs: JobRunner, owner: JobOwner, target: DeployTarget): JobStarted {
  deployPaths(deps);
  const jobId = jobs.start<DeployResponse | DeployAllResponse>(owner, {
    kind: "deploy",
    target,
    deadlineMs: DEPLOY_JOB_DEADLINE_MS,
    auditAction: jobAuditAction("deploy", target),
    run: (progress) => (target === "all" ? deployTarget(deps, "all", progress) : deployTarget(deps, target, progress)),
    outcome: (summary) => ({ ok: deployOk(summary), detail: deployDetail(summary) }),
  });
  return { jobId };
}

/**
 * Checks a reviewed import plan before its job starts (ADR 0025 "Sync import"): the plan is made again;
 * when its fingerprint is not the reviewed one, no job starts and the new plan comes back (the route's
 * 409). Without a fingerprint (API clients) the import runs without a review.
 */
async function staleImportPlan(
  deps: JobDeps,
  kind: ImportKind,
  input: ImportRequest | ImportCallFlowRequest,
): Promise<ImportPlan | null> {
  if (input.fingerprint === undefined) return null;
  const plan = await syncImportPlan(deps, kind, input);
  return plan.wire.fingerprint === input.fingerprint ? null : plan.wire;
}

function startImportJob(
  jobs: JobRunner,
  owner: JobOwner,
  kind: ImportKind,
  run: (progress: JobProgress) => Promise<ImportResult>,
): JobStarted {
  const jobId = jobs.start(owner, {
    kind: "import",
    target: kind,
    deadlineMs: IMPORT_JOB_DEADLINE_MS,
    auditAction: jobAuditAction("import", kind),
    run,
    outcome: (summary) => ({ ok: summary.failed === 0, detail: importDetail(summary) }),
  });
  return { jobId };
}

/**
 * Starts importing the PBX's extensions; `Invalid` at once when the PBX cannot be read; the new plan
 * (`stale`) when a reviewed plan's fingerprint no longer matches.
 */
export async function startImportExtensionsJob(
  deps: JobDeps,
  jobs: JobRunner,
  owner: JobOwner,
  input: ImportExtensionsRequest,
): Promise<JobStarted | { stale: ImportPlan }> {
  pbxReadPath(deps, "extensions");
  const stale = await staleImportPlan(deps, "extensions", input);
  if (stale) return { stale };
  return startImportJob(jobs, owner, "extensions", (progress) => importExtensions(deps, input, progress));
}

/** Starts importing the PBX's trunks (SSH only); `Invalid` at once without SSH; `stale` as for extensions. */
export async function startImportTrunksJob(
  deps: JobDeps,
  jobs: JobRunner,
  owner: JobOwner,
  input: ImportTrunksRequest,
): Promise<JobStarted | { stale: ImportPlan }> {
  pbxReadPath(deps, "trunks");
  const stale = await staleImportPlan(deps, "trunks", input);
  if (stale) return { stale };
  return startImportJob(jobs, owner, "trunks", (progress) => importTrunks(deps, input, progress));
}

/** Starts importing the PBX's ring groups or queues (SSH only); `Invalid` at once without SSH; `stale` as for extensions. */
export async function startImportCallGroupsJob(
  deps: JobDeps,
  jobs: JobRunner,
  owner: JobOwner,
  kind: "ring-groups" | "queues",
  input: ImportRingGroupsRequest | ImportQueuesRequest,
): Promise<JobStarted | { stale: ImportPlan }> {
  pbxReadPath(deps, kind === "ring-groups" ? "ring groups" : "queues");
  const stale = await staleImportPlan(deps, kind, input);
  if (stale) return { stale };
  return startImportJob(jobs, owner, kind, (progress) =>
    kind === "ring-groups"
      ? importRingGroups(deps, input as ImportRingGroupsRequest, progress)
      : importQueues(deps, input as ImportQueuesRequest, progress),
  );
}

/**
 * Starts importing the PBX's IVRs or announcements, with the IVRs and announcements they need (SSH only);
 * `Invalid` at once without SSH; `stale` as for extensions.
 */
export async function startImportCallFlowJob(
  deps: JobDeps,
  jobs: JobRunner,
  owner: JobOwner,
  kind: CallFlowImportKind,
  input: ImportCallFlowRequest,
): Promise<JobStarted | { stale: ImportPlan }> {
  pbxReadPath(deps, kind === "ivrs" ? "IVRs" : "announcements");
  const stale = await staleImportPlan(deps, kind, input);
  if (stale) return { stale };
  return startImportJob(jobs, owner, kind, (progress) => importCallFlowKind(deps, kind, input, progress));
}
