/**
 * The PBX domain functions called directly with only the deps they take: a
 * database, the credential store, a clock and a list that records events. The
 * PBX is the FreePBX GraphQL fake (the SSH path is covered in pbx.test.ts).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { extensions, inboundRoutes, pttGroups } from "../../src/db/schema";
import { loadConfig } from "../../src/server/config";
import { Invalid } from "../../src/server/core/errors";
import { CredentialStore } from "../../src/server/integrations/credentials";
import { deployTarget } from "../../src/server/pbx/deploy/apply";
import { pbxStatus } from "../../src/server/pbx/host/status";
import { compareExtensions, compareTrunks } from "../../src/server/pbx/sync/compare";
import { importExtensions, importTrunks } from "../../src/server/pbx/sync/import";
import { SecretBox } from "../../src/server/secret-box";
import type { WsEvent } from "../../src/shared/ws-events";
import type { FakeServer } from "../fakes/common";
import { FREEPBX_TEST_CLIENT, type FreePbxState, quickCreateExtension, startFakeFreePbx } from "../fakes/freepbx";

let fake: FakeServer<FreePbxState>;
beforeAll(async () => {
  fake = await startFakeFreePbx();
});
afterAll(async () => {
  await fake?.stop();
});

let dir: string;
let db: Db;
let events: WsEvent[];
function deps(env: Record<string, string> = {}) {
  const config = loadConfig({ PORT: "0", DATA_DIR: dir, LOG_LEVEL: "silent", ...env }, false);
  const box = SecretBox.open(dir);
  const credentials = new CredentialStore(db, box, config.env, Date.now);
  return { db, box, config, credentials, now: Date.now, events: { publish: (e: WsEvent) => events.push(e) } };
}
const graphqlEnv = () => ({
  FREEPBX_API_URL: fake.url,
  FREEPBX_CLIENT_ID: FREEPBX_TEST_CLIENT.clientId,
  FREEPBX_CLIENT_SECRET: FREEPBX_TEST_CLIENT.clientSecret,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pbx-domain-"));
  db = openDatabase(join(dir, "pbx-console.db"));
  events = [];
  fake.state.backend.extensions.clear();
  fake.state.backend.inboundRoutes = [];
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Objects made in FreePBX are conflicts (ADR 0025): these tests adopt them, as a user would in the review. */
const ADOPT = { mode: "direct", adoptConflicts: true } as const;

async function onPbx(n: string, name: string) {
  await fake.state.backend.addExtension(quickCreateExtension({ extensionId: n, name, email: "", vmEnable: false }));
}

describe("nothing configured", () => {
  test("status says what to configure; reading, importing and deploying are Invalid (400)", async () => {
    const d = deps();
    expect(await pbxStatus(d)).toEqual({
      ssh: false,
      graphql: false,
      paths: { ssh: { state: "not-configured", message: null }, graphql: { state: "not-configured", message: null } },
      needReload: null,
      message: "Configure the PBX host (SSH) or the FreePBX API in API Settings.",
    });
    await expect(compareExtensions(d)).rejects.toBeInstanceOf(Invalid);
    await expect(compareTrunks(d)).rejects.toThrow("FreePBX's API has no trunks");
    await expect(importExtensions(d, { mode: "all", extensions: [] })).rejects.toBeInstanceOf(Invalid);
    await expect(importTrunks(d, { mode: "all", trunks: [] })).rejects.toBeInstanceOf(Invalid);
    await expect(deployTarget(d, "all")).rejects.toThrow("No way to reach the PBX");
    expect(events).toEqual([]);
  });
});

describe("the PBX status says whether a way works, not only whether it is configured", () => {
  test("the FreePBX API: untested, then failed with the reason, then connected", async () => {
    const d = deps(graphqlEnv());
    expect((await pbxStatus(d)).paths.graphql).toEqual({ state: "untested", message: null });
    d.credentials.recordTest("freepbx", { success: false, message: "401 Unauthorized: invalid client" });
    expect((await pbxStatus(d)).paths.graphql).toEqual({
      state: "failed",
      message: "401 Unauthorized: invalid client",
    });
    d.credentials.recordTest("freepbx", { success: true, message: "Connected" });
    expect((await pbxStatus(d)).paths.graphql).toEqual({ state: "connected", message: null });
  });

  test("SSH that cannot be reached is failed with the reason, never 'configured'", async () => {
    const d = deps({ PBX_SSH_HOST: "127.0.0.1", PBX_SSH_PORT: "1", PBX_SSH_USER: "root", PBX_SSH_PASSWORD: "x" });
    const status = await pbxStatus(d);
    expect(status.ssh).toBe(true);
    expect(status.paths.ssh.state).toBe("failed");
    expect(status.paths.ssh.message).toBe(status.message);
    expect(status.message).toMatch(/refused|connect/i);
  });
});

