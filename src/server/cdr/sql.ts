/**
 * The SQL the call history runs on FreePBX's `cdr` table, and the query's time range. Every value is a
 * parameter; the statement texts are fixed but for the number of `?` in an `IN (…)` list.
 *
 * Only `calldate` is indexed usefully (`linkedid` is not, and the console adds no index), so every
 * statement restricts `calldate` to a range first: a page walks the index downwards from its cursor over
 * the legs of each call's first channel (`uniqueid = linkedid`, or no `linkedid`), then reads the other
 * legs of those calls within their time span; the statistics group the legs of the range per call.
 *
 * Every statement is built for the table's shape (`table.ts`): a column the table lacks reads as its
 * empty value, and without `linkedid` a call is the legs of one `uniqueid` (each of them a first-channel
 * leg), so the same walk, statistics and rules serve a table of an older cdr module (ADR 0049).
 */
import type { CdrFilter } from "../../shared/live";
import { CDR_MAX_RANGE_DAYS } from "../../shared/live";
import { Invalid } from "../core/errors";
import { type CursorKey, fromLocalText, localText } from "./calls";
import type { CdrTable, OptionalColumn } from "./table";

const DAY_MS = 86_400_000;
export const DEFAULT_RANGE_DAYS = 7;
/** The widest range hourly buckets may cover. */
export const HOURLY_MAX_DAYS = 31;
/** Legs of a call are looked for this long before its first-channel legs and after their end. */
export const LEG_MARGIN_SEC = 3600;
/** …but never further than this after them (a leg that rang for a day is not worth a day of rows). */
export const LEG_SPAN_MAX_SEC = 26 * 3600;

/** The oldest `calldate` the console reads: FreePBX's default '1000-01-01' and zero dates are not calls. */
const EPOCH_FLOOR = "1970-01-02 00:00:00";

export interface Range {
  from: Date;
  to: Date;
  /** Local `YYYY-MM-DD HH:MM:SS` of `from` and `to`, compared with `calldate`. */
  fromText: string;
  toText: string;
}

/** An ISO time of a query: a date alone is local midnight (the PBX's day), a time without offset is local. */
function parseIso(value: string): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return fromLocalText(`${value} 00:00:00`) ?? new Date(Number.NaN);
  return new Date(value);
}

/** The range of a query: `from` inclusive, `to` exclusive; default the 7 days before now; at most 366 days. */
export function resolveRange(filter: Pick<CdrFilter, "from" | "to">, now: number): Range {
  const to = filter.to ? parseIso(filter.to) : new Date(now);
  const from = filter.from ? parseIso(filter.from) : new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
  if (Number.isNaN(from.getTime())) throw new Invalid("Check the range", { from: "From must be an ISO 8601 time" });
  if (Number.isNaN(to.getTime())) throw new Invalid("Check the range", { to: "To must be an ISO 8601 time" });
  if (to.getTime() <= from.getTime()) throw new Invalid("Check the range", { to: "To must be after From" });
  if (to.getTime() - from.getTime() > CDR_MAX_RANGE_DAYS * DAY_MS) {
    throw new Invalid("Check the range", { from: `The range covers at most ${CDR_MAX_RANGE_DAYS} days` });
  }
  const fromText = localText(from) < EPOCH_FLOOR ? EPOCH_FLOOR : localText(from);
  const toText = localText(to) < EPOCH_FLOOR ? EPOCH_FLOOR : localText(to);
  return { from, to, fromText, toText };
}

/** A local time text `seconds` later (or earlier); DST-safe (through the instant). */
export function shiftText(text: string, seconds: number): string {
  const d = fromLocalText(text);
  return d ? localText(new Date(d.getTime() + seconds * 1000)) : text;
}

// ---------------------------------------------------------------------------------------------------
// Shared pieces

/** A column the table may lack, or its empty value. */
const column = (t: CdrTable, c: OptionalColumn) => (t.has.has(c) ? c : c === "sequence" ? "0" : "''");

/** A row's call: its `linkedid`, or its own `uniqueid` without one (every row's, without the column). */
export const callIdSql = (t: CdrTable) =>
  t.has.has("linkedid") ? "IF(linkedid = '', uniqueid, linkedid)" : "uniqueid";
