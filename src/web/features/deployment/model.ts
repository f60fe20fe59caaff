/** Deploy targets, their toast texts and the normalised result of one run. */
import { serverMessage } from "@/lib/error-text";
import type { DeployJobTarget, Job } from "../../../shared/jobs";
import type { DeployAllResponse, DeployGroupResult, DeployResponse, ReloadResult } from "../../../shared/pbx";

export type DeployTarget = DeployJobTarget;

interface TargetText {
  /** Success toast title. */
  done: string;
  /** Counted unit in descriptions: "2 extension(s) failed to deploy." */
  unit: string;
  /** What the failure toast says could not be deployed. */
  what: string;
}

export const TARGET_TEXT: Record<DeployTarget, TargetText> = {
  all: { done: "Deployment Successful", unit: "configuration(s)", what: "configurations" },
  trunks: { done: "Trunks Deployed", unit: "trunk(s)", what: "trunks" },
  extensions: { done: "Extensions Deployed", unit: "extension(s)", what: "extensions" },
  "ptt-groups": { done: "PTT Groups Deployed", unit: "PTT group(s)", what: "PTT groups" },
  "ring-groups": { done: "Ring Groups Deployed", unit: "ring group(s)", what: "ring groups" },
  queues: { done: "Queues Deployed", unit: "queue(s)", what: "queues" },
  ivrs: { done: "IVRs Deployed", unit: "IVR(s)", what: "IVRs" },
  announcements: { done: "Announcements Deployed", unit: "announcement(s)", what: "announcements" },
  "time-groups": { done: "Time Groups Deployed", unit: "time group(s)", what: "time groups" },
  "time-conditions": { done: "Time Conditions Deployed", unit: "time condition(s)", what: "time conditions" },
};

export interface ResultGroup {
  title: string;
  result: DeployGroupResult;
}

/** One finished deploy, whatever endpoint answered it. */
export interface DeployRun {
  target: DeployTarget;
  groups: ResultGroup[];
  reload: ReloadResult | null;
  finishedAt: Date;
}

export function toRun(target: DeployTarget, body: DeployResponse | DeployAllResponse, now = new Date()): DeployRun {
  if (target === "all") {
    const all = body as DeployAllResponse;
    const groups: ResultGroup[] = [
      { title: "Trunks", result: all.trunks },
      { title: "Extensions", result: all.extensions },
      { title: "Ring Groups", result: all.ringGroups },
      { title: "Queues", result: all.queues },
      { title: "Announcements", result: all.announcements },
      { title: "IVRs", result: all.ivrs },
      { title: "Time Groups", result: all.timeGroups },
      { title: "Time Conditions", result: all.timeConditions },
      { title: "Outbound Routes", result: all.outboundRoutes },
      { title: "Inbound Routes", result: all.inboundRoutes },
    ].filter((g) => g.result && g.result.results.length > 0);
    return { target, groups, reload: all.reload, finishedAt: now };
  }
  const one = body as DeployResponse;
  const title = {
    trunks: "Trunks",
    extensions: "Extensions",
    "ptt-groups": "PTT Groups",
    "ring-groups": "Ring Groups",
    queues: "Queues",
    ivrs: "IVRs",
    announcements: "Announcements",
    "time-groups": "Time Groups",
    "time-conditions": "Time Conditions",
  }[target];
  return {
    target,
    groups: [{ title, result: { deployed: one.deployed, failed: one.failed, results: one.results } }],
    reload: one.reload,
    finishedAt: now,
  };
}

export const totals = (run: DeployRun) =>
  run.groups.reduce((t, g) => ({ deployed: t.deployed + g.result.deployed, failed: t.failed + g.result.failed }), {
    deployed: 0,
    failed: 0,
  });

/** The toast for a finished run: success, or 'Deployment Issues' when any item failed. */
export function runToast(run: DeployRun): { title: string; description: string; variant: "default" | "destructive" } {
  const text = TARGET_TEXT[run.target];
  const { deployed, failed } = totals(run);
  if (failed > 0) {
    return {
      title: "Deployment Issues",
      description: `${failed} ${text.unit} failed to deploy.`,
      variant: "destructive",
    };
  }
  return {
    title: text.done,
    description: `Successfully deployed ${deployed} ${text.unit} to the PBX server.`,
    variant: "default",
  };
}

/** A finished deployment job as a run: its final summary, or null when it ended without one (an error). */
export function jobRun(job: Job): DeployRun | null {
  if (job.kind !== "deploy" || job.target === "recordings" || !job.summary) return null;
  const at = job.finishedAt ? new Date(job.finishedAt) : new Date();
  return toRun(job.target, job.summary as DeployResponse | DeployAllResponse, at);
}

/**
 * The toast for a request that failed as a whole (e.g. the 400 'No way to reach the PBX…'): the
 * server's reason, or the browser's when the server could not be reached.
 */
export function failureToast(target: DeployTarget, err: unknown) {
  const base = `Failed to deploy ${TARGET_TEXT[target].what} to the PBX server.`;
  const reason = err instanceof TypeError ? err.message : serverMessage(err);
  return {
    title: "Deployment Failed",
    description: reason ? `${base} ${reason}` : base,
    variant: "destructive" as const,
  };
}
