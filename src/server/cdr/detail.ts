/**
 * One call's records: its CDR legs and, when FreePBX's cel module keeps them (`asteriskcdrdb.cel`, CELDBNAME's
 * default), its channel events. A call's id is the `uniqueid` of its first channel, whose whole-second part is
 * the instant the channel began: legs are looked for from a little before it to `LEG_SPAN_MAX_SEC` after, so the
 * statement stays on the `calldate` index even where `linkedid` has none. Parameters only.
 */
import type { CdrSession } from "../clients/cdr-db";
import { type Leg, localText } from "./calls";
import { callIdSql, LEG_SPAN_MAX_SEC, legColumns } from "./sql";
import type { CdrTable } from "./table";
import { int, text, toLeg } from "./walk";

/** A leg as the call's page shows it: the history's leg and where it went in the dialplan. */
export interface DetailLeg extends Leg {
  dcontext: string;
  lastapp: string;
  lastdata: string;
}

/** One row of FreePBX's `cel` table, as read here. */
export interface CelRow {
  id: number;
  eventtype: string;
  /** `YYYY-MM-DD HH:MM:SS`, local time (whole seconds, as FreePBX's `datetime` column keeps it). */
  eventtime: string;
  cidName: string;
  cidNum: string;
  exten: string;
  context: string;
  channame: string;
  appname: string;
  appdata: string;
  uniqueid: string;
  peer: string;
  extra: string;
}

/** The most legs and events read for one call (a call with more is cut, and says so). */
export const DETAIL_LEGS_MAX = 500;
export const DETAIL_EVENTS_MAX = 2_000;
/** Legs are looked for from this long before the call's first channel began. */
const BEFORE_SEC = 300;

/** The instant a call id's first channel began (`1733520000.12` → its seconds), or null for another shape. */
export function callIdInstant(id: string): Date | null {
  const m = /(\d{9,11})\.\d{1,10}$/.exec(id);
  return m ? new Date(Number(m[1]) * 1000) : null;
}

export interface CallRecords {
  legs: DetailLeg[];
  /** The call's CEL rows in order, or null when the database has no `cel` table this user may read. */
  cel: CelRow[] | null;
}

/** MariaDB's "table does not exist" and "SELECT command denied". */
const NO_TABLE = new Set([1146, 1142]);

export async function readCallRecords(db: CdrSession, table: CdrTable, id: string): Promise<CallRecords> {
  const at = callIdInstant(id);
  if (!at) return { legs: [], cel: null };
  const from = localText(new Date(at.getTime() - BEFORE_SEC * 1000));
  const to = localText(new Date(at.getTime() + LEG_SPAN_MAX_SEC * 1000));
  const rows = await db.query(
    `SELECT ${legColumns(table)}, dcontext, lastapp, lastdata FROM cdr` +
      ` WHERE calldate >= ? AND calldate <= ? AND ${callIdSql(table)} = ?` +
      ` ORDER BY calldate, ${table.has.has("sequence") ? "sequence, " : ""}uniqueid LIMIT ${DETAIL_LEGS_MAX}`,
    [from, to, id],
  );
  const legs = rows.map((r) => ({
    ...toLeg(r),
    dcontext: text(r.dcontext),
    lastapp: text(r.lastapp),
    lastdata: text(r.lastdata),
  }));
  if (legs.length === 0 || table.grouping !== "linkedid") return { legs, cel: null };
  let cel: CelRow[] | null;
  try {
    const events = await db.query(
      "SELECT id, eventtype, DATE_FORMAT(eventtime, '%Y-%m-%d %H:%i:%s') AS eventtime_text, cid_name, cid_num," +
        " exten, context, channame, appname, appdata, uniqueid, peer, extra FROM cel" +
        ` WHERE linkedid = ? AND eventtime >= ? AND eventtime <= ? ORDER BY eventtime, id LIMIT ${DETAIL_EVENTS_MAX}`,
      [id, from, to],
    );
    cel = events.map((r) => ({
      id: int(r.id),
      eventtype: text(r.eventtype),
      eventtime: text(r.eventtime_text),
      cidName: text(r.cid_name),
      cidNum: text(r.cid_num),
      exten: text(r.exten),
      context: text(r.context),
      channame: text(r.channame),
      appname: text(r.appname),
      appdata: text(r.appdata),
      uniqueid: text(r.uniqueid),
      peer: text(r.peer),
      extra: text(r.extra),
    }));
  } catch (err) {
    if (!NO_TABLE.has((err as { errno?: number }).errno ?? 0)) throw err;
    cel = null;
  }
  return { legs, cel };
}
