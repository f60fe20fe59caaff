import { type RouteDef, route } from "../context";
import { json } from "../http";
import { dashboardSummary, SUMMARY_TABLES } from "../inventory/summary";

export const dashboardRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/dashboard/summary",
    summary:
      "The Dashboard's counts: extensions, trunks, inbound and outbound routes, PTT groups and AI assistants (with an ETag)",
    etag: SUMMARY_TABLES,
    handler: ({ app }) => json(dashboardSummary(app)),
  }),
];
