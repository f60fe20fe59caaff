/**
 * Call transcripts: the voice bridge stores finished calls (with an API token), the console lists them
 * a page at a time (keyset on created_at, id; ADR 0033), filters them, exports them, opens one and
 * deletes them. Every filter runs in SQL with bound parameters (ADR 0041): the search matches
 * transcript text and summary case-insensitively in any script (a GLOB whose letters are classes of
 * their cases), phone number and extension as substrings.
 *
 * A call's post-call analysis (ADR 0071) lives on its log row (`ai_call_logs`, by call id): every read
 * joins it per transcript through the call id index, the search also finds its summary and field values,
 * and the exports carry it (the CSV with one column per field name the exported calls have).
 */
import { and, desc, eq, getTableColumns, gte, lt, or, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { z } from "zod";
import { aiCallLogs, callTranscripts, type TimedTurn } from "../../db/schema";
import { ANALYSIS_RESERVED_NAMES, type CallAnalysisResult, splitFieldFilter } from "../../shared/ai/analysis";
import {
  type CallTranscript,
  type callTranscriptSchema,
  TRANSCRIPT_PAGE_DEFAULT,
  TRANSCRIPT_PREVIEW_CHARS,
  type TranscriptFilter,
  type TranscriptPage,
  type TranscriptQuery,
} from "../../shared/ai/transcripts";
import { recordApiTokenUse } from "../accounts/tokens";
import { csvCell } from "../core/csv";
import type { Deps } from "../core/deps";
import { Conflict, NotFound } from "../core/errors";
import { parseId } from "../core/validate";
import { toTranscript } from "./records";

export type TranscriptInput = z.output<typeof callTranscriptSchema>;

/**
 * A GLOB pattern matching `text` anywhere, each letter as the class of its cases (`é` → `[éÉ]`), so the
 * match ignores case beyond ASCII (SQLite's LIKE and lower() fold ASCII only); GLOB's own `*`, `?` and
 * `[` are matched literally. It is a bound parameter like every other value.
 */
export function caseInsensitiveGlob(text: string): string {
  let pattern = "*";
  for (const c of text) {
    if (c === "*" || c === "?" || c === "[") {
      pattern += `[${c}]`;
      continue;
    }
    const cases = [...new Set([c, c.toLowerCase(), c.toUpperCase()])].filter((v) => [...v].length === 1);
    pattern += cases.length > 1 ? `[${cases.join("")}]` : c;
  }
  return `${pattern}*`;
}

const globAnywhere = (column: AnySQLiteColumn, text: string): SQL => sql`${column} GLOB ${caseInsensitiveGlob(text)}`;
const hasSubstring = (column: AnySQLiteColumn, text: string): SQL => sql`instr(${column}, ${text}) > 0`;

/** The transcript's call has an analysis for which `condition` (over `ai_call_logs`) holds. */
const analysed = (condition: SQL): SQL =>
  sql`exists (select 1 from ${aiCallLogs} where ${aiCallLogs.callId} = ${callTranscripts.callId} and ${aiCallLogs.analysis} is not null and ${condition})`;

/** The analysis's summary, or one of its text or number field values, matches the search. */
function analysisMatches(text: string): SQL {
  const pattern = caseInsensitiveGlob(text);
  return analysed(
    sql`(json_extract(${aiCallLogs.analysis}, '$.summary') GLOB ${pattern} or exists (select 1 from json_each(${aiCallLogs.analysis}, '$.fields') as f where f.type in ('text', 'integer', 'real') and f.value GLOB ${pattern}))`,
  );
}

/** `name=value`: the analysis field `name` is `value` (case-insensitive; booleans as true/false). */
function fieldIs(filter: string): SQL {
  const { name, value } = splitFieldFilter(filter);
  // The name is a field name (the shared filter's pattern), so the path is one member: `$.fields."name"`.
  const path = `$.fields."${name}"`;
  return analysed(
    sql`lower(case json_type(${aiCallLogs.analysis}, ${path}) when 'true' then 'true' when 'false' then 'false' else cast(json_extract(${aiCallLogs.analysis}, ${path}) as text) end) = lower(${value})`,
  );
}

/**
 * The search (blank matches all): text and summary case-insensitively, number and extension as substrings,
 * and the call's analysis (summary and field values).
 */
function searching(q: string | undefined): SQL | undefined {
  const text = q?.trim();
  if (!text) return undefined;
  return or(
    globAnywhere(callTranscripts.transcript, text),
    globAnywhere(callTranscripts.summary, text),
    hasSubstring(callTranscripts.phoneNumber, text),
    hasSubstring(callTranscripts.extensionId, text),
    analysisMatches(text),
  );
}

/** Every filter of the query as one WHERE condition (undefined: no filter), each value a bound parameter. */
function matching(filter: TranscriptFilter): SQL | undefined {
  const conditions = [
    searching(filter.q),
    filter.from ? gte(callTranscripts.createdAt, new Date(filter.from)) : undefined,
    filter.to ? lt(callTranscripts.createdAt, new Date(filter.to)) : undefined,
    filter.sentiment ? sql`lower(${callTranscripts.sentiment}) = lower(${filter.sentiment})` : undefined,
    filter.caller ? hasSubstring(callTranscripts.phoneNumber, filter.caller) : undefined,
    filter.assistant
      ? sql`exists (select 1 from ${aiCallLogs} where ${aiCallLogs.callId} = ${callTranscripts.callId} and ${aiCallLogs.assistantId} = ${filter.assistant})`
      : undefined,
    filter.field ? fieldIs(filter.field) : undefined,
  ].filter((c): c is SQL => c !== undefined);
  return conditions.length ? and(...conditions) : undefined;
}

const newestFirst = [desc(callTranscripts.createdAt), desc(callTranscripts.id)] as const;

/**
 * The call's analysis (its log row's JSON text) as a column of a transcript read; null when there is none. The
 * transcript's call id is named with its table: in a select list the query builder leaves columns unqualified,
 * and inside the subquery a bare `call_id` would be the log row's own.
 */
const analysisColumn = sql<
  string | null
>`(select ${aiCallLogs.analysis} from ${aiCallLogs} where ${aiCallLogs.callId} = ${sql.identifier("call_transcripts")}.${sql.identifier("call_id")} and ${aiCallLogs.analysis} is not null order by ${aiCallLogs.id} desc limit 1)`;

function parseAnalysis(text: string | null): CallAnalysisResult | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as CallAnalysisResult;
  } catch {
    return null;
  }
}

