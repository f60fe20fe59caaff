import { z } from "zod";

/** Events published on /ws?type=sync. Every mutation publishes one (spec section 7). */
export const wsEventTypes = [
  "extensions-updated",
  "trunks-updated",
  "routes-updated",
  "ptt-groups-updated",
  "sync-status",
] as const;

export type WsEventType = (typeof wsEventTypes)[number];

export const wsEventSchema = z.object({
  type: z.enum(wsEventTypes),
  data: z.unknown().optional(),
});

export type WsEvent = z.infer<typeof wsEventSchema>;

/** The sync topic every console socket subscribes to. */
export const WS_SYNC_TOPIC = "sync";
