/**
 * A small bar chart on uPlot (canvas; ADR 0027): created and destroyed in an effect, sized to its
 * container by a ResizeObserver, coloured from the theme's CSS variables (redrawn when the theme
 * changes). The canvas is one image with an accessible name; a visually hidden table carries the
 * numbers for screen readers.
 */
import { useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { cn } from "@/lib/utils";

/** A theme colour by its CSS variable name (`--success` → "success"). */
export type ChartColor = "primary" | "success" | "destructive" | "warning" | "muted-foreground";

export interface ChartSeries {
  label: string;
  values: number[];
  color: ChartColor;
}

export type ChartX =
  /** Buckets of time: `values` are the buckets' starts in ms since the epoch. */
  | { kind: "time"; values: number[]; bucket: "hour" | "day"; label?: string }
  /** Named groups (e.g. trunks), one bar each. */
  | { kind: "category"; labels: string[]; label: string };

export interface ChartProps {
  /** The chart's accessible name and the hidden table's caption, e.g. "Calls per day". */
  label: string;
  x: ChartX;
  /** One or two series (two are drawn side by side). */
  series: ChartSeries[];
  /** One sentence read before the table, e.g. "120 calls, 96 answered". */
  summary?: string;
  height?: number;
  className?: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A bucket's start as the hidden table and the hover legend write it. */
function formatTime(ms: number, bucket: "hour" | "day"): string {
  const d = new Date(ms);
  return bucket === "day"
    ? d.toLocaleDateString(undefined, { weekday: "short", month: "short", day: "numeric" })
    : d.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

function xLabels(x: ChartX): string[] {
  return x.kind === "time" ? x.values.map((v) => formatTime(v, x.bucket)) : x.labels;
}

/** The current value of a theme variable (oklch(…) works as a canvas colour). */
function themeColor(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(`--${name}`).trim();
  return value || fallback;
}

/** Flips when the `dark` class on <html> changes, so the chart redraws in the new colours. */
function useDarkTheme(): boolean {
  const [dark, setDark] = useState(() => document.documentElement.classList.contains("dark"));
  useEffect(() => {
    const root = document.documentElement;
    const observer = new MutationObserver(() => setDark(root.classList.contains("dark")));
    observer.observe(root, { attributes: true, attributeFilter: ["class"] });
    return () => observer.disconnect();
  }, []);
  return dark;
}

/** Shortens a category name under its bar. */
const short = (s: string) => (s.length > 12 ? `${s.slice(0, 11)}…` : s);

function buildOptions(x: ChartX, series: ChartSeries[], width: number, height: number): uPlot.Options {
  const axisColor = themeColor("muted-foreground", "#888");
  const gridColor = themeColor("border", "#8884");
  const font = "12px system-ui, sans-serif";
  const pair = series.length > 1;
  const bars = uPlot.paths.bars;
  const stepSec = x.kind === "time" ? (x.bucket === "day" ? DAY_MS : HOUR_MS) / 1000 : 1;
  const labels = xLabels(x);
  const xAxis: uPlot.Axis = {
    stroke: axisColor,
    font,
    grid: { show: false },
    ticks: { stroke: gridColor, width: 1, size: 4 },
  };
  if (x.kind === "category") {
    xAxis.splits = () => x.labels.map((_, i) => i);
    xAxis.values = (_u, splits) => splits.map((i) => short(x.labels[i] ?? ""));
  }
  return {
    width,
    height,
    legend: { show: true, live: true },
    cursor: { drag: { x: false, y: false }, points: { show: false } },
    scales: {
      x: {
        time: x.kind === "time",
        // Half a bucket on each side, so the first and last bars are whole.
        range: (_u, min, max) => [min - stepSec / 2, max + stepSec / 2],
      },
      y: { range: (_u, _min, max) => [0, max > 0 ? Math.ceil(max * 1.1) : 1] },
    },
    axes: [
      xAxis,
      {
        stroke: axisColor,
        font,
        size: 44,
        grid: { stroke: gridColor, width: 1 },
        ticks: { show: false },
        // Whole numbers only: these are counts.
        values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? v.toLocaleString() : "")),
      },
    ],
    series: [
      {
        label: x.kind === "time" ? (x.label ?? "Time") : x.label,
        value: (_u, _v, _s, idx) => (idx === null ? "—" : (labels[idx] ?? "—")),
      },
      ...series.map(
        (s, i): uPlot.Series => ({
          label: s.label,
          stroke: themeColor(s.color, "#888"),
          fill: themeColor(s.color, "#888"),
          width: 0,
          points: { show: false },
          paths: bars?.({ size: [pair ? 0.4 : 0.7, 48], align: pair ? (i === 0 ? -1 : 1) : 0 }),
          value: (_u, v) => (v === null ? "—" : v.toLocaleString()),
        }),
      ),
    ],
  };
}

export function Chart({ label, x, series, summary, height = 220, className }: ChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const dark = useDarkTheme();
  // The effect rebuilds the chart only when what it shows changes (props are rebuilt every render).
  const spec = JSON.stringify({ x, series, height });

  // biome-ignore lint/correctness/useExhaustiveDependencies: `spec` stands for x, series and height; `dark` redraws in the theme's colours
  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const xs = x.kind === "time" ? x.values.map((v) => v / 1000) : x.labels.map((_, i) => i);
    const data: uPlot.AlignedData = [xs, ...series.map((s) => s.values)];
    const plot = new uPlot(buildOptions(x, series, Math.max(el.clientWidth, 120), height), data, el);
    const resize = new ResizeObserver(() => {
      const width = Math.max(el.clientWidth, 120);
      if (width !== plot.width) plot.setSize({ width, height });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [spec, dark]);

  const labels = xLabels(x);
  const xHeading = x.kind === "time" ? (x.label ?? (x.bucket === "day" ? "Day" : "Hour")) : x.label;
  return (
    <figure className={cn("relative grid min-w-0 gap-2", className)} data-testid="chart" data-chart={label}>
      <div
        ref={container}
        role="img"
        aria-label={summary ? `${label}. ${summary}` : label}
        className="w-full min-w-0 overflow-hidden text-foreground"
      />
      {/* A table ignores a 1 px width: the hidden box is a div around it. */}
      <div className="sr-only">
        <table data-testid="chart-data">
          <caption>
            {label}
            {summary ? `. ${summary}` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">{xHeading}</th>
              {series.map((s) => (
                <th key={s.label} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((l, i) => (
              // Bucket labels can repeat (two hours that format alike): the index keeps keys unique.
              // biome-ignore lint/suspicious/noArrayIndexKey: the rows are the buckets in order
              <tr key={`${l}-${i}`}>
                <th scope="row">{l}</th>
                {series.map((s) => (
                  <td key={s.label}>{s.values[i] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
