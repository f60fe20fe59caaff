// Call history from FreePBX's call records (ADR 0027), against the real MariaDB of the
// test PBX holding generated calls (test/pbx-host/cdr-calls.ts) and hand-made odd rows: one item per
// call, keyset paging without duplicates or gaps, every filter, statistics against a computation in
// JavaScript, the CSV export, read-only, where the database comes from, and a database that is down,
// refuses the login or is slow.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trunks } from "../../src/db/schema";
import { resolveCdrSettings } from "../../src/server/cdr/settings";
import { CdrSource } from "../../src/server/cdr/source";
import type { Config } from "../../src/server/config";
import type { CredentialStore } from "../../src/server/integrations/credentials";
import type { CdrCall, CdrPage, CdrStats } from "../../src/shared/live";
import { startTestServer, type TestServer } from "../helpers/server";
import { type CdrRow, cdrRow, type GeneratedCall, generateCalls, localDateTime } from "../pbx-host/cdr-calls";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);

// The PBX's clock: a zone with a half-hour offset and no daylight saving time, so every time the API
// answers must carry +05:30 and calldate must be read as local time, not UTC.
const ZONE = "Asia/Kolkata";
const previousTz = process.env.TZ;

/** What the console should show, in a comparable shape. */
interface Expected {
  id: string;
  start: Date;
  direction: CdrCall["direction"];
  disposition: CdrCall["disposition"];
  talkSec: number;
  durationSec: number;
  trunk: string | null;
  extensions: string[];
  did: string;
  from: { number: string; name: string };
  to: { number: string; name: string };
  legs: number;
  recordingFile: string | null;
  /** The first channel's numbers and names (what `q` searches). */
  searchable: string[];
}

const iso = (d: Date) => {
  const off = -d.getTimezoneOffset();
  const p = (n: number) => String(n).padStart(2, "0");
  const sign = off >= 0 ? "+" : "-";
  return `${localDateTime(d).replace(" ", "T")}${sign}${p(Math.floor(Math.abs(off) / 60))}:${p(Math.abs(off) % 60)}`;
};

const shown = (c: CdrCall | Expected) => ({
  id: c.id,
  startedAt: "startedAt" in c ? c.startedAt : iso(c.start),
  direction: c.direction,
  disposition: c.disposition,
  talkSec: c.talkSec,
  durationSec: c.durationSec,
  trunk: c.trunk,
  extensions: c.extensions,
  did: c.did,
  from: c.from,
  to: c.to,
  legs: c.legs,
  recordingFile: c.recordingFile,
});

const SEARCH_COLUMNS = ["src", "dst", "cnum", "cnam", "clid", "did", "dst_cnam"] as const;
const searchableOf = (rows: CdrRow[], id: string) =>
  rows
    .filter((r) => r.uniqueid === id && (r.linkedid === id || r.linkedid === ""))
    .flatMap((r) => SEARCH_COLUMNS.map((c) => r[c]));

function expectedOf(g: GeneratedCall, rows: CdrRow[]): Expected {
  return { ...g, searchable: searchableOf(rows, g.id) };
}

let pbx: PbxHost;
let s: TestServer;
let expected: Expected[] = [];
const now = Date.now();
const DAY = 86_400_000;

// ---------------------------------------------------------------------------------------------------
// Odd rows: FreePBX tables in the wild have empty and odd dispositions, zero dates, rows without
// linkedid, text a spreadsheet would run, and trunks with numeric names.

const oddAt = new Date(Math.floor((now - 3 * DAY) / 1000) * 1000);
const at = (offsetSec: number) => localDateTime(new Date(oddAt.getTime() + offsetSec * 1000));
const FORMULA = '=HYPERLINK("http://evil.example","x")';

