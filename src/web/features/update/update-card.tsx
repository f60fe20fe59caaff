/**
 * API Settings: this console's version and the latest signed release, "Check now", and "Update to X" with each
 * step (download percent, staged, swapping, restarting, health) until the restarted console answers with the
 * new version, or the roll-back's reason (docs/decisions/0065-self-update.md).
 */
import { useQuery } from "@tanstack/react-query";
import { ArrowUpCircle, LoaderCircle, RefreshCw, RotateCw } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-field";
import { Progress } from "@/components/ui/progress";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { formatDateTime, formatDay } from "@/lib/format";
import { afterConfirm } from "@/lib/mutations";
import type { UpdatePhase, UpdateResult, UpdateStatus } from "../../../shared/update";
import { updateStatusQuery, useCheckForUpdate, useStartUpdate } from "./api";

const PHASES: Record<UpdatePhase, string> = {
  checking: "Checking the release",
  downloading: "Downloading",
  verifying: "Checking the download",
  staged: "Waiting for the updater",
  "backing-up": "Backing up the database",
  swapping: "Installing the new binary",
  restarting: "Restarting the console",
  "checking-health": "Waiting for the new version to answer",
  "rolling-back": "Rolling back",
};

function ResultLine({ result }: { result: UpdateResult }) {
  const ok = result.outcome === "updated";
  return (
    <p className="flex flex-wrap items-center gap-2 text-sm">
      <Badge variant={ok ? "success" : result.outcome === "rolled-back" ? "warning" : "destructive"}>
        {ok ? "Updated" : result.outcome === "rolled-back" ? "Rolled back" : "Failed"}
      </Badge>
      <span>
        {result.message} <span className="text-muted-foreground">({formatDateTime(result.at)})</span>
      </span>
    </p>
  );
}

/** The update this page started: from which version, and the outcome shown then (to tell the new one from it). */
interface Started {
  from: string;
  to: string;
  seen: number | null;
}

function outcomeOf(status: UpdateStatus | undefined, started: Started | null): "updated" | UpdateResult | null {
  if (!status || !started || status.progress) return null;
  if (status.current !== started.from) return "updated";
  const result = status.lastResult;
  return result && result.to === started.to && result.at !== started.seen ? result : null;
}

export function UpdateCard() {
  const titleId = useId();
  const [started, setStarted] = useState<Started | null>(null);
  const status = useQuery(updateStatusQuery(started !== null));
  const data = status.data;
  const check = useCheckForUpdate({
    onError: (err) =>
      toast({ variant: "destructive", title: "Could not check for updates", description: errorText(err) }),
  });
  const start = useStartUpdate({
    onError: (err) => {
      setStarted(null);
      toast({ variant: "destructive", title: "The update did not start", description: errorText(err) });
    },
  });

  // The outcome of the update this page started, told once.
  const outcome = outcomeOf(data, started);
  const told = useRef<Started | null>(null);
  useEffect(() => {
    if (!outcome || !started || told.current === started) return;
    told.current = started;
    if (outcome === "updated") toast({ title: `Updated to ${data?.current}` });
    else
      toast({
        variant: "destructive",
        title: `The update to ${started.to} did not complete`,
        description: outcome.message,
      });
  }, [outcome, started, data?.current]);

  const progress = data?.progress ?? null;
  const latest = data?.latest ?? null;
  const updated = outcome === "updated";
  const busy = progress !== null || start.isPending || (started !== null && outcome === null);

  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4">
      <CardHeader>
        <CardTitle id={titleId} className="flex items-center gap-2">
          <ArrowUpCircle className="size-4 text-muted-foreground" aria-hidden />
          Console version
        </CardTitle>
        <CardDescription>
          Releases are read from the signed manifest at{" "}
          <span className="break-all font-mono text-xs">{data?.manifestUrl ?? "…"}</span>; only one signed with the
          pbx-console release key, and newer than this version, is installed.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {status.isError && !data && <FormError message={`Could not read the version: ${errorText(status.error)}`} />}
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-muted-foreground">This console</dt>
          <dd className="font-medium">{data?.current ?? "…"}</dd>
          <dt className="text-muted-foreground">Latest release</dt>
          <dd>
            {latest ? (
              <span className="flex flex-wrap items-center gap-2">
                <span className="font-medium">{latest.version}</span>
                <span className="text-muted-foreground">released {formatDay(latest.released)}</span>
                {data?.newer ? <Badge variant="secondary">Newer</Badge> : <Badge variant="outline">Up to date</Badge>}
              </span>
            ) : data?.checking ? (
              "Checking…"
            ) : (
              "Not known yet"
            )}
          </dd>
          <dt className="text-muted-foreground">Checked</dt>
          <dd>{data?.checkedAt ? formatDateTime(data.checkedAt) : "Never"}</dd>
        </dl>
        {data?.checkError && <FormError message={`The last check failed: ${data.checkError}`} />}
        {latest?.notes && data?.newer && (
          <div className="grid gap-1">
            <p className="font-medium text-sm">What {latest.version} brings</p>
            <p className="max-h-40 overflow-y-auto whitespace-pre-wrap text-muted-foreground text-sm">{latest.notes}</p>
          </div>
        )}
        <div aria-live="polite" className="grid gap-2">
          {progress && (
            <div className="grid gap-1">
              <p className="flex items-center gap-2 font-medium text-sm">
                <LoaderCircle className="size-4 animate-spin" aria-hidden />
                <span>
                  {PHASES[progress.phase]}
                  {progress.percent !== null ? ` (${progress.percent} %)` : ""}
                </span>
              </p>
              <p className="text-muted-foreground text-sm">{progress.message}</p>
              {progress.phase === "downloading" && (
                <Progress value={progress.percent ?? 0} aria-label={`Downloading ${progress.version}`} />
              )}
            </div>
          )}
          {!progress && started && outcome === null && (
            <p className="flex items-center gap-2 text-sm">
              <LoaderCircle className="size-4 animate-spin" aria-hidden />
              Waiting for the console to come back…
            </p>
          )}
          {updated && (
            <div className="flex flex-wrap items-center gap-2 text-sm">
              <span>The console now runs {data?.current}. Reload the page to load its screens.</span>
              <Button type="button" size="sm" variant="outline" onClick={() => window.location.reload()}>
                <RotateCw aria-hidden />
                Reload
              </Button>
            </div>
          )}
          {!progress && !updated && data?.lastResult && <ResultLine result={data.lastResult} />}
        </div>
        <div className="flex flex-wrap gap-2">
          <Button type="button" variant="outline" disabled={check.isPending || busy} onClick={() => check.mutate()}>
            {check.isPending ? <LoaderCircle className="animate-spin" aria-hidden /> : <RefreshCw aria-hidden />}
            Check now
          </Button>
          {latest && data?.newer && !updated && (
            <Button
              type="button"
              disabled={busy}
              onClick={() =>
                afterConfirm(
                  `Update the console to ${latest.version}? It restarts (the console is away for a moment), and a version that does not come up is rolled back.`,
                  () => {
                    setStarted({ from: data.current, to: latest.version, seen: data.lastResult?.at ?? null });
                    start.mutate(latest.version);
                  },
                )
              }
            >
              {busy && <LoaderCircle className="animate-spin" aria-hidden />}
              Update to {latest.version}
            </Button>
          )}
        </div>
      </CardContent>
    </Card>
  );
}