/** A transcript's row and its call's analysis. */
const transcriptColumns = { ...getTableColumns(callTranscripts), analysisJson: analysisColumn };
const withAnalysis = ({
  analysisJson,
  ...row
}: typeof callTranscripts.$inferSelect & { analysisJson: string | null }) =>
  toTranscript(row, parseAnalysis(analysisJson));

/** GET /api/ai/transcripts without `limit`/`cursor`: every (matching) transcript with its text, newest first. */
export const listTranscripts = (deps: Pick<Deps, "db">, query: TranscriptFilter = {}): CallTranscript[] =>
  deps.db
    .select(transcriptColumns)
    .from(callTranscripts)
    .where(matching(query))
    .orderBy(...newestFirst)
    .all()
    .map(withAnalysis);

/** The keyset of a page's last item: its creation time (ms) and id, which break ties. */
const cursorOf = (t: { createdAt: Date; id: number }) => `${t.createdAt.getTime()}.${t.id}`;

function olderThan(cursor: string | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const [ms, id] = cursor.split(".").map(Number) as [number, number];
  const at = new Date(ms);
  return or(lt(callTranscripts.createdAt, at), and(eq(callTranscripts.createdAt, at), lt(callTranscripts.id, id)));
}

const count = (deps: Pick<Deps, "db">, where?: SQL) =>
  deps.db.select({ n: sql<number>`count(*)` }).from(callTranscripts).where(where).get()?.n ?? 0;

/**
 * GET /api/ai/transcripts?limit=&cursor=&<filters>: `limit` matching transcripts older than the cursor, newest first,
 * each without its text but its first characters; with the counts for the screen's badge.
 */
