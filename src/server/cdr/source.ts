/**
 * FreePBX's call records (`asteriskcdrdb.cdr` in MariaDB), read-only: the call history's pages,
 * statistics and export. Where the database is comes from `settings.ts` (read again on every call; the
 * pool is rebuilt when it changes), the connection itself (pool, read-only session, limits, failure
 * wording) is the client `clients/cdr-db.ts`, and every statement is built for the table's shape
 * (`table.ts`, read once per source).
 *
 * Read-only: the database user may write, so every session is `SET SESSION TRANSACTION READ ONLY` before
 * its first statement (a write fails with MariaDB's error 1792), and only SELECTs (and `SHOW COLUMNS`) are
 * sent. Bounded: a pool of 3 connections, a connect timeout, a per-statement limit on the server
 * (`max_statement_time`) and a deadline here for a server that stops answering. Failures are `Unavailable`
 * (503) with a reason that never carries the password. ADR 0027, ADR 0049.
 */
import type { SQL } from "bun";
import { trunks as trunkTable } from "../../db/schema";
import {
  CDR_PAGE_DEFAULT,
  type CdrCall,
  type CdrFilter,
  type CdrPage,
  type CdrPageQuery,
  type CdrSourceStatus,
  type CdrStats,
  type CdrStatsQuery,
} from "../../shared/live";
import { type CdrSession, type CdrSettings, failureReason, openPool, withSession } from "../clients/cdr-db";
import type { Deps } from "../core/deps";
import { Invalid, Unavailable } from "../core/errors";
import {
  CDR_CSV_COLUMNS,
  type CursorKey,
  cdrCsvLine,
  decodeCursor,
  encodeCursor,
  fromLocalText,
  localIso,
  localText,
  type TrunkNames,
} from "./calls";
import { type CallRecords, readCallRecords } from "./detail";
import { resolveCdrSettings } from "./settings";
import { HOURLY_MAX_DAYS, resolveRange, statsSql } from "./sql";
import { type CdrTable, groupingNote, readCdrTable } from "./table";
import { int, text, walkCalls } from "./walk";

/** A page's or the status check's statements. */
const QUERY_TIMEOUT_MS = 10_000;
/** The statistics (one GROUP BY over the range) and an export's batches. */
const LONG_QUERY_TIMEOUT_MS = 30_000;
/** How long the same statistics question shares one answer, and how many answers are kept. */
const STATS_CACHE_MS = 30_000;
const STATS_CACHE_MAX = 50;
/** A page reads at most this many first-channel legs (or this long) looking for calls that pass its filters. */
const PAGE_SCAN_ROWS = 20_000;
const PAGE_SCAN_MS = 1_000;
/** Calls per export batch (one keyset read each: memory stays constant whatever the range). */
export const EXPORT_BATCH = 1_000;
/** How long the table's shape is trusted before it is read again (a cdr module upgrade adds columns). */
const TABLE_SHAPE_MS = 10 * 60_000;
/** MariaDB's "Unknown column": the table lost a column since its shape was read. */
const ER_BAD_FIELD = 1054;

function parseCursor(cursor: string | undefined): CursorKey | null {
  if (!cursor) return null;
  const key = decodeCursor(cursor);
  if (!key) throw new Invalid("Invalid cursor", { cursor: "The cursor is not one this console gave out" });
  return key;
}

export interface CdrSourceOptions {
  /** The server-side limit of a page's statements (default 10 s; tests shorten it). */
  queryTimeoutMs?: number;
  /** The limit of the statistics' and an export's statements (default 30 s). */
  longQueryTimeoutMs?: number;
  /** First-channel legs a page reads at most before answering short with a cursor (default 20,000). */
  pageScanRows?: number;
}

/** The call history (`AppContext.cdr`): pages, statistics, CSV export and the source's status. */
export class CdrSource {
  private pool: { key: string; sql: SQL } | null = null;
  /** The `cdr` table's shape on the pool's source (`key`), read at its first use and again after a while. */
  private shape: { key: string; at: number; table: CdrTable } | null = null;
  private readonly statsCache = new Map<string, { at: number; answer: Promise<CdrStats> }>();
  /** Bumped when a call ended (the live monitor's `call-history-updated`): cached statistics are stale. */
  private generation = 0;
  private readonly queryTimeoutMs: number;
  private readonly longQueryTimeoutMs: number;
  private readonly pageScanRows: number;

  constructor(
    private readonly deps: Pick<Deps, "credentials" | "config"> & Partial<Pick<Deps, "db">>,
    opts: CdrSourceOptions = {},
  ) {
    this.queryTimeoutMs = opts.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
    this.longQueryTimeoutMs = opts.longQueryTimeoutMs ?? LONG_QUERY_TIMEOUT_MS;
    this.pageScanRows = opts.pageScanRows ?? PAGE_SCAN_ROWS;
  }

