// Call history from a `cdr` table of an older FreePBX cdr module (ADR 0049), against the real MariaDB of
// the test PBX: a table without linkedid, peeraccount and sequence groups the legs of each calling
// channel (uniqueid) into a call, and the list, paging, filters, statistics, CSV export and status all
// answer with a notice instead of failing; a table without the caller ID, did and recording columns too;
// a table without sequence alone still groups by linkedid and orders legs by calldate, uniqueid, channel; the
// shape is read again when the settings change and when a column disappears under a running console.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { localIso } from "../../src/server/cdr/calls";
import { CdrSource } from "../../src/server/cdr/source";
import { NO_LINKEDID_NOTICE } from "../../src/server/cdr/table";
import type { Config } from "../../src/server/config";
import type { CredentialStore } from "../../src/server/integrations/credentials";
import type { CdrCall, CdrPage, CdrStats } from "../../src/shared/live";
import { startTestServer, type TestServer } from "../helpers/server";
import { CDR_COLUMNS, type CdrColumn, type CdrRow, cdrRow, localDateTime } from "../pbx-host/cdr-calls";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);

let pbx: PbxHost;
let s: TestServer;

const base = new Date(Math.floor((Date.now() - 86_400_000) / 1000) * 1000);
const at = (offsetSec: number) => localDateTime(new Date(base.getTime() + offsetSec * 1000));
const startedAt = (offsetSec: number) => localIso(new Date(base.getTime() + offsetSec * 1000));

/** The columns of each test table: FreePBX's today, and the shapes older cdr modules left behind. */
const without = (...gone: CdrColumn[]) => CDR_COLUMNS.filter((c) => !gone.includes(c));
const SHAPES = {
  /** No linkedid, peeraccount or sequence (the module before it added them). */
  oldcdr: without("linkedid", "peeraccount", "sequence"),
  /** Older still: neither the caller ID columns, did nor recordingfile. */
  ancientcdr: without(
    "linkedid",
    "peeraccount",
    "sequence",
    "did",
    "recordingfile",
    "cnum",
    "cnam",
    "outbound_cnum",
    "outbound_cnam",
    "dst_cnam",
  ),
  /** linkedid without sequence. */
  noseqcdr: without("peeraccount", "sequence"),
  /** Today's shape, until a test drops columns under a running console. */
  livecdr: [...CDR_COLUMNS],
} as const;
type Db = keyof typeof SHAPES;

const urlOf = (db: Db) => {
  const url = new URL(pbx.cdr.url);
  url.pathname = `/${db}`;
  return url.href;
};

async function insert(db: Db, rows: CdrRow[]) {
  const columns = SHAPES[db];
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  await pbx.cdr.query(
    `INSERT INTO ${db}.cdr (${columns.join(", ")}) VALUES ${rows.map(() => tuple).join(", ")}`,
    rows.flatMap((r) => columns.map((c) => r[c])),
  );
}

/** A source reading `db` directly (settings from a stand-in credential store). */
const sourceOf = (db: Db) =>
  new CdrSource({
    credentials: { values: () => ({ databaseUrl: urlOf(db) }) } as unknown as CredentialStore,
    config: { pbxFiles: { freepbxConf: "/nonexistent/freepbx.conf", managerConf: "" } } as Config,
  });

// ---------------------------------------------------------------------------------------------------
// Calls as Asterisk writes them into a table without linkedid: a ring group is one row per member with the
// caller's uniqueid; a failover is one row per trunk tried; a queue member reached through a Local channel
// has its own uniqueid.

const RING = "1690000001.11";
const INTERNAL = "1690000002.21";
const FAILOVER = "1690000003.31";
const QUEUE_CALLER = "1690000004.41";
const QUEUE_MEMBER = "1690000004.43";
const BUSY = "1690000005.51";