function oddCalls(): { rows: CdrRow[]; calls: Expected[] } {
  const rows: CdrRow[] = [];
  const calls: Expected[] = [];
  const internal = (id: string, offset: number, disposition: string, billsec: number) => {
    rows.push(
      cdrRow({
        calldate: at(offset),
        clid: '"User 1003" <1003>',
        src: "1003",
        dst: "1004",
        channel: `PJSIP/1003-${id}a`,
        dstchannel: `PJSIP/1004-${id}b`,
        duration: billsec + 5,
        billsec,
        disposition,
        uniqueid: id,
        linkedid: id,
        cnum: "1003",
        cnam: "User 1003",
        dst_cnam: "User 1004",
      }),
    );
  };
  const expect1 = (e: Omit<Expected, "searchable">) => calls.push({ ...e, searchable: searchableOf(rows, e.id) });
  const base = {
    direction: "internal" as const,
    trunk: null,
    extensions: ["1003", "1004"],
    did: "",
    from: { number: "1003", name: "User 1003" },
    to: { number: "1004", name: "User 1004" },
    legs: 1,
    recordingFile: null,
  };
  internal("9000001.1", 0, "", 0);
  expect1({
    ...base,
    id: "9000001.1",
    start: new Date(oddAt.getTime()),
    disposition: "UNKNOWN",
    talkSec: 0,
    durationSec: 5,
  });
  internal("9000002.1", 10, " answered ", 42);
  expect1({
    ...base,
    id: "9000002.1",
    start: new Date(oddAt.getTime() + 10_000),
    disposition: "ANSWERED",
    talkSec: 42,
    durationSec: 47,
  });
  internal("9000003.1", 20, "WEIRD", 0);
  expect1({
    ...base,
    id: "9000003.1",
    start: new Date(oddAt.getTime() + 20_000),
    disposition: "UNKNOWN",
    talkSec: 0,
    durationSec: 5,
  });

  // No linkedid (older Asterisk): the rows of one uniqueid are one call.
  for (const [k, [ext, disposition, billsec]] of (
    [
      ["1005", "NO ANSWER", 0],
      ["1006", "ANSWERED", 30],
    ] as const
  ).entries()) {
    rows.push(
      cdrRow({
        calldate: at(30),
        clid: '"User 1001" <1001>',
        src: "1001",
        dst: "600",
        channel: "PJSIP/1001-0000c001",
        dstchannel: `PJSIP/${ext}-0000c00${k + 2}`,
        duration: billsec + 10,
        billsec,
        disposition,
        uniqueid: "9000004.1",
        linkedid: "",
        cnum: "1001",
        cnam: "User 1001",
        sequence: k + 1,
      }),
    );
  }
  expect1({
    ...base,
    id: "9000004.1",
    start: new Date(oddAt.getTime() + 30_000),
    disposition: "ANSWERED",
    talkSec: 30,
    durationSec: 40,
    extensions: ["1001", "1005", "1006"],
    from: { number: "1001", name: "User 1001" },
    to: { number: "600", name: "" },
    legs: 2,
  });

  // Text a spreadsheet would run as a formula, and a comma/quote that needs quoting.
  rows.push(
    cdrRow({
      calldate: at(40),
      clid: `"${FORMULA}" <+15551234567>`,
      src: "+15551234567",
      dst: "1002",
      channel: "PJSIP/acme-0000d001",
      dstchannel: "PJSIP/1002-0000d002",
      duration: 20,
      billsec: 15,
      disposition: "ANSWERED",
      uniqueid: "9000005.1",
      linkedid: "9000005.1",
      did: "5559990001",
      cnam: FORMULA,
      dst_cnam: 'Desk "A", floor 2',
    }),
  );
  expect1({
    ...base,
    id: "9000005.1",
    start: new Date(oddAt.getTime() + 40_000),
    direction: "inbound",
    disposition: "ANSWERED",
    talkSec: 15,
    durationSec: 20,
    trunk: "acme",
    extensions: ["1002"],
    did: "5559990001",
    from: { number: "+15551234567", name: FORMULA },
    to: { number: "1002", name: 'Desk "A", floor 2' },
  });

  // % and _ in a name: the search takes them literally.
  rows.push(
    cdrRow({
      calldate: at(50),
      clid: '"Sale_s 100%" <5557770000>',
      src: "5557770000",
      dst: "1002",
      channel: "PJSIP/acme-0000e001",
      dstchannel: "PJSIP/1002-0000e002",
      duration: 9,
      billsec: 0,
      disposition: "BUSY",
      uniqueid: "9000006.1",
      linkedid: "9000006.1",
      did: "5559990002",
      cnum: "5557770000",
      cnam: "Sale_s 100%",
    }),
  );
  expect1({
    ...base,
    id: "9000006.1",
    start: new Date(oddAt.getTime() + 50_000),
    direction: "inbound",
    disposition: "BUSY",
    talkSec: 0,
    durationSec: 9,
    trunk: "acme",
    extensions: ["1002"],
    did: "5559990002",
    from: { number: "5557770000", name: "Sale_s 100%" },
    to: { number: "1002", name: "" },
  });

  // A console trunk with a numeric name is a trunk, not an extension.
  rows.push(
    cdrRow({
      calldate: at(60),
      clid: '"" <5556660000>',
      src: "5556660000",
      dst: "1002",
      channel: "PJSIP/5550000-0000f001",
      dstchannel: "PJSIP/1002-0000f002",
      duration: 12,
      billsec: 7,
      disposition: "ANSWERED",
      uniqueid: "9000007.1",
      linkedid: "9000007.1",
      cnum: "5556660000",
    }),
  );
  expect1({
    ...base,
    id: "9000007.1",
    start: new Date(oddAt.getTime() + 60_000),
    direction: "inbound",
    disposition: "ANSWERED",
    talkSec: 7,
    durationSec: 12,
    trunk: "5550000",
    extensions: ["1002"],
    from: { number: "5556660000", name: "" },
    to: { number: "1002", name: "" },
  });

  // Zero dates: never a call, never a crash.
  rows.push(cdrRow({ calldate: "0000-00-00 00:00:00", uniqueid: "9000008.1", linkedid: "9000008.1", disposition: "" }));
  rows.push(cdrRow({ uniqueid: "9000009.1", linkedid: "9000009.1" })); // the column default, 1000-01-01
  return { rows, calls };
}

