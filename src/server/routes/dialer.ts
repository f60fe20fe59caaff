import { type RouteDef, route } from "../context";
import { json } from "../http";
import { dialerStatus, pushAllExtensions } from "../integrations/dialer";

export const dialerRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/dialer/status",
    summary:
      "Whether the web dialer push is configured (the web app skips its background push and shows a hint when not)",
    handler: ({ app }) => json(dialerStatus(app)),
  }),
  route({
    method: "POST",
    path: "/api/dialer/push-all",
    summary: "Send every extension's web-dialer config to the web dialer as signed webhooks",
    storesNothing: "Only sends to the outside web dialer; nothing in the console changes",
    audit: { action: "dialer.push-all" },
    handler: async ({ app }) => json(await pushAllExtensions(app)),
  }),
];