const caller = { clid: '"Jane Caller" <5551110000>', src: "5551110000", cnum: "5551110000", cnam: "Jane Caller" };
const user = (ext: string) => ({ clid: `"User ${ext}" <${ext}>`, src: ext, cnum: ext, cnam: `User ${ext}` });
/** One row: when, which channel's (`uniqueid`), from which channel to which, how it ended, and the rest. */
const leg = (
  offsetSec: number,
  uniqueid: string,
  [channel, dstchannel]: [string, string],
  [disposition, duration, billsec]: [string, number, number],
  rest: Partial<CdrRow>,
) => cdrRow({ calldate: at(offsetSec), uniqueid, channel, dstchannel, disposition, duration, billsec, ...rest });

const ringing = { ...caller, dst: "600", did: "5551230000" };
const dialling = { ...user("1004"), dst: "5559876543" };
const legacyRows: CdrRow[] = [
  leg(0, RING, ["SIP/acme-00000011", "SIP/1001-00000012"], ["NO ANSWER", 20, 0], ringing),
  leg(0, RING, ["SIP/acme-00000011", "SIP/1002-00000013"], ["ANSWERED", 80, 60], {
    ...ringing,
    recordingfile: `rg-${RING}.wav`,
  }),
  leg(0, RING, ["SIP/acme-00000011", "SIP/1003-00000014"], ["NO ANSWER", 20, 0], ringing),
  leg(100, INTERNAL, ["SIP/1005-00000021", "SIP/1006-00000022"], ["ANSWERED", 35, 30], {
    ...user("1005"),
    dst: "1006",
    dst_cnam: "User 1006",
  }),
  leg(200, FAILOVER, ["SIP/1004-00000031", "SIP/acme-00000032"], ["CONGESTION", 1, 0], dialling),
  leg(201, FAILOVER, ["SIP/1004-00000031", "SIP/telco-two-00000033"], ["ANSWERED", 50, 45], dialling),
  leg(300, QUEUE_CALLER, ["SIP/acme-00000041", "Local/1007@from-queue-00000042;1"], ["ANSWERED", 40, 25], {
    ...caller,
    dst: "400",
    did: "5551230001",
  }),
  leg(305, QUEUE_MEMBER, ["Local/1007@from-queue-00000042;2", "SIP/1007-00000044"], ["ANSWERED", 35, 25], {
    ...caller,
    dst: "1007",
  }),
  leg(400, BUSY, ["SIP/1008-00000051", "SIP/1009-00000052"], ["BUSY", 5, 0], { ...user("1008"), dst: "1009" }),
];

/** A call as the console shows it: what differs from an answered internal single-leg call without a DID. */
const shown = (offsetSec: number, c: Partial<CdrCall> & Pick<CdrCall, "id" | "from" | "to" | "extensions">) => ({
  startedAt: startedAt(offsetSec),
  did: "",
  direction: "internal" as const,
  disposition: "ANSWERED" as const,
  durationSec: 0,
  talkSec: 0,
  trunk: null,
  legs: 1,
  recordingFile: null,
  ...c,
});
const jane = { number: "5551110000", name: "Jane Caller" };

/** What the console shows of the old table, newest first. */
const expectedCalls: CdrCall[] = [
  shown(400, {
    id: BUSY,
    from: { number: "1008", name: "User 1008" },
    to: { number: "1009", name: "" },
    disposition: "BUSY",
    durationSec: 5,
    extensions: ["1008", "1009"],
  }),
  // The queue member's leg, through a Local channel with its own uniqueid: a call of its own here.
  shown(305, {
    id: QUEUE_MEMBER,
    from: jane,
    to: { number: "1007", name: "" },
    durationSec: 35,
    talkSec: 25,
    extensions: ["1007"],
  }),
  shown(300, {
    id: QUEUE_CALLER,
    from: jane,
    to: { number: "400", name: "" },
    did: "5551230001",
    direction: "inbound",
    durationSec: 40,
    talkSec: 25,
    trunk: "acme",
    extensions: [],
  }),
  shown(200, {
    id: FAILOVER,
    from: { number: "1004", name: "User 1004" },
    to: { number: "5559876543", name: "" },
    direction: "outbound",
    durationSec: 51,
    talkSec: 45,
    trunk: "acme",
    extensions: ["1004"],
    legs: 2,
  }),
  shown(100, {
    id: INTERNAL,
    from: { number: "1005", name: "User 1005" },
    to: { number: "1006", name: "User 1006" },
    durationSec: 35,
    talkSec: 30,
    extensions: ["1005", "1006"],
  }),
  // The ring group: one row per member, all with the caller's uniqueid, is one call.
  shown(0, {
    id: RING,
    from: jane,
    to: { number: "600", name: "" },
    did: "5551230000",
    direction: "inbound",
    durationSec: 80,
    talkSec: 60,
    trunk: "acme",
    extensions: ["1001", "1002", "1003"],
    legs: 3,
    recordingFile: `rg-${RING}.wav`,
  }),
];

