/**
 * FreePBX call records (`asteriskcdrdb.cdr`, test/fixtures/freepbx/cdr.sql) for the test PBX: the row
 * shape, a generator of realistic calls, and a fast multi-row INSERT.
 *
 *   const { rows, calls } = generateCalls(500, { start, end, seed: 1 });
 *   await pbx.cdr.insert(rows);      // multi-row INSERT, 1,000 rows a statement
 *   await pbx.cdr.load(rowsIterable); // LOAD DATA LOCAL INFILE, for a million rows
 *
 * Each generated call comes with what the console should make of it (`GeneratedCall`: direction,
 * disposition, trunk, extensions, talk time…), written down from the scenario, not derived from the rows,
 * so tests compare the console's grouping against the intent.
 *
 * The legs follow Asterisk 12+ CDRs as FreePBX writes them: one row per dial attempt of a channel (a ring
 * group gives one row per member, all with the caller's `uniqueid`), `linkedid` = the `uniqueid` of the
 * call's first channel, queue members reached through `Local/…;2` channels with their own `uniqueid`,
 * `sequence` increasing, `calldate` the PBX's local time without a zone.
 */

export const CDR_COLUMNS = [
  "calldate",
  "clid",
  "src",
  "dst",
  "dcontext",
  "channel",
  "dstchannel",
  "lastapp",
  "lastdata",
  "duration",
  "billsec",
  "disposition",
  "amaflags",
  "accountcode",
  "uniqueid",
  "userfield",
  "did",
  "recordingfile",
  "cnum",
  "cnam",
  "outbound_cnum",
  "outbound_cnam",
  "dst_cnam",
  "linkedid",
  "peeraccount",
  "sequence",
] as const;

export type CdrColumn = (typeof CDR_COLUMNS)[number];
const NUMERIC = new Set<CdrColumn>(["duration", "billsec", "amaflags", "sequence"]);

/** One row of `cdr`. `calldate` is `YYYY-MM-DD HH:MM:SS` in the PBX's (this process's) local time. */
export type CdrRow = { [K in CdrColumn]: K extends "duration" | "billsec" | "amaflags" | "sequence" ? number : string };

/** A row with the table's defaults for every column not given. */
export function cdrRow(partial: Partial<CdrRow>): CdrRow {
  const row = {} as Record<CdrColumn, string | number>;
  for (const c of CDR_COLUMNS) row[c] = NUMERIC.has(c) ? 0 : "";
  row.calldate = "1000-01-01 00:00:00";
  return Object.assign(row, partial) as CdrRow;
}

/** `YYYY-MM-DD HH:MM:SS` of a time in this process's local time zone (how Asterisk writes `calldate`). */
export function localDateTime(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getFullYear(), 4)}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export type Direction = "inbound" | "outbound" | "internal";

/** What the console should show for a generated call. */
export interface GeneratedCall {
  /** linkedid */
  id: string;
  kind: "inbound" | "ring-group" | "queue" | "outbound" | "outbound-failover" | "internal";
  /** Start of the first leg (whole seconds). */
  start: Date;
  direction: Direction;
  disposition: "ANSWERED" | "NO ANSWER" | "BUSY" | "FAILED" | "CONGESTION";
  answered: boolean;
  talkSec: number;
  durationSec: number;
  trunk: string | null;
  extensions: string[];
  did: string;
  from: { number: string; name: string };
  to: { number: string; name: string };
  legs: number;
  recordingFile: string | null;
}

export interface GenerateOptions {
  /**
   * Calls start at whole seconds in [start, end), in time order, spread evenly with jitter (`n` calls over
   * the span), so rows reach the table in the order Asterisk would write them.
   */
  start: Date;
  end: Date;
  /** PRNG seed (the same seed gives the same calls). Default 1. */
  seed?: number;
  /** Default 1001–1020. */
  extensions?: string[];
  /** Trunk (PJSIP endpoint) names. Default ["acme", "telco-two"]. */
  trunks?: string[];
  /** DIDs of inbound calls. Default 5551230000–5551230004. */
  dids?: string[];
  /** The first `uniqueid` counter (several generated sets in one table need distinct ranges). Default 1. */
  firstId?: number;
}