// ---------------------------------------------------------------------------------------------------

async function get(path: string) {
  return s.call("GET", path);
}

/** Every call of a query, page by page (short pages with a cursor are followed too). */
async function walk(query: string, limit = 200, server: Pick<TestServer, "call"> = s): Promise<CdrCall[]> {
  const items: CdrCall[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const qs = [query, `limit=${limit}`, cursor ? `cursor=${encodeURIComponent(cursor)}` : ""]
      .filter(Boolean)
      .join("&");
    const res = await server.call("GET", `/api/cdr?${qs}`);
    expect(res.status).toBe(200);
    const page = res.json as CdrPage;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) return items;
  }
  throw new Error("the walk did not end");
}

const newestFirst = (list: Expected[]) =>
  [...list].sort((a, b) => b.start.getTime() - a.start.getTime() || (a.id < b.id ? 1 : -1));

const sortById = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));

beforeAll(async () => {
  process.env.TZ = ZONE;
  pbx = await startPbxHost();
  const start = new Date(now - 6 * DAY);
  const end = new Date(now - 60_000);
  const spread = generateCalls(1500, { start, end, seed: 7 });
  // A burst: 80 calls within two seconds (many calls share a calldate second; pages must cut inside one).
  const burstAt = now - 2 * DAY;
  const burst = generateCalls(80, {
    start: new Date(burstAt),
    end: new Date(burstAt + 2000),
    seed: 9,
    firstId: 500_000,
  });
  const odd = oddCalls();
  await pbx.cdr.insert([...spread.rows, ...burst.rows, ...odd.rows]);
  expected = [
    ...spread.calls.map((c) => expectedOf(c, spread.rows)),
    ...burst.calls.map((c) => expectedOf(c, burst.rows)),
    ...odd.calls,
  ];
  s = await startTestServer({ CDR_DATABASE_URL: pbx.cdr.url });
  await s.setup();
  s.db.insert(trunks).values({ name: "5550000", type: "sip", host: "sip.example.com" }).run();
});

afterAll(async () => {
  await s?.stop();
  await pbx?.stop();
  if (previousTz === undefined) delete process.env.TZ;
  else process.env.TZ = previousTz;
});

describe("one item per call", () => {
  test("every call of the range once, its legs grouped, with what the scenario says it was", async () => {
    const items = await walk("", 500);
    expect(items.length).toBe(expected.length);
    expect(sortById(items).map(shown)).toEqual(sortById(expected).map(shown));
    // Times carry the PBX's offset.
    expect(items.every((c) => c.startedAt.endsWith("+05:30"))).toBe(true);
  });

  test("newest first; small pages across seconds shared by many calls give each call exactly once", async () => {
    const all = await walk("", 500);
    const small = await walk("", 7);
    expect(small.map((c) => c.id)).toEqual(all.map((c) => c.id));
    expect(new Set(small.map((c) => c.id)).size).toBe(small.length);
    const times = small.map((c) => Date.parse(c.startedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // The order is the scenario's, newest call first.
    expect(new Set(all.map((c) => c.id))).toEqual(new Set(newestFirst(expected).map((c) => c.id)));
  });

  test("a call whose first channel has legs in two seconds (a failover) is listed once, from its first leg", async () => {
    const failover = expected.find((c) => c.legs === 2 && c.direction === "outbound");
    expect(failover).toBeDefined();
    const items = await walk("", 3);
    expect(items.filter((c) => c.id === failover?.id)).toHaveLength(1);
  });

  test("zero and default dates are never calls, and a range over them answers", async () => {
    const res = await get("/api/cdr?from=1969-12-20T00:00:00Z&to=1970-03-01T00:00:00Z");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ items: [], nextCursor: null, grouping: "linkedid", notice: null });
  });
});

