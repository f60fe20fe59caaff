/**
 * FreePBX's channel event log (`asteriskcdrdb.cel`, created by the testbed's FreePBX 17 as its CEL module's
 * install.php does) and call recordings under the monitor directory, for tests of a call's detail:
 *
 *   await insertCelRows(pbx.cdr.query, [celRow({ eventtype: "CHAN_START", eventtime, channame, uniqueid, linkedid })]);
 *   const path = await putMonitorFile(pbx, callStart, "in-2901-5551234-20261207-101500-1765102500.1.wav", wav);
 *
 * Rows are as Asterisk's cel_odbc writes them through FreePBX's `cel` table: `eventtime` the PBX's local
 * time (`YYYY-MM-DD HH:MM:SS`, whole seconds, as `localDateTime` of cdr-calls.ts), `uniqueid` the
 * channel's, `linkedid` the call's, `extra` JSON for the events that carry some (e.g. a transfer's).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PbxHost } from "./pbx-host";

export const CEL_COLUMNS = [
  "eventtype",
  "eventtime",
  "cid_name",
  "cid_num",
  "cid_ani",
  "cid_rdnis",
  "cid_dnid",
  "exten",
  "context",
  "channame",
  "appname",
  "appdata",
  "amaflags",
  "accountcode",
  "uniqueid",
  "linkedid",
  "peer",
  "userdeftype",
  "extra",
] as const;

export type CelColumn = (typeof CEL_COLUMNS)[number];
/** One row of `cel` (its `id` is the table's AUTO_INCREMENT: the order rows are inserted in). */
export type CelRow = { [K in CelColumn]: K extends "amaflags" ? number : string };

/** A row with the table's defaults (empty text, `amaflags` 3 as Asterisk writes it) for every column not given. */
export function celRow(partial: Partial<CelRow> & Pick<CelRow, "eventtype" | "eventtime">): CelRow {
  const row = {} as Record<CelColumn, string | number>;
  for (const c of CEL_COLUMNS) row[c] = "";
  row.amaflags = 3;
  return Object.assign(row, partial) as CelRow;
}

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

/** Multi-row INSERTs into `cel` (500 rows a statement, parameters only), in the order given. Returns the rows. */
export async function insertCelRows(query: Query, rows: Iterable<CelRow>, batch = 500): Promise<number> {
  const head = `INSERT INTO cel (${CEL_COLUMNS.join(", ")}) VALUES `;
  const tuple = `(${CEL_COLUMNS.map(() => "?").join(", ")})`;
  let pending: CelRow[] = [];
  let written = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const params: unknown[] = [];
    for (const row of pending) for (const c of CEL_COLUMNS) params.push(row[c]);
    await query(head + Array(pending.length).fill(tuple).join(", "), params);
    written += pending.length;
    pending = [];
  };
  for (const row of rows) {
    pending.push(row);
    if (pending.length >= batch) await flush();
  }
  await flush();
  return written;
}

/** FreePBX's ASTSPOOLDIR of the host, from its settings (what the console reads too). */
export async function spoolDir(pbx: Pick<PbxHost, "query">): Promise<string> {
  const rows = (await pbx.query("SELECT value FROM freepbx_settings WHERE keyword = 'ASTSPOOLDIR'")) as Array<{
    value: string;
  }>;
  return rows[0]?.value || "/var/spool/asterisk";
}

/**
 * Puts a call recording where FreePBX's MixMonitor writes it: `<ASTSPOOLDIR>/monitor/YYYY/MM/DD/<file>`, the
 * date the call's start in the PBX's (this process's) local time. Returns the file's path.
 */
export async function putMonitorFile(
  pbx: Pick<PbxHost, "query">,
  callStart: Date,
  file: string,
  bytes: Uint8Array,
): Promise<string> {
  const p = (n: number) => String(n).padStart(2, "0");
  const dir = join(
    await spoolDir(pbx),
    "monitor",
    String(callStart.getFullYear()),
    p(callStart.getMonth() + 1),
    p(callStart.getDate()),
  );
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  writeFileSync(path, bytes, { mode: 0o644 });
  return path;
}