/** A leg of the call's first channel (every leg, when a call is the legs of one channel). */
export const originSql = (t: CdrTable) => (t.has.has("linkedid") ? "(uniqueid = linkedid OR linkedid = '')" : "TRUE");

/**
 * The columns every leg read selects (`calls.ts` `Leg`); the `calldate` as local text, under another
 * name: an alias `calldate` would be what `ORDER BY calldate` sorts by (a sort of the whole range by
 * text instead of a walk of the index).
 */
export function legColumns(t: CdrTable): string {
  const optional = (c: OptionalColumn) => (t.has.has(c) ? c : `${column(t, c)} AS ${c}`);
  return [
    "DATE_FORMAT(calldate, '%Y-%m-%d %H:%i:%s') AS calldate_text",
    `${callIdSql(t)} AS call_id`,
    `${originSql(t)} AS origin`,
    "clid",
    "src",
    "dst",
    "channel",
    "dstchannel",
    "duration",
    "billsec",
    "disposition",
    "uniqueid",
    optional("did"),
    optional("recordingfile"),
    optional("cnum"),
    optional("cnam"),
    optional("dst_cnam"),
    optional("sequence"),
  ].join(", ");
}

/** What the walk reads of a first-channel leg: its place (calldate, uniqueid), its call and its length. */
export const walkColumns = (t: CdrTable) =>
  [
    "DATE_FORMAT(calldate, '%Y-%m-%d %H:%i:%s') AS calldate_text",
    `${callIdSql(t)} AS call_id`,
    "uniqueid",
    "duration",
  ].join(", ");

/** `LIKE` text for "contains", with `%`, `_` and the escape character taken literally (`ESCAPE '!'`). */
export const containsPattern = (q: string) => `%${q.replace(/[!%_]/g, (c) => `!${c}`)}%`;

/** The first channel's numbers and names the search looks in: these three are in every table, the others when present. */
const Q_COLUMNS = ["src", "dst", "clid"];
const Q_OPTIONAL: readonly OptionalColumn[] = ["cnum", "cnam", "did", "dst_cnam"];

/** The search (`q`): any of the first channel's numbers and names contains it (case-insensitive by collation). */
export function searchSql(t: CdrTable, q: string | undefined): { sql: string; params: string[] } {
  if (!q) return { sql: "", params: [] };
  const pattern = containsPattern(q);
  const columns = [...Q_COLUMNS, ...Q_OPTIONAL.filter((c) => t.has.has(c))];
  return {
    sql: ` AND (${columns.map((c) => `${c} LIKE ? ESCAPE '!'`).join(" OR ")})`,
    params: columns.map(() => pattern),
  };
}

const placeholders = (n: number) => Array(n).fill("?").join(", ");

// ---------------------------------------------------------------------------------------------------
// Pages

/**
 * First-channel legs matching the search from `lower` (inclusive, a local time within the range) up to
 * the cursor, newest first: a backwards walk of the `calldate` index that stops after `limit` rows (and
 * at `lower`: one statement never reads more than that slice, however selective the search). Rows of one
 * second come in no particular order; the caller reads the last second again whole (`originSecondSql`).
 */
export function originPageSql(
  t: CdrTable,
  range: Range,
  q: string | undefined,
  cursor: CursorKey | null,
  limit: number,
  lower: string,
) {
  const search = searchSql(t, q);
  const params: unknown[] = [lower < range.fromText ? range.fromText : lower, range.toText];
  let sql = `SELECT ${walkColumns(t)} FROM cdr WHERE calldate >= ? AND calldate < ?`;
  if (cursor) {
    sql += " AND calldate <= ? AND (calldate < ? OR BINARY uniqueid < ?)";
    params.push(cursor.calldate, cursor.calldate, cursor.uniqueid);
  }
  sql += ` AND ${originSql(t)}${search.sql} ORDER BY calldate DESC LIMIT ${Math.floor(limit)}`;
  params.push(...search.params);
  return { sql, params };
}

