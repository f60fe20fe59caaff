/**
 * An assistant's last 30 days on its card: calls, cost, p50/p95 latency and the share of judged calls that met
 * the goal, with its calls per day as a small chart, and today's spend against the daily cap.
 */
import { useQuery } from "@tanstack/react-query";
import { Chart } from "@/components/chart";
import { Skeleton } from "@/components/ui/skeleton";
import { errorText } from "@/lib/error-text";
import type { AiAssistant } from "../../../shared/ai/assistants";
import { ASSISTANT_STATS_DAYS, assistantStatsQuery } from "./api";
import { formatMs, formatRate, formatUsd } from "./measures-format";

/** A UTC day ("2026-12-07") as the chart's bucket: that day's local midnight, so the label reads the same day. */
const dayStart = (day: string) => {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d).getTime();
};

function Figure({ term, children, testId }: { term: string; children: string; testId?: string }) {
  return (
    <div className="grid gap-0.5">
      <dt className="text-muted-foreground text-xs">{term}</dt>
      <dd className="font-medium text-sm tabular-nums" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

export function AssistantStatsView({
  assistant,
}: {
  assistant: Pick<AiAssistant, "id" | "name" | "dailySpendCapUsd">;
}) {
  const stats = useQuery(assistantStatsQuery(assistant.id));
  const s = stats.data;
  if (!s) {
    if (stats.isError)
      return <p className="text-muted-foreground text-xs">Could not load the figures: {errorText(stats.error)}</p>;
    return <Skeleton className="h-16 w-full" aria-hidden />;
  }
  const t = s.totals;
  const cap = assistant.dailySpendCapUsd;
  return (
    <div className="grid gap-2" data-testid="assistant-stats">
      <p className="text-muted-foreground text-xs">Last {ASSISTANT_STATS_DAYS} days</p>
      <dl className="grid grid-cols-3 gap-2">
        <Figure term="Calls" testId="assistant-stats-calls">
          {t.calls.toLocaleString()}
        </Figure>
        <Figure term="Cost" testId="assistant-stats-cost">
          {formatUsd(t.costUsd)}
        </Figure>
        <Figure term="p50">{formatMs(t.p50Ms)}</Figure>
        <Figure term="p95">{formatMs(t.p95Ms)}</Figure>
        <Figure term="Goal met">{formatRate(t.succeeded, t.judged)}</Figure>
      </dl>
      {cap !== null && (
        <p className="text-muted-foreground text-xs" data-testid="assistant-stats-today">
          Today {formatUsd(s.spentTodayUsd)} of the {formatUsd(cap)} daily cap
        </p>
      )}
      {s.days.length > 0 && (
        <Chart
          label={`Calls per day to ${assistant.name}`}
          summary={`${t.calls} calls in the last ${ASSISTANT_STATS_DAYS} days`}
          x={{ kind: "time", bucket: "day", values: s.days.map((d) => dayStart(d.day)) }}
          series={[{ label: "Calls", values: s.days.map((d) => d.calls), color: "primary" }]}
          height={110}
        />
      )}
    </div>
  );
}
