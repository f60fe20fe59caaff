/**
 * The import of a Bulk Handler file, the same for every entity (ADR 0038): the file read as a table, each
 * row's verdict (new, changed, unchanged or invalid, from the entity's reading of the row), the preview,
 * and the one all-or-nothing apply.
 *
 * A preview saves nothing. The apply computes the same verdicts again inside ONE transaction (it never
 * trusts an earlier preview) and writes every new and changed row, or, when any row is invalid, nothing
 * at all; then it publishes the entity's one event. The audit records the counts (`importDetail`).
 */

import { BULK_CSV_MAX_ROWS, type ImportPreview, type ImportRow, type ImportVerdict } from "../../../shared/bulk-csv";
import type { WsEvent } from "../../../shared/ws-events";
import { type CsvTable, cellsOf, csvTable, readCsvStream, shapeProblem, unusedColumns } from "../../core/csv";
import type { Deps } from "../../core/deps";
import { Invalid } from "../../core/errors";
import type { DbOrTx } from "../numbers";

/** A row's verdict and, for new and changed rows, what to write. */
export interface RowPlan<Insert, Changes> {
  row: ImportRow;
  insert?: Insert;
  /** A changed record: its id and only the changed fields. */
  update?: { id: number; set: Changes };
}

/** One row read against its stored record: its problems (in the order the reason gives them), or its input. */
export type RowReading<Insert> = { problems: string[] } | { input: Insert };

/**
 * What one entity adds to the shared import: its columns, how a row reads, what it changes, and its
 * writes. Rows are matched to stored records by the `extension` column (an extension's number, a DID).
 */
export interface BulkImporter<Stored extends { id: number }, Insert, Changes> {
  /** What the file is, for a header without the required columns ("Bulk Handler extensions"). */
  kind: string;
  required: readonly string[];
  /** The columns it reads; every other column is ignored with a note. */
  used: readonly string[];
  /** The stored records by their key. */
  stored(db: DbOrTx): Map<string, Stored>;
  /** A row that fits the header; `seenOn` is the earlier line with the same key, if any. */
  read(
    cell: (name: string) => string | undefined,
    key: string,
    current: Stored | undefined,
    seenOn?: number,
  ): RowReading<Insert>;
  /** The fields a valid row changes of its stored record (none: unchanged), and their new values. */
  changes(input: Insert, current: Stored): { fields: string[]; set: Changes };
  /** A rule across rows, after every row is read: it may turn planned rows invalid. */
  refuse?(db: DbOrTx, plans: RowPlan<Insert, Changes>[]): void;
  /** Inserts new records, at most `INSERT_BATCH` at a time. */
  insert(db: DbOrTx, batch: Insert[]): void;
  update(db: DbOrTx, id: number, set: Changes): void;
  /** The one event of an apply that created or changed records. */
  event(created: number, updated: number): WsEvent;
}

const INSERT_BATCH = 500;

/**
 * Reads a Bulk Handler file from `body` (bounded by the transport's `maxBody` and here by its rows) and
 * answers the preview (`dryRun`, saves nothing) or the apply: the verdicts computed again in one
 * transaction, then every new and changed row written, or nothing when any row is invalid.
 */
export async function importCsv<Stored extends { id: number }, Insert, Changes>(
  deps: Pick<Deps, "db" | "events">,
  importer: BulkImporter<Stored, Insert, Changes>,
  body: ReadableStream<Uint8Array> | null,
  dryRun: boolean,
): Promise<ImportPreview> {
  const records = await readCsvStream(body, BULK_CSV_MAX_ROWS);
  const run = (db: DbOrTx) => {
    const table = csvTable(records, importer.required, importer.kind);
    const plans = planRows(db, importer, table);
    const rows = plans.map((p) => p.row);
    const ignored = unusedColumns(table, importer.used);
    const preview: ImportPreview = {
      rows,
      counts: countsOf(rows),
      ignoredColumns: ignored,
      notes: notesOf(ignored),
      applied: false,
    };
    if (dryRun) return preview;
    if (preview.counts.invalid > 0) refuseInvalid(rows);
    const inserts = plans.flatMap((p) => (p.insert ? [p.insert] : []));
    for (let i = 0; i < inserts.length; i += INSERT_BATCH) importer.insert(db, inserts.slice(i, i + INSERT_BATCH));
    for (const p of plans) if (p.update) importer.update(db, p.update.id, p.update.set);
    preview.applied = true;
    return preview;
  };
  if (dryRun) return run(deps.db);
  const preview = deps.db.transaction((tx) => run(tx));
  const { new: created, changed: updated } = preview.counts;
  if (created + updated > 0) deps.events.publish(importer.event(created, updated));
  return preview;
}