/** Every first-channel leg of one second that a page walk would read (below the cursor when it is that second). */
export function originSecondSql(
  t: CdrTable,
  range: Range,
  q: string | undefined,
  cursor: CursorKey | null,
  second: string,
) {
  const search = searchSql(t, q);
  const params: unknown[] = [second, range.fromText, range.toText];
  let sql = `SELECT ${walkColumns(t)} FROM cdr WHERE calldate = ? AND calldate >= ? AND calldate < ?`;
  if (cursor && cursor.calldate === second) {
    sql += " AND BINARY uniqueid < ?";
    params.push(cursor.uniqueid);
  }
  sql += ` AND ${originSql(t)}${search.sql}`;
  params.push(...search.params);
  return { sql, params };
}

/**
 * Every leg of the given calls within [from, to] (local texts), with `scan_match`: whether the walk of
 * the page would read the leg (in range, first channel, matching the search), so a call is listed once,
 * at its newest such leg, whichever page reads its other legs.
 */
export function legsSql(
  t: CdrTable,
  range: Range,
  q: string | undefined,
  ids: readonly string[],
  from: string,
  to: string,
) {
  const search = searchSql(t, q);
  const ofCalls = t.has.has("linkedid")
    ? `(linkedid IN (${placeholders(ids.length)}) OR (linkedid = '' AND uniqueid IN (${placeholders(ids.length)})))`
    : `uniqueid IN (${placeholders(ids.length)})`;
  const sql =
    `SELECT ${legColumns(t)}, (calldate >= ? AND calldate < ? AND ${originSql(t)}${search.sql}) AS scan_match ` +
    `FROM cdr WHERE calldate >= ? AND calldate <= ? AND ${ofCalls}`;
  const idParams = t.has.has("linkedid") ? [...ids, ...ids] : ids;
  return { sql, params: [range.fromText, range.toText, ...search.params, from, to, ...idParams] };
}

// ---------------------------------------------------------------------------------------------------
// Statistics: the rules of `calls.ts` `buildCall`, per call, in SQL.

/** `\1` (the first group) whatever the server's backslash escaping (NO_BACKSLASH_ESCAPES). */
const GROUP_1 = "CONCAT(CHAR(92 USING ascii), '1')";

/**
 * The endpoint of a channel when it is a trunk by its name (not all digits; `calls.ts` `endpointOf` and
 * `isTrunk`), else '': one regular expression per row (the statistics read every leg of the range).
 */
export function namedTrunkSql(c: string): string {
  return `REGEXP_REPLACE(${c}, '(?s)^(?:(?:PJSIP|SIP|IAX2)/[0-9]+-[^-]+|(?:PJSIP|SIP|IAX2)/(.+)-[^-]+|.*)$', ${GROUP_1})`;
}

/** The all-digits endpoint of a channel, else '' (for the console's trunks with numeric names). */
function numericEndpointSql(c: string): string {
  return `REGEXP_REPLACE(${c}, '(?s)^(?:(?:PJSIP|SIP|IAX2)/([0-9]+)-[^-]+|.*)$', ${GROUP_1})`;
}

/** The trunk of a channel or NULL: a named one, or a numeric one the console has as a trunk. */
function trunkOfSql(c: string, numericTrunks: readonly string[]): { sql: string; params: string[] } {
  const named = `NULLIF(${namedTrunkSql(c)}, '')`;
  if (numericTrunks.length === 0) return { sql: named, params: [] };
  const numeric = numericEndpointSql(c);
  return {
    sql: `COALESCE(${named}, IF(${numeric} IN (${placeholders(numericTrunks.length)}), ${numeric}, NULL))`,
    params: [...numericTrunks],
  };
}

/** `calls.ts` `DISPOSITION_RANK` in SQL: 0 for an empty or odd value, 5 for ANSWERED. */
export const DISPOSITION_RANK_SQL =
  "FIELD(UPPER(TRIM(disposition)), 'CONGESTION', 'FAILED', 'BUSY', 'NO ANSWER', 'ANSWERED')";
const RANK_OF: Record<string, number> = { CONGESTION: 1, FAILED: 2, BUSY: 3, "NO ANSWER": 4, ANSWERED: 5 };

export interface StatsFilters {
  disposition?: string;
  direction?: "inbound" | "outbound" | "internal";
  extension?: string;
  trunk?: string;
}

