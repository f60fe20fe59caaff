/**
 * The streamed Config Generator (ADR 0032): GET /api/config/generate is the old answer without the
 * duplicate script, GET /api/config/script.sql is byte for byte the script the old generator built, and
 * a failure before the first byte is still a clean error answer. The reference below is the generator as
 * it was before streaming (everything read with `.all()`, `buildScript` over all items), kept verbatim.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { asc } from "drizzle-orm";
import type { Db } from "../../src/db/client";
import {
  announcements,
  extensions,
  inboundRoutes,
  ivrs,
  outboundRoutes,
  pttGroups,
  queues,
  ringGroups,
  timeConditions,
  timeGroups,
  trunks,
} from "../../src/db/schema";
import { withOpenSecret } from "../../src/server/inventory/sip-secrets";
import { buildScript, LATE_HEADING } from "../../src/server/pbx/deploy/script";
import { DEPLOYMENT_STEPS, generateConfigStream, scriptStream } from "../../src/server/pbx/generate/generate";
import { UnsafeValueError } from "../../src/server/pbx/host/sql";
import {
  announcementObject,
  ivrObject,
  timeConditionObject,
  timeGroupObject,
} from "../../src/server/pbx/objects/call-flow";
import {
  extensionItem,
  type ItemKind,
  objectItem,
  outboundItem,
  pttItem,
  type SqlItem,
  trunkItem,
} from "../../src/server/pbx/objects/entities";
import { managedOf } from "../../src/server/pbx/objects/managed";
import { inboundObject, queueObject, ringGroupObject, routeOrders } from "../../src/server/pbx/objects/ownership";
import { refBook } from "../../src/server/pbx/objects/refs";
import type { SecretBox } from "../../src/server/secret-box";
import { byNumber } from "../../src/shared/sort";
import { startTestServer, type TestServer } from "../helpers/server";

// ---------------------------------------------------------------------------------------------------
// The generator before ADR 0032, verbatim but for names, and for the IVRs and announcements of ADR 0059 (whose
// destinations come after every object: `destinations`, and the script's second pass).

interface Refused {
  kind: ItemKind;
  key: string;
  reason: string;
}

function oldInventory(db: Db, box: SecretBox) {
  const out: { items: SqlItem[]; refused: Refused[] } = { items: [], refused: [] };
  const collect = <T>(rows: T[], kind: ItemKind, key: (r: T) => string, build: (r: T) => SqlItem) => {
    for (const row of rows) {
      try {
        out.items.push(build(row));
      } catch (err) {
        if (!(err instanceof UnsafeValueError)) throw err;
        out.refused.push({ kind, key: key(row), reason: err.message });
      }
    }
  };
  const book = refBook(db, managedOf(db, ["ivr", "announcement", "timeGroup", "timeCondition"]));
  const allTrunks = db
    .select()
    .from(trunks)
    .orderBy(asc(trunks.id))
    .all()
    .map((t) => withOpenSecret(box, t));
  collect(allTrunks, "trunk", (t) => t.name, trunkItem);
  collect(
    db
      .select()
      .from(extensions)
      .all()
      .sort((a, b) => byNumber(a.extension, b.extension))
      .map((e) => withOpenSecret(box, e)),
    "extension",
    (e) => e.extension,
    extensionItem,
  );
  // Ring groups after the extensions they ring, before the inbound routes that send calls to them.
  collect(
    db
      .select()
      .from(ringGroups)
      .all()
      .sort((a, b) => byNumber(a.number, b.number)),
    "ringGroup",
    (g) => g.number,
    (g) => objectItem(ringGroupObject(g, book)),
  );
  collect(
    db
      .select()
      .from(queues)
      .all()
      .sort((a, b) => byNumber(a.number, b.number)),
    "queue",
    (q) => q.number,
    (q) => objectItem(queueObject(q, book)),
  );
  const byName = <T extends { name: string }>(rows: T[]) => rows.sort((a, b) => a.name.localeCompare(b.name));
  collect(
    byName(db.select().from(announcements).all()),
    "announcement",
    (a) => a.name,
    (a) => objectItem(announcementObject(a, book)),
  );
  collect(
    byName(db.select().from(ivrs).all()),
    "ivr",
    (i) => i.name,
    (i) => objectItem(ivrObject(i, book)),
  );
  collect(
    byName(db.select().from(timeGroups).all()),
    "timeGroup",
    (g) => g.name,
    (g) => objectItem(timeGroupObject(g, book)),
  );
  collect(
    byName(db.select().from(timeConditions).all()),
    "timeCondition",
    (t) => t.name,
    (t) => objectItem(timeConditionObject(t, book)),
  );
  // In dial order, each with its place among the console's routes (ADR 0040).
  const routes = db.select().from(outboundRoutes).orderBy(asc(outboundRoutes.position), asc(outboundRoutes.id)).all();
  const orders = routeOrders(routes);
  collect(
    routes,
    "outboundRoute",
    (r) => r.name,
    (r) =>
      outboundItem(
        r,
        allTrunks.find((t) => t.id === r.trunkId),
        orders[routes.indexOf(r)],
      ),
  );
  collect(
    db.select().from(inboundRoutes).orderBy(asc(inboundRoutes.id)).all(),
    "inboundRoute",
    (r) => r.didNumber ?? "",
    (r) => objectItem(inboundObject(r, book)),
  );
  collect(
    db
      .select()
      .from(pttGroups)
      .all()
      .sort((a, b) => byNumber(a.extension, b.extension)),
    "pttGroup",
    (g) => g.extension,
    pttItem,
  );
  return out;
}

/** The old answer of GET /api/config/generate (with the script in `deployment.script`). */
function oldGenerateConfig(db: Db, box: SecretBox, nowMs: number) {
  const now = new Date(nowMs);
  const inv = oldInventory(db, box);
  const count = (k: ItemKind) => inv.items.filter((i) => i.kind === k).length;
  const statementsOf = (kind: ItemKind) => inv.items.filter((i) => i.kind === kind).flatMap((i) => i.statements);
  const header = [
    `pbx-console configuration for FreePBX, generated ${now.toISOString()}`,
    "Merges: it writes only the values the console manages; every other FreePBX setting stays as it is.",
    "Running it again changes nothing.",
    ...inv.refused.map((r) => `not included: ${r.kind} ${r.key.replace(/[\r\n]/g, " ")}: ${r.reason}`),
  ];
  return {
    summary: {
      totalTrunks: count("trunk"),
      totalExtensions: count("extension"),
      totalOutboundRoutes: count("outboundRoute"),
      totalInboundRoutes: count("inboundRoute"),
      totalPttGroups: count("pttGroup"),
      totalRingGroups: count("ringGroup"),
      totalQueues: count("queue"),
      totalIvrs: count("ivr"),
      totalAnnouncements: count("announcement"),
      totalTimeGroups: count("timeGroup"),
      totalTimeConditions: count("timeCondition"),
    },
    deployment: { script: buildScript(inv.items, { header }).text, steps: DEPLOYMENT_STEPS },
    sql: {
      trunks: statementsOf("trunk"),
      extensions: statementsOf("extension"),
      ringGroups: statementsOf("ringGroup"),
      queues: statementsOf("queue"),
      announcements: statementsOf("announcement"),
      ivrs: statementsOf("ivr"),
      timeGroups: statementsOf("timeGroup"),
      timeConditions: statementsOf("timeCondition"),
      outboundRoutes: statementsOf("outboundRoute"),
      inboundRoutes: statementsOf("inboundRoute"),
      pttGroups: statementsOf("pttGroup"),
      destinations: inv.items.flatMap((i) => i.late ?? []),
    },
    refused: inv.refused,
  };
}