describe("filters", () => {
  const cases: [string, (c: Expected) => boolean][] = [
    ["disposition=ANSWERED", (c) => c.disposition === "ANSWERED"],
    ["disposition=NO%20ANSWER", (c) => c.disposition === "NO ANSWER"],
    ["disposition=BUSY", (c) => c.disposition === "BUSY"],
    ["disposition=FAILED", (c) => c.disposition === "FAILED"],
    ["direction=inbound", (c) => c.direction === "inbound"],
    ["direction=outbound", (c) => c.direction === "outbound"],
    ["direction=internal", (c) => c.direction === "internal"],
    ["extension=1005", (c) => c.extensions.includes("1005")],
    ["trunk=acme", (c) => c.trunk === "acme"],
    ["trunk=telco-two", (c) => c.trunk === "telco-two"],
    ["trunk=5550000", (c) => c.trunk === "5550000"],
    [
      "direction=inbound&disposition=BUSY&trunk=acme",
      (c) => c.direction === "inbound" && c.disposition === "BUSY" && c.trunk === "acme",
    ],
  ];
  for (const [query, keep] of cases) {
    test(`${decodeURIComponent(query)}: exactly the calls that match`, async () => {
      const want = expected.filter(keep);
      expect(want.length).toBeGreaterThan(0);
      const items = await walk(query, 50);
      expect(items.map((c) => c.id).sort()).toEqual(want.map((c) => c.id).sort());
    });
  }

  const searches: [string, string][] = [
    ["q=555123", "555123"],
    ["q=caller%2012", "caller 12"],
    ["q=sales", "sales"],
    ["q=100%25", "100%"],
    ["q=LE_S%201", "le_s 1"],
    ["q=e_s", "e_s"],
  ];
  for (const [query, needle] of searches) {
    test(`${decodeURIComponent(query)}: the first channel's numbers and names contain it (% and _ literal, any case)`, async () => {
      const want = expected.filter((c) => c.searchable.some((v) => v.toLowerCase().includes(needle)));
      expect(want.length).toBeGreaterThan(0);
      const items = await walk(query, 50);
      expect(items.map((c) => c.id).sort()).toEqual(want.map((c) => c.id).sort());
    });
  }
  test("q=e_s does not match 'Sales' (the underscore is not a wildcard)", async () => {
    const items = await walk("q=e_s", 50);
    expect(items.map((c) => c.id)).toEqual(["9000006.1"]);
  });

  test("from is inclusive and to exclusive, in the PBX's local time", async () => {
    const call = newestFirst(expected)[40] as Expected;
    const at = call.start.toISOString();
    const from = await walk(
      `from=${encodeURIComponent(at)}&to=${encodeURIComponent(new Date(call.start.getTime() + 1000).toISOString())}`,
    );
    expect(from.map((c) => c.id)).toContain(call.id);
    const to = await walk(
      `from=${encodeURIComponent(new Date(call.start.getTime() - 60_000).toISOString())}&to=${encodeURIComponent(at)}`,
    );
    expect(to.map((c) => c.id)).not.toContain(call.id);
    // The same instant written with the PBX's offset selects the same.
    const local = await walk(
      `from=${encodeURIComponent(iso(call.start))}&to=${encodeURIComponent(iso(new Date(call.start.getTime() + 1000)))}`,
    );
    expect(local.map((c) => c.id).sort()).toEqual(from.map((c) => c.id).sort());
  });

  test("statistics asked again share one answer until a call ends (historyChanged), then count the new call", async () => {
    const source = new CdrSource(s.app);
    const range = { from: "2001-01-01T00:00:00Z", to: "2001-01-03T00:00:00Z" };
    const when = localDateTime(new Date("2001-01-02T12:00:00Z"));
    const row = (id: string) =>
      cdrRow({
        calldate: when,
        src: "1001",
        dst: "1002",
        uniqueid: id,
        linkedid: id,
        disposition: "ANSWERED",
        billsec: 30,
        duration: 35,
      });
    try {
      await pbx.cdr.insert([row("2001.1")]);
      expect((await source.stats(range)).total).toBe(1);
      await pbx.cdr.insert([row("2001.2")]);
      // Within 30 s the same question gets the same answer (every open screen asks when a call ends)…
      expect((await source.stats(range)).total).toBe(1);
      // …until the live monitor says a call ended.
      source.historyChanged();
      expect((await source.stats(range)).total).toBe(2);
    } finally {
      await pbx.cdr.query("DELETE FROM cdr WHERE uniqueid IN ('2001.1', '2001.2')");
      await source.close();
    }
  });

  test("a filter that discards most calls answers short pages with a cursor (bounded reading); the walk finds them all", async () => {
    // A source that reads at most 50 first-channel legs per page (the console's is 20,000).
    const narrow = new CdrSource(s.app, { pageScanRows: 50 });
    try {
      const want = expected.filter((c) => c.extensions.includes("1005")).map((c) => c.id);
      const got: string[] = [];
      let cursor: string | undefined;
      let short = 0;
      do {
        const page = await narrow.page({ extension: "1005", limit: 50, cursor });
        if (page.items.length < 50 && page.nextCursor) short++;
        got.push(...page.items.map((c) => c.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(short).toBeGreaterThan(1);
      expect(got.sort()).toEqual(want.sort());
    } finally {
      await narrow.close();
    }
    // Nothing matches: every page still answers and the walk ends.
    expect(await walk("extension=1999", 50)).toEqual([]);
  });
});

describe("bad queries are 400 with the field", () => {
  const bad: [string, string][] = [
    ["cursor=not-a-cursor!", "cursor"],
    [`cursor=${Buffer.from("garbage").toString("base64url")}`, "cursor"],
    [`cursor=${Buffer.from("2026-13-45 99:00:00|x").toString("base64url")}`, "cursor"],
    ["from=yesterday", "from"],
    ["to=2026-02-30Tnope", "to"],
    ["from=2024-01-01T00:00:00Z&to=2025-06-01T00:00:00Z", "from"],
    ["from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "to"],
    ["limit=0", "limit"],
    ["limit=501", "limit"],
    ["disposition=MAYBE", "disposition"],
    ["direction=sideways", "direction"],
    ["extension=10a1", "extension"],
    ["trunk=a%20b", "trunk"],
  ];
  for (const [query, field] of bad) {
    test(`${decodeURIComponent(query)} → ${field}`, async () => {
      const res = await get(`/api/cdr?${query}`);
      expect(res.status).toBe(400);
      expect(Object.keys(res.json.error.fields ?? {})).toContain(field);
    });
  }
  test("hourly statistics over more than 31 days → bucket", async () => {
    const res = await get(
      `/api/cdr/stats?bucket=hour&from=${encodeURIComponent(new Date(now - 40 * DAY).toISOString())}`,
    );
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.error.fields)).toEqual(["bucket"]);
  });
});

describe("statistics", () => {
  /** The same figures computed here from the scenario. */
  function compute(list: Expected[], bucket: "hour" | "day") {
    const answered = list.filter((c) => c.disposition === "ANSWERED");
    const byTrunk = new Map<string | null, { total: number; answered: number }>();
    const series = new Map<string, { total: number; answered: number }>();
    for (const c of list) {
      const t = byTrunk.get(c.trunk) ?? { total: 0, answered: 0 };
      t.total++;
      if (c.disposition === "ANSWERED") t.answered++;
      byTrunk.set(c.trunk, t);
      const d = c.start;
      const key = iso(
        bucket === "hour"
          ? new Date(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours())
          : new Date(d.getFullYear(), d.getMonth(), d.getDate()),
      );
      const b = series.get(key) ?? { total: 0, answered: 0 };
      b.total++;
      if (c.disposition === "ANSWERED") b.answered++;
      series.set(key, b);
    }
    return {
      total: list.length,
      answered: answered.length,
      asr: list.length ? answered.length / list.length : null,
      acdSec: answered.length ? answered.reduce((n, c) => n + c.talkSec, 0) / answered.length : null,
      byTrunk: Object.fromEntries([...byTrunk].map(([k, v]) => [String(k), v])),
      series: Object.fromEntries([...series].map(([k, v]) => [k, v])),
    };
  }
  const figures = (st: CdrStats) => ({
    total: st.total,
    answered: st.answered,
    asr: st.asr,
    acdSec: st.acdSec,
    byTrunk: Object.fromEntries(st.byTrunk.map((t) => [String(t.trunk), { total: t.total, answered: t.answered }])),
    series: Object.fromEntries(
      st.series.filter((b) => b.total > 0).map((b) => [b.start, { total: b.total, answered: b.answered }]),
    ),
  });

  test("the last 7 days by day: totals, answered, ASR, ACD, per trunk and per day, as computed from the calls", async () => {
    const res = await get("/api/cdr/stats");
    expect(res.status).toBe(200);
    const st = res.json as CdrStats;
    expect(st.bucket).toBe("day");
    const want = compute(expected, "day");
    expect(figures(st)).toEqual({
      ...want,
      asr: expect.closeTo(want.asr as number, 10),
      acdSec: expect.closeTo(want.acdSec as number, 6),
    });
    // 7 days, each day once (zero-filled), missed = total − answered.
    expect(st.series.length).toBeGreaterThanOrEqual(7);
    expect(st.series.length).toBeLessThanOrEqual(8);
    expect(st.series.every((b) => b.missed === b.total - b.answered && b.start.endsWith("+05:30"))).toBe(true);
    expect(st.byTrunk[0]?.total).toBe(Math.max(...st.byTrunk.map((t) => t.total)));
  });

  test("two days by hour (the default bucket for ranges up to two days), zero-filled", async () => {
    const from = new Date(now - 2 * DAY);
    const to = new Date(now);
    const res = await get(
      `/api/cdr/stats?from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`,
    );
    expect(res.status).toBe(200);
    const st = res.json as CdrStats;
    expect(st.bucket).toBe("hour");
    expect(st.series.length).toBeGreaterThanOrEqual(48);
    expect(st.series.length).toBeLessThanOrEqual(49);
    const inRange = expected.filter((c) => c.start >= from && c.start < to);
    const want = compute(inRange, "hour");
    expect(figures(st)).toEqual({
      ...want,
      asr: expect.closeTo(want.asr as number, 10),
      acdSec: expect.closeTo(want.acdSec as number, 6),
    });
  });

  // The statistics say the call rules in SQL, the pages in JavaScript: both must give the same calls.
  for (const query of [
    "direction=inbound",
    "direction=outbound",
    "direction=internal",
    "disposition=NO%20ANSWER",
    "disposition=ANSWERED",
    "trunk=acme",
    "trunk=5550000",
    "extension=1005",
    "q=sales",
    "q=100%25",
    "direction=inbound&disposition=BUSY",
  ]) {
    test(`${decodeURIComponent(query)}: the statistics count exactly the listed calls`, async () => {
      const items = await walk(query, 500);
      const res = await get(`/api/cdr/stats?${query}`);
      expect(res.status).toBe(200);
      const st = res.json as CdrStats;
      expect(st.total).toBe(items.length);
      expect(st.answered).toBe(items.filter((c) => c.disposition === "ANSWERED").length);
      const trunkCounts: Record<string, number> = {};
      for (const c of items) trunkCounts[String(c.trunk)] = (trunkCounts[String(c.trunk)] ?? 0) + 1;
      expect(Object.fromEntries(st.byTrunk.map((t) => [String(t.trunk), t.total]))).toEqual(trunkCounts);
    });
  }
});

describe("CSV export", () => {
  test("a header line, then one line per call, newest first; formula cells prefixed; an attachment; audited", async () => {
    const res = await fetch(`${s.base}/api/cdr/export.csv`, { headers: { cookie: s.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="call-history.csv"');
    expect(res.headers.get("content-type")).toStartWith("text/csv");
    const text = await res.text();
    const lines = text.split("\r\n");
    expect(lines.at(-1)).toBe("");
    expect(lines[0]).toBe(
      "started_at,direction,from_number,from_name,to_number,to_name,did,disposition,duration_sec,talk_sec,trunk,extensions,legs,recording_file,call_id",
    );
    const body = lines.slice(1, -1);
    expect(body.length).toBe(expected.length);
    const ids = body.map((l) => l.split(",").at(-1));
    expect(ids).toEqual((await walk("", 500)).map((c) => c.id));
    const formula = body.find((l) => l.endsWith(",9000005.1")) as string;
    expect(formula).toContain(`'+15551234567,"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(formula).toContain(`"Desk ""A"", floor 2"`);
    expect(body.find((l) => l.endsWith(",9000004.1"))).toContain(",1001 1005 1006,2,,");

    const audit = await get("/api/audit?action=cdr.export");
    expect(audit.json.items[0]).toMatchObject({ action: "cdr.export", outcome: "ok", actor: "admin" });
  });

  test("filtered: only the matching calls", async () => {
    const res = await fetch(`${s.base}/api/cdr/export.csv?direction=internal&disposition=BUSY`, {
      headers: { cookie: s.cookie },
    });
    const body = (await res.text()).split("\r\n").slice(1, -1);
    const want = expected.filter((c) => c.direction === "internal" && c.disposition === "BUSY");
    expect(body.map((l) => l.split(",").at(-1)).sort()).toEqual(want.map((c) => c.id).sort());
  });

  test("a bad filter is a 400, not an empty file", async () => {
    const res = await get("/api/cdr/export.csv?from=soon");
    expect(res.status).toBe(400);
  });
});

describe("read-only", () => {
  test("no route changes a row of cdr", async () => {
    const before = await pbx.cdr.checksum();
    for (const path of [
      "/api/cdr",
      "/api/cdr?limit=3&q=sales",
      "/api/cdr/stats",
      "/api/cdr/stats?bucket=hour&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z",
      "/api/cdr/export.csv",
      "/api/cdr/status",
    ]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(await pbx.cdr.checksum()).toBe(before);
    }
  });

  test("the session itself refuses writes (READ ONLY), though the database user may write", async () => {
    const before = await pbx.cdr.checksum();
    for (const statement of [
      "INSERT INTO cdr (uniqueid, linkedid) VALUES ('write.1', 'write.1')",
      "UPDATE cdr SET cnam = 'changed'",
      "DELETE FROM cdr",
    ]) {
      const attempt = s.app.cdr.session((db) => db.query(statement));
      await expect(attempt).rejects.toThrow(/READ ONLY/);
    }
    expect(await pbx.cdr.checksum()).toBe(before);
    // The same user writes outside the console's session: the refusal is the session's.
    await pbx.cdr.query("UPDATE cdr SET userfield = userfield WHERE uniqueid = 'none'");
  });

  test("any signed-in role reads the history", async () => {
    const created = await s.call("POST", "/api/users", {
      username: "viewer1",
      password: "viewer password 1",
      role: "viewer",
    });
    expect(created.status).toBe(201);
    const login = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "viewer1", password: "viewer password 1" }),
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    for (const path of [
      "/api/cdr?limit=1",
      "/api/cdr/stats",
      "/api/cdr/status",
      "/api/cdr/export.csv?extension=1999",
    ]) {
      const res = await fetch(`${s.base}${path}`, { headers: { cookie } });
      expect(res.status).toBe(200);
    }
    const anonymous = await fetch(`${s.base}/api/cdr`);
    expect(anonymous.status).toBe(401);
  });
});

describe("where the database comes from", () => {
  test("from CDR_DATABASE_URL: status says settings", async () => {
    const res = await get("/api/cdr/status");
    expect(res.json).toEqual({ available: true, reason: null, source: "settings" });
  });

  test("from /etc/freepbx.conf (FREEPBX_CONF) when nothing is set: CDRDBNAME default, local read", async () => {
    const other = await startTestServer({ FREEPBX_CONF: pbx.freepbxConfPath });
    try {
      await other.setup();
      const status = await other.call("GET", "/api/cdr/status");
      expect(status.json).toEqual({ available: true, reason: null, source: "freepbx.conf" });
      const page = await other.call("GET", "/api/cdr?limit=5");
      expect(page.status).toBe(200);
      expect(page.json.items).toHaveLength(5);

      // Saved settings win over the file; the pool follows (a wrong port now, then the right URL again).
      const closed = new URL(pbx.cdr.url);
      closed.port = "1";
      const saved = await other.call("POST", "/api/credentials", {
        type: "cdr",
        name: "CDR",
        databaseUrl: closed.href,
      });
      expect(saved.status).toBe(200);
      const down = await other.call("GET", "/api/cdr/status");
      expect(down.json).toMatchObject({ available: false, source: "settings" });
      expect(down.json.reason).toContain("127.0.0.1:1 refused the connection");
      expect(down.json.reason).not.toContain(pbx.mysql.password);
      await other.call("POST", "/api/credentials", { type: "cdr", name: "CDR", databaseUrl: pbx.cdr.url });
      expect((await other.call("GET", "/api/cdr?limit=1")).status).toBe(200);
    } finally {
      await other.stop();
    }
  });

  test("freepbx.conf as FreePBX reads it: localhost over TCP, AMPDBPORT only above 1024, CDRDB* settings win", () => {
    const dir = mkdtempSync(join(tmpdir(), "cdr-conf-"));
    const path = join(dir, "freepbx.conf");
    const resolve = (lines: string[], databaseUrl = "") => {
      writeFileSync(path, ["<?php", ...lines, "?>"].join("\n"));
      return resolveCdrSettings({
        credentials: { values: () => (databaseUrl ? { databaseUrl } : {}) } as unknown as CredentialStore,
        config: { pbxFiles: { freepbxConf: path, managerConf: "" } } as Config,
      });
    };
    try {
      const stock = resolve([
        "$amp_conf['AMPDBUSER'] = 'freepbxuser';",
        "$amp_conf['AMPDBPASS'] = 'pa\\'ss';",
        "$amp_conf['AMPDBHOST'] = 'localhost';",
        "$amp_conf['AMPDBNAME'] = 'asterisk';",
      ]);
      expect(stock).toEqual({
        ok: true,
        settings: {
          source: "freepbx.conf",
          origin: path,
          host: "127.0.0.1",
          port: 3306,
          socket: null,
          user: "freepbxuser",
          password: "pa'ss",
          database: "asteriskcdrdb",
        },
      });
      const low = resolve([
        "$amp_conf['AMPDBUSER'] = 'u';",
        "$amp_conf['AMPDBPASS'] = 'p';",
        "$amp_conf['AMPDBPORT'] = '999';",
      ]);
      expect(low.ok && low.settings.port).toBe(3306);
      const cdr = resolve([
        "$amp_conf['AMPDBUSER'] = 'u';",
        "$amp_conf['AMPDBPASS'] = 'p';",
        "$amp_conf['AMPDBHOST'] = 'db.example';",
        "$amp_conf['AMPDBPORT'] = '3307';",
        "$amp_conf['CDRDBNAME'] = 'cdrs';",
        "$amp_conf['CDRDBUSER'] = 'reader';",
        "$amp_conf['CDRDBPASS'] = 'r';",
      ]);
      expect(cdr).toMatchObject({
        ok: true,
        settings: { host: "db.example", port: 3307, user: "reader", password: "r", database: "cdrs" },
      });
      const socket = resolve([
        "$amp_conf['AMPDBUSER'] = 'u';",
        "$amp_conf['AMPDBPASS'] = 'p';",
        "$amp_conf['AMPDBSOCK'] = '/run/mysqld/mysqld.sock';",
      ]);
      expect(socket.ok && socket.settings.socket).toBe("/run/mysqld/mysqld.sock");
      expect(resolve(["$amp_conf['AMPDBHOST'] = 'localhost';"])).toEqual({
        ok: false,
        source: "freepbx.conf",
        reason: `${path} has no AMPDBUSER/AMPDBPASS`,
      });
      expect(
        resolve([
          "$amp_conf['AMPDBUSER'] = 'u';",
          "$amp_conf['AMPDBPASS'] = 'p';",
          "$amp_conf['CDRDBNAME'] = 'x;drop';",
        ]),
      ).toMatchObject({ ok: false });
      // The setting wins over the file; a setting that is not a database URL says so.
      expect(resolve(["$amp_conf['AMPDBUSER'] = 'u';"], "mysql://a:b@10.0.0.5:3310/cdr")).toMatchObject({
        ok: true,
        settings: { source: "settings", host: "10.0.0.5", port: 3310, user: "a", password: "b", database: "cdr" },
      });
      expect(resolve([], "http://example.com/")).toMatchObject({ ok: false, source: "settings" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("nothing configured and no freepbx.conf: 400 saying so (like any unconfigured service), status source none", async () => {
    const other = await startTestServer();
    try {
      await other.setup();
      const status = await other.call("GET", "/api/cdr/status");
      expect(status.json).toMatchObject({ available: false, source: "none" });
      expect(status.json.reason).toMatch(/^Call records database not configured: .*absent-freepbx\.conf was not found/);
      for (const path of ["/api/cdr", "/api/cdr/stats", "/api/cdr/export.csv"]) {
        const res = await other.call("GET", path);
        expect(res.status).toBe(400);
        expect(res.json.error.message).toBe(status.json.reason);
      }
    } finally {
      await other.stop();
    }
  });

  test("Test Connection of the service counts the records; a wrong password is named without the password", async () => {
    const ok = await s.call("POST", "/api/credentials/test", { type: "cdr", name: "CDR", databaseUrl: pbx.cdr.url });
    expect(ok.json.success).toBe(true);
    const count = (await pbx.cdr.query("SELECT COUNT(*) AS n FROM cdr"))[0]?.n;
    expect(ok.json.message).toBe(
      `Connected to asteriskcdrdb on 127.0.0.1:${pbx.mysql.port}: ${Number(count).toLocaleString("en-US")} call records.`,
    );
    const wrong = new URL(pbx.cdr.url);
    wrong.password = "Wrong-Secret-Pass-77";
    const bad = await s.call("POST", "/api/credentials/test", { type: "cdr", name: "CDR", databaseUrl: wrong.href });
    expect(bad.json.success).toBe(false);
    expect(bad.json.message).toContain("refused the login of freepbxuser: wrong user name or password");
    expect(bad.json.message).not.toContain("Wrong-Secret-Pass-77");
  });
});

describe("faults", () => {
  test("a login refused: 503 with the reason, never the password", async () => {
    const wrong = new URL(pbx.cdr.url);
    wrong.password = "Not-The-Password-123";
    const other = await startTestServer({ CDR_DATABASE_URL: wrong.href });
    try {
      await other.setup();
      const res = await other.call("GET", "/api/cdr");
      expect(res.status).toBe(503);
      expect(res.json.error.message).toContain("refused the login of freepbxuser");
      expect(res.text).not.toContain("Not-The-Password-123");
    } finally {
      await other.stop();
    }
  });

  test("a slow query is stopped by the server at the limit: 503 in bounded time", async () => {
    // A database whose `cdr` is a view that sleeps 100 ms per row read: any page takes far longer than 1 s.
    await pbx.adminScript(
      [
        "CREATE DATABASE slowcdr;",
        "CREATE VIEW slowcdr.cdr AS SELECT * FROM asteriskcdrdb.cdr WHERE SLEEP(0.1) = 0;",
        "GRANT SELECT ON slowcdr.* TO 'freepbxuser'@'127.0.0.1';",
      ].join("\n"),
    );
    const url = new URL(pbx.cdr.url);
    url.pathname = "/slowcdr";
    const other = await startTestServer({ CDR_DATABASE_URL: url.href });
    try {
      await other.setup();
      await other.app.cdr.close();
      other.app.cdr = new CdrSource(other.app, { queryTimeoutMs: 1000, longQueryTimeoutMs: 1000 });
      for (const path of ["/api/cdr", "/api/cdr/stats"]) {
        const started = performance.now();
        const res = await other.call("GET", path);
        const took = performance.now() - started;
        expect(res.status).toBe(503);
        expect(res.json.error.message).toContain("ran longer than 1 s and was stopped");
        expect(took).toBeLessThan(5000);
      }
      // The connections are usable again afterwards.
      expect((await other.call("GET", "/api/cdr/status")).json.available).toBe(true);
    } finally {
      await other.stop();
    }
  });

  test("MariaDB stopped: 503 with a clear reason and no password; answers again once it is back", async () => {
    expect((await get("/api/cdr?limit=1")).status).toBe(200);
    await pbx.setMysqlDown(true);
    try {
      // (Statistics asked in the last 30 s share their answer: a question not asked before reaches MariaDB.)
      for (const path of ["/api/cdr", "/api/cdr/stats?q=not-asked-before", "/api/cdr/export.csv"]) {
        const res = await get(path);
        expect(res.status).toBe(503);
        expect(res.json.error.message).toContain(`127.0.0.1:${pbx.mysql.port}`);
        expect(res.json.error.message).toMatch(/refused the connection|was lost/);
        expect(res.text).not.toContain(pbx.mysql.password);
      }
      const status = await get("/api/cdr/status");
      expect(status.json).toMatchObject({ available: false, source: "settings" });
    } finally {
      await pbx.setMysqlDown(false);
    }
    const back = await get("/api/cdr?limit=5");
    expect(back.status).toBe(200);
    expect(back.json.items).toHaveLength(5);
    expect((await get("/api/cdr/status")).json.available).toBe(true);
  });
});
