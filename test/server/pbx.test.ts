/**
 * Configuration generator, deployment and sync against a REAL MariaDB over REAL
 * SSH (test/pbx-host, with FreePBX's own fwconsole); only the GraphQL server is a fake.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { withPbxHost } from "../../src/server/pbx/host/host";
import { recordManaged } from "../../src/server/pbx/objects/managed";
import { FREEPBX_TEST_CLIENT, startFakeFreePbx } from "../fakes/freepbx";
import { startTestServer, type TestServer } from "../helpers/server";
import { FREEPBX_TABLES } from "../pbx-host/gui-objects";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);
let pbx: PbxHost;
beforeAll(async () => {
  pbx = await startPbxHost();
}, 60_000);
afterAll(async () => {
  await pbx?.stop();
});

beforeEach(async () => {
  for (const t of FREEPBX_TABLES) await pbx.query(`DELETE FROM ${t}`);
  await pbx.query("UPDATE admin SET value = 'false' WHERE variable = 'need_reload'");
  pbx.setReloadFailure(false);
  pbx.clearFwconsoleCalls();
});

let s: TestServer;
const sshEnv = () => pbx.consoleEnv();
async function server(env: Record<string, string> = sshEnv()) {
  s = await startTestServer(env);
  await s.setup();
  return s;
}
afterEach(async () => {
  await s?.stop();
});

/** Deploy and import run as jobs (ADR 0024): starts one, waits for its end, answers with its summary. */
async function job(path: string, body?: unknown) {
  const res = await s.call("POST", path, body);
  if (res.status !== 202) return res;
  for (;;) {
    const j = await s.call("GET", `/api/jobs/${res.json.jobId}`);
    if (j.json.state !== "running") return { ...j, status: j.json.summary ? 200 : 500, json: j.json.summary ?? j.json };
    await Bun.sleep(50);
  }
}

/** A full table dump, to compare runs. */
async function dump(): Promise<string> {
  const out: Record<string, unknown> = {};
  for (const t of FREEPBX_TABLES) out[t] = await pbx.query(`SELECT * FROM ${t} ORDER BY 1, 2`);
  return JSON.stringify(out);
}

const HOSTILE = {
  ext1: 'O\'Brien \\ "Desk" ; DROP TABLE users; -- ☎',
  ext2: "x".repeat(50),
  secret: "s3cr3t-with-quote'and\\back",
  route: "Route'; DROP TABLE trunks; --",
  inboundDesc: "Main line\nsecond line \\ ' ✈",
  pttDesc: "Team 'A' \\ 📢",
};

async function seedHostile() {
  await s.call("POST", "/api/extensions", { extension: "1001", name: HOSTILE.ext1, secret: "plain-secret-0001" });
  await s.call("POST", "/api/extensions", { extension: "1002", name: HOSTILE.ext2, voicemail: true });
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
  await s.call("POST", "/api/outbound-routes", {
    name: HOSTILE.route,
    dialPatterns: ["0[123456789]XXXXXXXXX", "+44XXXXXXXXXX"],
    trunkId: t.json.id,
  });
  await s.call("POST", "/api/inbound-routes", {
    description: HOSTILE.inboundDesc,
    didNumber: "442071234567",
    destination: "1001",
    destinationType: "extension",
  });
  await s.call("POST", "/api/ptt-groups", {
    name: "Team A",
    extension: "7000",
    description: HOSTILE.pttDesc,
    members: ["1001", "1002"],
    duplex: true,
  });
}

