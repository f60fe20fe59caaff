import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Chart } from "@/components/chart";
import { SelectField } from "@/components/form-fields";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { errorText } from "@/lib/error-text";
import type { TestCall, TestCallResult } from "../../../shared/test-calls";
import { testCallResultsQuery } from "./api";
import { whenText } from "./format";

const HOUR_MS = 3_600_000;
const WINDOWS = [
  { value: "24", label: "Last 24 hours" },
  { value: "168", label: "Last 7 days" },
] as const;

/** The start of a window ending now, to the minute (so the query's key stays put while the screen is open). */
const since = (hours: number) => new Date(Math.floor((Date.now() - hours * HOUR_MS) / 60_000) * 60_000).toISOString();

function ResultsBody({ call, items }: { call: TestCall; items: TestCallResult[] }) {
  if (items.length === 0) {
    return (
      <p className="text-muted-foreground text-sm" data-testid="no-results">
        No runs in this window.
      </p>
    );
  }
  const failed = items.filter((r) => !r.ok);
  const x = {
    kind: "time" as const,
    bucket: "hour" as const,
    values: items.map((r) => Date.parse(r.at)),
    label: "Run",
  };
  // A failed run is a red bar: as tall as its answer time, or the ring limit when it was never answered.
  const limitMs = call.answerWithinSeconds * 1000;
  const summary = `${items.length} run${items.length === 1 ? "" : "s"}, ${failed.length} failed`;
  return (
    <div className="grid gap-6">
      <Chart
        label={`Answer time per run of ${call.name} (ms)`}
        summary={summary}
        x={x}
        series={[
          { label: "Answer time (ms)", values: items.map((r) => (r.ok ? (r.answerMs ?? 0) : 0)), color: "success" },
          {
            label: "Failed run (ms)",
            values: items.map((r) => (r.ok ? 0 : Math.max(r.answerMs ?? limitMs, 1))),
            color: "destructive",
          },
        ]}
      />
      <Chart
        label={`Packet loss per run of ${call.name} (%)`}
        summary={summary}
        x={x}
        series={[{ label: "Packet loss (%)", values: items.map((r) => r.lossPercent ?? 0), color: "warning" }]}
        height={160}
      />
      {failed.length > 0 && (
        <div className="grid gap-2">
          <h3 className="font-medium text-sm">Failed runs</h3>
          <ul aria-label={`Failed runs of ${call.name}`} className="grid gap-1 text-sm" data-testid="failed-runs">
            {failed
              .slice(-10)
              .reverse()
              .map((r) => (
                <li key={r.id}>
                  <span className="text-muted-foreground">{whenText(r.at)}</span> {r.error}
                </li>
              ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/** Results over time of one test call (chosen here), in a window: answer time and packet loss, failures marked. */
export function TestCallResultsCard({ calls }: { calls: TestCall[] }) {
  const [chosen, setChosen] = useState<number | null>(null);
  const [span, setSpan] = useState<{ hours: string; from: string }>({ hours: "24", from: since(24) });
  const call = calls.find((c) => c.id === chosen) ?? calls[0];
  const results = useQuery({ ...testCallResultsQuery(call?.id ?? 0, span.from), enabled: call !== undefined });
  if (!call) return null;
  return (
    <Card className="min-w-0 gap-3 py-4">
      <CardHeader className="px-4">
        <CardTitle className="text-base">Results over time</CardTitle>
      </CardHeader>
      <CardContent className="grid min-w-0 gap-4 px-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            label="Test call"
            value={String(call.id)}
            onValueChange={(v) => setChosen(Number(v))}
            options={calls.map((c) => ({ value: String(c.id), label: c.name }))}
          />
          <SelectField
            label="Window"
            value={span.hours}
            onValueChange={(hours) => setSpan({ hours, from: since(Number(hours)) })}
            options={WINDOWS}
          />
        </div>
        {results.isPending ? (
          <Skeleton className="h-56 w-full" />
        ) : results.isError ? (
          <p role="alert" className="text-destructive text-sm">
            Could not load the results: {errorText(results.error)}
          </p>
        ) : (
          <ResultsBody call={call} items={results.data.items} />
        )}
      </CardContent>
    </Card>
  );
}
