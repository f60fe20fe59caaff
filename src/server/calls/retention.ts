/**
 * Call recordings' retention: recordings in FreePBX's monitor directory older than the days an administrator
 * set (`audioSettings.recordingRetentionDays`) are deleted, as a job with progress (one item per batch of
 * files) in the one job runner, audited like any job. It runs once a day by itself while a retention is set
 * (`startRetentionSchedule`) and on demand. Only audio files are touched, each checked under the directory
 * again on the host (files.ts); the empty day directories left behind go too.
 */
import { eq } from "drizzle-orm";
import { consoleSettings } from "../../db/schema";
import type { JobItemResult, JobStarted, RetentionSummary } from "../../shared/jobs";
import { audioSettings } from "../accounts/settings";
import type { AppContext } from "../context";
import { Invalid } from "../core/errors";
import { type JobOwner, type JobProgress, jobAuditAction } from "../jobs/runner";
import { AUDIO_NAME } from "../pbx/audio";
import { withPbxHost } from "../pbx/host/host";
import { monitorRoot } from "./detail";

/** Files removed per command (one job item each). */
export const RETENTION_BATCH = 200;
const RETENTION_DEADLINE_MS = 30 * 60_000;
/** How often the schedule looks whether a day has passed since the last run. */
const SCHEDULE_CHECK_MS = 60 * 60_000;
const DAY_MS = 86_400_000;
/** The console setting that keeps the last scheduled run's time (ms). */
const LAST_RUN_KEY = "recordingRetentionLastRun";
export const SYSTEM_OWNER: JobOwner = { username: "system", id: null };

type RetentionDeps = Pick<AppContext, "db" | "credentials" | "events" | "now" | "jobs">;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** Deletes the recordings older than `days` days, a batch at a time, reporting each batch. */
export async function sweepRecordings(
  deps: Pick<AppContext, "credentials">,
  days: number,
  progress?: JobProgress,
): Promise<RetentionSummary> {
  const results: JobItemResult[] = [];
  const summary: RetentionSummary = { days, found: 0, removed: 0, failed: 0, bytes: 0, results };
  const report = (r: JobItemResult) => {
    results.push(r);
    progress?.result(r);
  };
  await withPbxHost(
    deps,
    async (host) => {
      progress?.item("Listing recordings on the PBX host");
      const root = await monitorRoot(host);
      const old = (await host.expiredFiles(root, days)).filter((f) => AUDIO_NAME.test(f.name));
      summary.found = old.length;
      const batches: (typeof old)[] = [];
      for (let i = 0; i < old.length; i += RETENTION_BATCH) batches.push(old.slice(i, i + RETENTION_BATCH));
      progress?.total(batches.length);
      for (const batch of batches) {
        const label = `${batch[0]?.name ?? ""}${batch.length > 1 ? ` and ${batch.length - 1} more` : ""}`;
        const why = progress?.stopped();
        if (why) break;
        progress?.item(label);
        try {
          const removed = new Set(
            await host.removeFiles(
              root,
              batch.map((f) => f.name),
            ),
          );
          const bytes = batch.filter((f) => removed.has(f.name)).reduce((n, f) => n + f.bytes, 0);
          summary.removed += removed.size;
          summary.bytes += bytes;
          const missed = batch.length - removed.size;
          summary.failed += missed;
          report({
            label,
            status: missed === 0 ? "success" : "failed",
            message:
              missed === 0
                ? `${plural(removed.size, "recording")} deleted`
                : `${plural(removed.size, "recording")} deleted, ${missed} not (gone already or not a plain file)`,
          });
        } catch (err) {
          summary.failed += batch.length;
          report({ label, status: "failed", message: (err as Error).message });
        }
      }
    },
    { operation: "Deleting old call recordings", deadlineMs: RETENTION_DEADLINE_MS },
  );
  return summary;
}

const detailOf = (s: RetentionSummary) =>
  `${plural(s.removed, "recording")} older than ${s.days} days deleted (${Math.round(s.bytes / 1024 / 1024)} MB)${s.failed ? `, ${s.failed} not` : ""}`;

/**
 * Starts the retention job with the days set (or `days`); `Invalid` when none is set or SSH is not configured,
 * 409 while another job runs.
 */
export function startRetentionJob(deps: RetentionDeps, owner: JobOwner, days?: number): JobStarted {
  const keep = days ?? audioSettings(deps.db).recordingRetentionDays;
  if (keep === null || keep === undefined)
    throw new Invalid("Set how many days recordings are kept (Settings) before deleting old ones.");
  if (!deps.credentials.isConfigured("ssh"))
    throw new Invalid("Recordings live on the PBX host: configure its SSH in API Settings.");
  const jobId = deps.jobs.start<RetentionSummary>(owner, {
    kind: "retention",
    target: "recordings",
    deadlineMs: RETENTION_DEADLINE_MS,
    auditAction: jobAuditAction("retention", "recordings"),
    run: (progress) => sweepRecordings(deps, keep, progress),
    outcome: (s) => ({ ok: s.failed === 0, detail: detailOf(s) }),
  });
  return { jobId };
}

/**
 * Runs the retention once a day while one is set: every hour it looks whether a day has passed since the last
 * run (kept in the database, so a restart does not run it again at once). A run that cannot start (another job,
 * SSH not configured) is tried at the next check. Returns the stop function.
 */
export function startRetentionSchedule(deps: RetentionDeps): () => void {
  const check = () => {
    try {
      if (audioSettings(deps.db).recordingRetentionDays === null) return;
      const row = deps.db.select().from(consoleSettings).where(eq(consoleSettings.key, LAST_RUN_KEY)).get();
      const last = typeof row?.value === "number" ? row.value : 0;
      const now = deps.now();
      if (now - last < DAY_MS) return;
      startRetentionJob(deps, SYSTEM_OWNER);
      deps.db
        .insert(consoleSettings)
        .values({ key: LAST_RUN_KEY, value: now, updatedAt: new Date(now) })
        .onConflictDoUpdate({ target: consoleSettings.key, set: { value: now, updatedAt: new Date(now) } })
        .run();
    } catch {
      // Another job runs, or the PBX host is not configured: the next check tries again.
    }
  };
  const timer = setInterval(check, SCHEDULE_CHECK_MS);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