describe("configuration generator", () => {
  test("the script runs in MariaDB; reading back gives what the console holds; a second run changes nothing", async () => {
    await server({});
    await seedHostile();
    const gen = await s.call("GET", "/api/config/generate");
    expect(gen.status).toBe(200);
    expect(gen.json.summary).toMatchObject({
      totalTrunks: 1,
      totalExtensions: 2,
      totalOutboundRoutes: 1,
      totalInboundRoutes: 1,
    });
    expect(gen.json.deployment.steps.length).toBeGreaterThanOrEqual(7);
    expect(gen.json.sql.extensions.length).toBeGreaterThan(0);
    const script = (await s.call("GET", "/api/config/script.sql")).text;
    expect(script).toContain("START TRANSACTION;");
    expect(script.trimEnd().endsWith("COMMIT;")).toBe(true);

    const first = pbx.runScript(script);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);

    const users = await pbx.query("SELECT extension, name, voicemail FROM users ORDER BY extension");
    expect(users).toEqual([
      { extension: "1001", name: HOSTILE.ext1, voicemail: "novm" },
      { extension: "1002", name: HOSTILE.ext2, voicemail: "default" },
    ]);
    const secret = await pbx.query("SELECT data FROM sip WHERE id = '1001' AND keyword = 'secret'");
    expect(secret[0]?.data).toBe("plain-secret-0001");
    expect(await pbx.query("SELECT id, tech, dial, user, description FROM devices WHERE id = '1001'")).toEqual([
      { id: "1001", tech: "pjsip", dial: "PJSIP/1001", user: "1001", description: HOSTILE.ext1 },
    ]);
    const trunk = await pbx.query("SELECT trunkid, name, tech, channelid FROM trunks");
    expect(trunk).toEqual([{ trunkid: 1, name: "Telnyx (main)", tech: "pjsip", channelid: "Telnyx_(main)" }]);
    const pj = Object.fromEntries(
      (await pbx.query("SELECT keyword, data FROM pjsip WHERE id = '1'")).map((r) => [r.keyword, r.data]),
    );
    expect(pj).toMatchObject({
      sip_server: "sip.telnyx.com",
      sip_server_port: "5060",
      username: "pbxuser1",
      secret: "trunk-secret-123",
      registration: "send",
      authentication: "outbound",
    });
    const routes = await pbx.query("SELECT route_id, name FROM outbound_routes");
    expect(routes.map((r) => r.name)).toEqual([HOSTILE.route]);
    const patterns = await pbx.query(
      "SELECT match_pattern_pass FROM outbound_route_patterns ORDER BY match_pattern_pass",
    );
    expect(patterns.map((p) => p.match_pattern_pass)).toEqual(["+44XXXXXXXXXX", "0[123456789]XXXXXXXXX"]);
    expect(await pbx.query("SELECT trunk_id, seq FROM outbound_route_trunks")).toEqual([{ trunk_id: 1, seq: 0 }]);
    expect(await pbx.query("SELECT extension, destination, description FROM incoming")).toEqual([
      { extension: "442071234567", destination: "from-did-direct,1001,1", description: HOSTILE.inboundDesc },
    ]);
    // FreePBX's page-group description is the group's name; the console's own description stays in the console.
    expect(await pbx.query("SELECT page_group, duplex, description FROM paging_config")).toEqual([
      { page_group: "7000", duplex: 1, description: "Team A" },
    ]);
    expect((await pbx.query("SELECT ext FROM paging_groups ORDER BY ext")).map((r) => r.ext)).toEqual(["1001", "1002"]);
    expect(await pbx.query("SELECT value FROM admin WHERE variable = 'need_reload'")).toEqual([{ value: "true" }]);

    const before = await dump();
    expect(pbx.runScript(script).code).toBe(0);
    expect(await dump()).toBe(before);
  });

  test("values FreePBX cannot hold are left out with the reason, never cut", async () => {
    await server({});
    // Rows stored before the forms knew FreePBX's rules (the API refuses them now, with the same messages).
    s.db.$client.run("INSERT INTO extensions (extension, name) VALUES ('1001', ?)", ["y".repeat(51)]);
    s.db.$client.run("INSERT INTO trunks (name, type, host) VALUES ('Bad]name', 'sip', 'sip.example.com')");
    const gen = await s.call("GET", "/api/config/generate");
    expect(gen.json.summary.totalExtensions).toBe(0);
    expect(gen.json.refused).toEqual([
      { kind: "trunk", key: "Bad]name", reason: expect.stringContaining("Trunk name may only contain") },
      { kind: "extension", key: "1001", reason: "Name must be at most 50 characters" },
    ]);
    expect((await s.call("GET", "/api/config/script.sql")).text).toContain("-- not included: extension 1001");
  });
});

