/**
 * From CDR rows (legs) to calls, without the database: channel names, local times, the call rules (one
 * call per `linkedid`, or per `uniqueid` in a table without one (ADR 0049); its direction, disposition,
 * trunk and extensions), the keyset cursor and the CSV line. `sql.ts` says the same rules in SQL for the
 * statistics; `test/server/cdr.test.ts` checks that the two agree.
 *
 * Times: `calldate` is the PBX's local wall-clock time without a zone (Asterisk writes `ast_localtime`).
 * The console runs on the PBX host, so a `calldate` is read in this process's local time zone, and a
 * query's ISO times are turned into that same local wall-clock text to compare with it (ADR 0027).
 */
import { type CallDirection, CDR_DISPOSITIONS, type CdrCall, type CdrDisposition } from "../../shared/live";
import { csvCell } from "../core/csv";

/** One CDR row as the queries select it (`DATE_FORMAT`ed `calldate`; NULL-ish values already turned into ''/0). */
export interface Leg {
  /** `linkedid`, or the row's `uniqueid` when it has none. */
  callId: string;
  /** `uniqueid = linkedid OR linkedid = ''`: a leg of the call's first channel (decided by the database). */
  origin: boolean;
  /** `YYYY-MM-DD HH:MM:SS`, local time. */
  calldate: string;
  clid: string;
  src: string;
  dst: string;
  channel: string;
  dstchannel: string;
  duration: number;
  billsec: number;
  disposition: string;
  uniqueid: string;
  did: string;
  recordingfile: string;
  cnum: string;
  cnam: string;
  dstCnam: string;
  sequence: number;
}

// ---------------------------------------------------------------------------------------------------
// Channels

const ENDPOINT_TECHS = new Set(["PJSIP", "SIP", "IAX2"]);

/**
 * The endpoint of a channel name (`PJSIP/acme-0000001a` → `acme`, `SIP/1001-0000000b` → `1001`), '' for
 * anything else (Local/…, DAHDI/…, an empty or odd value). The name is what lies between the first `/`
 * and the last `-`. `sql.ts` `namedTrunkSql` is the same rule for the statistics.
 */
export function endpointOf(channel: string): string {
  const slash = channel.indexOf("/");
  if (slash <= 0 || !ENDPOINT_TECHS.has(channel.slice(0, slash).toUpperCase())) return "";
  const rest = channel.slice(slash + 1);
  const dash = rest.lastIndexOf("-");
  if (dash <= 0 || dash === rest.length - 1) return "";
  return rest.slice(0, dash);
}

/** The console's trunk names, lower-cased (the database compares them case-insensitively). */
export type TrunkNames = ReadonlySet<string>;

/** An endpoint is a trunk when the console has a trunk of that name or the name is not all digits. */
export const isTrunk = (name: string, trunks: TrunkNames) =>
  name !== "" && (trunks.has(name.toLowerCase()) || !/^[0-9]+$/.test(name));

/** An endpoint is an extension when its name is all digits and no console trunk has it. */
export const isExtension = (name: string, trunks: TrunkNames) =>
  /^[0-9]+$/.test(name) && !trunks.has(name.toLowerCase());

// ---------------------------------------------------------------------------------------------------
// Local times

