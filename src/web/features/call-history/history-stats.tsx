/**
 * The Call History screen's figures and charts for the filter: total, answered, answer-seizure ratio
 * (ASR), average call duration (ACD), calls per hour or day (answered vs missed) and per trunk.
 */
import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Chart } from "@/components/chart";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { errorText } from "@/lib/error-text";
import type { CdrStats } from "../../../shared/live";
import { formatDuration } from "../calls/format";

function StatTile({ title, value, caption }: { title: string; value: string; caption: string }) {
  return (
    <Card className="gap-1 py-4" role="group" aria-label={title} data-testid={`stat-${title}`}>
      <CardHeader className="px-4">
        <CardTitle className="font-medium text-muted-foreground text-sm">{title}</CardTitle>
      </CardHeader>
      <CardContent className="px-4">
        <div className="font-bold text-2xl tabular-nums" data-testid="stat-value">
          {value}
        </div>
        <p className="text-muted-foreground text-xs">{caption}</p>
      </CardContent>
    </Card>
  );
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(ratio === 0 || ratio === 1 ? 0 : 1)}%`;

function Tiles({ stats }: { stats: CdrStats }) {
  const missed = stats.total - stats.answered;
  return (
    <div className="grid grid-cols-1 gap-4 min-[400px]:grid-cols-2 lg:grid-cols-4">
      <StatTile title="Calls" value={stats.total.toLocaleString("en-US")} caption="In the range" />
      <StatTile
        title="Answered"
        value={stats.answered.toLocaleString("en-US")}
        caption={`${missed.toLocaleString("en-US")} missed, busy or failed`}
      />
      <StatTile
        title="ASR"
        value={stats.asr === null ? "—" : percent(stats.asr)}
        caption="Answer-seizure ratio: answered of all calls"
      />
      <StatTile
        title="Average call duration"
        value={stats.acdSec === null ? "—" : formatDuration(stats.acdSec)}
        caption="Talk time of answered calls"
      />
    </div>
  );
}

function ChartCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card className="min-w-0 gap-3 py-4">
      <CardHeader className="px-4">
        <CardTitle className="text-base">{title}</CardTitle>
      </CardHeader>
      <CardContent className="min-w-0 px-4">{children}</CardContent>
    </Card>
  );
}

function Charts({ stats }: { stats: CdrStats }) {
  const per = stats.bucket === "hour" ? "hour" : "day";
  const trunks = stats.byTrunk;
  return (
    <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
      <ChartCard title={`Calls per ${per}`}>
        <Chart
          label={`Calls per ${per}, answered and missed`}
          summary={`${stats.total} calls, ${stats.answered} answered`}
          x={{ kind: "time", bucket: stats.bucket, values: stats.series.map((b) => Date.parse(b.start)) }}
          series={[
            { label: "Answered", values: stats.series.map((b) => b.answered), color: "success" },
            { label: "Missed", values: stats.series.map((b) => b.missed), color: "destructive" },
          ]}
        />
      </ChartCard>
      <ChartCard title="Calls by trunk">
        {trunks.length === 0 ? (
          <p className="py-8 text-center text-muted-foreground text-sm">No calls in the range.</p>
        ) : (
          <Chart
            label="Calls by trunk, answered and missed"
            summary={`${trunks.length} ${trunks.length === 1 ? "trunk" : "trunks"}`}
            x={{ kind: "category", label: "Trunk", labels: trunks.map((t) => t.trunk ?? "Internal") }}
            series={[
              { label: "Answered", values: trunks.map((t) => t.answered), color: "success" },
              { label: "Missed", values: trunks.map((t) => t.total - t.answered), color: "destructive" },
            ]}
          />
        )}
      </ChartCard>
    </div>
  );
}

export function HistoryStats({ stats }: { stats: UseQueryResult<CdrStats> }) {
  if (stats.isPending) {
    return (
      <div
        role="status"
        aria-label="Loading figures"
        className="grid grid-cols-1 gap-4 min-[400px]:grid-cols-2 lg:grid-cols-4"
      >
        {[0, 1, 2, 3].map((i) => (
          <Skeleton key={i} className="h-24" />
        ))}
      </div>
    );
  }
  if (!stats.data) {
    return (
      <p role="alert" className="text-destructive text-sm">
        Could not load the figures: {errorText(stats.error)}
      </p>
    );
  }
  return (
    <section aria-label="Figures and charts" className="grid grid-cols-1 gap-4" data-testid="history-stats">
      <Tiles stats={stats.data} />
      <Charts stats={stats.data} />
    </section>
  );
}