describe("deployment over SSH", () => {
  test("deploy all, then compare shows every row Synced; fwconsole reload ran; trunk status from the PBX", async () => {
    await server();
    await seedHostile();
    const res = await job("/api/deploy/all");
    expect(res.status).toBe(200);
    expect(res.json.extensions).toMatchObject({ deployed: 2, failed: 0 });
    expect(res.json.trunks).toMatchObject({ deployed: 1, failed: 0 });
    expect(res.json.trunks.results[0]).toMatchObject({ trunk: "Telnyx (main)", status: "success", via: "ssh" });
    expect(res.json.reload).toMatchObject({ ok: true, via: "ssh", exitCode: 0 });
    expect(pbx.fwconsoleCalls().map((c) => c.argv[0])).toContain("reload");
    expect(await pbx.query("SELECT value FROM admin WHERE variable = 'need_reload'")).toEqual([{ value: "false" }]);
    expect((await s.call("GET", "/api/trunks")).json[0].status).toBe("deployed");

    const ext = await s.call("GET", "/api/sync/extensions/compare");
    expect(ext.json).toMatchObject({ freepbxCount: 2, dashboardCount: 2, via: "ssh" });
    expect(ext.json.comparison.map((r: any) => [r.extension, r.inDashboard, r.needsSync])).toEqual([
      ["1001", true, false],
      ["1002", true, false],
    ]);
    const tr = await s.call("GET", "/api/sync/trunks/compare");
    expect(tr.json.comparison).toEqual([
      {
        name: "Telnyx (main)",
        inDashboard: true,
        needsSync: false,
        freepbx: { host: "sip.telnyx.com" },
        dashboard: { host: "sip.telnyx.com" },
      },
    ]);
  });

  test("a row changed on the PBX needs sync; a row only on the PBX imports", async () => {
    await server();
    await s.call("POST", "/api/extensions", { extension: "1001", name: "Alice" });
    await job("/api/deploy/extensions");
    await pbx.query("UPDATE users SET name = 'Alice Smith' WHERE extension = '1001'");
    await pbx.query(
      "INSERT INTO devices (id, tech, dial, devicetype, user, description) VALUES ('2001', 'pjsip', 'PJSIP/2001', 'fixed', '2001', 'Lobby')",
    );
    await pbx.query("INSERT INTO users (extension, name, voicemail) VALUES ('2001', 'Lobby', 'default')");
    await pbx.query("INSERT INTO sip (id, keyword, data) VALUES ('2001', 'secret', 'lobby-secret-9')");
    const cmp = await s.call("GET", "/api/sync/extensions/compare");
    expect(cmp.json.comparison).toEqual([
      {
        extension: "1001",
        inDashboard: true,
        needsSync: true,
        freepbx: { name: "Alice Smith" },
        dashboard: { name: "Alice" },
      },
      {
        extension: "2001",
        inDashboard: false,
        needsSync: false,
        freepbx: { name: "Lobby" },
        dashboard: { name: null },
      },
    ]);
    const imp = await job("/api/sync/extensions/import", { extensions: ["2001"], mode: "selected" });
    expect(imp.json).toMatchObject({ created: 1, updated: 0, failed: 0 });
    const all = await job("/api/sync/extensions/import", { extensions: [], mode: "all" });
    // 2001 was just imported: unchanged (not written again); 1001 takes the PBX's name.
    expect(all.json).toMatchObject({ created: 0, updated: 1, unchanged: 1, failed: 0 });
    const after = await s.call("GET", "/api/sync/extensions/compare");
    expect(after.json.comparison.every((r: any) => r.inDashboard && !r.needsSync)).toBe(true);
    const lobby = s.db.$client
      .query("SELECT name, voicemail, secret FROM extensions WHERE extension = '2001'")
      .get() as { name: string; voicemail: number; secret: string };
    // The imported SIP secret is stored sealed (ADR 0018).
    expect({ ...lobby, secret: s.app.box.open(lobby.secret) }).toEqual({
      name: "Lobby",
      voicemail: 1,
      secret: "lobby-secret-9",
    });
    expect(lobby.secret.startsWith("v1:")).toBe(true);
  });

  test("importing an extension whose number a PTT group holds fails with the reason; the rest imports", async () => {
    await server();
    await s.call("POST", "/api/extensions", { extension: "1001", name: "Alice" });
    const group = await s.call("POST", "/api/ptt-groups", { name: "Floor", extension: "7001", members: ["1001"] });
    expect(group.status).toBe(201);
    for (const [n, name] of [
      ["1001", "Alice Smith"],
      ["2001", "Lobby"],
      ["7001", "Paging desk"],
    ]) {
      await pbx.query(
        "INSERT INTO devices (id, tech, dial, devicetype, user, description) VALUES (?, 'pjsip', ?, 'fixed', ?, ?)",
        [n, `PJSIP/${n}`, n, name],
      );
      await pbx.query("INSERT INTO users (extension, name, voicemail) VALUES (?, ?, 'novm')", [n, name]);
    }
    const imp = await job("/api/sync/extensions/import", { extensions: [], mode: "all" });
    expect(imp.status).toBe(200);
    expect(imp.json).toEqual({
      created: 1,
      updated: 1,
      failed: 1,
      errors: ["7001 is already the number of PTT group Floor"],
    });
    const rows = s.db.$client.query("SELECT extension, name FROM extensions ORDER BY extension").all();
    expect(rows).toEqual([
      { extension: "1001", name: "Alice Smith" },
      { extension: "2001", name: "Lobby" },
    ]);
    const selected = await job("/api/sync/extensions/import", { extensions: ["7001"], mode: "selected" });
    expect(selected.json).toMatchObject({ created: 0, updated: 0, failed: 1 });
  });

  test("a trunk only on the PBX shows Not in Dashboard and imports", async () => {
    await server();
    await pbx.query("INSERT INTO trunks (trunkid, name, tech, channelid) VALUES (4, 'Backup', 'pjsip', 'Backup')");
    await pbx.query(
      "INSERT INTO pjsip (id, keyword, data) VALUES ('4', 'sip_server', 'sip.backup.net'), ('4', 'sip_server_port', '5080')",
    );
    const cmp = await s.call("GET", "/api/sync/trunks/compare");
    expect(cmp.json.comparison).toEqual([
      {
        name: "Backup",
        inDashboard: false,
        needsSync: false,
        freepbx: { host: "sip.backup.net" },
        dashboard: { host: null },
      },
    ]);
    const imp = await job("/api/sync/trunks/import", { trunks: ["Backup"], mode: "selected" });
    expect(imp.json).toMatchObject({ created: 1, updated: 0, failed: 0 });
    expect((await s.call("GET", "/api/trunks")).json[0]).toMatchObject({
      name: "Backup",
      host: "sip.backup.net",
      port: 5080,
      type: "sip",
    });
  });

  test("a MariaDB error mid-way rolls back that item only, and names it with MariaDB's reason", async () => {
    await server();
    for (const n of ["1001", "1002", "1003"])
      await s.call("POST", "/api/extensions", { extension: n, name: `User ${n}` });
    await pbx.query(
      "CREATE TRIGGER refuse_1002 BEFORE INSERT ON sip FOR EACH ROW BEGIN IF NEW.id = '1002' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'disk quota exceeded'; END IF; END",
    );
    try {
      const res = await job("/api/deploy/extensions");
      expect(res.json).toMatchObject({ deployed: 2, failed: 1 });
      const bad = res.json.results.find((r: any) => r.extension === "1002");
      expect(bad.status).toBe("failed");
      expect(bad.message).toContain("disk quota exceeded");
      expect(await pbx.query("SELECT id FROM devices ORDER BY id")).toEqual([{ id: "1001" }, { id: "1003" }]);
      expect(await pbx.query("SELECT extension FROM users WHERE extension = '1002'")).toEqual([]);
    } finally {
      await pbx.query("DROP TRIGGER refuse_1002");
    }
  });

  test("a failing reload is reported with fwconsole's output, and FreePBX still needs a reload", async () => {
    await server();
    await s.call("POST", "/api/extensions", { extension: "1001", name: "A" });
    pbx.setReloadFailure(true);
    const res = await job("/api/deploy/extensions");
    expect(res.json.failed).toBe(1);
    expect(res.json.results[0].message).toContain("fwconsole reload failed");
    expect(res.json.reload.ok).toBe(false);
    expect(res.json.reload.output).toContain("Failed to open stream: Is a directory");
    expect((await s.call("GET", "/api/deploy/status")).json).toMatchObject({ ssh: true, needReload: true });
  });

  test("SSH refused and a wrong host key: every item failed with the reason, nothing written", async () => {
    await server({ ...sshEnv(), PBX_SSH_PORT: "9" });
    await s.call("POST", "/api/extensions", { extension: "1001", name: "A" });
    const refused = await job("/api/deploy/extensions");
    expect(refused.json.results[0]).toMatchObject({
      status: "failed",
      message: "Cannot reach 127.0.0.1:9: connection refused",
    });
    await s.stop();
    await server({ ...sshEnv(), PBX_SSH_HOST_KEY: "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" });
    await s.call("POST", "/api/extensions", { extension: "1001", name: "A" });
    const wrong = await job("/api/deploy/extensions");
    expect(wrong.json.results[0].message).toContain("Host key of 127.0.0.1");
    expect(await pbx.query("SELECT id FROM devices")).toEqual([]);
  });

  test("PTT groups deploy as page groups; nothing configured is a clear 400", async () => {
    await server();
    await s.call("POST", "/api/extensions", { extension: "1001", name: "A" });
    await s.call("POST", "/api/ptt-groups", { name: "Floor", extension: "7001", members: ["1001"] });
    const res = await job("/api/deploy/ptt-groups");
    expect(res.json).toMatchObject({ deployed: 1, failed: 0 });
    expect(await pbx.query("SELECT page_number, ext FROM paging_groups")).toEqual([
      { page_number: "7001", ext: "1001" },
    ]);
    await s.stop();
    await server({});
    const none = await job("/api/deploy/all");
    expect(none.status).toBe(400);
    expect(none.json.error.message).toContain("configure the PBX host (SSH) or the FreePBX GraphQL API");
  });
});

