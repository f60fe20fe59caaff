/**
 * Limits the web's screens need without the wire schemas that enforce them (no zod here, ADR 0046):
 * `jobs.ts` and `bulk-csv.ts` re-export these.
 */

/** GET /api/jobs: the default and largest `limit`. */
export const JOBS_LIST_DEFAULT = 10;
export const JOBS_LIST_MAX = 50;

/** The largest file a CSV import reads (the transport refuses a larger body with 413). */
export const BULK_CSV_MAX_BYTES = 5 * 1024 * 1024;
/** The most data rows a CSV import reads (more is a 400 with a message). */
export const BULK_CSV_MAX_ROWS = 20_000;
