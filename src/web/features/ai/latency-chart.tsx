/** A call's latency as a bar per turn, in the order spoken (the chart's hidden table gives each turn's milliseconds). */
import { Chart } from "@/components/chart";
import type { TurnLatency } from "../../../shared/ai/measures";

export function LatencyChart({ turns }: { turns: TurnLatency[] }) {
  const slowest = Math.max(...turns.map((t) => t.ms));
  return (
    <Chart
      label="Latency per turn (ms)"
      summary={`${turns.length} ${turns.length === 1 ? "turn" : "turns"}, the slowest ${slowest} ms`}
      x={{
        kind: "category",
        label: "Turn",
        // The turn's number: a time under each bar would crowd a call of many turns.
        labels: turns.map((_, i) => String(i + 1)),
      }}
      series={[{ label: "Latency (ms)", values: turns.map((t) => t.ms), color: "primary" }]}
      height={180}
    />
  );
}