  /** The pool for the effective settings (rebuilt when they changed), or `Unavailable` with the reason. */
  private open(): { sql: SQL; settings: CdrSettings; key: string } {
    const resolved = resolveCdrSettings(this.deps);
    // Not configured (or configured wrongly) is the request's precondition, like every other service: 400.
    // A database that is configured but does not answer is 503.
    if (!resolved.ok) throw new Invalid(resolved.reason);
    const key = JSON.stringify(resolved.settings);
    if (this.pool?.key !== key) {
      const old = this.pool;
      this.pool = { key, sql: openPool(resolved.settings) };
      old?.sql.close({ timeout: 5 }).catch(() => {});
    }
    return { sql: this.pool.sql, settings: resolved.settings, key };
  }

  /** A read-only session on the effective source; every failure is `Unavailable` with its reason. */
  async session<T>(fn: (db: CdrSession) => Promise<T>, timeoutMs = this.queryTimeoutMs): Promise<T> {
    return this.sessionOn(this.open(), fn, timeoutMs);
  }

  private async sessionOn<T>(
    source: { sql: SQL; settings: CdrSettings },
    fn: (db: CdrSession) => Promise<T>,
    timeoutMs: number,
  ): Promise<T> {
    try {
      return await withSession(source.sql, timeoutMs, fn);
    } catch (err) {
      throw new Unavailable(failureReason(err, source.settings, timeoutMs));
    }
  }

  /**
   * A session whose statements are built for the table's shape: read on the same connection when not
   * known for this source (or known for longer than `TABLE_SHAPE_MS`), and read again, with `fn` run once
   * more, when a statement names a column the table no longer has.
   */
  private tableSession<T>(fn: (db: CdrSession, table: CdrTable) => Promise<T>, timeoutMs = this.queryTimeoutMs) {
    const source = this.open();
    return this.sessionOn(
      source,
      async (db) => {
        const read = async () => {
          const table = await readCdrTable(db);
          this.shape = { key: source.key, at: Date.now(), table };
          return table;
        };
        const known = this.shape;
        const fresh = !known || known.key !== source.key || Date.now() - known.at > TABLE_SHAPE_MS;
        const table = fresh ? await read() : known.table;
        try {
          return await fn(db, table);
        } catch (err) {
          if (fresh || (err as { errno?: number }).errno !== ER_BAD_FIELD) throw err;
          return await fn(db, await read());
        }
      },
      timeoutMs,
    );
  }

  /** The console's trunk names (a numeric one is still a trunk), lower-cased. */
  private trunkNames(): Set<string> {
    const rows = this.deps.db?.select({ name: trunkTable.name }).from(trunkTable).all() ?? [];
    return new Set(rows.map((r) => r.name.toLowerCase()));
  }

  /** GET /api/cdr/status: where the database comes from and whether it answers (never throws). */
  async status(): Promise<CdrSourceStatus> {
    const resolved = resolveCdrSettings(this.deps);
    if (!resolved.ok) return { available: false, reason: resolved.reason, source: resolved.source };
    try {
      await this.session((db) => db.query("SELECT 1 FROM cdr LIMIT 1"));
      return { available: true, reason: null, source: resolved.settings.source };
    } catch (err) {
      return { available: false, reason: (err as Error).message, source: resolved.settings.source };
    }
  }

  /** GET /api/cdr: one item per call, newest first. A filter that discards most calls may give a short page with a cursor. */
  async page(query: CdrPageQuery): Promise<CdrPage> {
    const range = resolveRange(query, Date.now());
    const cursor = parseCursor(query.cursor);
    const trunks = this.trunkNames();
    const { items, next, table } = await this.tableSession(async (db, table) => ({
      table,
      ...(await walkCalls(db, {
        table,
        range,
        filter: query,
        cursor,
        limit: query.limit ?? CDR_PAGE_DEFAULT,
        trunks,
        budget: { rows: this.pageScanRows, ms: PAGE_SCAN_MS },
      })),
    }));
    return { items, nextCursor: next ? encodeCursor(next) : null, ...groupingNote(table) };
  }

  /** One call's legs and channel events (GET /api/calls/{linkedid}); no legs when the records have no such call. */
  callRecords(id: string): Promise<CallRecords & { trunks: TrunkNames }> {
    const trunks = this.trunkNames();
    return this.tableSession(async (db, table) => ({ ...(await readCallRecords(db, table, id)), trunks }));
  }

  /**
   * GET /api/cdr/stats: calls per hour or day, answered and missed, per trunk, ASR and ACD (in SQL).
   * One GROUP BY over the whole range takes seconds on a large table, and every open Call History screen
   * asks again whenever a call ends: the same question within `STATS_CACHE_MS` shares one answer (and one
   * statement in flight). Failures are not kept.
   */
  stats(query: CdrStatsQuery): Promise<CdrStats> {
    const key = JSON.stringify([this.generation, resolveCdrSettings(this.deps), query]);
    const now = Date.now();
    for (const [k, v] of this.statsCache) if (now - v.at > STATS_CACHE_MS) this.statsCache.delete(k);
    const hit = this.statsCache.get(key);
    if (hit) return hit.answer;
    const answer = this.computeStats(query);
    if (this.statsCache.size >= STATS_CACHE_MAX) this.statsCache.delete(this.statsCache.keys().next().value as string);
    this.statsCache.set(key, { at: now, answer });
    answer.catch(() => this.statsCache.delete(key));
    return answer;
  }

