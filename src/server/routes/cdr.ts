import { cdrFilterSchema, cdrPageQuerySchema, cdrStatsQuerySchema } from "../../shared/live";
import { type RouteDef, route } from "../context";
import { download, json } from "../http";

/**
 * The call history from FreePBX's call records (read-only; ADR 0027). No database configured is a 400
 * with the reason (no field messages); one that is down or too slow answers 503 with the reason.
 */
export const cdrRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/cdr",
    summary:
      "Call history, one item per call (legs grouped by linkedid; by uniqueid, with a notice, on a table without it), newest first: range (from inclusive, to exclusive, ISO 8601; default the last 7 days), search, disposition, direction, extension, trunk; cursor paging (a selective filter may give a short page with a cursor)",
    query: cdrPageQuerySchema,
    handler: async ({ app, query }) => json(await app.cdr.page(query)),
  }),
  route({
    method: "GET",
    path: "/api/cdr/stats",
    summary:
      "Call history charts over a range: calls per hour or day, answered and missed, per trunk, answer-seizure ratio and average talk time",
    query: cdrStatsQuerySchema,
    handler: async ({ app, query }) => json(await app.cdr.stats(query)),
  }),
  route({
    method: "GET",
    path: "/api/cdr/export.csv",
    summary: "The filtered call history as CSV (a header line, then one line per call, newest first; streamed)",
    query: cdrFilterSchema,
    audit: { action: "cdr.export" },
    handler: async ({ app, query }) =>
      download(await app.cdr.exportCsv(query), { filename: "call-history.csv", contentType: "text/csv;charset=utf-8" }),
  }),
  route({
    method: "GET",
    path: "/api/cdr/status",
    summary:
      "Where the call records database comes from (API Settings, /etc/freepbx.conf or none) and whether it answers",
    handler: async ({ app }) => json(await app.cdr.status()),
  }),
];