/** Every call of a query, page by page, and the notes of each page. */
async function walk(query: string, limit = 100) {
  const items: CdrCall[] = [];
  const notes = new Set<string>();
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const qs = [query, `limit=${limit}`, cursor ? `cursor=${encodeURIComponent(cursor)}` : ""]
      .filter(Boolean)
      .join("&");
    const res = await s.call("GET", `/api/cdr?${qs}`);
    expect(res.status).toBe(200);
    const page = res.json as CdrPage;
    notes.add(JSON.stringify([page.grouping, page.notice]));
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) return { items, notes: [...notes] };
  }
  throw new Error("the walk did not end");
}

const LEGACY_NOTE = JSON.stringify(["uniqueid", NO_LINKEDID_NOTICE]);

beforeAll(async () => {
  pbx = await startPbxHost();
  const script: string[] = [];
  for (const [db, columns] of Object.entries(SHAPES)) {
    const gone = CDR_COLUMNS.filter((c) => !(columns as readonly string[]).includes(c));
    script.push(
      `CREATE DATABASE ${db};`,
      `CREATE TABLE ${db}.cdr LIKE asteriskcdrdb.cdr;`,
      ...(gone.length ? [`ALTER TABLE ${db}.cdr ${gone.map((c) => `DROP COLUMN ${c}`).join(", ")};`] : []),
      `GRANT ALL PRIVILEGES ON ${db}.* TO 'freepbxuser'@'127.0.0.1';`,
    );
  }
  await pbx.adminScript(script.join("\n"));
  await insert("oldcdr", legacyRows);
  // The source from API Settings (not the environment, which would win): a test changes it.
  s = await startTestServer();
  await s.setup();
  const saved = await s.call("POST", "/api/credentials", { type: "cdr", name: "CDR", databaseUrl: urlOf("oldcdr") });
  expect(saved.status).toBe(200);
});

afterAll(async () => {
  await s?.stop();
  await pbx?.stop();
});

