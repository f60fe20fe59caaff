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
import { extensions, pttGroups } from "../../src/db/schema";
import { loadConfig } from "../../src/server/config";
import { Invalid } from "../../src/server/domain/errors";
import { CredentialStore } from "../../src/server/integrations/credentials";
import { compareExtensions, compareTrunks } from "../../src/server/pbx/compare";
import { deployTarget } from "../../src/server/pbx/deploy";
import { importExtensions, importTrunks } from "../../src/server/pbx/import";
import { pbxStatus } from "../../src/server/pbx/status";
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
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

async function onPbx(n: string, name: string) {
  await fake.state.backend.addExtension(quickCreateExtension({ extensionId: n, name, email: "", vmEnable: false }));
}

describe("nothing configured", () => {
  test("status says what to configure; reading, importing and deploying are Invalid (400)", async () => {
    const d = deps();
    expect(await pbxStatus(d)).toEqual({
      ssh: false,
      graphql: false,
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