// ---------------------------------------------------------------------------------------------------

async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ text: string; chunks: number }> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return { text: new TextDecoder().decode(Buffer.concat(parts)), chunks: parts.length };
}

const ODD = {
  name: `O'Brien \\ "Desk" ; DROP TABLE users; -- ☎ ü ß 中文`,
  secret: "s3cr3t-with-quote'and\\back",
  route: "Route'; DROP TABLE trunks; --",
  inboundDesc: "Main line\nsecond line \\ ' ✈ \u001a",
  pttDesc: "Team 'A' \\ 📢",
};

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
  await s.setup();
  const t = await s.call("POST", "/api/trunks", {
    name: "Telnyx (main)",
    type: "sip",
    host: "sip.telnyx.com",
    port: 5060,
    username: "pbxuser1",
    secret: "trunk-secret-123",
    registrationEnabled: true,
  });
  expect(t.status).toBe(201);
  // Numbers out of text order: the script lists them numerically.
  for (const [extension, name, secret] of [
    ["1010", ODD.name, ODD.secret],
    ["1002", "Bob", undefined],
    ["999", "Carol", "plain-secret-0999"],
  ] as const) {
    const r = await s.call("POST", "/api/extensions", { extension, name, ...(secret ? { secret } : {}) });
    expect(r.status).toBe(201);
  }
  expect(
    (
      await s.call("POST", "/api/outbound-routes", {
        name: ODD.route,
        dialPatterns: ["0[123456789]XXXXXXXXX", "+44XXXXXXXXXX"],
        trunkId: t.json.id,
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await s.call("POST", "/api/inbound-routes", {
        description: ODD.inboundDesc,
        didNumber: "442071234567",
        destination: "1002",
        destinationType: "extension",
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await s.call("POST", "/api/ptt-groups", {
        name: "Team A",
        extension: "7000",
        description: ODD.pttDesc,
        members: ["1002", "999"],
        duplex: true,
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await s.call("POST", "/api/ring-groups", {
        name: "Sales 'A'",
        number: "600",
        members: ["1002", "999", "5551234#"],
        noAnswer: { kind: "voicemail", target: "1002" },
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await s.call("POST", "/api/queues", {
        name: "Support 'B'",
        number: "400",
        strategy: "rrmemory",
        agents: ["999", "1002"],
        maxWait: 100,
        timeoutDestination: { kind: "ring-group", target: "600" },
      })
    ).status,
  ).toBe(201);
  // IVRs and an announcement that point at one another (Main → Closed → Night): their destinations are the
  // script's second pass.
  const night = await s.call("POST", "/api/ivrs", {
    name: "Night",
    options: [{ digits: "1", destination: { kind: "queue", target: "400" } }],
  });
  expect(night.status, night.text).toBe(201);
  const closed = await s.call("POST", "/api/announcements", {
    name: "Closed",
    after: { kind: "ivr", target: String(night.json.id) },
  });
  expect(closed.status, closed.text).toBe(201);
  const main = await s.call("POST", "/api/ivrs", {
    name: "Main 'menu'",
    timeoutDestination: { kind: "announcement", target: String(closed.json.id) },
  });
  expect(main.status, main.text).toBe(201);
  // A time condition reading its group, in hours to the IVR Main, else to the announcement.
  const hours = await s.call("POST", "/api/time-groups", {
    name: "Office 'hours'",
    weekly: [{ fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" }],
    holidays: [{ month: "dec", day: 25 }],
  });
  expect(hours.status, hours.text).toBe(201);
  const office = await s.call("POST", "/api/time-conditions", {
    name: "Office",
    timeGroup: hours.json.id,
    timeZone: "Europe/Berlin",
    match: { kind: "ivr", target: String(main.json.id) },
    noMatch: { kind: "announcement", target: String(closed.json.id) },
  });
  expect(office.status, office.text).toBe(201);
  // Rows stored before the forms knew FreePBX's rules: left out with the reason (and named in the script).
  s.db.$client.run("INSERT INTO extensions (extension, name) VALUES ('1001', ?)", ["y".repeat(51)]);
  s.db.$client.run("INSERT INTO trunks (name, type, host) VALUES ('Bad]name', 'sip', 'sip.example.com')");
});

afterAll(async () => {
  await s?.stop();
});

describe("GET /api/config/generate (streamed)", () => {
  test("the spec's answer: the script in deployment.script, byte for byte the download's (up to its time)", async () => {
    const res = await s.call("GET", "/api/config/generate");
    expect(res.status).toBe(200);
    const stamp = /generated (\S+)/.exec(res.json.deployment.script)?.[1] as string;
    const old = oldGenerateConfig(s.db, s.app.box, Date.parse(stamp));
    expect(res.json).toEqual(old);
    expect(res.json.deployment.script).toContain("-- not included: extension 1001");
    // The second pass comes after every object: the IVR's no-key destination, computed from the announcement's id.
    const script = res.json.deployment.script as string;
    const second = script.indexOf(LATE_HEADING);
    expect(second).toBeGreaterThan(script.indexOf("-- ivr Night"));
    expect(script.slice(second)).toContain("timeout_destination` = CONCAT('app-announcement-', @ann_");
    expect(res.json.sql.destinations.length).toBeGreaterThan(0);
  });

  test("script=0 (the Generator screen): the old answer without the duplicate script; the SQL is in it once", async () => {
    const res = await s.call("GET", "/api/config/generate?script=0");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    const old = oldGenerateConfig(s.db, s.app.box, Date.now());
    const { script, ...oldDeployment } = old.deployment;
    expect(res.json).toEqual({ ...old, deployment: oldDeployment });
    expect(res.json.refused.map((r: Refused) => r.key)).toEqual(["Bad]name", "1001"]);
    expect(res.json.summary).toEqual({
      totalTrunks: 1,
      totalExtensions: 3,
      totalOutboundRoutes: 1,
      totalInboundRoutes: 1,
      totalPttGroups: 1,
      totalRingGroups: 1,
      totalQueues: 1,
      totalIvrs: 2,
      totalAnnouncements: 1,
      totalTimeGroups: 1,
      totalTimeConditions: 1,
    });
    // Each statement once: a distinctive one occurs once in the whole answer.
    const secretSt = res.json.sql.extensions.find((st: string) => st.includes("plain-secret-0999")) as string;
    expect(res.text.split("plain-secret-0999").length - 1).toBe(1);
    expect(script).toContain(secretSt);
  });

  test("an empty console gives every list, empty, and zero counts", async () => {
    const empty = await startTestServer();
    try {
      await empty.setup();
      const res = await empty.call("GET", "/api/config/generate?script=0");
      expect(res.status).toBe(200);
      expect(res.json).toEqual({
        sql: {
          trunks: [],
          extensions: [],
          ringGroups: [],
          queues: [],
          announcements: [],
          ivrs: [],
          timeGroups: [],
          timeConditions: [],
          outboundRoutes: [],
          inboundRoutes: [],
          pttGroups: [],
          destinations: [],
        },
        refused: [],
        deployment: { steps: DEPLOYMENT_STEPS },
        summary: {
          totalTrunks: 0,
          totalExtensions: 0,
          totalOutboundRoutes: 0,
          totalInboundRoutes: 0,
          totalPttGroups: 0,
          totalRingGroups: 0,
          totalQueues: 0,
          totalIvrs: 0,
          totalAnnouncements: 0,
          totalTimeGroups: 0,
          totalTimeConditions: 0,
        },
      });
    } finally {
      await empty.stop();
    }
  });

  test("the domain stream gives the same JSON, with the script or without", async () => {
    const at = Date.UTC(2026, 10, 24, 12, 30, 0);
    const deps = { db: s.db, box: s.app.box, now: () => at };
    const { deployment, ...old } = oldGenerateConfig(s.db, s.app.box, at);
    expect(JSON.parse((await readAll(generateConfigStream(deps))).text)).toEqual({ ...old, deployment });
    const without = (await readAll(generateConfigStream(deps, { withScript: false }))).text;
    expect(JSON.parse(without)).toEqual({ ...old, deployment: { steps: deployment.steps } });
  });

  test("a query other than script=0 or 1 is a 400 with the field's message", async () => {
    const res = await s.call("GET", "/api/config/generate?script=yes");
    expect(res.status).toBe(400);
    expect(res.json.error.fields.script).toBe("script must be 0 or 1");
  });
});

describe("GET /api/config/script.sql (streamed download)", () => {
  test("byte for byte the old buildScript output, refused objects and odd characters included", async () => {
    const at = Date.UTC(2026, 10, 24, 12, 30, 0);
    const { text } = await readAll(scriptStream({ db: s.db, box: s.app.box, now: () => at }));
    const old = oldGenerateConfig(s.db, s.app.box, at).deployment.script;
    expect(Buffer.from(text).equals(Buffer.from(old))).toBe(true);
    expect(text).toContain("-- not included: trunk Bad]name: ");
    expect(text).toContain("-- not included: extension 1001: Name must be at most 50 characters");
    expect(text).toContain("O''Brien \\\\ \"Desk\"");
    expect(text.endsWith("COMMIT;\n")).toBe(true);
  });

  test("over HTTP: an attachment named by the date, the same bytes (up to the generation time)", async () => {
    const res = await fetch(`${s.base}/api/config/script.sql`, { headers: { cookie: s.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/sql;charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="pbx-config-\d{4}-\d{2}-\d{2}\.sql"$/,
    );
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(body);
    const stamp = /generated (\S+)/.exec(text)?.[1] as string;
    const old = oldGenerateConfig(s.db, s.app.box, Date.parse(stamp)).deployment.script;
    expect(Buffer.from(body).equals(Buffer.from(old))).toBe(true);
  });

  test("operators only, and audited like the generator", async () => {
    const before = (await s.call("GET", "/api/audit?action=config.generate")).json.items.length as number;
    await s.call("GET", "/api/config/script.sql");
    await s.call("GET", "/api/config/generate");
    const after = (await s.call("GET", "/api/audit?action=config.generate")).json.items;
    expect(after.length).toBe(before + 2);
    expect(after[0]).toMatchObject({ action: "config.generate", outcome: "ok", actor: "admin" });

    const anonymous = await fetch(`${s.base}/api/config/script.sql`);
    expect(anonymous.status).toBe(401);
  });
});

describe("a failure before the first byte", () => {
  test("is a clean 500 with the error shape, for both answers", async () => {
    const broken = await startTestServer();
    try {
      await broken.setup();
      broken.db.$client.run("ALTER TABLE extensions RENAME TO extensions_gone");
      for (const path of ["/api/config/generate", "/api/config/script.sql"]) {
        const res = await broken.call("GET", path);
        expect(res.status).toBe(500);
        expect(typeof res.json.error.message).toBe("string");
      }
    } finally {
      await broken.stop();
    }
  });
});

describe("50,000 extensions (figures printed, not asserted: speed belongs to bench/generate.ts)", () => {
  test("the answer streams in many chunks and parses with every extension", async () => {
    const big = await startTestServer();
    try {
      await big.setup();
      const insert = big.db.$client.prepare("INSERT INTO extensions (extension, name, secret) VALUES (?, ?, ?)");
      big.db.$client.transaction(() => {
        for (let i = 0; i < 50_000; i++)
          insert.run(String(100000 + i), `User ${i}`, big.app.box.seal(`secret-${i}-00000000`));
      })();
      const rssStart = process.memoryUsage.rss();
      let peak = rssStart;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 10);
      const t0 = performance.now();
      const res = await fetch(`${big.base}/api/config/generate`, { headers: { cookie: big.cookie } });
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const parts: Uint8Array[] = [];
      let firstByte = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (parts.length === 0) firstByte = performance.now() - t0;
        parts.push(value);
      }
      const total = performance.now() - t0;
      clearInterval(sampler);
      const bytes = parts.reduce((n, p) => n + p.byteLength, 0);
      const answer = JSON.parse(new TextDecoder().decode(Buffer.concat(parts)));
      expect(answer.summary.totalExtensions).toBe(50_000);
      expect(answer.sql.extensions[0]).toContain("100000");
      expect(parts.length).toBeGreaterThan(10);
      console.log(
        `50,000 extensions in-process: first byte ${firstByte.toFixed(0)} ms, total ${total.toFixed(0)} ms, ` +
          `${(bytes / 1e6).toFixed(1)} MB in ${parts.length} chunks, RSS ${(rssStart / 1e6).toFixed(0)} → peak ${(peak / 1e6).toFixed(0)} MB (test runner and server together)`,
      );
    } finally {
      await big.stop();
    }
  }, 120_000);
});
