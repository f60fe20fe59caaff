/**
 * An endpoint's device state and its words, without zod, so the web's list screens can show them
 * without loading the wire schemas (ADR 0046). `live.ts` re-exports these.
 */

/** An endpoint's device state (AMI `DeviceState` / `DeviceStateChange`), in the console's words. */
export const DEVICE_STATES = ["idle", "ringing", "in-use", "busy", "on-hold", "unavailable", "unknown"] as const;
export type DeviceState = (typeof DEVICE_STATES)[number];

export const DEVICE_STATE_LABELS: Record<DeviceState, string> = {
  idle: "Idle",
  ringing: "Ringing",
  "in-use": "In use",
  busy: "Busy",
  "on-hold": "On hold",
  unavailable: "Unavailable",
  unknown: "Unknown",
};