const LOCAL = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** `YYYY-MM-DD HH:MM:SS` of an instant in this process's time zone (what `calldate` is compared with). */
export function localText(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getFullYear(), 4)}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * The instant of a local `YYYY-MM-DD HH:MM:SS`, or null when it is not one. `strict`: also null when it
 * names no real wall-clock time (month 13, 25 o'clock, 31 February, an hour skipped by a DST change).
 */
export function fromLocalText(text: string, strict = false): Date | null {
  const m = LOCAL.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  date.setFullYear(y); // years 0–99 are not 1900–1999
  if (Number.isNaN(date.getTime()) || (strict && localText(date) !== text)) return null;
  return date;
}

/** ISO 8601 with this process's offset, e.g. `2026-11-24T14:05:09+01:00` (how the PBX's clock read it). */
export function localIso(d: Date): string {
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const abs = Math.abs(off);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${localText(d).replace(" ", "T")}${sign}${p(Math.floor(abs / 60))}:${p(abs % 60)}`;
}

// ---------------------------------------------------------------------------------------------------
// Calls

/**
 * How much a leg's disposition says about the call: a call is what its most telling leg was (answered
 * by anyone; else rung without answer; else busy; else failed; else congested; else unknown). A failover
 * that met congestion on one trunk and a busy line on the next was busy. `sql.ts` `DISPOSITION_RANK_SQL`.
 */
export const DISPOSITION_RANK: Record<CdrDisposition | "UNKNOWN", number> = {
  UNKNOWN: 0,
  CONGESTION: 1,
  FAILED: 2,
  BUSY: 3,
  "NO ANSWER": 4,
  ANSWERED: 5,
};

/** `ANSWERED`, `NO ANSWER`… as written, whatever the case and spaces; `UNKNOWN` for an empty or other value. */
export function dispositionOf(value: string): CdrDisposition | "UNKNOWN" {
  const v = value.trim().toUpperCase();
  return (CDR_DISPOSITIONS as readonly string[]).includes(v) ? (v as CdrDisposition) : "UNKNOWN";
}

/** Byte order of UTF-8 text (MariaDB's `BINARY` comparison, which the cursor uses). */
export function compareBytes(a: string, b: string): number {
  // UTF-16 code units order text like UTF-8 bytes do, except around surrogate pairs (characters beyond U+FFFF).
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * A leg's place in its call: start, then `sequence`, then `uniqueid`, then the channel dialled (a table
 * without `sequence` reads 0 for every leg, and one channel's dial attempts of one second differ only there).
 */
export function legOrder(a: Leg, b: Leg): number {
  if (a.calldate !== b.calldate) return a.calldate < b.calldate ? -1 : 1;
  if (a.sequence !== b.sequence) return a.sequence - b.sequence;
  return compareBytes(a.uniqueid, b.uniqueid) || compareBytes(a.dstchannel, b.dstchannel);
}

/** The name in a Caller ID text (`"Jane Doe" <1001>` → `Jane Doe`), '' when it has none. */
export function clidName(clid: string): string {
  const m = /^\s*"(.*)"\s*<[^>]*>\s*$/.exec(clid) ?? /^\s*([^<"]*?)\s*<[^>]*>\s*$/.exec(clid);
  return m ? (m[1] as string).trim() : "";
}

/**
 * One call from its legs (any order; at least one). The rules (`sql.ts` `statsSql` says the same in SQL):
 * - start: the first leg's; duration: to the end (start + `duration`) of the leg that ends last;
 * - from / to: the first leg of the call's first channel (`cnum` or `src`, `cnam` or the Caller ID name;
 *   `dst`, `dst_cnam`);
 * - disposition: the most telling leg's (`DISPOSITION_RANK`): `ANSWERED` when any leg was answered;
 *   `UNKNOWN` when every leg's is empty or odd;
 * - talk: the longest `billsec`;
 * - trunk: the earliest leg whose own channel is a trunk (the call came in over it), else the earliest
 *   leg that dialled a trunk; legs of the same second: the first name in alphabetical order;
 * - direction: inbound when a first-channel leg has a `did` or any leg's own channel is a trunk, else
 *   outbound when any leg dialled a trunk, else internal;
 * - extensions: every extension channel in leg order (callers, the ones rung, the ones that answered).
 */
export function buildCall(id: string, unordered: readonly Leg[], trunks: TrunkNames): CdrCall {
  const legs = [...unordered].sort(legOrder);
  const origins = legs.filter((l) => l.origin);
  const head = (origins[0] ?? legs[0]) as Leg;
  const startText = (legs[0] as Leg).calldate;
  const start = fromLocalText(startText) ?? new Date(0);
  let end = start.getTime();
  let talk = 0;
  let disposition: CdrDisposition | "UNKNOWN" = "UNKNOWN";
  // The earliest leg with a trunk: calldate + name (compared like the database's MIN of that text).
  let inTrunk: { key: string; name: string } | null = null;
  let outTrunk: { key: string; name: string } | null = null;
  const earlier = (seen: { key: string; name: string } | null, calldate: string, name: string) => {
    const key = `${calldate}${name.toLowerCase()}`;
    return seen && seen.key <= key ? seen : { key, name };
  };
  let dialledIn = false;
  let did = "";
  let recording: string | null = null;
  const extensions: string[] = [];
  for (const leg of legs) {
    const legStart = fromLocalText(leg.calldate)?.getTime() ?? start.getTime();
    end = Math.max(end, legStart + Math.max(0, leg.duration) * 1000);
    talk = Math.max(talk, leg.billsec);
    const d = dispositionOf(leg.disposition);
    if (DISPOSITION_RANK[d] > DISPOSITION_RANK[disposition]) disposition = d;
    const from = endpointOf(leg.channel);
    const to = endpointOf(leg.dstchannel);
    if (isTrunk(from, trunks)) inTrunk = earlier(inTrunk, leg.calldate, from);
    if (isTrunk(to, trunks)) outTrunk = earlier(outTrunk, leg.calldate, to);
    if (leg.origin && leg.did !== "") dialledIn = true;
    if (leg.origin && !did && leg.did) did = leg.did;
    if (recording === null && leg.recordingfile) recording = leg.recordingfile;
    for (const name of [from, to]) if (isExtension(name, trunks) && !extensions.includes(name)) extensions.push(name);
  }
  const direction: CallDirection = dialledIn || inTrunk ? "inbound" : outTrunk ? "outbound" : "internal";
  return {
    id,
    startedAt: localIso(start),
    from: { number: head.cnum || head.src, name: head.cnam || clidName(head.clid) },
    to: { number: head.dst, name: head.dstCnam },
    did,
    direction,
    disposition,
    durationSec: Math.max(0, Math.round((end - start.getTime()) / 1000)),
    talkSec: Math.max(0, talk),
    trunk: (inTrunk ?? outTrunk)?.name ?? null,
    extensions,
    legs: legs.length,
    recordingFile: recording,
  };
}

// ---------------------------------------------------------------------------------------------------
// Keyset cursor: the `calldate` and `uniqueid` of the last first-channel leg a page read.

export interface CursorKey {
  calldate: string;
  uniqueid: string;
}

/** -1, 0, 1: the order pages read legs in is descending by this. */
export function compareKeys(a: CursorKey, b: CursorKey): number {
  if (a.calldate !== b.calldate) return a.calldate < b.calldate ? -1 : 1;
  return compareBytes(a.uniqueid, b.uniqueid);
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(`${key.calldate}|${key.uniqueid}`, "utf8").toString("base64url");
}

/** The key of a cursor this console gave out, or null for anything else. */
export function decodeCursor(cursor: string): CursorKey | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const bar = text.indexOf("|");
  if (bar < 0) return null;
  const calldate = text.slice(0, bar);
  const uniqueid = text.slice(bar + 1);
  if (!fromLocalText(calldate, true)) return null;
  // uniqueid is VARCHAR(32); no control characters (nor U+FFFD from undecodable bytes).
  if ([...uniqueid].length > 32 || /[\p{Cc}\ufffd]/u.test(uniqueid)) return null;
  return { calldate, uniqueid };
}

// ---------------------------------------------------------------------------------------------------
// CSV

export const CDR_CSV_COLUMNS = [
  "started_at",
  "direction",
  "from_number",
  "from_name",
  "to_number",
  "to_name",
  "did",
  "disposition",
  "duration_sec",
  "talk_sec",
  "trunk",
  "extensions",
  "legs",
  "recording_file",
  "call_id",
] as const;

/** One call as a CSV line (cells through `core/csv.ts`'s `csvCell`: quoting, formula cells prefixed with `'`). */
export function cdrCsvLine(c: CdrCall): string {
  const cells = [
    c.startedAt,
    c.direction,
    c.from.number,
    c.from.name,
    c.to.number,
    c.to.name,
    c.did,
    c.disposition,
    String(c.durationSec),
    String(c.talkSec),
    c.trunk,
    c.extensions.join(" "),
    String(c.legs),
    c.recordingFile,
    c.id,
  ];
  return `${cells.map(csvCell).join(",")}\r\n`;
}