describe("deployment through the FreePBX GraphQL API (no SSH)", () => {
  test("extensions go through GraphQL with the console's secret; a GraphQL 400 is reported per item", async () => {
    const fake = await startFakeFreePbx();
    try {
      await server({
        FREEPBX_API_URL: fake.url,
        FREEPBX_CLIENT_ID: FREEPBX_TEST_CLIENT.clientId,
        FREEPBX_CLIENT_SECRET: FREEPBX_TEST_CLIENT.clientSecret,
      });
      await s.call("POST", "/api/extensions", { extension: "1001", name: "Alice", secret: "console-secret-01" });
      await s.call("POST", "/api/trunks", { name: "T", type: "sip", host: "sip.example.com" });
      const res = await job("/api/deploy/all");
      expect(res.json.extensions.results[0]).toMatchObject({ extension: "1001", status: "success", via: "graphql" });
      expect(res.json.trunks.results[0]).toMatchObject({
        status: "failed",
        message: expect.stringContaining("configure the PBX host (SSH)"),
      });
      expect(res.json.reload).toMatchObject({ ok: true, via: "graphql" });
      const stored = await fake.state.backend.getExtension("1001");
      expect(stored?.secret).toBe("console-secret-01");
      const adds = fake.calls.filter((c) => String((c.body as any)?.query ?? "").includes("addExtension"));
      expect((adds[0]?.body as any)?.variables?.input).toMatchObject({
        extensionId: "1001",
        vmEnable: false,
        umEnable: false,
      });

      fake.state.failNext = {
        status: 400,
        body: { errors: [{ message: "This device id is already in use", status: false }] },
        path: "/admin/api/api/gql",
      };
      const again = await job("/api/deploy/extensions");
      expect(again.json.results[0]).toMatchObject({ status: "failed", via: "graphql" });
      expect(again.json.results[0].message).toContain("This device id is already in use");
    } finally {
      await fake.stop();
    }
  });
});

