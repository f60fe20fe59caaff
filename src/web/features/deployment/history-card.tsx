import { useQuery } from "@tanstack/react-query";
import { History, LoaderCircle, Undo2 } from "lucide-react";
import { useState } from "react";
import { Can } from "@/components/can";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { toast } from "@/components/ui/use-toast";
import { useShownJob } from "@/features/jobs/api";
import { finalText, JobProgressCard } from "@/features/jobs/job-progress";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import type { DeployHistoryEntry } from "../../../shared/deploy-history";
import type { Job, JobState } from "../../../shared/jobs";
import { deployHistoryQuery, useStartRollback } from "./history-api";

const STATE: Record<JobState, { text: string; variant: "default" | "success" | "destructive" | "warning" }> = {
  running: { text: "Running", variant: "default" },
  succeeded: { text: "Succeeded", variant: "success" },
  failed: { text: "Failed", variant: "destructive" },
  cancelled: { text: "Cancelled", variant: "warning" },
  interrupted: { text: "Interrupted", variant: "warning" },
};

const when = (iso: string) => formatDateTime(iso);

/** The backup line of a run: what it holds, whether it was rolled back, or why it cannot be. */
function backupText(e: DeployHistoryEntry): string {
  if (e.kind === "rollback") return e.rollbackOf ? `Restored backup ${e.rollbackOf}` : "Roll back";
  const b = e.backup;
  if (!b) return "No backup (nothing was written over SSH)";
  const what = `Backup ${b.id}: ${b.objects.length} object(s)${b.astdb ? "" : ", without AstDB"}`;
  if (b.restoredAt) return `${what}, rolled back by ${b.restoredBy ?? "?"} on ${when(b.restoredAt)}`;
  if (!b.restorable && b.blockedBy) return `${what}. ${b.blockedBy}`;
  return what;
}

function Run({ entry, onRollback, busy }: { entry: DeployHistoryEntry; onRollback: () => void; busy: boolean }) {
  const state = STATE[entry.state];
  return (
    <li className="grid gap-1 rounded-md border p-3" aria-label={`${entry.title} (job ${entry.jobId})`}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{entry.title}</span>
        <Badge variant={state.variant} data-testid="run-state">
          {state.text}
        </Badge>
        <span className="text-muted-foreground text-sm">
          {when(entry.startedAt)} · {entry.startedBy}
        </span>
        {entry.backup?.restorable && (
          <Can minRole="operator">
            <Button variant="outline" size="sm" className="ml-auto" disabled={busy} onClick={onRollback}>
              <Undo2 />
              Roll back
            </Button>
          </Can>
        )}
      </div>
      <p className="text-sm tabular-nums" data-testid="run-counts">
        {entry.succeeded} succeeded, {entry.failed} failed
        {entry.error ? ` — ${entry.error}` : ""}
      </p>
      <p className="text-muted-foreground text-sm" data-testid="run-backup">
        {backupText(entry)}
      </p>
    </li>
  );
}

/**
 * The Deployment page's history: each deployment and roll back (when, who, counts, result) and, for a
 * deployment whose backup can be restored, "Roll back" after a confirmation naming what is restored. The
 * roll back runs as a job; its progress shows here.
 */
export function DeployHistoryCard() {
  const history = useQuery(deployHistoryQuery());
  const [confirming, setConfirming] = useState<DeployHistoryEntry | null>(null);
  const start = useStartRollback();
  const shown = useShownJob("rollback", (job: Job, startedHere: boolean) => {
    if (!startedHere) return;
    if (job.state === "succeeded") toast({ title: "Rolled Back", description: finalText(job) });
    else toast({ title: "Roll Back Failed", description: finalText(job), variant: "destructive" });
  });
  const busy = start.isPending || shown.running;
  const backup = confirming?.backup;
  const confirm = () => {
    if (!backup) return;
    start.mutate(backup.id, {
      onSuccess: ({ jobId }) => {
        setConfirming(null);
        shown.started(jobId);
      },
      onError: (err) => {
        setConfirming(null);
        toast({ title: "Could Not Roll Back", description: errorText(err), variant: "destructive" });
      },
    });
  };
  const runs = history.data ?? [];
  return (
    <>
      <Card role="region" aria-label="Deploy history" className="gap-4">
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <History className="size-4 text-muted-foreground" aria-hidden />
            Deploy History
          </CardTitle>
          <CardDescription>
            Each deployment keeps a copy of every PBX row it was about to change; rolling it back restores them exactly
            and reloads FreePBX.
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-3">
          {history.isPending ? (
            <p className="text-muted-foreground text-sm">Loading…</p>
          ) : runs.length === 0 ? (
            <p className="text-muted-foreground text-sm">No deployments yet.</p>
          ) : (
            <ul aria-label="Deploy runs" className="grid max-h-96 gap-2 overflow-auto">
              {runs.map((e) => (
                <Run key={e.jobId} entry={e} busy={busy} onRollback={() => setConfirming(e)} />
              ))}
            </ul>
          )}
        </CardContent>
      </Card>
      {shown.job && <JobProgressCard job={shown.job} />}
      <Dialog open={confirming !== null} onOpenChange={(open) => !open && !start.isPending && setConfirming(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Roll back this deployment?</DialogTitle>
            <DialogDescription>
              {confirming &&
                `${confirming.title} by ${confirming.startedBy} on ${when(confirming.startedAt)}: these objects are restored on the PBX exactly as they were before it (objects it created are removed), then FreePBX is reloaded.`}
            </DialogDescription>
          </DialogHeader>
          <ul aria-label="Objects to restore" className="grid max-h-60 gap-1 overflow-auto text-sm">
            {backup?.objects.map((o) => (
              <li key={o}>{o}</li>
            ))}
          </ul>
          <DialogFooter>
            <Button variant="outline" disabled={start.isPending} onClick={() => setConfirming(null)}>
              Cancel
            </Button>
            <Button variant="destructive" disabled={start.isPending} onClick={confirm}>
              {start.isPending ? <LoaderCircle className="animate-spin" /> : <Undo2 />}
              Roll Back
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </>
  );
}