describe("a table without linkedid, peeraccount and sequence", () => {
  test("the list: each calling channel's legs are one call, newest first, with the notice", async () => {
    const { items, notes } = await walk("");
    expect(items).toEqual(expectedCalls);
    expect(notes).toEqual([LEGACY_NOTE]);
  });

  test("paging one call at a time gives every call once, in the same order", async () => {
    const { items, notes } = await walk("", 1);
    expect(items.map((c) => c.id)).toEqual(expectedCalls.map((c) => c.id));
    expect(notes).toEqual([LEGACY_NOTE]);
  });

  const filters: [string, string[]][] = [
    ["direction=inbound", [QUEUE_CALLER, RING]],
    ["direction=outbound", [FAILOVER]],
    ["disposition=BUSY", [BUSY]],
    ["extension=1002", [RING]],
    ["trunk=acme", [QUEUE_CALLER, FAILOVER, RING]],
    ["q=jane", [QUEUE_MEMBER, QUEUE_CALLER, RING]],
    ["q=5551230001", [QUEUE_CALLER]],
  ];
  for (const [query, ids] of filters) {
    test(`${query}: exactly the matching calls, and the statistics count the same`, async () => {
      expect((await walk(query, 2)).items.map((c) => c.id)).toEqual(ids);
      const stats = await s.call("GET", `/api/cdr/stats?${query}`);
      expect(stats.status).toBe(200);
      expect(stats.json.total).toBe(ids.length);
    });
  }

  test("the statistics: calls, answered, ASR, ACD and per trunk, with the notice", async () => {
    const res = await s.call("GET", "/api/cdr/stats");
    expect(res.status).toBe(200);
    const st = res.json as CdrStats;
    expect(st).toMatchObject({ grouping: "uniqueid", notice: NO_LINKEDID_NOTICE, total: 6, answered: 5 });
    expect(st.asr).toBeCloseTo(5 / 6, 10);
    expect(st.acdSec).toBeCloseTo((60 + 30 + 45 + 25 + 25) / 5, 10);
    expect(st.byTrunk).toEqual([
      { trunk: null, total: 3, answered: 2 },
      { trunk: "acme", total: 3, answered: 3 },
    ]);
    expect(st.series.reduce((n, b) => n + b.total, 0)).toBe(6);
  });

  test("the CSV export: one line per call as listed", async () => {
    const res = await fetch(`${s.base}/api/cdr/export.csv`, { headers: { cookie: s.cookie } });
    expect(res.status).toBe(200);
    const lines = (await res.text()).split("\r\n").slice(1, -1);
    expect(lines.map((l) => l.split(",").at(-1))).toEqual(expectedCalls.map((c) => c.id));
    expect(lines.at(-1)).toEndWith(`,acme,1001 1002 1003,3,rg-${RING}.wav,${RING}`);
  });

  test("the status answers, and a page's cursor leads to the next calls", async () => {
    expect((await s.call("GET", "/api/cdr/status")).json).toEqual({
      available: true,
      reason: null,
      source: "settings",
    });
    const first = (await s.call("GET", "/api/cdr?limit=2")).json as CdrPage;
    expect(first.nextCursor).not.toBeNull();
    const next = await s.call("GET", `/api/cdr?limit=2&cursor=${encodeURIComponent(first.nextCursor as string)}`);
    expect(next.status).toBe(200);
    expect(next.json.items.map((c: CdrCall) => c.id)).toEqual([QUEUE_CALLER, FAILOVER]);
  });
});

describe("other shapes", () => {
  test("without the caller ID, did and recording columns too: numbers from src/dst, names from the Caller ID", async () => {
    await insert("ancientcdr", legacyRows);
    const source = sourceOf("ancientcdr");
    try {
      const page = await source.page({ limit: 50 });
      expect(page).toMatchObject({ grouping: "uniqueid", notice: NO_LINKEDID_NOTICE, nextCursor: null });
      const ring = page.items.find((c) => c.id === RING);
      expect(ring).toMatchObject({
        from: { number: "5551110000", name: "Jane Caller" },
        did: "",
        direction: "inbound",
        trunk: "acme",
        legs: 3,
        recordingFile: null,
      });
      expect(page.items.map((c) => c.id)).toEqual(expectedCalls.map((c) => c.id));
      // The search looks in the columns the table has (the Caller ID text here).
      expect((await source.page({ q: "jane" })).items.map((c) => c.id)).toEqual([QUEUE_MEMBER, QUEUE_CALLER, RING]);
      const stats = await source.stats({ q: "jane" });
      expect(stats).toMatchObject({ grouping: "uniqueid", total: 3, answered: 3 });
      expect((await source.stats({ direction: "inbound" })).total).toBe(2);
    } finally {
      await source.close();
    }
  });

  test("without sequence alone: grouped by linkedid, no notice, legs ordered by calldate, uniqueid, channel", async () => {
    const id = "1690000010.1";
    const rest = { ...ringing, linkedid: id };
    // Written in an order that is not the legs' order.
    await insert("noseqcdr", [
      leg(500, "1690000010.2", ["Local/1013@from-queue-00000102;2", "PJSIP/1013-00000103"], ["ANSWERED", 30, 20], rest),
      leg(500, id, ["PJSIP/acme-00000101", "PJSIP/1012-00000102"], ["NO ANSWER", 30, 0], rest),
      leg(500, id, ["PJSIP/acme-00000101", "PJSIP/1011-00000101"], ["NO ANSWER", 30, 0], rest),
    ]);
    const source = sourceOf("noseqcdr");
    try {
      const page = await source.page({});
      expect(page).toMatchObject({ grouping: "linkedid", notice: null, nextCursor: null });
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({
        id,
        legs: 3,
        disposition: "ANSWERED",
        extensions: ["1011", "1012", "1013"],
        trunk: "acme",
      });
      expect(await source.stats({})).toMatchObject({ grouping: "linkedid", notice: null, total: 1, answered: 1 });
    } finally {
      await source.close();
    }
  });
});

