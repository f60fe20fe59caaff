/**
 * FreePBX's call records (`asteriskcdrdb.cdr` in MariaDB), read-only: where the database is, and the
 * call history's pages, statistics and export. The connection itself (pool, read-only session, limits,
 * failure wording) is the client `clients/cdr-db.ts`.
 *
 * Where the database is: the `cdr` credential (API Settings, or `CDR_DATABASE_URL`) first; else the PBX
 * host's own /etc/freepbx.conf (`FREEPBX_CONF`), read locally (the console runs on the PBX host): the
 * `asterisk` database user (AMPDBUSER/AMPDBPASS), AMPDBHOST/AMPDBPORT (or AMPDBSOCK), CDRDBNAME (default
 * `asteriskcdrdb`; FreePBX's CDRDBHOST/CDRDBPORT/CDRDBUSER/CDRDBPASS win when the file sets them); else
 * unavailable, with the reason. Both are read again on every call, and the pool is rebuilt when they change.
 *
 * Read-only: that user may write, so every session is `SET SESSION TRANSACTION READ ONLY` before its
 * first statement (a write fails with MariaDB's error 1792), and only SELECTs are sent. Bounded: a pool of
 * 3 connections, a connect timeout, a per-statement limit on the server (`max_statement_time`) and a
 * deadline here for a server that stops answering. Failures are `Unavailable` (503) with a reason that
 * never carries the password. ADR 0027.
 */
import { readFileSync } from "node:fs";
import type { SQL } from "bun";
import { trunks as trunkTable } from "../../db/schema";
import { cdrDatabaseUrl } from "../../shared/credentials";
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
import type { Deps } from "../domain/deps";
import { Invalid, Unavailable } from "../domain/errors";
import { ampConfValue } from "../pbx/host";
import {
  buildCall,
  CDR_CSV_COLUMNS,
  type CursorKey,
  cdrCsvLine,
  compareKeys,
  decodeCursor,
  encodeCursor,
  fromLocalText,
  type Leg,
  localIso,
  localText,
  type TrunkNames,
} from "./calls";
import {
  HOURLY_MAX_DAYS,
  LEG_MARGIN_SEC,
  LEG_SPAN_MAX_SEC,
  legsSql,
  originPageSql,
  originSecondSql,
  type Range,
  resolveRange,
  shiftText,
  statsSql,
} from "./sql";

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
/** First-channel legs read per statement of a walk. */
const WALK_BATCH_MAX = 2_000;
/**
 * A walk's statement reads one slice of time: the first one this long, the next ones sized so that a
 * statement takes about `SLICE_TARGET_MS` (longer for sparse rows, shorter for a search that reads many).
 */
const FIRST_SLICE_SEC = 2 * 3600;
const SLICE_TARGET_MS = 100;
const SLICE_MIN_SEC = 60;

type Resolved = { ok: true; settings: CdrSettings } | { ok: false; source: CdrSourceStatus["source"]; reason: string };

/** Where the call records database is (see the module comment); never throws. */
export function resolveCdrSettings(deps: Pick<Deps, "credentials" | "config">): Resolved {
  const url = deps.credentials.values("cdr").databaseUrl?.trim();
  if (url) {
    const parsed = cdrDatabaseUrl(url);
    if (!parsed) {
      return {
        ok: false,
        source: "settings",
        reason:
          "The call records database URL (API Settings or CDR_DATABASE_URL) is not a URL such as mysql://user:password@127.0.0.1:3306/asteriskcdrdb",
      };
    }
    return { ok: true, settings: { ...parsed, source: "settings", origin: "API Settings", socket: null } };
  }
  const path = deps.config.pbxFiles.freepbxConf;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? `${path} was not found`
        : code === "EACCES"
          ? `${path} cannot be read by the console's user (add it to the file's group, e.g. asterisk)`
          : `${path} cannot be read (${code ?? "error"})`;
    return {
      ok: false,
      source: "none",
      reason: `Call records database not configured: ${why}. Set the Call Records Database in API Settings.`,
    };
  }
  const get = (key: string) => {
    const v = ampConfValue(text, key);
    return v === null || v.trim() === "" ? null : v.trim();
  };
  const user = get("CDRDBUSER") ?? get("AMPDBUSER");
  const password = ampConfValue(text, "CDRDBPASS") ?? ampConfValue(text, "AMPDBPASS");
  if (!user || password === null) {
    return { ok: false, source: "freepbx.conf", reason: `${path} has no AMPDBUSER/AMPDBPASS` };
  }
  const database = get("CDRDBNAME") ?? "asteriskcdrdb";
  if (!/^[A-Za-z0-9_$]{1,64}$/.test(database)) {
    return { ok: false, source: "freepbx.conf", reason: `${path} names an unusual call records database` };
  }
  const hostValue = get("CDRDBHOST") ?? get("AMPDBHOST") ?? "localhost";
  // FreePBX uses AMPDBPORT only above 1024; `localhost` means the local server, reached here over TCP.
  const portValue = Number(get("CDRDBPORT") ?? get("AMPDBPORT") ?? "");
  const socket = get("CDRDBHOST") ? null : get("AMPDBSOCK");
  return {
    ok: true,
    settings: {
      source: "freepbx.conf",
      origin: path,
      host: hostValue === "localhost" ? "127.0.0.1" : hostValue,
      port: Number.isInteger(portValue) && portValue > 1024 && portValue < 65536 ? portValue : 3306,
      socket: socket?.startsWith("/") ? socket : null,
      user,
      password,
      database,
    },
  };
}

