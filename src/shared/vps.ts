/** VPS management: the status the screen shows and the control request. */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";

/** GET /api/vps/status */
export interface VpsStatus {
  configured: boolean;
  /** Where the numbers come from: "hostinger", "host" (this machine's /proc) or "none". */
  source: "hostinger" | "host" | "none";
  message: string | null;
  status: string | null;
  ipAddress: string | null;
  hostname: string | null;
  cpu: number | null;
  memory: number | null;
  disk: number | null;
  metrics: {
    cpu: number;
    memory: number;
    disk: number;
    uptime: number;
    network: { in: number; out: number };
  } | null;
}

/** POST /api/vps/control body. */
export const vpsControlSchema = lazySchema(() =>
  z.object({
    action: z.enum(["start", "restart", "stop"], { error: "Action must be start, restart or stop" }),
  }),
);

export type VpsAction = z.output<typeof vpsControlSchema>["action"];

/** POST /api/vps/control answer. */
export interface VpsControlResult {
  success: boolean;
  message: string;
}
