/**
 * The one CSV tool: an RFC 4180 reader fed in chunks, a file's header as named columns, and the cell
 * writer every CSV export goes through. It knows nothing of what a file holds.
 *
 * - The reader takes a chunk that ends anywhere (inside quotes, between CR and LF): quotes, doubled
 *   quotes, CRLF/LF/CR, a BOM, line breaks inside quoted fields. It is bounded by a number of rows.
 * - A cell a spreadsheet would run as a formula is written with a leading apostrophe, which a table read
 *   back through `csvTable` takes off again.
 */

import { Invalid } from "./errors";

// ─────────────────────────────────────────── reading ───────────────────────────────────────────

/** One record of the file: its cells, and the line it starts on (1-based; the header is line 1). */
export interface CsvRecord {
  line: number;
  cells: string[];
}

const COMMA = 44;
const QUOTE = 34;
const CR = 13;
const LF = 10;

enum State {
  /** At the start of a field: a quote opens a quoted field. */
  FieldStart = 0,
  Unquoted = 1,
  Quoted = 2,
  /** Inside a quoted field, just after a quote: a second quote is a literal one, else the field closed. */
  QuoteInQuoted = 3,
}

/**
 * RFC 4180, fed in chunks. Lenient where spreadsheets are (like PHP's fgetcsv): a quote inside an
 * unquoted field is a literal quote, text after a closing quote is kept, a lone CR ends a line. Blank
 * lines are skipped. More than `maxRows` records after the header is an `Invalid`.
 */
export class CsvParser {
  private state = State.FieldStart;
  private field = "";
  private row: string[] = [];
  private records: CsvRecord[] = [];
  private bomChecked = false;
  /** The previous character was a CR ending a record: an LF right after it belongs to it. */
  private skipLf = false;
  /** Inside quotes, the previous character was a CR (so an LF after it is the same line break). */
  private quotedCr = false;
  private line = 1;
  private rowLine = 1;

  constructor(private readonly maxRows = Number.POSITIVE_INFINITY) {}

  push(chunk: string): void {
    const n = chunk.length;
    let i = 0;
    if (!this.bomChecked && n > 0) {
      this.bomChecked = true;
      if (chunk.charCodeAt(0) === 0xfeff) i = 1;
    }
    while (i < n) {
      if (this.skipLf) {
        this.skipLf = false;
        if (chunk.charCodeAt(i) === LF) {
          i++;
          continue;
        }
      }
      switch (this.state) {
        case State.FieldStart:
          if (chunk.charCodeAt(i) === QUOTE) {
            this.state = State.Quoted;
            i++;
          } else this.state = State.Unquoted;
          break;
        case State.Unquoted: {
          let j = i;
          while (j < n) {
            const c = chunk.charCodeAt(j);
            if (c === COMMA || c === CR || c === LF) break;
            j++;
          }
          this.field += chunk.slice(i, j);
          if (j < n) this.separator(chunk.charCodeAt(j));
          i = j + 1;
          break;
        }
        case State.Quoted: {
          let j = i;
          let cr = this.quotedCr;
          while (j < n) {
            const c = chunk.charCodeAt(j);
            if (c === QUOTE) break;
            if (c === CR || (c === LF && !cr)) this.line++;
            cr = c === CR;
            j++;
          }
          this.quotedCr = cr;
          this.field += chunk.slice(i, j);
          if (j < n) {
            this.state = State.QuoteInQuoted;
            this.quotedCr = false;
          }
          i = j + 1;
          break;
        }
        case State.QuoteInQuoted: {
          const c = chunk.charCodeAt(i);
          if (c === QUOTE) {
            this.field += '"';
            this.state = State.Quoted;
          } else if (c === COMMA || c === CR || c === LF) {
            this.separator(c);
          } else {
            this.field += chunk[i];
            this.state = State.Unquoted;
          }
          i++;
          break;
        }
      }
    }
  }

  /** The records read; throws when the file ends inside a quoted field. */
  end(): CsvRecord[] {
    if (this.state === State.Quoted) {
      throw new Invalid(`Line ${this.rowLine}: a quoted field is not closed (a " is missing)`);
    }
    if (this.state !== State.FieldStart || this.row.length > 0 || this.field !== "") {
      this.endField();
      this.endRecord();
    }
    return this.records;
  }

  private separator(c: number): void {
    this.endField();
    if (c === COMMA) return;
    this.endRecord();
    this.line++;
    this.rowLine = this.line;
    if (c === CR) this.skipLf = true;
  }

  private endField(): void {
    this.row.push(this.field);
    this.field = "";
    this.state = State.FieldStart;
  }

