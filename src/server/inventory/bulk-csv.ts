/**
 * CSV in and out in FreePBX's Bulk Handler format, for extensions and for DIDs (inbound routes); ADR 0038.
 *
 * - The reader is an RFC 4180 parser fed in chunks (a chunk may end anywhere: inside quotes, between CR
 *   and LF): quotes, doubled quotes, CRLF/LF/CR, a BOM, line breaks inside quoted fields. It is bounded:
 *   the transport refuses a body over 5 MB (413), the reader a file over 20,000 rows (400).
 * - Like Bulk Handler, the first row is the header, names lower-cased; columns are matched by name, so
 *   their order does not matter; columns the console does not model are read, ignored and named in the
 *   preview (never an error).
 * - Each row is validated with the same shared schema as the form (`extensionSchema`, `inboundRouteSchema`)
 *   and the number rule of `numbers.ts`, then given a verdict: new, changed (which fields), unchanged or
 *   invalid (why). A preview saves nothing. The apply computes the same verdicts again inside ONE
 *   transaction (it never trusts an earlier preview) and writes every new and changed row, or, when any
 *   row is invalid, nothing at all.
 * - Export cells go through the audit export's `csvCell` (quoting; a cell a spreadsheet would run as a
 *   formula gets a leading apostrophe, which the import takes off again).
 */

import { eq } from "drizzle-orm";
import type { z } from "zod";
import { extensions, inboundRoutes } from "../../db/schema";
import {
  BULK_CSV_MAX_ROWS,
  DID_CSV_COLUMNS,
  EXTENSION_CSV_COLUMNS,
  type ImportPreview,
  type ImportRow,
  type ImportVerdict,
} from "../../shared/bulk-csv";
import {
  type DestinationType,
  destinationString,
  destinationTypes,
  extensionSchema,
  inboundRouteSchema,
} from "../../shared/inventory";
import { byNumber } from "../../shared/sort";
import { csvCell } from "../accounts/audit";
import type { Deps } from "../core/deps";
import { Invalid } from "../core/errors";
import { newMailboxPin } from "../pbx/host/mailbox-pin";
import { INCOMING_DEFAULTS } from "../pbx/objects/ownership";
import { generateSecret } from "../secrets";
import { type DbOrTx, numberTakenMessage, takenNumbers } from "./numbers";

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
 * RFC 4180, fed in chunks. Lenient where spreadsheets are (like PHP's fgetcsv, which Bulk Handler uses):
 * a quote inside an unquoted field is a literal quote, text after a closing quote is kept, a lone CR ends
 * a line. Blank lines are skipped. More than `maxRecords` records is an `Invalid`.
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

  constructor(private readonly maxRecords = BULK_CSV_MAX_ROWS + 1) {}

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
    if (this.records.length >= this.maxRecords) {
      throw new Invalid(
        `The file has more than ${(this.maxRecords - 1).toLocaleString("en")} rows: split it into smaller files`,
      );
    }
    this.records.push({ line: this.rowLine, cells });
  }
}

/** Parses a whole text (tests, and anything already in memory). */
export function parseCsv(text: string, maxRows = BULK_CSV_MAX_ROWS): CsvRecord[] {
  const parser = new CsvParser(maxRows + 1);
  parser.push(text);
  return parser.end();
}

/** Reads a request body as CSV, chunk by chunk (UTF-8; the transport has already bounded its size). */
export async function readCsvStream(body: ReadableStream<Uint8Array> | null): Promise<CsvRecord[]> {
  const parser = new CsvParser();
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

/** What `csvCell` prefixes to a cell a spreadsheet would run as a formula; the import takes it off again. */
const PROTECTED = /^'[=+\-@\t\r]/;
const unprotect = (cell: string) => (PROTECTED.test(cell) ? cell.slice(1) : cell);

/** The file as header → cell per row: header names trimmed and lower-cased, cells unprotected. */
interface Table {
  /** Column name → index (the first of a name; an unnamed column is never looked up). */
  columns: Map<string, number>;
  header: string[];
  rows: CsvRecord[];
}

function tableOf(records: CsvRecord[], required: readonly string[], kind: string): Table {
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
      `The header has no ${missing.join(", ")} column: is this a Bulk Handler ${kind} file? Its first line must name the columns (${required.join(",")},…)`,
    );
  }
  return { columns, header, rows };
}

