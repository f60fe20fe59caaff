/**
 * The client of FreePBX's call records database (MariaDB, Bun's built-in SQL client over the MySQL
 * protocol, parameters only): a small pool, read-only sessions with a server-side statement limit and a
 * deadline on this side, failures worded for a person and never carrying the password. The queries
 * themselves are the call history's (`cdr/`). ADR 0027.
 */
import type { ReservedSQL, SQL } from "bun";
import { cdrDatabaseUrl } from "../../shared/credentials";
import { redact, ServiceError } from "./http";

const SERVICE = "Call records database";
/** Connections of the pool: a page, the statistics and an export at the same time. */
const POOL_MAX = 3;
const CONNECT_TIMEOUT_S = 5;
/** The Test Connection's statement limit. */
const TEST_QUERY_TIMEOUT_MS = 10_000;
/** How long past the server's own limit this side waits before giving the connection up. */
const DEADLINE_GRACE_MS = 2_000;

export interface CdrSettings {
  source: "settings" | "freepbx.conf";
  /** For messages: "API Settings" or the file's path. */
  origin: string;
  host: string;
  port: number;
  /** A Unix socket (AMPDBSOCK) instead of TCP, or null. */
  socket: string | null;
  user: string;
  password: string;
  database: string;
}

export function openPool(s: CdrSettings, max = POOL_MAX): SQL {
  // `Bun.SQL` at the first pool, not a named import: that would load bun:sql at every start.
  return new Bun.SQL({
    adapter: "mysql",
    hostname: s.host,
    port: s.port,
    ...(s.socket ? { path: s.socket } : {}),
    username: s.user,
    password: s.password,
    database: s.database,
    max,
    idleTimeout: 60,
    maxLifetime: 3600,
    connectionTimeout: CONNECT_TIMEOUT_S,
    onclose: () => {},
  });
}

const where = (s: CdrSettings) => (s.socket ? s.socket : `${s.host}:${s.port}`);
const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** Marks our own deadline (the server did not answer at all). */
class NoAnswer extends Error {}

/** Why a call failed, in words a person can act on; never the password. */
export function failureReason(err: unknown, s: CdrSettings, timeoutMs: number): string {
  const e = err as { code?: string; errno?: number; message?: string; name?: string };
  const msg = (e?.message ?? String(err)).trim();
  let text: string;
  if (err instanceof NoAnswer)
    text = `The call records database at ${where(s)} did not answer within ${seconds(timeoutMs)}`;
  else if (e?.name === "TimeoutError" || e?.code === "ERR_MYSQL_CONNECTION_TIMEOUT")
    text = `The call records database at ${where(s)} did not accept a connection within ${CONNECT_TIMEOUT_S} s`;
  else if (e?.code === "ERR_MYSQL_CONNECTION_REFUSED")
    text = `The call records database at ${where(s)} refused the connection (is MariaDB running?)`;
  else if (e?.code === "ERR_MYSQL_CONNECTION_CLOSED" || e?.code === "ERR_MYSQL_CONNECTION_FAILED")
    text = `The connection to the call records database at ${where(s)} was lost: ${msg}`;
  else if (e?.errno === 1045)
    text = `The call records database at ${where(s)} refused the login of ${s.user}: wrong user name or password`;
  else if (e?.errno === 1044 || e?.errno === 1049)
    text = `The call records database ${s.database} at ${where(s)} cannot be opened: ${msg}`;
  else if (e?.errno === 1142 || e?.errno === 1146)
    text = `The call records table ${s.database}.cdr cannot be read: ${msg}`;
  else if (e?.errno === 1969 || e?.errno === 3024)
    text = `The call records query ran longer than ${seconds(timeoutMs)} and was stopped: choose a shorter range or a narrower filter`;
  else text = `The call records database failed: ${msg}`;
  return redact(`${text} (settings from ${s.origin}).`, [s.password]);
}

/** Runs statements on one reserved, read-only connection; each statement bounded on both sides. */
export interface CdrSession {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

/**
 * One session: reserves a connection, makes it read-only with the server-side statement limit, runs
 * `fn`, gives the connection back (or closes it when the server stopped answering). Errors are raw.
 */
export async function withSession<T>(
  pool: SQL,
  timeoutMs: number,
  fn: (session: CdrSession) => Promise<T>,
): Promise<T> {
  const db: ReservedSQL = await pool.reserve({ signal: AbortSignal.timeout(CONNECT_TIMEOUT_S * 1000 + 1000) });
  let stuck = false;
  const bounded = <R>(work: Promise<R>): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        stuck = true;
        reject(new NoAnswer());
      }, timeoutMs + DEADLINE_GRACE_MS);
      work.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  try {
    // The only statement that is not a SELECT; MySQL (not MariaDB) names the limit max_execution_time (ms).
    const limit = (timeoutMs / 1000).toFixed(3);
    await bounded(
      db.unsafe(`SET SESSION TRANSACTION READ ONLY; SET SESSION max_statement_time = ${limit}`).simple(),
    ).catch(async (err) => {
      if ((err as { errno?: number }).errno !== 1193) throw err;
      await bounded(
        db
          .unsafe(`SET SESSION TRANSACTION READ ONLY; SET SESSION max_execution_time = ${Math.round(timeoutMs)}`)
          .simple(),
      );
    });
    return await fn({
      query: (sql, params = []) => bounded(db.unsafe(sql, params) as Promise<Record<string, unknown>[]>),
    });
  } finally {
    if (stuck) await db.close().catch(() => {});
    else await db.release().catch(() => {});
  }
}

/** Test Connection of the `cdr` service: connects read-only and counts the records. Throws `ServiceError`. */
export async function testCdrConnection(url: string, signal?: AbortSignal): Promise<string> {
  const parsed = cdrDatabaseUrl(url);
  if (!parsed) {
    throw new ServiceError(SERVICE, "Enter a URL such as mysql://user:password@127.0.0.1:3306/asteriskcdrdb");
  }
  const settings: CdrSettings = { ...parsed, source: "settings", origin: "the URL tested", socket: null };
  const pool = openPool(settings, 1);
  const aborted = new Promise<never>((_, reject) => {
    const fail = () =>
      reject(
        new ServiceError(SERVICE, `${SERVICE} test was cancelled: ${String(signal?.reason?.message ?? "deadline")}`),
      );
    if (signal?.aborted) fail();
    signal?.addEventListener("abort", fail, { once: true });
  });
  aborted.catch(() => {});
  try {
    const rows = await Promise.race([
      withSession(pool, TEST_QUERY_TIMEOUT_MS, (db) => db.query("SELECT COUNT(*) AS n FROM cdr")),
      aborted,
    ]);
    const n = Number(rows[0]?.n ?? 0);
    return `Connected to ${settings.database} on ${where(settings)}: ${n.toLocaleString("en-US")} call records.`;
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw new ServiceError(SERVICE, failureReason(err, settings, TEST_QUERY_TIMEOUT_MS));
  } finally {
    await pool.close({ timeout: 0 }).catch(() => {});
  }
}