describe("an inbound route to an IVR through the FreePBX API (no SSH)", () => {
  test("FreePBX's id is the one recorded when the IVR was deployed; without one, the route is refused with why", async () => {
    const fake = await startFakeFreePbx();
    try {
      await server({
        FREEPBX_API_URL: fake.url,
        FREEPBX_CLIENT_ID: FREEPBX_TEST_CLIENT.clientId,
        FREEPBX_CLIENT_SECRET: FREEPBX_TEST_CLIENT.clientSecret,
      });
      const menu = (await s.call("POST", "/api/ivrs", { name: "Main" })).json as { id: number };
      await s.call("POST", "/api/inbound-routes", {
        description: "Menu line",
        didNumber: "5550199",
        destinationType: "ivr",
        destination: String(menu.id),
      });
      const refused = await job("/api/deploy/all");
      expect(refused.json.inboundRoutes.results[0]).toMatchObject({
        status: "failed",
        message:
          "It sends calls to IVR Main, which the console has not deployed yet: FreePBX's API cannot find its id. Configure the PBX host (SSH) in API Settings to deploy both",
      });
      expect(await fake.state.backend.listInboundRoutes()).toEqual([]);
      // Deployed over SSH before (its FreePBX id recorded): the API writes that id.
      recordManaged(s.app.db, Date.now(), {
        kind: "ivr",
        key: "Main",
        pbxId: "7",
        consoleId: menu.id,
        origin: "deploy",
      });
      const written = await job("/api/deploy/all");
      expect(written.json.inboundRoutes.results[0]).toMatchObject({ status: "success", via: "graphql" });
      expect((await fake.state.backend.listInboundRoutes())[0]).toMatchObject({
        extension: "5550199",
        destination: "ivr-7,s,1",
      });
    } finally {
      await fake.stop();
    }
  });
});

describe("the PBX host's overall deadline", () => {
  test("an operation that outlives its deadline fails with the reason, the session is closed, the next one works", async () => {
    await server();
    const started = Date.now();
    const err = await withPbxHost(s.app, () => new Promise<never>(() => {}), {
      operation: "Reading the PBX",
      deadlineMs: 300,
    }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe("Reading the PBX did not finish within 300 ms; the connection was closed");
    expect(Date.now() - started).toBeLessThan(10_000);
    // A command still running on the dropped connection fails instead of hanging.
    const hanging = await withPbxHost(s.app, (host) => host.selectHex("SELECT HEX(SLEEP(5));"), {
      operation: "A slow query",
      deadlineMs: 500,
    }).catch((e: Error) => e);
    expect((hanging as Error).message).toContain("A slow query did not finish within 500 ms");
    expect(await withPbxHost(s.app, (host) => host.needReload())).toBe(false);
  });
});
