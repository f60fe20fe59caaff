/**
 * CSV in and out in FreePBX's Bulk Handler format (extensions and DIDs / inbound routes; ADR 0038):
 * the import's limits, its query and its preview as the API returns it. The columns are the server's
 * (`src/server/inventory/bulk-csv/`): the DIDs' follow FreePBX's `incoming` defaults there.
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";

export { BULK_CSV_MAX_BYTES, BULK_CSV_MAX_ROWS } from "./limits";

/** `?dryRun=true`: the preview, saving nothing. Without it (or `false`) the import is applied. */
export const bulkImportQuerySchema = lazySchema(() =>
  z.object({
    dryRun: z.enum(["true", "false"], { error: "dryRun must be true or false" }).optional(),
  }),
);

export const importVerdicts = ["new", "changed", "unchanged", "invalid"] as const;
export type ImportVerdict = (typeof importVerdicts)[number];

export interface ImportRow {
  /** The line of the file the row starts on (the header is line 1). */
  line: number;
  verdict: ImportVerdict;
  /** Why the row is invalid (every problem, `; `-separated). */
  reason?: string;
  /** The fields a changed row changes (a secret is named, never shown). */
  changes?: string[];
  /** The row's number: the extension, or the DID for an inbound route ("" = calls without a DID). */
  extension: string;
}

export interface ImportPreview {
  rows: ImportRow[];
  counts: Record<ImportVerdict, number>;
  /** Columns of the file the console does not model: read and ignored (FreePBX's own settings). */
  ignoredColumns: string[];
  /** What the reader wants to know about the file as a whole (e.g. the ignored columns). */
  notes: string[];
  /** True when the rows were saved (the apply), false for a preview. */
  applied: boolean;
}