/** Each row's verdict against the stored records, in file order. */
function planRows<Stored extends { id: number }, Insert, Changes>(
  db: DbOrTx,
  importer: BulkImporter<Stored, Insert, Changes>,
  table: CsvTable,
): RowPlan<Insert, Changes>[] {
  const stored = importer.stored(db);
  const firstLine = new Map<string, number>();
  const plans: RowPlan<Insert, Changes>[] = [];
  for (const record of table.rows) {
    const cell = cellsOf(table, record);
    const key = (cell("extension") ?? "").trim();
    const row: ImportRow = { line: record.line, verdict: "invalid", extension: key };
    const plan: RowPlan<Insert, Changes> = { row };
    plans.push(plan);
    const shape = shapeProblem(table, record);
    if (shape) {
      row.reason = shape;
      continue;
    }
    const seenOn = firstLine.get(key);
    if (seenOn === undefined) firstLine.set(key, record.line);
    const current = stored.get(key);
    const reading = importer.read(cell, key, current, seenOn);
    if ("problems" in reading) {
      row.reason = reading.problems.join("; ");
      continue;
    }
    if (!current) {
      row.verdict = "new";
      plan.insert = reading.input;
      continue;
    }
    const { fields, set } = importer.changes(reading.input, current);
    if (fields.length === 0) row.verdict = "unchanged";
    else {
      row.verdict = "changed";
      row.changes = fields;
      plan.update = { id: current.id, set };
    }
  }
  importer.refuse?.(db, plans);
  return plans;
}

/** Every message of a failed parse, in field order, once each: an invalid row's reason. */
export function reasonOf(issues: readonly { message: string }[]): string {
  return [...new Set(issues.map((i) => i.message))].join("; ");
}

/** The audit line of an import: its counts. */
export function importDetail(answer: unknown): string | undefined {
  const p = answer as Partial<ImportPreview> | undefined;
  if (!p?.counts) return undefined;
  const c = p.counts;
  return `${p.applied ? "applied" : "preview"}: ${c.new} new, ${c.changed} changed, ${c.unchanged} unchanged, ${c.invalid} invalid`;
}

function notesOf(ignored: string[]): string[] {
  if (ignored.length === 0) return [];
  const shown = ignored.slice(0, 12).join(", ");
  const more = ignored.length > 12 ? ` and ${ignored.length - 12} more` : "";
  return [
    `${ignored.length} column${ignored.length === 1 ? "" : "s"} the console does not model ${ignored.length === 1 ? "is" : "are"} ignored (FreePBX keeps its own values): ${shown}${more}`,
  ];
}

function countsOf(rows: ImportRow[]): Record<ImportVerdict, number> {
  const counts = { new: 0, changed: 0, unchanged: 0, invalid: 0 };
  for (const r of rows) counts[r.verdict]++;
  return counts;
}

/** The apply's refusal when any row is invalid: nothing is saved (ADR 0038). */
function refuseInvalid(rows: ImportRow[]): never {
  const invalid = rows.filter((r) => r.verdict === "invalid");
  const first = invalid
    .slice(0, 3)
    .map((r) => `line ${r.line}: ${r.reason}`)
    .join("; ");
  throw new Invalid(
    `${invalid.length} row${invalid.length === 1 ? " is" : "s are"} invalid, so nothing was imported (${first}${invalid.length > 3 ? "; …" : ""})`,
  );
}