describe("sync through the FreePBX API", () => {
  test("compare lists the PBX's extensions in number order next to the console's", async () => {
    db.insert(extensions).values({ extension: "1001", name: "Alice" }).run();
    await onPbx("1002", "Bob");
    await onPbx("1001", "Alice Smith");
    const res = await compareExtensions(deps(graphqlEnv()));
    expect(res).toMatchObject({ freepbxCount: 2, dashboardCount: 1, via: "graphql" });
    expect(res.comparison.map((r) => [r.extension, r.inDashboard, r.needsSync])).toEqual([
      ["1001", true, true],
      ["1002", false, false],
    ]);
  });

  test("import refuses a number a PTT group holds, updates an existing extension, creates a new one", async () => {
    db.insert(extensions).values({ extension: "1001", name: "Alice" }).run();
    db.insert(pttGroups)
      .values({ name: "Floor", extension: "7001", members: ["1001"] })
      .run();
    await onPbx("1001", "Alice Smith");
    await onPbx("2001", "Lobby");
    await onPbx("7001", "Paging desk");
    const result = await importExtensions(deps(graphqlEnv()), { mode: "all", extensions: [] });
    expect(result).toEqual({
      created: 1,
      updated: 1,
      failed: 1,
      errors: ["7001 is already the number of PTT group Floor"],
    });
    const rows = db.select({ extension: extensions.extension, name: extensions.name }).from(extensions).all();
    expect(rows.sort((a, b) => a.extension.localeCompare(b.extension))).toEqual([
      { extension: "1001", name: "Alice Smith" },
      { extension: "2001", name: "Lobby" },
    ]);
    expect(events.map((e) => e.type)).toEqual(["extensions-updated", "sync-status"]);
  });

  test("an import that changes nothing publishes only sync-status", async () => {
    db.insert(pttGroups)
      .values({ name: "Floor", extension: "7001", members: ["1001"] })
      .run();
    await onPbx("7001", "Paging desk");
    const result = await importExtensions(deps(graphqlEnv()), { mode: "selected", extensions: ["7001"] });
    expect(result).toMatchObject({ created: 0, updated: 0, failed: 1 });
    expect(events).toEqual([{ type: "sync-status", data: { import: "extensions", ...result } }]);
  });
});

describe("deploy through the FreePBX API writes only what changed (ADR 0023)", () => {
  const updates = (from: number) =>
    fake.calls
      .slice(from)
      .filter((c) => String((c.body as { query?: string })?.query ?? "").includes("updateExtension"))
      .map((c) => (c.body as { variables: { input: Record<string, unknown> } }).variables.input);

  test("an existing extension gets only its changed fields; its User Manager user and voicemail stay", async () => {
    const d = deps(graphqlEnv());
    await fake.state.backend.addExtension(
      quickCreateExtension(
        { extensionId: "1001", name: "Alice", email: "alice@example.org", vmEnable: false },
        "pbx-secret-1001",
      ),
    );
    expect((await fake.state.backend.getExtension("1001"))?.userman).toEqual({
      username: "1001",
      email: "alice@example.org",
    });
    db.insert(extensions)
      .values({ extension: "1001", name: "Alice Smith", voicemail: false, secret: d.box.seal("pbx-secret-1001") })
      .run();
    const from = fake.calls.length;
    const res = await deployTarget(d, "extensions", undefined, ADOPT);
    expect(res.results[0]).toMatchObject({ status: "success", via: "graphql" });
    expect(res.results[0]?.message).toBe("Extension 1001 updated through the FreePBX API (name)");
    // No umEnable (FreePBX would drop the User Manager user on false), no email, no unchanged secret.
    expect(updates(from)).toEqual([{ extensionId: "1001", vmEnable: false, name: "Alice Smith" }]);
    const after = await fake.state.backend.getExtension("1001");
    expect(after?.userman).toEqual({ username: "1001", email: "alice@example.org" });
    expect(after?.user?.voicemail).toBe("novm");
    expect(after?.secret).toBe("pbx-secret-1001");

    const again = fake.calls.length;
    const second = await deployTarget(d, "extensions");
    expect(second.results[0]?.message).toBe("Extension 1001 is already up to date on the PBX");
    expect(updates(again)).toEqual([]);
  });

  test("a new extension is added without a User Manager user, then given the console's secret", async () => {
    const d = deps(graphqlEnv());
    db.insert(extensions)
      .values({ extension: "2001", name: "Bob", voicemail: true, secret: d.box.seal("console-secret-2001") })
      .run();
    const from = fake.calls.length;
    const res = await deployTarget(d, "extensions");
    expect(res.results[0]?.message).toBe("Extension 2001 added through the FreePBX API");
    expect(updates(from)).toEqual([
      { extensionId: "2001", extPassword: "console-secret-2001", vmEnable: true, umEnable: false },
    ]);
    const stored = await fake.state.backend.getExtension("2001");
    expect(stored).toMatchObject({ secret: "console-secret-2001", userman: null });
    expect(stored?.user?.voicemail).toBe("default");
  });

  test("an existing inbound route keeps its privacy, music and alert settings", async () => {
    const d = deps(graphqlEnv());
    fake.state.backend.inboundRoutes = [
      {
        extension: "5551234567",
        cidnum: "",
        description: "GUI route",
        destination: "from-did-direct,1001,1",
        privacyman: true,
        alertinfo: "<http://x>;info=ring2",
        ringing: true,
        mohclass: "jazz",
        grppre: "VIP:",
        delay_answer: 2,
        pricid: false,
        fanswer: false,
      },
    ];
    db.insert(inboundRoutes)
      .values({ description: "Main line", didNumber: "5551234567", destination: "1002", destinationType: "extension" })
      .run();
    const res = await deployTarget(d, "all", undefined, ADOPT);
    expect(res.inboundRoutes.results[0]).toMatchObject({ status: "success", via: "graphql" });
    expect(fake.state.backend.inboundRoutes).toEqual([
      {
        extension: "5551234567",
        cidnum: "",
        description: "Main line",
        destination: "from-did-direct,1002,1",
        privacyman: true,
        alertinfo: "<http://x>;info=ring2",
        ringing: true,
        mohclass: "jazz",
        grppre: "VIP:",
        delay_answer: 2,
        pricid: false,
        fanswer: false,
      },
    ]);
  });
});