/** mulberry32: small, fast, deterministic. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One call after another (streamed: a million rows never sit in memory at once). */
export function* generateCallRows(
  n: number,
  opts: GenerateOptions,
): Generator<{ call: GeneratedCall; rows: CdrRow[] }> {
  const rnd = prng(opts.seed ?? 1);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const exts = opts.extensions ?? Array.from({ length: 20 }, (_, i) => String(1001 + i));
  const trunks = opts.trunks ?? ["acme", "telco-two"];
  const dids = opts.dids ?? Array.from({ length: 5 }, (_, i) => String(5551230000 + i));
  const startS = Math.ceil(opts.start.getTime() / 1000);
  const spanS = Math.max(1, Math.floor(opts.end.getTime() / 1000) - startS);
  let counter = opts.firstId ?? 1;
  const hex = () => (counter++ & 0xffffffff).toString(16).padStart(8, "0");
  const uid = (t: number) => `${t}.${counter++}`;
  const external = () => `555${int(1000000, 9999999)}`;

  for (let i = 0; i < n; i++) {
    const t = startS + Math.floor(((i + rnd()) / n) * spanS);
    const start = new Date(t * 1000);
    const at = (offset: number) => localDateTime(new Date((t + offset) * 1000));
    const r = rnd();
    const kind: GeneratedCall["kind"] =
      r < 0.28
        ? "inbound"
        : r < 0.43
          ? "ring-group"
          : r < 0.53
            ? "queue"
            : r < 0.78
              ? "outbound"
              : r < 0.83
                ? "outbound-failover"
                : "internal";
    const d = rnd();
    const outcome: GeneratedCall["disposition"] =
      d < 0.65 ? "ANSWERED" : d < 0.85 ? "NO ANSWER" : d < 0.95 ? "BUSY" : "FAILED";
    const answered = outcome === "ANSWERED";
    const ring = int(2, 25);
    const talk = answered ? int(1, 900) : 0;
    const u = uid(t);
    const rows: CdrRow[] = [];
    const base = { uniqueid: u, linkedid: u, amaflags: 3 };
    let call: GeneratedCall;

    if (kind === "inbound" || kind === "ring-group" || kind === "queue") {
      const trunk = pick(trunks);
      const did = pick(dids);
      const caller = external();
      const cnam = rnd() < 0.7 ? `Caller ${caller.slice(-4)}` : "";
      const trunkChan = `PJSIP/${trunk}-${hex()}`;
      const rec = answered && rnd() < 0.3 ? `external-${did}-${caller}-${u}.wav` : "";
      const party = {
        clid: cnam ? `"${cnam}" <${caller}>` : `"${caller}" <${caller}>`,
        src: caller,
        cnum: caller,
        cnam,
        did,
      };
      if (kind === "inbound") {
        const ext = pick(exts);
        rows.push(
          cdrRow({
            ...base,
            ...party,
            calldate: at(0),
            dst: ext,
            dcontext: "ext-local",
            channel: trunkChan,
            dstchannel: `PJSIP/${ext}-${hex()}`,
            lastapp: "Dial",
            lastdata: `PJSIP/${ext}/sip:${ext}@203.0.113.7:5060,30,HhTtrb(func-apply-sipheaders^s^1)`,
            duration: ring + talk,
            billsec: talk,
            disposition: outcome,
            dst_cnam: `User ${ext}`,
            recordingfile: rec,
            sequence: counter++,
          }),
        );
        call = {
          id: u,
          kind,
          start,
          direction: "inbound",
          disposition: outcome,
          answered,
          talkSec: talk,
          durationSec: ring + talk,
          trunk,
          extensions: [ext],
          did,
          from: { number: caller, name: cnam || caller },
          to: { number: ext, name: `User ${ext}` },
          legs: 1,
          recordingFile: rec || null,
        };
      } else if (kind === "ring-group") {
        // One row per member, all on the trunk channel (same uniqueid), started together.
        const members = [...new Set([pick(exts), pick(exts), pick(exts)])];
        const winner = answered ? int(0, members.length - 1) : -1;
        const groupDisposition = outcome === "ANSWERED" ? "NO ANSWER" : outcome;
        for (const [k, ext] of members.entries()) {
          rows.push(
            cdrRow({
              ...base,
              ...party,
              calldate: at(0),
              dst: "600",
              dcontext: "ext-group",
              channel: trunkChan,
              dstchannel: `PJSIP/${ext}-${hex()}`,
              lastapp: "Dial",
              lastdata: `PJSIP/${ext}&PJSIP/${members.join("&PJSIP/")},20,trM(auto-blkvm)`,
              duration: k === winner ? ring + talk : ring,
              billsec: k === winner ? talk : 0,
              disposition: k === winner ? "ANSWERED" : groupDisposition,
              dst_cnam: "Sales",
              recordingfile: k === winner ? rec : "",
              sequence: counter++,
            }),
          );
        }
        call = {
          id: u,
          kind,
          start,
          direction: "inbound",
          disposition: outcome,
          answered,
          talkSec: talk,
          durationSec: ring + talk,
          trunk,
          extensions: members,
          did,
          from: { number: caller, name: cnam || caller },
          to: { number: "600", name: "Sales" },
          legs: members.length,
          recordingFile: rec || null,
        };
      } else {
        // The queue answers the caller at once; agents are rung through Local channels, each its own uniqueid.
        const agents = [...new Set([pick(exts), pick(exts)])];
        const winner = answered ? int(0, agents.length - 1) : -1;
        const wait = ring;
        const agentTalk = answered ? talk : 0;
        const queueBill = wait + agentTalk;
        const queueDuration = queueBill + 1;
        rows.push(
          cdrRow({
            ...base,
            ...party,
            calldate: at(0),
            dst: "400",
            dcontext: "ext-queues",
            channel: trunkChan,
            dstchannel: `Local/${agents[0]}@from-queue-${hex()};1`,
            lastapp: "Queue",
            lastdata: "400,t,,,300,,,,,",
            duration: queueDuration,
            billsec: queueBill,
            disposition: "ANSWERED",
            dst_cnam: "Support",
            recordingfile: rec,
            sequence: counter++,
          }),
        );
        const maxAgentEnd: number[] = [];
        for (const [k, ext] of agents.entries()) {
          const legStart = 1 + k;
          const legU = uid(t + legStart);
          const agentRing = Math.max(1, wait - legStart);
          const legDuration = k === winner ? agentRing + agentTalk : agentRing;
          maxAgentEnd.push(legStart + legDuration);
          rows.push(
            cdrRow({
              ...party,
              amaflags: 3,
              calldate: at(legStart),
              dst: ext,
              dcontext: "from-queue",
              channel: `Local/${ext}@from-queue-${hex()};2`,
              dstchannel: `PJSIP/${ext}-${hex()}`,
              lastapp: "Dial",
              lastdata: `PJSIP/${ext},,HhtrIb(func-apply-sipheaders^s^1)`,
              duration: legDuration,
              billsec: k === winner ? agentTalk : 0,
              disposition: k === winner ? "ANSWERED" : "NO ANSWER",
              dst_cnam: `User ${ext}`,
              uniqueid: legU,
              linkedid: u,
              sequence: counter++,
            }),
          );
        }
        call = {
          id: u,
          kind,
          start,
          direction: "inbound",
          // The queue answered the trunk channel: the call counts as answered even when no agent took it.
          disposition: "ANSWERED",
          answered: true,
          talkSec: Math.max(queueBill, agentTalk),
          durationSec: Math.max(queueDuration, ...maxAgentEnd),
          trunk,
          extensions: agents,
          did,
          from: { number: caller, name: cnam || caller },
          to: { number: "400", name: "Support" },
          legs: 1 + agents.length,
          recordingFile: rec || null,
        };
      }
    } else if (kind === "outbound" || kind === "outbound-failover") {
      const ext = pick(exts);
      const number = `1${external()}`;
      const first = pick(trunks);
      const route = kind === "outbound-failover" ? [first, trunks.find((x) => x !== first) ?? first] : [first];
      const chan = `PJSIP/${ext}-${hex()}`;
      let offset = 0;
      for (const [k, trunk] of route.entries()) {
        const last = k === route.length - 1;
        const legRing = last ? ring : 1;
        rows.push(
          cdrRow({
            ...base,
            calldate: at(offset),
            clid: `"User ${ext}" <${ext}>`,
            src: ext,
            dst: number,
            dcontext: "from-internal",
            channel: chan,
            dstchannel: `PJSIP/${trunk}-${hex()}`,
            lastapp: "Dial",
            lastdata: `PJSIP/${number}@${trunk},300,Tb(func-apply-sipheaders^s^1)`,
            duration: last ? legRing + talk : legRing,
            billsec: last ? talk : 0,
            disposition: last ? outcome : "CONGESTION",
            cnum: ext,
            cnam: `User ${ext}`,
            outbound_cnum: "5551230000",
            outbound_cnam: "ACME Corp",
            sequence: counter++,
          }),
        );
        if (!last) offset += legRing;
      }
      call = {
        id: u,
        kind,
        start,
        direction: "outbound",
        disposition: outcome,
        answered,
        talkSec: talk,
        durationSec: offset + ring + talk,
        trunk: first,
        extensions: [ext],
        did: "",
        from: { number: ext, name: `User ${ext}` },
        to: { number, name: "" },
        legs: route.length,
        recordingFile: null,
      };
    } else {
      const a = pick(exts);
      let b = pick(exts);
      if (b === a) b = exts[(exts.indexOf(a) + 1) % exts.length] as string;
      rows.push(
        cdrRow({
          ...base,
          calldate: at(0),
          clid: `"User ${a}" <${a}>`,
          src: a,
          dst: b,
          dcontext: "from-internal",
          channel: `PJSIP/${a}-${hex()}`,
          dstchannel: `PJSIP/${b}-${hex()}`,
          lastapp: "Dial",
          lastdata: `PJSIP/${b}/sip:${b}@203.0.113.8:5060,,HhTtr`,
          duration: ring + talk,
          billsec: talk,
          disposition: outcome,
          cnum: a,
          cnam: `User ${a}`,
          dst_cnam: `User ${b}`,
          sequence: counter++,
        }),
      );
      call = {
        id: u,
        kind,
        start,
        direction: "internal",
        disposition: outcome,
        answered,
        talkSec: talk,
        durationSec: ring + talk,
        trunk: null,
        extensions: [a, b],
        did: "",
        from: { number: a, name: `User ${a}` },
        to: { number: b, name: `User ${b}` },
        legs: 1,
        recordingFile: null,
      };
    }
    yield { call, rows };
  }
}