const text = (v: unknown) => (v === null || v === undefined ? "" : Buffer.isBuffer(v) ? v.toString("utf8") : String(v));
const int = (v: unknown) => {
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
};

function toLeg(row: Record<string, unknown>): Leg {
  return {
    callId: text(row.call_id),
    origin: int(row.origin) === 1,
    calldate: text(row.calldate_text),
    clid: text(row.clid),
    src: text(row.src),
    dst: text(row.dst),
    channel: text(row.channel),
    dstchannel: text(row.dstchannel),
    duration: int(row.duration),
    billsec: int(row.billsec),
    disposition: text(row.disposition),
    uniqueid: text(row.uniqueid),
    did: text(row.did),
    recordingfile: text(row.recordingfile),
    cnum: text(row.cnum),
    cnam: text(row.cnam),
    dstCnam: text(row.dst_cnam),
    sequence: int(row.sequence),
  };
}

/** A first-channel leg as the walk reads it (`sql.ts` `WALK_COLUMNS`). */
interface Step extends CursorKey {
  callId: string;
  duration: number;
}

const toStep = (row: Record<string, unknown>): Step => ({
  calldate: text(row.calldate_text),
  uniqueid: text(row.uniqueid),
  callId: text(row.call_id),
  duration: int(row.duration),
});

const keyOf = (l: CursorKey): CursorKey => ({ calldate: l.calldate, uniqueid: l.uniqueid });

function passes(call: CdrCall, f: CdrFilter): boolean {
  if (f.disposition && call.disposition !== f.disposition) return false;
  if (f.direction && call.direction !== f.direction) return false;
  if (f.extension && !call.extensions.includes(f.extension)) return false;
  if (f.trunk && call.trunk?.toLowerCase() !== f.trunk.toLowerCase()) return false;
  return true;
}

interface Walk {
  range: Range;
  filter: CdrFilter;
  cursor: CursorKey | null;
  limit: number;
  trunks: TrunkNames;
  /** Stop reading after this many first-channel legs or milliseconds (a short page with a cursor). */
  budget: { rows: number; ms: number };
}

/**
 * Calls of the range, newest first, after the cursor: walks the first-channel legs down the `calldate`
 * index in whole seconds, reads the other legs of their calls, and lists each call once, at its newest
 * first-channel leg the walk reads (a call whose first channel has legs on two pages is listed on the
 * first). `next` is the cursor of the last leg read: null when the range has no more.
 */