  private endRecord(): void {
    const cells = this.row;
    this.row = [];
    if (cells.length === 1 && cells[0] === "") return;
    // The header plus `maxRows` rows.
    if (this.records.length > this.maxRows) {
      throw new Invalid(
        `The file has more than ${this.maxRows.toLocaleString("en")} rows: split it into smaller files`,
      );
    }
    this.records.push({ line: this.rowLine, cells });
  }
}

/** Parses a whole text (tests, and anything already in memory). */
export function parseCsv(text: string, maxRows?: number): CsvRecord[] {
  const parser = new CsvParser(maxRows);
  parser.push(text);
  return parser.end();
}

/** Reads a stream (a request body) as CSV, chunk by chunk, in UTF-8; the caller has bounded its size. */
export async function readCsvStream(body: ReadableStream<Uint8Array> | null, maxRows?: number): Promise<CsvRecord[]> {
  const parser = new CsvParser(maxRows);
  if (body) {
    // Decoded chunk by chunk; `stream: true` keeps a character split between chunks whole.
    const decoder = new TextDecoder();
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode());
  }
  return parser.end();
}

// ─────────────────────────────────────────── the header ───────────────────────────────────────────

/** A file as its header and rows: columns are found by name, so their order does not matter. */
export interface CsvTable {
  /** The header's names, trimmed and lower-cased. */
  header: string[];
  /** Column name → index (an unnamed column is never looked up). */
  columns: Map<string, number>;
  rows: CsvRecord[];
}

/**
 * The first record as the header, which must name every `required` column (once each); `kind` says
 * in the refusal what file was expected ("is this a <kind> file?").
 */
export function csvTable(records: CsvRecord[], required: readonly string[], kind: string): CsvTable {
  const [first, ...rows] = records;
  if (!first) throw new Invalid(`The file is empty: its first line must be the header (${required.join(",")},…)`);
  const header = first.cells.map((h) => h.trim().toLowerCase());
  const columns = new Map<string, number>();
  header.forEach((name, index) => {
    if (name === "") return;
    if (columns.has(name)) throw new Invalid(`Column ${name} appears twice in the header`);
    columns.set(name, index);
  });
  const missing = required.filter((c) => !columns.has(c));
  if (missing.length) {
    throw new Invalid(
      `The header has no ${missing.join(", ")} column: is this a ${kind} file? Its first line must name the columns (${required.join(",")},…)`,
    );
  }
  return { columns, header, rows };
}

/** What `csvCell` prefixes to a cell a spreadsheet would run as a formula. */
const PROTECTED = /^'[=+\-@\t\r]/;

/** A row's cells by column name, as `csvCell` was given them: `undefined` when the file has no such column. */
export function cellsOf(table: CsvTable, record: CsvRecord): (name: string) => string | undefined {
  return (name) => {
    const index = table.columns.get(name);
    if (index === undefined) return undefined;
    const cell = record.cells[index] ?? "";
    return PROTECTED.test(cell) ? cell.slice(1) : cell;
  };
}

/** Why a row does not fit the header (every row must have as many cells as the header has), or null. */
export function shapeProblem(table: CsvTable, record: CsvRecord): string | null {
  return record.cells.length === table.header.length
    ? null
    : `Has ${record.cells.length} cells, the header has ${table.header.length}`;
}

/** The header's named columns that are not in `used`, in file order. */
export function unusedColumns(table: CsvTable, used: readonly string[]): string[] {
  return table.header.filter((name) => name !== "" && !used.includes(name));
}

// ─────────────────────────────────────────── writing ───────────────────────────────────────────

/**
 * One CSV cell: quoted when it holds a comma, quote or line break; a text a spreadsheet would run as a
 * formula (starting with = + - @, tab or CR) gets a leading apostrophe (usernames and labels are typed by people).
 */
export function csvCell(value: string | null): string {
  if (value === null) return "";
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * As `csvCell`, but a plain number (+15551234567) goes out as it is: no spreadsheet runs it, and a system
 * that reads the file back must receive it unchanged.
 */
export const csvCellNumbersAsIs = (value: string | null): string =>
  value && /^\+?\d+$/.test(value) ? value : csvCell(value);

/** A whole file: the header's names as they are, then each row's cells through `cell`; CRLF line ends. */
export function csvText(
  header: readonly string[],
  rows: (string | null)[][],
  cell: (value: string | null) => string = csvCell,
): string {
  return [header.join(","), ...rows.map((cells) => cells.map(cell).join(","))].map((l) => `${l}\r\n`).join("");
}
