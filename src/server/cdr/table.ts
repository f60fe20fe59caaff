/**
 * The shape of FreePBX's `cdr` table: which of the columns the history reads it has. FreePBX's cdr module
 * added columns over the years (`did`, `recordingfile`, the caller ID ones, later `linkedid`, `peeraccount`
 * and `sequence`), and a table an older module created keeps its old shape until the module upgrades it.
 * `sql.ts` reads an empty value for a column the table lacks; without `linkedid` the legs of one channel
 * (`uniqueid`) are a call and every answer carries a notice that says so (ADR 0049). Without `sequence`,
 * the legs of a call are ordered by `calldate`, then `uniqueid`.
 */
import type { CdrGrouping, CdrGroupingNote } from "../../shared/live";
import type { CdrSession } from "../clients/cdr-db";

/** The columns the history reads that a table of an older cdr module may lack. */
export const OPTIONAL_COLUMNS = ["did", "recordingfile", "cnum", "cnam", "dst_cnam", "linkedid", "sequence"] as const;
export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];

export const NO_LINKEDID_NOTICE =
  "This call records table has no linkedid column (an older FreePBX cdr module): the legs of each calling " +
  "channel are shown as one call, so a transferred or queued call may show as several.";

export interface CdrTable extends CdrGroupingNote {
  /** The optional columns the table has. */
  has: ReadonlySet<OptionalColumn>;
}

/** The table's shape from its column names (any case). */
export function cdrTable(columns: Iterable<string>): CdrTable {
  const names = new Set([...columns].map((c) => c.toLowerCase()));
  const has = new Set(OPTIONAL_COLUMNS.filter((c) => names.has(c)));
  const grouping: CdrGrouping = has.has("linkedid") ? "linkedid" : "uniqueid";
  return { has, grouping, notice: grouping === "linkedid" ? null : NO_LINKEDID_NOTICE };
}

/**
 * Reads the columns of `cdr` (`SHOW COLUMNS`: a table that is missing or cannot be read fails here with
 * the same error a SELECT would, and a view of it answers too).
 */
export async function readCdrTable(db: CdrSession): Promise<CdrTable> {
  const rows = await db.query("SHOW COLUMNS FROM cdr");
  return cdrTable(rows.map((r) => String(r.Field ?? r.field ?? "")));
}

/** The grouping and notice of an answer. */
export const groupingNote = (t: CdrTable): CdrGroupingNote => ({ grouping: t.grouping, notice: t.notice });
