import { vpsControlSchema } from "../../shared/vps";
import { type RouteDef, route } from "../context";
import { json } from "../http";
import { controlVps, vpsStatus } from "../integrations/vps";

export const vpsRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/vps/status",
    summary: "The server's state and CPU, memory, disk and network use",
    handler: async ({ app }) => json(await vpsStatus(app)),
  }),
  route({
    method: "POST",
    path: "/api/vps/control",
    summary: "Start, stop or restart the server through the hosting provider",
    body: vpsControlSchema,
    publishes: ["vps-updated"],
    audit: { action: "vps.control" },
    handler: async ({ app, body }) => json(await controlVps(app, body.action)),
  }),
];
