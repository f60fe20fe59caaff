/**
 * Resource usage colouring on the dashboard: normal below 60 %, warning
 * from 60 to below 80 %, destructive from 80 % up. Pure, so it is unit-tested
 * without a browser (test/browser/dashboard-thresholds.test.ts).
 */
import { THRESHOLD_DESTRUCTIVE, THRESHOLD_WARNING } from "../../lib/constants";

export type UsageLevel = "normal" | "warning" | "destructive";

export function usageLevel(percent: number): UsageLevel {
  if (percent >= THRESHOLD_DESTRUCTIVE) return "destructive";
  if (percent >= THRESHOLD_WARNING) return "warning";
  return "normal";
}

/** Text colour of the percentage. */
export const USAGE_TEXT_CLASS: Record<UsageLevel, string> = {
  normal: "text-foreground",
  warning: "text-warning",
  destructive: "text-destructive",
};

/** Colours of the progress bar: its filled part and its track. */
export const USAGE_BAR_CLASS: Record<UsageLevel, { bar: string; track: string }> = {
  normal: { bar: "bg-primary", track: "bg-primary/20" },
  warning: { bar: "bg-warning", track: "bg-warning/20" },
  destructive: { bar: "bg-destructive", track: "bg-destructive/20" },
};

/**
 * The percentage as shown (one decimal at most) and as a bar value (0–100).
 * The level is taken from the shown number, so "60%" is never painted as normal.
 */
export function usageDisplay(percent: number): { text: string; value: number; level: UsageLevel } {
  const value = Math.min(100, Math.max(0, Math.round(percent * 10) / 10));
  return { text: `${value}%`, value, level: usageLevel(value) };
}

/** Caption under the numbers saying where they come from (VpsStatus.source). */
export function sourceCaption(source: "hostinger" | "host" | "none"): string | null {
  if (source === "host") return "from this host";
  if (source === "hostinger") return "from Hostinger";
  return null;
}