/** `n` calls with their rows (in memory: for tests; a benchmark streams `generateCallRows`). */
export function generateCalls(n: number, opts: GenerateOptions): { rows: CdrRow[]; calls: GeneratedCall[] } {
  const rows: CdrRow[] = [];
  const calls: GeneratedCall[] = [];
  for (const g of generateCallRows(n, opts)) {
    calls.push(g.call);
    rows.push(...g.rows);
  }
  return { rows, calls };
}

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

/** Multi-row INSERTs into `table` (1,000 rows a statement, parameters only). Returns the rows written. */
export async function insertCdrRows(
  query: Query,
  table: string,
  rows: Iterable<CdrRow>,
  batch = 1000,
): Promise<number> {
  const head = `INSERT INTO ${table} (${CDR_COLUMNS.join(", ")}) VALUES `;
  const tuple = `(${CDR_COLUMNS.map(() => "?").join(", ")})`;
  let pending: CdrRow[] = [];
  let written = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const params: unknown[] = [];
    for (const row of pending) for (const c of CDR_COLUMNS) params.push(row[c]);
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

/** A `LOAD DATA INFILE` line of a row: tab-separated, `\`-escaped (tab, line feed, backslash). */
export function cdrTsvLine(row: CdrRow): string {
  return `${CDR_COLUMNS.map((c) =>
    String(row[c]).replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r"),
  ).join("\t")}\n`;
}
