import { BULK_CSV_MAX_BYTES, bulkImportQuerySchema } from "../../shared/bulk-csv";
import { type RouteDef, route } from "../context";
import { download, json } from "../http";
import { importInboundRoutesCsv, inboundRoutesCsv } from "../inventory/bulk-csv/dids";
import { extensionsCsv, importExtensionsCsv } from "../inventory/bulk-csv/extensions";
import { importDetail } from "../inventory/bulk-csv/import";

/** A whole CSV text as a download, never cached. */
const csvDownload = (text: string, filename: string) =>
  download(new Blob([text]).stream(), { filename, contentType: "text/csv;charset=utf-8" });

const IMPORT_BODY = "The CSV file (UTF-8, at most 5 MB and 20,000 rows), first line the header";

/**
 * CSV in and out in FreePBX's Bulk Handler format (ADR 0038). Registered before the entities' own routes so
 * `export.csv` and `import` are never read as an `:id`.
 */
export const bulkCsvRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/extensions/export.csv",
    // It carries every SIP secret (FreePBX's format has them): operators, audited (ADR 0038).
    minRole: "operator",
    summary:
      "Every extension as a FreePBX Bulk Handler CSV (extension,name,description,tech,secret,…), SIP secrets included",
    audit: { action: "extension.export" },
    handler: ({ app }) => csvDownload(extensionsCsv(app), "extensions.csv"),
  }),
  route({
    method: "POST",
    path: "/api/extensions/import",
    summary:
      "Import a FreePBX Bulk Handler extensions CSV (body text/csv): with dryRun=true the per-row preview (new, changed, unchanged, invalid) saving nothing; without, applied in one transaction, all or nothing",
    bodyType: "text/csv",
    rawBody: IMPORT_BODY,
    maxBody: BULK_CSV_MAX_BYTES,
    query: bulkImportQuerySchema,
    publishes: ["extensions-updated"],
    audit: { action: "extension.import", omitBody: true, detail: importDetail },
    handler: async ({ app, req, query }) => json(await importExtensionsCsv(app, req.body, query.dryRun === "true")),
  }),
  route({
    method: "GET",
    path: "/api/inbound-routes/export.csv",
    summary: "Every inbound route as a FreePBX Bulk Handler DIDs CSV (description,extension,cidnum,destination,…)",
    audit: { action: "inbound-route.export" },
    handler: ({ app }) => csvDownload(inboundRoutesCsv(app), "dids.csv"),
  }),
  route({
    method: "POST",
    path: "/api/inbound-routes/import",
    summary:
      "Import a FreePBX Bulk Handler DIDs CSV (body text/csv): with dryRun=true the per-row preview saving nothing; without, applied in one transaction, all or nothing",
    bodyType: "text/csv",
    rawBody: IMPORT_BODY,
    maxBody: BULK_CSV_MAX_BYTES,
    query: bulkImportQuerySchema,
    publishes: ["routes-updated"],
    audit: { action: "inbound-route.import", omitBody: true, detail: importDetail },
    handler: async ({ app, req, query }) => json(await importInboundRoutesCsv(app, req.body, query.dryRun === "true")),
  }),
];
