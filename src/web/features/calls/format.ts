/** How calls read on the Active Calls and Call History screens. */
import type { CallDirection, CallParty } from "../../../shared/live";

/** `0:07`, `12:30`, `1:02:03`. */
export function formatDuration(totalSec: number): string {
  const sec = Math.max(0, Math.floor(totalSec));
  const h = Math.floor(sec / 3600);
  const m = Math.floor((sec % 3600) / 60);
  const s = String(sec % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Seconds from an ISO time to `now` (ms), never negative (the browser's clock may be behind the PBX's). */
export function secondsSince(iso: string, now: number): number {
  return Math.max(0, (now - Date.parse(iso)) / 1000);
}

/** "Alice Johnson (1001)", "1001", or "Unknown" for a party without number or name. */
export function partyText(p: CallParty): string {
  const number = p.number.trim();
  const name = p.name.trim();
  if (name && number && name !== number) return `${name} (${number})`;
  return name || number || "Unknown";
}

export const DIRECTION_LABELS: Record<CallDirection, string> = {
  inbound: "Inbound",
  outbound: "Outbound",
  internal: "Internal",
};