describe("the shape is read again", () => {
  test("when the settings change: the notice comes and goes with the source", async () => {
    await pbx.cdr.insert([
      cdrRow({ calldate: at(600), src: "1001", dst: "1002", uniqueid: "1690000020.1", linkedid: "1690000020.1" }),
    ]);
    const save = (databaseUrl: string) =>
      s.call("POST", "/api/credentials", { type: "cdr", name: "CDR", databaseUrl }).then((r) => r.status);
    try {
      expect(await save(pbx.cdr.url)).toBe(200);
      const modern = (await s.call("GET", "/api/cdr")).json as CdrPage;
      expect([modern.grouping, modern.notice]).toEqual(["linkedid", null]);
      expect(modern.items.map((c) => c.id)).toEqual(["1690000020.1"]);
      expect((await s.call("GET", "/api/cdr/stats")).json).toMatchObject({ grouping: "linkedid", notice: null });
      expect(await save(urlOf("oldcdr"))).toBe(200);
      const old = (await s.call("GET", "/api/cdr")).json as CdrPage;
      expect([old.grouping, old.notice]).toEqual(["uniqueid", NO_LINKEDID_NOTICE]);
      expect(old.items).toHaveLength(expectedCalls.length);
    } finally {
      await save(urlOf("oldcdr"));
    }
  });

  test("when linkedid and sequence are dropped under a running console: the next answers group by uniqueid", async () => {
    const id = "1690000030.1";
    const queued = { ...caller, dst: "400", linkedid: id };
    await insert("livecdr", [
      leg(700, id, ["PJSIP/acme-00000201", "Local/1014@from-queue-00000202;1"], ["ANSWERED", 30, 20], {
        ...queued,
        sequence: 1,
      }),
      leg(701, "1690000030.2", ["Local/1014@from-queue-00000202;2", "PJSIP/1014-00000203"], ["ANSWERED", 30, 20], {
        ...queued,
        sequence: 2,
      }),
    ]);
    const source = sourceOf("livecdr");
    try {
      const before = await source.page({});
      expect(before).toMatchObject({ grouping: "linkedid", notice: null });
      expect(before.items.map((c) => [c.id, c.legs])).toEqual([[id, 2]]);

      await pbx.adminScript(
        "ALTER TABLE livecdr.cdr DROP COLUMN linkedid, DROP COLUMN peeraccount, DROP COLUMN sequence;",
      );
      const after = await source.page({});
      expect(after).toMatchObject({ grouping: "uniqueid", notice: NO_LINKEDID_NOTICE });
      expect(after.items.map((c) => [c.id, c.legs])).toEqual([
        ["1690000030.2", 1],
        [id, 1],
      ]);
      expect(await source.stats({})).toMatchObject({ grouping: "uniqueid", total: 2, answered: 2 });
      const csv = (await new Response(await source.exportCsv({})).text()).split("\r\n");
      expect(csv.slice(1, -1).map((l) => l.split(",").at(-1))).toEqual(["1690000030.2", id]);
    } finally {
      await source.close();
    }
  });
});
