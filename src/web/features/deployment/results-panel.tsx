import { CircleCheck, CircleX, ListChecks } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatTime } from "@/lib/format";
import type { DeployItemResult, ReloadResult } from "../../../shared/pbx";
import { type DeployRun, type ResultGroup, totals } from "./model";

const VIA_LABEL = { ssh: "SSH", graphql: "GraphQL" } as const;

function ItemRow({ item }: { item: DeployItemResult }) {
  const ok = item.status === "success";
  return (
    <li className="flex items-start gap-3 rounded-md border p-3" aria-label={item.label || item.name}>
      {ok ? (
        <CircleCheck className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
      ) : (
        <CircleX className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
      )}
      <div className="grid min-w-0 flex-1 gap-1">
        <div className="flex flex-wrap items-center gap-2">
          <span className="truncate font-medium">{item.label || item.name}</span>
          <Badge variant={ok ? "success" : "destructive"} data-testid="item-status">
            {ok ? "Success" : "Failed"}
          </Badge>
          {item.via && (
            <Badge variant="outline" data-testid="item-via">
              via {VIA_LABEL[item.via]}
            </Badge>
          )}
        </div>
        <p className="break-words text-muted-foreground text-sm">{item.message}</p>
      </div>
    </li>
  );
}

function GroupSection({ group }: { group: ResultGroup }) {
  const { deployed, failed, results } = group.result;
  return (
    <section aria-label={`${group.title} results`} className="grid gap-2">
      <h3 className="flex items-center gap-2 font-medium text-sm">
        {group.title}
        <span className="font-normal text-muted-foreground">
          {deployed} deployed · {failed} failed
        </span>
      </h3>
      <ul className="grid gap-2">
        {results.map((item) => (
          <ItemRow key={`${item.kind}-${item.name}`} item={item} />
        ))}
      </ul>
    </section>
  );
}

function ReloadOutcome({ reload }: { reload: ReloadResult | null }) {
  if (!reload) {
    return (
      <p className="text-muted-foreground text-sm" data-testid="reload-outcome">
        FreePBX reload: not run (nothing was written).
      </p>
    );
  }
  return (
    <section aria-label="FreePBX reload" className="grid gap-2 rounded-md border p-3">
      <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="reload-outcome">
        <span className="font-medium">FreePBX reload</span>
        <Badge variant={reload.ok ? "success" : "destructive"}>{reload.ok ? "OK" : "Failed"}</Badge>
        <Badge variant="outline">via {VIA_LABEL[reload.via]}</Badge>
        {reload.exitCode !== null && <span className="text-muted-foreground">exit code {reload.exitCode}</span>}
      </div>
      {reload.output && (
        <details open={!reload.ok}>
          <summary className="cursor-pointer text-muted-foreground text-sm">Output</summary>
          <pre
            className="mt-2 max-h-64 overflow-auto whitespace-pre-wrap rounded-md bg-muted/40 p-3 font-mono text-xs"
            data-testid="reload-output"
          >
            {reload.output}
          </pre>
        </details>
      )}
    </section>
  );
}

/** Each item of the last deploy with its status, message and path, then the reload outcome. */
export function ResultsPanel({ run }: { run: DeployRun | null }) {
  if (!run) return null;
  const { deployed, failed } = totals(run);
  return (
    <Card role="region" aria-labelledby="deploy-results-title" className="gap-4">
      <CardHeader>
        <CardTitle id="deploy-results-title" className="flex items-center gap-2">
          <ListChecks className="size-4 text-muted-foreground" aria-hidden />
          Deployment Results
        </CardTitle>
        <CardDescription>
          {deployed} deployed, {failed} failed · {formatTime(run.finishedAt)}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {run.groups.length === 0 ? (
          <p className="text-muted-foreground text-sm">Nothing to deploy.</p>
        ) : (
          run.groups.map((g) => <GroupSection key={g.title} group={g} />)
        )}
        <ReloadOutcome reload={run.reload} />
      </CardContent>
    </Card>
  );
}
