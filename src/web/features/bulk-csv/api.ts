/** CSV in and out in FreePBX's Bulk Handler format (ADR 0038): the export links, the import's preview and apply. */
import { RawBody, sendJson } from "@/lib/api";
import { type MutationUi, useApiMutation } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import type { ImportPreview } from "../../../shared/bulk-csv";

/** What can be exported and imported: extensions, or inbound routes (FreePBX's DIDs). */
export type BulkCsvKind = "extensions" | "inbound-routes";

/** GET /api/<kind>/export.csv (a plain link: the session cookie goes with it). */
export const bulkExportUrl = (kind: BulkCsvKind) => `/api/${kind}/export.csv`;

const importUrl = (kind: BulkCsvKind, dryRun: boolean) => `/api/${kind}/import${dryRun ? "?dryRun=true" : ""}`;

/** The preview of a file: every row's verdict; the server saves nothing. */
export function useImportPreview(kind: BulkCsvKind, ui: MutationUi<ImportPreview, string> = {}) {
  return useApiMutation({
    mutationFn: (text: string) => sendJson<ImportPreview>("POST", importUrl(kind, true), new RawBody(text, "text/csv")),
    invalidates: [],
    ...ui,
  });
}

/** The apply: the server checks every row again and saves all of them, or none when any is invalid. */
export function useApplyImport(kind: BulkCsvKind, ui: MutationUi<ImportPreview, string> = {}) {
  return useApiMutation({
    mutationFn: (text: string) =>
      sendJson<ImportPreview>("POST", importUrl(kind, false), new RawBody(text, "text/csv")),
    invalidates: [kind === "extensions" ? queryKeys.extensions : queryKeys.inboundRoutes, queryKeys.dashboardSummary],
    ...ui,
  });
}
