/** How a target's off-site copies stand, in words: the Settings card and the Dashboard say it alike. */
import type { BackupTarget } from "../../../shared/offsite-backups";

/** A copy older than this (or a failed last try) shows as a warning. */
export const OFFSITE_STALE_MS = 2 * 24 * 60 * 60 * 1000;

export type TargetHealth = "ok" | "stale" | "failed" | "never";

/** Failed: the newest try failed. Stale: the last good copy of the database is older than two days. */
export function targetHealth(t: BackupTarget, now: number): TargetHealth {
  if (t.lastUpload?.state === "failed") return "failed";
  if (!t.lastSuccessAt) return "never";
  return now - Date.parse(t.lastSuccessAt) > OFFSITE_STALE_MS ? "stale" : "ok";
}

/** "just now", "12 min ago", "5 h ago", "3 days ago". */
export function ageText(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

export const HEALTH_TEXT: Record<TargetHealth, string> = {
  ok: "Up to date",
  stale: "Older than 2 days",
  failed: "Last upload failed",
  never: "No copy yet",
};

/** A byte count in the unit that reads best. */
export function sizeText(bytes: number | null): string {
  if (bytes === null) return "";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