/** A row's cells by column name: `undefined` when the file has no such column. */
function cellsOf(table: Table, record: CsvRecord): (name: string) => string | undefined {
  return (name) => {
    const index = table.columns.get(name);
    if (index === undefined) return undefined;
    return unprotect(record.cells[index] ?? "");
  };
}

function shapeProblem(table: Table, record: CsvRecord): string | null {
  return record.cells.length === table.header.length
    ? null
    : `Has ${record.cells.length} cells, the header has ${table.header.length}`;
}

function ignoredOf(table: Table, used: readonly string[]): string[] {
  return table.header.filter((name) => name !== "" && !used.includes(name));
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

/** Every message of a failed parse, in field order, once each. */
function reasonOf(issues: readonly { message: string }[]): string {
  return [...new Set(issues.map((i) => i.message))].join("; ");
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

const TRUE_WORDS = new Set(["yes", "y", "true", "1", "on", "enabled"]);

// ─────────────────────────────────────────── writing ───────────────────────────────────────────

/**
 * One exported cell: through `csvCell` (quoting, formula protection), except a plain number such as the
 * DID +15551234567, which no spreadsheet runs and FreePBX must receive as it is.
 */
const exportCell = (value: string | null): string => (value && /^\+?\d+$/.test(value) ? value : csvCell(value));

const csvText = (header: readonly string[], rows: (string | null)[][]): string =>
  [header.join(","), ...rows.map((cells) => cells.map(exportCell).join(","))].map((l) => `${l}\r\n`).join("");

// ───────────────────────────────────────── extensions ─────────────────────────────────────────

type ExtensionRow = typeof extensions.$inferSelect;
type ExtensionInput = z.output<typeof extensionSchema>;

/** The columns an extension import reads; every other column is ignored with a note. */
const EXTENSION_USED: readonly string[] = EXTENSION_CSV_COLUMNS.filter((c) => c !== "voicemail_vmpwd");

/**
 * GET /api/extensions/export.csv: every extension in numeric order, with its SIP secret (FreePBX's own
 * export carries it, and its import without one would give every phone a new password; ADR 0038).
 */
export function extensionsCsv(deps: Pick<Deps, "db" | "box">): string {
  const rows = deps.db
    .select()
    .from(extensions)
    .all()
    .sort((a, b) => byNumber(a.extension, b.extension))
    .map((e) => [
      e.extension,
      e.name,
      e.name,
      "pjsip",
      deps.box.open(e.secret),
      e.voicemail ? "default" : "novm",
      e.voicemail ? "yes" : "",
      // FreePBX's Bulk Handler makes no mailbox without a PIN, and the console keeps none (ADR 0050): each
      // mailbox gets a new random one, which an import with --replace sets on an existing mailbox too.
      e.voicemail ? newMailboxPin(e.extension) : "",
      e.email,
      e.position,
      e.personalPhone,
    ]);
  return csvText(EXTENSION_CSV_COLUMNS, rows);
}

/** A row's verdict and, for new and changed rows, what to write. */
interface ExtensionPlan {
  row: ImportRow;
  /** A new extension (its secret, when the file gives none, is generated and sealed only by the apply). */
  insert?: ExtensionInput;
  /** A changed one: the changed fields (a new secret in clear until the apply seals it). */
  update?: { id: number; set: Partial<ExtensionInput> };
}

function planExtensions(db: DbOrTx, box: Deps["box"], records: CsvRecord[]): { plans: ExtensionPlan[]; table: Table } {
  const table = tableOf(records, ["extension", "name"], "extensions");
  const stored = new Map<string, ExtensionRow>(
    db
      .select()
      .from(extensions)
      .all()
      .map((e) => [e.extension, e]),
  );
  const firstLine = new Map<string, number>();
  const plans: ExtensionPlan[] = [];
  const newNumbers: string[] = [];

  for (const record of table.rows) {
    const cell = cellsOf(table, record);
    const number = (cell("extension") ?? "").trim();
    const row: ImportRow = { line: record.line, verdict: "invalid", extension: number };
    plans.push({ row });
    const shape = shapeProblem(table, record);
    if (shape) {
      row.reason = shape;
      continue;
    }
    const problems: string[] = [];
    const tech = (cell("tech") ?? "").trim().toLowerCase();
    if (tech !== "" && tech !== "pjsip") {
      problems.push(`Device technology ${tech} is not supported: the console deploys PJSIP extensions (tech pjsip)`);
    }
    if (number !== "") {
      const seen = firstLine.get(number);
      if (seen !== undefined) problems.push(`Extension ${number} is also on line ${seen}`);
      else firstLine.set(number, record.line);
    }
    const current = stored.get(number);
    // A column the file does not have keeps the stored value; an empty cell clears an optional field.
    const optional = (column: string, kept: string | null | undefined) => {
      const v = cell(column);
      return v === undefined ? (kept ?? null) : v;
    };
    const enable = cell("voicemail_enable")?.trim().toLowerCase();
    const mailbox = cell("voicemail")?.trim().toLowerCase();
    const voicemail =
      enable !== undefined && enable !== ""
        ? TRUE_WORDS.has(enable)
        : mailbox !== undefined && mailbox !== ""
          ? mailbox !== "novm"
          : enable !== undefined
            ? false
            : (current?.voicemail ?? false);
    // Bulk Handler's REGEN (or an empty cell): keep the stored secret, generate one for a new extension.
    const secretCell = cell("secret")?.trim() ?? "";
    const secret = secretCell === "" || secretCell === "REGEN" ? null : secretCell;
    const name = cell("name")?.trim() || cell("description")?.trim() || "";
    const parsed = extensionSchema.safeParse({
      extension: number,
      name,
      email: optional("voicemail_email", current?.email),
      position: optional("console_position", current?.position),
      personalPhone: optional("console_personal_phone", current?.personalPhone),
      voicemail,
      secret,
      ...(current ? { status: current.status } : {}),
    });
    if (!parsed.success) problems.push(reasonOf(parsed.error.issues));
    if (problems.length || !parsed.success) {
      row.reason = problems.join("; ");
      continue;
    }
    const input = parsed.data;
    if (!current) {
      row.verdict = "new";
      newNumbers.push(number);
      plans[plans.length - 1] = { row, insert: input };
      continue;
    }
    const set: Partial<ExtensionInput> = {};
    const changes: string[] = [];
    for (const field of ["name", "email", "position", "personalPhone", "voicemail"] as const) {
      if (input[field] !== current[field]) {
        (set as Record<string, unknown>)[field] = input[field];
        changes.push(field);
      }
    }
    if (input.secret !== null && input.secret !== box.open(current.secret)) {
      set.secret = input.secret;
      changes.push("secret");
    }
    if (changes.length === 0) row.verdict = "unchanged";
    else {
      row.verdict = "changed";
      row.changes = changes;
      plans[plans.length - 1] = { row, update: { id: current.id, set } };
    }
  }

  // The number rule (numbers.ts): a new extension may not take a PTT group's number.
  const taken = takenNumbers(db, newNumbers);
  if (taken.size) {
    for (const plan of plans) {
      if (plan.insert && taken.has(plan.row.extension)) {
        plan.row.verdict = "invalid";
        plan.row.reason = numberTakenMessage(db, plan.row.extension, "extension") ?? "Number already taken";
        plan.insert = undefined;
      }
    }
  }
  return { plans, table };
}

const INSERT_BATCH = 500;

/**
 * POST /api/extensions/import: the preview (`dryRun`, saves nothing), or the apply: the verdicts computed
 * again in one transaction, then every new and changed row written, or nothing when any row is invalid.
 */
export function importExtensionsCsv(
  deps: Pick<Deps, "db" | "events" | "box">,
  records: CsvRecord[],
  dryRun: boolean,
): ImportPreview {
  const run = (db: DbOrTx) => {
    const { plans, table } = planExtensions(db, deps.box, records);
    const rows = plans.map((p) => p.row);
    const ignored = ignoredOf(table, EXTENSION_USED);
    const preview: ImportPreview = {
      rows,
      counts: countsOf(rows),
      ignoredColumns: ignored,
      notes: notesOf(ignored),
      applied: false,
    };
    if (dryRun) return preview;
    if (preview.counts.invalid > 0) refuseInvalid(rows);
    const inserts = plans.flatMap((p) =>
      p.insert ? [{ ...p.insert, secret: deps.box.seal(p.insert.secret ?? generateSecret()) }] : [],
    );
    for (let i = 0; i < inserts.length; i += INSERT_BATCH) {
      db.insert(extensions)
        .values(inserts.slice(i, i + INSERT_BATCH))
        .run();
    }
    for (const p of plans) {
      if (!p.update) continue;
      const { secret, ...set } = p.update.set;
      db.update(extensions)
        .set(secret ? { ...set, secret: deps.box.seal(secret) } : set)
        .where(eq(extensions.id, p.update.id))
        .run();
    }
    preview.applied = true;
    return preview;
  };
  if (dryRun) return run(deps.db);
  const preview = deps.db.transaction((tx) => run(tx));
  const { new: created, changed: updated } = preview.counts;
  if (created + updated > 0) {
    deps.events.publish({ type: "extensions-updated", data: { action: "imported", created, updated } });
  }
  return preview;
}

// ──────────────────────────────────────── inbound routes ────────────────────────────────────────

type InboundRow = typeof inboundRoutes.$inferSelect;

/** The columns a DID import reads; the rest of FreePBX's `incoming` row is ignored with a note. */
const DID_USED: readonly string[] = ["description", "extension", "cidnum", "destination"];

/** What Core gives a new route in the `incoming` columns the console does not own, as the CSV's text. */
const INCOMING_DEFAULTS_TEXT: Record<string, string> = Object.fromEntries(
  Object.entries(INCOMING_DEFAULTS).map(([k, v]) => [k, String(v)]),
);

/**
 * A FreePBX destination (`context,exten,priority`, lower-cased as Bulk Handler does) as the console's
 * destination type and number, read through `destinationString` itself (its one definition), or null.
 */
export function parseDestination(value: string): { destinationType: DestinationType; destination: string } | null {
  const text = value.trim().toLowerCase();
  for (const type of destinationTypes) {
    const [before, after] = destinationString(type, "\u0000").split("\u0000") as [string, string];
    if (!text.startsWith(before) || !text.endsWith(after)) continue;
    const number = text.slice(before.length, text.length - after.length);
    if (/^\d+$/.test(number) && destinationString(type, number) === text) {
      return { destinationType: type, destination: number };
    }
  }
  return null;
}

/** GET /api/inbound-routes/export.csv: every inbound route as a Bulk Handler DID row. */
export function inboundRoutesCsv(deps: Pick<Deps, "db">): string {
  const rows = deps.db
    .select()
    .from(inboundRoutes)
    .all()
    .sort((a, b) => byNumber(a.didNumber ?? "", b.didNumber ?? ""))
    .map((r) => [
      r.description,
      r.didNumber ?? "",
      "",
      destinationString(r.destinationType, r.destination),
      ...DID_CSV_COLUMNS.slice(4).map((c) => INCOMING_DEFAULTS_TEXT[c] ?? ""),
    ]);
  return csvText(DID_CSV_COLUMNS, rows);
}

interface RoutePlan {
  row: ImportRow;
  insert?: typeof inboundRoutes.$inferInsert;
  update?: { id: number; set: Partial<typeof inboundRoutes.$inferInsert> };
}

function planInboundRoutes(db: DbOrTx, records: CsvRecord[]): { plans: RoutePlan[]; table: Table } {
  const table = tableOf(records, ["extension", "destination"], "DIDs");
  const stored = new Map<string, InboundRow>(
    db
      .select()
      .from(inboundRoutes)
      .all()
      .map((r) => [r.didNumber ?? "", r]),
  );
  const firstLine = new Map<string, number>();
  const plans: RoutePlan[] = [];
  for (const record of table.rows) {
    const cell = cellsOf(table, record);
    const did = (cell("extension") ?? "").trim();
    const row: ImportRow = { line: record.line, verdict: "invalid", extension: did };
    const plan: RoutePlan = { row };
    plans.push(plan);
    const shape = shapeProblem(table, record);
    if (shape) {
      row.reason = shape;
      continue;
    }
    const problems: string[] = [];
    const cid = (cell("cidnum") ?? "").trim();
    if (cid !== "") {
      problems.push(`Routes by caller ID (cidnum ${cid}) are not supported: the console routes by DID only`);
    }
    const seen = firstLine.get(did);
    if (seen !== undefined) {
      problems.push(`${did ? `DID ${did}` : "The route for calls without a DID"} is also on line ${seen}`);
    } else firstLine.set(did, record.line);
    const rawDestination = cell("destination") ?? "";
    const target = parseDestination(rawDestination);
    if (!target) {
      problems.push(
        rawDestination.trim() === ""
          ? "Destination is required"
          : `Destination ${rawDestination.trim()} is not one the console routes to (an extension, voicemail, queue or IVR, e.g. from-did-direct,1001,1)`,
      );
    }
    const current = stored.get(did);
    // Bulk Handler files often leave the description empty; the form needs one.
    const description = cell("description")?.trim() || (did ? `DID ${did}` : "Any DID");
    const parsed = inboundRouteSchema.safeParse({
      description,
      didNumber: did,
      ...(target ?? { destination: rawDestination.trim(), destinationType: "extension" }),
    });
    if (!parsed.success) {
      // An unreadable destination is said once, above.
      const issues = parsed.error.issues.filter((i) => target || !String(i.path[0]).startsWith("destination"));
      if (issues.length) problems.push(reasonOf(issues));
    }
    if (problems.length || !parsed.success) {
      row.reason = problems.join("; ");
      continue;
    }
    const input = parsed.data;
    if (!current) {
      row.verdict = "new";
      plan.insert = input;
      continue;
    }
    const set: Partial<typeof inboundRoutes.$inferInsert> = {};
    const changes: string[] = [];
    if (input.description !== current.description) {
      set.description = input.description;
      changes.push("description");
    }
    if (input.destinationType !== current.destinationType || input.destination !== current.destination) {
      set.destinationType = input.destinationType;
      set.destination = input.destination;
      changes.push("destination");
    }
    if (changes.length === 0) row.verdict = "unchanged";
    else {
      row.verdict = "changed";
      row.changes = changes;
      plan.update = { id: current.id, set };
    }
  }
  return { plans, table };
}

/** POST /api/inbound-routes/import: as `importExtensionsCsv`, for DIDs (matched by DID). */
export function importInboundRoutesCsv(
  deps: Pick<Deps, "db" | "events">,
  records: CsvRecord[],
  dryRun: boolean,
): ImportPreview {
  const run = (db: DbOrTx) => {
    const { plans, table } = planInboundRoutes(db, records);
    const rows = plans.map((p) => p.row);
    const ignored = ignoredOf(table, DID_USED);
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
    for (let i = 0; i < inserts.length; i += INSERT_BATCH) {
      db.insert(inboundRoutes)
        .values(inserts.slice(i, i + INSERT_BATCH))
        .run();
    }
    for (const p of plans) {
      if (p.update) db.update(inboundRoutes).set(p.update.set).where(eq(inboundRoutes.id, p.update.id)).run();
    }
    preview.applied = true;
    return preview;
  };
  if (dryRun) return run(deps.db);
  const preview = deps.db.transaction((tx) => run(tx));
  const { new: created, changed: updated } = preview.counts;
  if (created + updated > 0) {
    deps.events.publish({ type: "routes-updated", data: { kind: "inbound", action: "imported", created, updated } });
  }
  return preview;
}

/** The audit line of an import: its counts. */
export function importDetail(answer: unknown): string | undefined {
  const p = answer as Partial<ImportPreview> | undefined;
  if (!p?.counts) return undefined;
  const c = p.counts;
  return `${p.applied ? "applied" : "preview"}: ${c.new} new, ${c.changed} changed, ${c.unchanged} unchanged, ${c.invalid} invalid`;
}