/**
 * Calls of the range per bucket and trunk: total, answered, and the talk time of the answered ones.
 * One pass over the legs of the range (and `LEG_MARGIN_SEC` after it, for the later legs of calls that
 * started inside), grouped per call by sorting (`SQL_BIG_RESULT`: far faster than a temporary table with
 * hundreds of thousands of groups), the filters applied to the calls, then grouped per bucket and trunk.
 * `trunks`: the console's trunk names (only the all-digit ones matter: any other name is a trunk anyway).
 */
export function statsSql(
  t: CdrTable,
  range: Range,
  bucket: "hour" | "day",
  q: string | undefined,
  filters: StatsFilters,
  trunks: readonly string[],
) {
  const numericTrunks = trunks.filter((t) => /^[0-9]+$/.test(t));
  const search = searchSql(t, q);
  const origin = originSql(t);
  const inTrunk = trunkOfSql("channel", numericTrunks);
  const outTrunk = trunkOfSql("dstchannel", numericTrunks);
  // The earliest leg (by calldate, then name) with a trunk: 'YYYY-MM-DD HH:MM:SS' + name.
  const columns = [
    `${callIdSql(t)} AS call_id`,
    "MIN(calldate) AS start",
    `MAX(${DISPOSITION_RANK_SQL}) AS disp_rank`,
    "MAX(billsec) AS talk",
    `MAX(calldate < ? AND ${origin}${search.sql}) AS listed`,
    `MAX(${origin} AND ${column(t, "did")} <> '') AS dialled_in`,
    `MIN(CONCAT(calldate, ${inTrunk.sql})) AS in_trunk`,
    `MIN(CONCAT(calldate, ${outTrunk.sql})) AS out_trunk`,
  ];
  const params: unknown[] = [range.toText, ...search.params, ...inTrunk.params, ...outTrunk.params];

  const having = ["listed = 1"];
  const havingParams: unknown[] = [];
  if (filters.extension) {
    if (numericTrunks.includes(filters.extension)) having.push("FALSE");
    else {
      // The extension's own channel, as a pattern made of digits (the schema allows nothing else).
      columns.push(
        "MAX(channel REGEXP CONCAT('^(PJSIP|SIP|IAX2)/', ?, '-[^-]+$') OR dstchannel REGEXP CONCAT('^(PJSIP|SIP|IAX2)/', ?, '-[^-]+$')) AS has_extension",
      );
      params.push(filters.extension, filters.extension);
      having.push("has_extension = 1");
    }
  }
  if (filters.disposition) {
    having.push("disp_rank = ?");
    havingParams.push(RANK_OF[filters.disposition] ?? -1);
  }
  const inbound = "(dialled_in = 1 OR in_trunk IS NOT NULL)";
  if (filters.direction === "inbound") having.push(inbound);
  if (filters.direction === "outbound") having.push(`NOT ${inbound} AND out_trunk IS NOT NULL`);
  if (filters.direction === "internal") having.push(`NOT ${inbound} AND out_trunk IS NULL`);
  if (filters.trunk) {
    having.push("SUBSTRING(COALESCE(in_trunk, out_trunk), 20) = ?");
    havingParams.push(filters.trunk);
  }

  const perCall =
    `SELECT SQL_BIG_RESULT ${columns.join(", ")} FROM cdr WHERE calldate >= ? AND calldate < ? ` +
    `GROUP BY call_id HAVING ${having.join(" AND ")}`;
  const format = bucket === "hour" ? "%Y-%m-%d %H:00:00" : "%Y-%m-%d 00:00:00";
  const sql =
    "SELECT DATE_FORMAT(start, ?) AS bucket, SUBSTRING(COALESCE(in_trunk, out_trunk), 20) AS trunk, " +
    "COUNT(*) AS total, SUM(disp_rank = 5) AS answered, SUM(IF(disp_rank = 5, talk, 0)) AS talk " +
    `FROM (${perCall}) calls GROUP BY bucket, trunk`;
  return {
    sql,
    params: [format, ...params, range.fromText, shiftText(range.toText, LEG_MARGIN_SEC), ...havingParams],
  };
}
