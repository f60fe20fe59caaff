import { useQuery } from "@tanstack/react-query";
import { Download, ListChecks, LoaderCircle, RefreshCw } from "lucide-react";
import { useState } from "react";
import { RoleNotice } from "@/components/can";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/use-toast";
import { useShownJob } from "@/features/jobs/api";
import { JobProgressCard } from "@/features/jobs/job-progress";
import { useCan } from "@/hooks/use-role";
import { serverMessage } from "@/lib/error-text";
import { formatNumber } from "@/lib/format";
import type { Job } from "../../../shared/jobs";
import type { ImportResult } from "../../../shared/pbx";
import {
  comparisonQuery,
  type ImportRequest,
  SYNC_WORDS,
  useRefetchComparisonOnListChange,
  useRefreshAfterImport,
} from "./api";
import { ComparisonTable } from "./comparison-table";
import { isSelectable, type SyncConfig } from "./config";
import { ImportReviewDialog } from "./import-review-dialog";
import { PbxUnavailable } from "./pbx-unavailable";

interface Row {
  inDashboard: boolean;
  needsSync: boolean;
}

const failureText = (err: unknown, fallback: string) => serverMessage(err) || fallback;

function Stat({ label, value, testId }: { label: string; value: number | undefined; testId: string }) {
  return (
    <div className="grid gap-0.5">
      <dt className="text-muted-foreground text-xs">{label}</dt>
      <dd className="font-semibold text-xl tabular-nums" data-testid={testId}>
        {value === undefined ? "..." : formatNumber(value)}
      </dd>
    </div>
  );
}

/** One tab of the Sync screen: PBX vs dashboard counts, the comparison, and the imports (an operator's). */
export function SyncTab<R extends Row>({ config }: { config: SyncConfig<R> }) {
  const canImport = useCan("operator");
  const compare = useQuery(comparisonQuery<R>(config.kind));
  useRefetchComparisonOnListChange(config.kind);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [problems, setProblems] = useState<string[]>([]);

  const rows = compare.data?.comparison ?? [];
  const selectableKeys = rows.filter(isSelectable).map(config.keyOf);
  const chosen = selectableKeys.filter((k) => selected.has(k));

  const refresh = useRefreshAfterImport(config.kind);
  // An import is a job (ADR 0024): its progress shows while it runs (also after a page reload), and its
  // final summary becomes the toast and the "Not imported" list.
  const shown = useShownJob(
    "import",
    (job: Job, startedHere: boolean) => {
      void refresh();
      const result = job.summary as ImportResult | null;
      if (result) setProblems(result.errors ?? []);
      if (!startedHere) return;
      if (!result) {
        toast({ title: "Import Failed", description: job.error ?? config.failedText, variant: "destructive" });
        return;
      }
      setSelected(new Set());
      toast({
        title: job.state === "cancelled" ? "Import Cancelled" : config.importedTitle,
        description: `Created: ${result.created}, Updated: ${result.updated}, Unchanged: ${result.unchanged ?? 0}, Failed: ${result.failed}`,
      });
    },
    (job) => job.target === config.kind,
  );
  // Every import is reviewed first (ADR 0025): the buttons open the plan of their selection.
  const [review, setReview] = useState<ImportRequest | null>(null);
  const [mode, setMode] = useState<ImportRequest["mode"] | null>(null);

  const toggle = (key: string, on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });

  const busy = shown.running;
  const failed = compare.isError;

  return (
    <div className="grid gap-4">
      <Card className="gap-4 py-4">
        <CardContent className="flex flex-wrap items-center justify-between gap-4 px-4">
          <dl className="flex gap-8" aria-label="Summary">
            <Stat label="On the PBX" value={failed ? undefined : compare.data?.freepbxCount} testId="pbx-count" />
            <Stat
              label="In the dashboard"
              value={failed ? undefined : compare.data?.dashboardCount}
              testId="dashboard-count"
            />
          </dl>
          <div className="flex flex-wrap gap-2">
            <Button variant="outline" onClick={() => compare.refetch()} disabled={compare.isFetching}>
              {compare.isFetching ? <LoaderCircle className="animate-spin" /> : <RefreshCw />}
              Refresh
            </Button>
            {canImport && (
              <>
                <Button
                  variant="outline"
                  disabled={busy || failed || rows.length === 0}
                  onClick={() => setReview({ mode: "all", keys: [] })}
                >
                  {busy && mode === "all" ? <LoaderCircle className="animate-spin" /> : <Download />}
                  Import All
                </Button>
                <Button
                  disabled={busy || failed || chosen.length === 0}
                  onClick={() => setReview({ mode: "selected", keys: chosen })}
                >
                  {busy && mode === "selected" ? <LoaderCircle className="animate-spin" /> : <ListChecks />}
                  Import Selected ({chosen.length})
                </Button>
              </>
            )}
          </div>
        </CardContent>
      </Card>
      <ImportReviewDialog
        kind={config.kind}
        request={review}
        failedText={config.failedText}
        onOpenChange={(open) => !open && setReview(null)}
        onStarted={(jobId, started) => {
          setMode(started);
          shown.started(jobId);
        }}
      />
      {!canImport && <RoleNotice cannot={`import ${SYNC_WORDS[config.kind].many} from the PBX`} />}
      {shown.job && <JobProgressCard job={shown.job} />}

      {failed ? (
        <PbxUnavailable
          message={failureText(
            compare.error,
            `Could not read the ${SYNC_WORDS[config.kind].many} on the PBX: ${compare.error.message}`,
          )}
        />
      ) : compare.isPending ? (
        <div className="grid gap-2">
          <span className="sr-only">Reading the PBX...</span>
          {["a", "b", "c", "d"].map((k) => (
            <Skeleton key={k} className="h-10 w-full" />
          ))}
        </div>
      ) : rows.length === 0 ? (
        <p className="rounded-md border border-dashed py-10 text-center text-muted-foreground text-sm">
          No {SYNC_WORDS[config.kind].many} on the PBX.
        </p>
      ) : (
        <ComparisonTable
          label={`${config.singular[0]?.toUpperCase()}${config.singular.slice(1)} comparison`}
          rows={rows}
          columns={config.columns}
          keyOf={config.keyOf}
          selected={selected}
          onToggle={toggle}
          onToggleAll={(on) => setSelected(new Set(on ? selectableKeys : []))}
          disabled={busy}
          selectable={canImport}
        />
      )}

      {problems.length > 0 && (
        <div className="rounded-md border border-warning/60 bg-warning/5 p-3 text-sm" role="status">
          <p className="font-medium">Not imported:</p>
          <ul className="mt-1 list-disc pl-5 text-muted-foreground">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