export function pageTranscripts(deps: Pick<Deps, "db">, query: TranscriptQuery): TranscriptPage {
  const limit = query.limit ?? TRANSCRIPT_PAGE_DEFAULT;
  const search = matching(query);
  const { transcript: _text, ...listed } = getTableColumns(callTranscripts);
  const rows = deps.db
    .select({
      ...listed,
      preview: sql<string>`substr(${callTranscripts.transcript}, 1, ${TRANSCRIPT_PREVIEW_CHARS})`,
      analysisJson: analysisColumn,
    })
    .from(callTranscripts)
    .where(and(search, olderThan(query.cursor)))
    .orderBy(...newestFirst)
    .limit(limit + 1)
    .all();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const total = count(deps);
  return {
    items: page.map(({ analysisJson, ...r }) => ({
      ...r,
      analysis: parseAnalysis(analysisJson),
      createdAt: r.createdAt.toISOString(),
    })),
    nextCursor: rows.length > limit && last ? cursorOf(last) : null,
    total,
    matched: search ? count(deps, search) : total,
  };
}

const EXPORT_BATCH = 500;

/** The matching transcripts with their text, newest first, `EXPORT_BATCH` at a time (any number stays small in memory). */
function* exportBatches(deps: Pick<Deps, "db">, filter: TranscriptFilter): Generator<CallTranscript[]> {
  const where = matching(filter);
  let cursor: string | undefined;
  for (;;) {
    const rows = deps.db
      .select(transcriptColumns)
      .from(callTranscripts)
      .where(and(where, olderThan(cursor)))
      .orderBy(...newestFirst)
      .limit(EXPORT_BATCH)
      .all();
    if (rows.length) yield rows.map(withAnalysis);
    const last = rows[rows.length - 1];
    if (rows.length < EXPORT_BATCH || !last) return;
    cursor = cursorOf(last);
  }
}

/** A stream of the batches' text: `head`, each batch through `line`, `tail` (every pull enqueues or closes). */
function textStream<T>(
  batches: Generator<T[]>,
  parts: { head: string; line: (item: T, index: number) => string; tail: string },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let sent = 0;
  let headSent = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (done) return controller.close();
      if (!headSent) {
        headSent = true;
        controller.enqueue(encoder.encode(parts.head));
        return;
      }
      const next = batches.next();
      if (next.done) {
        done = true;
        controller.enqueue(encoder.encode(parts.tail));
        return;
      }
      controller.enqueue(encoder.encode(next.value.map((item) => parts.line(item, sent++)).join("")));
    },
    cancel() {
      batches.return(undefined);
    },
  });
}

export const TRANSCRIPT_CSV_COLUMNS = [
  "id",
  "created_at",
  "call_id",
  "phone_number",
  "extension",
  "direction",
  "duration_seconds",
  "sentiment",
  "summary",
  "keywords",
  "recording_url",
  "transcript",
  "analysis_summary",
  "analysis_success",
  "analysis_reason",
] as const;

/** The CSV's columns for analysis fields: `analysis_<name>`, at most this many names (the first by name). */
const EXPORT_FIELDS_MAX = 200;

/** The analysis field names the matching transcripts' calls have, sorted (the CSV's columns after the fixed ones). */
export function analysisFieldNames(deps: Pick<Deps, "db">, filter: TranscriptFilter): string[] {
  const where = matching(filter);
  const rows = deps.db.all<{ name: string }>(
    sql`select distinct f.key as name from ${callTranscripts} join ${aiCallLogs} on ${aiCallLogs.callId} = ${callTranscripts.callId}, json_each(${aiCallLogs.analysis}, '$.fields') as f where ${aiCallLogs.analysis} is not null${where ? sql` and ${where}` : sql``} order by name limit ${EXPORT_FIELDS_MAX}`,
  );
  // Reserved names are refused on save; a hand-written row with one would clash with the fixed columns.
  return rows.map((r) => r.name).filter((n) => !(ANALYSIS_RESERVED_NAMES as readonly string[]).includes(n));
}

const cellOf = (v: string | number | boolean | null | undefined): string | null =>
  v === null || v === undefined ? null : String(v);

