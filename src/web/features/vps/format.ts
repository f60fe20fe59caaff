import { THRESHOLD_DESTRUCTIVE, THRESHOLD_WARNING } from "@/lib/constants";
import type { VpsStatus } from "../../../shared/vps";

/** Statuses that count as "online" for the power controls (the hosting API says "running"). */
const ONLINE = new Set(["online", "running"]);

export const isOnline = (status: string | null | undefined) => ONLINE.has((status ?? "").toLowerCase());

/** Uptime in seconds as "Nh Mm"; "N/A" when unknown. */
export function formatUptime(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return "N/A";
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${hours}h ${minutes}m`;
}

export type Level = "normal" | "warning" | "destructive";

/** Usage colouring: normal below 60 %, warning from 60 %, destructive from 80 % (lib/constants.ts). */
export function levelOf(percent: number): Level {
  if (percent >= THRESHOLD_DESTRUCTIVE) return "destructive";
  if (percent >= THRESHOLD_WARNING) return "warning";
  return "normal";
}

export const levelText: Record<Level, string> = {
  normal: "text-foreground",
  warning: "text-warning",
  destructive: "text-destructive",
};

export const levelBar: Record<Level, string> = {
  normal: "bg-primary",
  warning: "bg-warning",
  destructive: "bg-destructive",
};

export const formatPercent = (n: number) => `${Math.round(n * 10) / 10}%`;

export const formatRate = (mbps: number) => `${mbps.toFixed(2)} MB/s`;

export const SOURCE_LABEL: Record<VpsStatus["source"], string> = {
  hostinger: "Hostinger API",
  host: "this host (/proc)",
  none: "no source",
};