async function walkCalls(db: CdrSession, w: Walk): Promise<{ items: CdrCall[]; next: CursorKey | null }> {
  const items: CdrCall[] = [];
  const started = performance.now();
  let position = w.cursor;
  let read = 0;
  let slice = FIRST_SLICE_SEC;
  const outOfBudget = () => read >= w.budget.rows || performance.now() - started > w.budget.ms;
  for (;;) {
    const batch = Math.min(WALK_BATCH_MAX, Math.max(2 * (w.limit - items.length), 20));
    const lower = shiftText(position?.calldate ?? w.range.toText, -slice);
    const last = lower <= w.range.fromText; // this slice reaches the start of the range
    const page = originPageSql(w.range, w.filter.q, position, batch, lower);
    const queried = performance.now();
    let rows = (await db.query(page.sql, page.params)).map(toStep);
    const took = performance.now() - queried;
    const full = rows.length === batch;
    if (!full) {
      // The slice is read to its start: size the next one for about SLICE_TARGET_MS.
      const factor = Math.min(4, Math.max(0.5, SLICE_TARGET_MS / Math.max(took, 1)));
      slice = Math.max(SLICE_MIN_SEC, Math.round(slice * factor));
    }
    if (full) {
      // The last second may be cut by LIMIT: read it whole (rows of one second come in any order).
      const second = (rows.at(-1) as Step).calldate;
      const again = originSecondSql(w.range, w.filter.q, position, second);
      rows = rows.filter((r) => r.calldate !== second);
      rows.push(...(await db.query(again.sql, again.params)).map(toStep));
    }
    if (rows.length === 0) {
      if (last) return { items, next: null };
      // Nothing in this slice: continue below it (a cursor with no uniqueid is "before this second").
      position = { calldate: lower, uniqueid: "" };
      if (outOfBudget()) return { items, next: position };
      continue;
    }
    rows.sort((a, b) => compareKeys(b, a));
    read += rows.length;

    // The calls' legs, within their time span.
    const ids = [...new Set(rows.map((r) => r.callId))];
    const oldest = (rows.at(-1) as Step).calldate;
    const newest = (rows[0] as Step).calldate;
    let end = fromLocalText(newest)?.getTime() ?? 0;
    for (const r of rows)
      end = Math.max(end, (fromLocalText(r.calldate)?.getTime() ?? 0) + Math.max(0, r.duration) * 1000);
    const spanEnd = shiftText(localText(new Date(end)), LEG_MARGIN_SEC);
    const cap = shiftText(newest, LEG_SPAN_MAX_SEC);
    const until = [spanEnd, cap].sort()[0] as string; // the earlier of the two local times
    const legsQuery = legsSql(w.range, w.filter.q, ids, shiftText(oldest, -LEG_MARGIN_SEC), until);
    const legsOf = new Map<string, Leg[]>();
    const newestRead = new Map<string, CursorKey>();
    for (const row of await db.query(legsQuery.sql, legsQuery.params)) {
      const leg = toLeg(row);
      const list = legsOf.get(leg.callId);
      if (list) list.push(leg);
      else legsOf.set(leg.callId, [leg]);
      if (int(row.scan_match) === 1) {
        const seen = newestRead.get(leg.callId);
        if (!seen || compareKeys(keyOf(leg), seen) > 0) newestRead.set(leg.callId, keyOf(leg));
      }
    }

    const listed = new Set<string>();
    for (const r of rows) {
      position = keyOf(r);
      if (listed.has(r.callId)) continue;
      // Listed at its newest leg the walk reads: a newer one was read before (on this page or an earlier one).
      const anchor = newestRead.get(r.callId) ?? position;
      if (compareKeys(anchor, position) !== 0) continue;
      listed.add(r.callId);
      const legs = legsOf.get(r.callId);
      if (!legs) continue; // gone between the two reads (the table is FreePBX's, not ours)
      const call = buildCall(r.callId, legs, w.trunks);
      if (!passes(call, w.filter)) continue;
      items.push(call);
      if (items.length >= w.limit) return { items, next: position };
    }
    if (!full) {
      if (last) return { items, next: null };
      position = { calldate: lower, uniqueid: "" };
    }
    if (outOfBudget()) return { items, next: position };
  }
}

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
  private open(): { sql: SQL; settings: CdrSettings } {
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
    return { sql: this.pool.sql, settings: resolved.settings };
  }

  /** A read-only session on the effective source; every failure is `Unavailable` with its reason. */
  async session<T>(fn: (db: CdrSession) => Promise<T>, timeoutMs = this.queryTimeoutMs): Promise<T> {
    const { sql, settings } = this.open();
    try {
      return await withSession(sql, timeoutMs, fn);
    } catch (err) {
      throw new Unavailable(failureReason(err, settings, timeoutMs));
    }
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
    const { items, next } = await this.session((db) =>
      walkCalls(db, {
        range,
        filter: query,
        cursor,
        limit: query.limit ?? CDR_PAGE_DEFAULT,
        trunks,
        budget: { rows: this.pageScanRows, ms: PAGE_SCAN_MS },
      }),
    );
    return { items, nextCursor: next ? encodeCursor(next) : null };
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
    const q = statsSql(range, bucket, query.q, query, trunks);
    const rows = await this.session((db) => db.query(q.sql, q.params), this.longQueryTimeoutMs);

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
      this.session(
        (db) =>
          walkCalls(db, {
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
    await pool?.sql.close({ timeout: 1 }).catch(() => {});
  }
}
