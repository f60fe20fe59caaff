/**
 * A page of the call history, read from the `cdr` table: a walk down the `calldate` index over the
 * first-channel legs (in time slices, whole seconds at a time), then the other legs of their calls, each
 * call listed once and built by `calls.ts`. `source.ts` runs it for the pages and the export's batches.
 */
import type { CdrCall, CdrFilter } from "../../shared/live";
import type { CdrSession } from "../clients/cdr-db";
import { buildCall, type CursorKey, compareKeys, fromLocalText, type Leg, localText, type TrunkNames } from "./calls";
import {
  LEG_MARGIN_SEC,
  LEG_SPAN_MAX_SEC,
  legsSql,
  originPageSql,
  originSecondSql,
  type Range,
  shiftText,
} from "./sql";
import type { CdrTable } from "./table";

/** First-channel legs read per statement of a walk. */
const WALK_BATCH_MAX = 2_000;
/**
 * A walk's statement reads one slice of time: the first one this long, the next ones sized so that a
 * statement takes about `SLICE_TARGET_MS` (longer for sparse rows, shorter for a search that reads many).
 */
const FIRST_SLICE_SEC = 2 * 3600;
const SLICE_TARGET_MS = 100;
const SLICE_MIN_SEC = 60;

/** A cell as text: '' for NULL, bytes (a binary collation) as UTF-8. */
export const text = (v: unknown) =>
  v === null || v === undefined ? "" : Buffer.isBuffer(v) ? v.toString("utf8") : String(v);
/** A cell as a whole number, 0 for NULL or anything else. */
export const int = (v: unknown) => {
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
};

export function toLeg(row: Record<string, unknown>): Leg {
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

/** A first-channel leg as the walk reads it (`sql.ts` `walkColumns`). */
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

export interface Walk {
  /** The table's shape the statements are built for. */
  table: CdrTable;
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
export async function walkCalls(db: CdrSession, w: Walk): Promise<{ items: CdrCall[]; next: CursorKey | null }> {
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
    const page = originPageSql(w.table, w.range, w.filter.q, position, batch, lower);
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
      const again = originSecondSql(w.table, w.range, w.filter.q, position, second);
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
    const legsQuery = legsSql(w.table, w.range, w.filter.q, ids, shiftText(oldest, -LEG_MARGIN_SEC), until);
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
