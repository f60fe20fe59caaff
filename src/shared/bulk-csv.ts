/**
 * CSV in and out in FreePBX's Bulk Handler format (extensions and DIDs / inbound routes; ADR 0038):
 * the column names both sides use, the import's query and its preview as the API returns it.
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";

export { BULK_CSV_MAX_BYTES, BULK_CSV_MAX_ROWS } from "./limits";

/**
 * The extension columns the console writes, in the Bulk Handler's order (Core's `bulkhandlerGetHeaders`:
 * extension, name, description, tech, then the device keywords such as secret, then user settings and
 * other modules' prefixed columns). `console_*` columns are the console's own fields; FreePBX ignores them.
 */
export const EXTENSION_CSV_COLUMNS = [
  "extension",
  "name",
  "description",
  "tech",
  "secret",
  "voicemail",
  "voicemail_enable",
  "voicemail_vmpwd",
  "voicemail_email",
  "console_position",
  "console_personal_phone",
] as const;

/**
 * The DID columns the console writes: the Bulk Handler's (description, extension = the DID, cidnum,
 * destination), then the rest of FreePBX's `incoming` row with the values Core gives a new route.
 */
export const DID_CSV_COLUMNS = [
  "description",
  "extension",
  "cidnum",
  "destination",
  "privacyman",
  "alertinfo",
  "ringing",
  "fanswer",
  "mohclass",
  "grppre",
  "delay_answer",
  "pricid",
  "pmmaxretries",
  "pmminlength",
  "reversal",
  "rvolume",
  "indication_zone",
] as const;

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
