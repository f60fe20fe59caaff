import { auditFilterSchema, auditQuerySchema } from "../../shared/audit";
import { auditCsvStream, listAudit } from "../accounts/audit";
import { type RouteDef, route } from "../context";
import { download, json } from "../http";

/** The audit trail is read-only through the API: no route changes or deletes a row (a test checks). */
export const auditRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/audit",
    minRole: "admin",
    summary:
      "The audit trail, newest first: sign-ins, sign-outs, every change, deployment, credential, user and backup action (filters actor, action or action prefix, outcome, text; cursor paging)",
    query: auditQuerySchema,
    handler: ({ app, query }) => json(listAudit(app, query)),
  }),
  route({
    method: "GET",
    path: "/api/audit/export.csv",
    minRole: "admin",
    summary: "The filtered audit trail as CSV (a header line, then one line per entry, newest first; streamed)",
    query: auditFilterSchema,
    handler: ({ app, query }) =>
      download(auditCsvStream(app, query), {
        filename: "pbx-console-audit.csv",
        contentType: "text/csv;charset=utf-8",
      }),
  }),
];