  /** A call ended and its record is written: the next statistics are computed afresh (and shared again). */
  historyChanged(): void {
    this.generation += 1;
    this.statsCache.clear();
  }

  private async computeStats(query: CdrStatsQuery): Promise<CdrStats> {
    const range = resolveRange(query, Date.now());
    const spanDays = (range.to.getTime() - range.from.getTime()) / 86_400_000;
    const bucket = query.bucket ?? (spanDays <= 2 ? "hour" : "day");
    if (bucket === "hour" && spanDays > HOURLY_MAX_DAYS) {
      throw new Invalid("Check the buckets", { bucket: `Hourly buckets cover at most ${HOURLY_MAX_DAYS} days` });
    }
    const trunks = [...this.trunkNames()];
    const { rows, table } = await this.tableSession(async (db, table) => {
      const q = statsSql(table, range, bucket, query.q, query, trunks);
      return { rows: await db.query(q.sql, q.params), table };
    }, this.longQueryTimeoutMs);

    const series = new Map<string, { total: number; answered: number }>();
    const first = fromLocalText(range.fromText) ?? range.from;
    const cursor =
      bucket === "hour"
        ? new Date(first.getFullYear(), first.getMonth(), first.getDate(), first.getHours())
        : new Date(first.getFullYear(), first.getMonth(), first.getDate());
    for (let i = 0; ; i++) {
      const start =
        bucket === "hour"
          ? new Date(cursor.getFullYear(), cursor.getMonth(), cursor.getDate(), cursor.getHours() + i)
          : new Date(cursor.getFullYear(), cursor.getMonth(), cursor.getDate() + i);
      if (start.getTime() >= range.to.getTime()) break;
      series.set(localText(start), { total: 0, answered: 0 });
    }
    const byTrunk = new Map<string | null, { total: number; answered: number }>();
    let total = 0;
    let answered = 0;
    let talk = 0;
    for (const row of rows) {
      const n = int(row.total);
      const a = int(row.answered);
      total += n;
      answered += a;
      talk += int(row.talk);
      const key = text(row.bucket);
      const b = series.get(key) ?? { total: 0, answered: 0 };
      b.total += n;
      b.answered += a;
      series.set(key, b);
      const trunk = row.trunk === null || row.trunk === undefined ? null : text(row.trunk);
      const t = byTrunk.get(trunk) ?? { total: 0, answered: 0 };
      t.total += n;
      t.answered += a;
      byTrunk.set(trunk, t);
    }
    return {
      ...groupingNote(table),
      from: localIso(range.from),
      to: localIso(range.to),
      bucket,
      total,
      answered,
      asr: total ? answered / total : null,
      acdSec: answered ? talk / answered : null,
      series: [...series.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([start, v]) => ({
          start: localIso(fromLocalText(start) ?? new Date(0)),
          total: v.total,
          answered: v.answered,
          missed: v.total - v.answered,
        })),
      byTrunk: [...byTrunk.entries()]
        .map(([trunk, v]) => ({ trunk, ...v }))
        .sort((a, b) => b.total - a.total || String(a.trunk ?? "").localeCompare(String(b.trunk ?? ""))),
    };
  }

  /**
   * GET /api/cdr/export.csv: a header line, then one line per call, newest first, read in keyset batches of
   * `EXPORT_BATCH` calls (memory stays constant). The first batch is read before the stream is returned, so
   * an unavailable database is a 503, not a truncated file.
   */
  async exportCsv(filter: CdrFilter): Promise<ReadableStream<Uint8Array>> {
    const range = resolveRange(filter, Date.now());
    const trunks = this.trunkNames();
    const batch = (cursor: CursorKey | null) =>
      this.tableSession(
        (db, table) =>
          walkCalls(db, {
            table,
            range,
            filter,
            cursor,
            limit: EXPORT_BATCH,
            trunks,
            budget: { rows: 50_000, ms: 5_000 },
          }),
        this.longQueryTimeoutMs,
      );
    const encoder = new TextEncoder();
    let pending: { items: CdrCall[]; next: CursorKey | null } | null = await batch(null);
    let position: CursorKey | null = null;
    let headerSent = false;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(`${CDR_CSV_COLUMNS.join(",")}\r\n`));
          return;
        }
        try {
          // Every pull enqueues or closes: a pull that does neither is never followed by another.
          for (;;) {
            const got = pending ?? (position ? await batch(position) : null);
            pending = null;
            if (!got) return controller.close();
            position = got.next;
            if (got.items.length > 0) {
              controller.enqueue(encoder.encode(got.items.map(cdrCsvLine).join("")));
              if (!position) controller.close();
              return;
            }
          }
        } catch (err) {
          controller.error(err);
        }
      },
    });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    this.shape = null;
    await pool?.sql.close({ timeout: 1 }).catch(() => {});
  }
}
