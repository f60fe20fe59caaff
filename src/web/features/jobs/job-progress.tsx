import { CircleCheck, CircleX, LoaderCircle, Square } from "lucide-react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Progress } from "@/components/ui/progress";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { formatTime } from "@/lib/format";
import type { Job, JobState } from "../../../shared/jobs";
import type { ReloadResult } from "../../../shared/pbx";
import { useCancelJob } from "./api";

const STATE: Record<JobState, { text: string; variant: "default" | "success" | "destructive" | "warning" }> = {
  running: { text: "Running", variant: "default" },
  succeeded: { text: "Succeeded", variant: "success" },
  failed: { text: "Failed", variant: "destructive" },
  cancelled: { text: "Cancelled", variant: "warning" },
  interrupted: { text: "Interrupted", variant: "warning" },
};

/** "2 of 5 — Extension 1003 (Carol)", or the step before the count is known. */
export function progressText(job: Pick<Job, "done" | "total" | "current" | "state">): string {
  if (job.state !== "running") return `${job.done} of ${job.total ?? job.done}`;
  const count = job.total === null ? "Starting" : `${job.done} of ${job.total}`;
  return job.current ? `${count} — ${job.current}` : count;
}

/** The one line a finished job ends with. */
export function finalText(job: Job): string {
  const counts = `${job.succeeded} succeeded, ${job.failed} failed`;
  if (job.state === "succeeded") return `Finished: ${counts}.`;
  if (job.state === "cancelled") return `Stopped (${job.error ?? "cancelled"}): ${counts}.`;
  if (job.state === "interrupted") return `Interrupted: the console stopped while this ran (${counts}).`;
  return job.error ? `Failed: ${job.error} (${counts}).` : `Finished with failures: ${counts}.`;
}

/** The FreePBX reload a deployment (or rollback) ended with, if its summary has one. */
const reloadOf = (job: Job): ReloadResult | null => {
  const summary = job.summary as { reload?: ReloadResult | null } | null;
  return summary && typeof summary === "object" && summary.reload ? summary.reload : null;
};

/** The reload's outcome: failed with its reason (read from fwconsole's output), and the whole output. */
function ReloadOutcome({ reload }: { reload: ReloadResult }) {
  return (
    <div className="grid gap-1 text-sm" data-testid="job-reload" data-ok={reload.ok}>
      <p className="flex items-start gap-2">
        {reload.ok ? (
          <CircleCheck className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
        ) : (
          <CircleX className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
        )}
        <span className="font-medium">FreePBX reload</span>
        <span className="min-w-0 break-words text-muted-foreground" data-testid="job-reload-text">
          {reload.ok
            ? "applied"
            : `failed${reload.exitCode !== null ? ` (exit ${reload.exitCode})` : ""}: ${reload.reason ?? reload.output.split("\n").at(-1) ?? ""}`}
        </span>
      </p>
      {reload.output && (
        <details open={!reload.ok}>
          <summary className="cursor-pointer text-muted-foreground">Reload output</summary>
          <pre
            className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap rounded-md bg-muted/40 p-2 font-mono text-xs"
            data-testid="job-reload-output"
          >
            {reload.output}
          </pre>
        </details>
      )}
    </div>
  );
}

/**
 * A job's progress: a bar with "n of N — current item", each item's result as it finishes, Cancel
 * (operators) while it runs, and the final line once it ended.
 */
export function JobProgressCard({ job }: { job: Job }) {
  const cancel = useCancelJob();
  const running = job.state === "running";
  const pct = job.total ? Math.round((100 * job.done) / job.total) : running ? 0 : 100;
  const state = STATE[job.state];
  return (
    <Card role="region" aria-label="Job progress" className="gap-4" data-testid="job-progress" data-state={job.state}>
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-2">
        <div className="grid gap-1">
          <CardTitle className="flex items-center gap-2">
            {running && <LoaderCircle className="size-4 animate-spin text-muted-foreground" aria-hidden />}
            {job.title}
            <Badge variant={state.variant} data-testid="job-state">
              {state.text}
            </Badge>
          </CardTitle>
          <CardDescription>
            Started by {job.startedBy} at {formatTime(job.startedAt)}
          </CardDescription>
        </div>
        {running && (
          <Can minRole="operator">
            <Button
              variant="outline"
              size="sm"
              disabled={cancel.isPending || job.cancelledBy !== null}
              onClick={() =>
                cancel.mutate(job.id, {
                  onError: (err) =>
                    toast({ title: "Could Not Cancel", description: errorText(err), variant: "destructive" }),
                })
              }
            >
              <Square />
              {job.cancelledBy ? "Cancelling…" : "Cancel"}
            </Button>
          </Can>
        )}
      </CardHeader>
      <CardContent className="grid gap-3">
        <Progress value={pct} aria-label={`${job.title} progress`} getValueLabel={() => progressText(job)} />
        <p className="text-sm tabular-nums" data-testid="job-progress-text">
          {progressText(job)}
        </p>
        {job.results.length > 0 && (
          <ul aria-label="Item results" className="grid max-h-64 gap-1 overflow-auto text-sm">
            {job.results.map((r, i) => (
              // Items may repeat a label (a retried batch); their order is fixed.
              // biome-ignore lint/suspicious/noArrayIndexKey: results only grow, in order
              <li key={i} className="flex items-start gap-2" aria-label={r.label}>
                {r.status === "success" ? (
                  <CircleCheck className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
                ) : (
                  <CircleX className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
                )}
                <span className="font-medium">{r.label}</span>
                <span className="min-w-0 break-words text-muted-foreground">{r.message}</span>
              </li>
            ))}
          </ul>
        )}
        {!running && reloadOf(job) && <ReloadOutcome reload={reloadOf(job) as ReloadResult} />}
        {!running && (
          <p className="font-medium text-sm" role="status" data-testid="job-final">
            {finalText(job)}
          </p>
        )}
      </CardContent>
    </Card>
  );
}