/** One transcript as a CSV line (cells through `csvCell` of core/csv.ts: quoting, formula cells prefixed with `'`). */
function csvLine(t: CallTranscript, fieldNames: string[]): string {
  const a = t.analysis;
  const cells = [
    String(t.id),
    t.createdAt,
    t.callId,
    t.phoneNumber,
    t.extensionId,
    t.direction,
    t.duration === null ? null : String(t.duration),
    t.sentiment,
    t.summary,
    t.keywords.join("; "),
    t.recordingUrl,
    t.transcript,
    a?.summary ?? null,
    cellOf(a?.success),
    a ? a.reason || null : null,
    ...fieldNames.map((name) => cellOf(a?.fields[name])),
  ];
  return `${cells.map(csvCell).join(",")}\r\n`;
}

/**
 * GET /api/ai/transcripts/export.csv: a header line, then one line per matching transcript, newest first;
 * streamed. After the fixed columns, one `analysis_<name>` column per analysis field the calls have.
 */
export function transcriptCsvStream(deps: Pick<Deps, "db">, filter: TranscriptFilter) {
  const fieldNames = analysisFieldNames(deps, filter);
  const header = [...TRANSCRIPT_CSV_COLUMNS, ...fieldNames.map((n) => `analysis_${n}`)];
  return textStream(exportBatches(deps, filter), {
    head: `${header.map(csvCell).join(",")}\r\n`,
    line: (t) => csvLine(t, fieldNames),
    tail: "",
  });
}

/** GET /api/ai/transcripts/export.json: a JSON array of the matching transcripts (the detail's form), newest first; streamed. */
export const transcriptJsonStream = (deps: Pick<Deps, "db">, filter: TranscriptFilter) =>
  textStream(exportBatches(deps, filter), {
    head: "[",
    line: (t, i) => `${i ? "," : ""}\n${JSON.stringify(t)}`,
    tail: "\n]\n",
  });

/** One transcript with its whole text, or null when there is none with this id (the audit's before). */
export function findTranscript(deps: Pick<Deps, "db">, rawId: string | undefined): CallTranscript | null {
  const id = Number(rawId);
  if (!Number.isSafeInteger(id) || id < 1) return null;
  const row = deps.db.select(transcriptColumns).from(callTranscripts).where(eq(callTranscripts.id, id)).get();
  return row ? withAnalysis(row) : null;
}

/** GET /api/ai/transcripts/:id: one transcript with its whole text. */
export function getTranscript(deps: Pick<Deps, "db">, rawId: string | undefined): CallTranscript {
  const found = findTranscript(deps, String(parseId(rawId, "Transcript")));
  if (!found) throw new NotFound("Transcript");
  return found;
}

/**
 * Stores one call's transcript; a call id already stored is a conflict, so a retrying bridge stores it once.
 * `apiTokenId`: the token the bridge sent; its use is recorded only once the transcript is stored.
 */
export function storeTranscript(
  deps: Pick<Deps, "db" | "events" | "now">,
  /** `outcome` and `partial`: only the console's own sideband sets them (ADR 0042); `intent`, `ruleDecision` too (ADR 0043). */
  input: TranscriptInput & {
    outcome?: string | null;
    partial?: boolean;
    intent?: string | null;
    ruleDecision?: string | null;
    turns?: TimedTurn[];
  },
  apiTokenId?: number | null,
): CallTranscript {
  if (input.callId) {
    const clash = deps.db
      .select({ id: callTranscripts.id })
      .from(callTranscripts)
      .where(eq(callTranscripts.callId, input.callId))
      .get();
    if (clash)
      throw new Conflict(`A transcript for call ${input.callId} is already stored (#${clash.id})`, {
        callId: "A transcript for this call is already stored",
      });
  }
  const row = deps.db
    .insert(callTranscripts)
    .values({ ...input, createdAt: new Date(deps.now()) })
    .returning()
    .get();
  recordApiTokenUse(deps, apiTokenId);
  deps.events.publish({ type: "ai-transcripts-updated", data: { id: row.id, action: "created" } });
  return toTranscript(row);
}

export function deleteTranscript(deps: Pick<Deps, "db" | "events">, rawId: string | undefined): void {
  const id = parseId(rawId, "Transcript");
  const row = deps.db.select({ id: callTranscripts.id }).from(callTranscripts).where(eq(callTranscripts.id, id)).get();
  if (!row) throw new NotFound("Transcript");
  deps.db.delete(callTranscripts).where(eq(callTranscripts.id, id)).run();
  deps.events.publish({ type: "ai-transcripts-updated", data: { id, action: "deleted" } });
}
