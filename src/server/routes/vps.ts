import type { VpsStatus } from "../../shared/types";
import type { RouteDef } from "../context";
import { json } from "../http";

/**
 * GET /api/vps/status. Until a hosting API or host metrics are wired in, this
 * says so plainly: the dashboard shows "not configured", never invented numbers.
 */
export const vpsRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/vps/status",
    handler: () => {
      const body: VpsStatus = {
        configured: false,
        source: "none",
        message: "No hosting provider API is configured. Add it under API Settings.",
        status: null,
        ipAddress: null,
        hostname: null,
        cpu: null,
        memory: null,
        disk: null,
        metrics: null,
      };
      return json(body);
    },
  },
];
