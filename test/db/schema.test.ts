import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import * as t from "../../src/db/schema";

let dir: string;
let db: Db;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pbx-db-"));
  db = openDatabase(join(dir, "t.db"));
});
afterAll(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("column defaults", () => {
  test("extension: status available, voicemail off, createdAt set", () => {
    const row = db.insert(t.extensions).values({ extension: "1001", name: "A" }).returning().get();
    expect(row.status).toBe("available");
    expect(row.voicemail).toBe(false);
    expect(Math.abs(row.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
  });

  test("trunk: authType outbound, status unregistered, flags off", () => {
    const row = db.insert(t.trunks).values({ name: "T", type: "sip", host: "sip.example.com" }).returning().get();
    expect(row).toMatchObject({
      authType: "outbound",
      status: "unregistered",
      registrationEnabled: false,
      rewriteContact: false,
      trustRpid: false,
      sendRpid: false,
    });
  });

  test("PTT group: autoAnswer on, duplex off; members kept as a list", () => {
    const row = db
      .insert(t.pttGroups)
      .values({ name: "Floor", extension: "8001", members: ["1001", "1002"] })
      .returning()
      .get();
    expect(row.autoAnswer).toBe(true);
    expect(row.duplex).toBe(false);
    expect(row.members).toEqual(["1001", "1002"]);
  });

  test("IVR: timeout 10, retries 3, no options, no greeting, hang up after wrong or no keys (FreePBX's form)", () => {
    const row = db.insert(t.ivrs).values({ name: "Main" }).returning().get();
    expect(row).toMatchObject({
      timeout: 10,
      retries: 3,
      options: [],
      greeting: null,
      invalidKind: null,
      timeoutKind: null,
    });
  });

  test("announcement: no recording, not skippable, hang up after", () => {
    const row = db.insert(t.announcements).values({ name: "Closed" }).returning().get();
    expect(row).toMatchObject({ recording: null, allowSkip: false, afterKind: null });
  });

  test("AI assistant: openai, gpt-4o-realtime-preview, alloy, 80, active", () => {
    const row = db
      .insert(t.aiAssistants)
      .values({ name: "Reception", systemPrompt: "You answer calls." })
      .returning()
      .get();
    expect(row).toMatchObject({
      provider: "openai",
      model: "gpt-4o-realtime-preview",
      voice: "alloy",
      temperature: 80,
      status: "active",
      tools: [],
    });
  });

  test("routing rule: priority 0, enabled; a new credential is untested", () => {
    const rule = db
      .insert(t.aiRoutingRules)
      .values({ name: "R", conditions: "{}", action: "hangup", actionParams: "{}" })
      .returning()
      .get();
    expect(rule).toMatchObject({ priority: 0, enabled: true });
    const cred = db.insert(t.apiCredentials).values({ name: "Hostinger VPS API", type: "hostinger" }).returning().get();
    expect(cred).toMatchObject({ lastTestOk: false, lastTestAt: null, settings: {} });
  });
});

describe("uniqueness and references", () => {
  test("an extension number, a PTT extension, a username and a credential type are unique", () => {
    db.insert(t.extensions).values({ extension: "2001", name: "A" }).run();
    expect(() => db.insert(t.extensions).values({ extension: "2001", name: "B" }).run()).toThrow(/UNIQUE/);
    db.insert(t.pttGroups)
      .values({ name: "G", extension: "9001", members: ["2001"] })
      .run();
    expect(() =>
      db
        .insert(t.pttGroups)
        .values({ name: "H", extension: "9001", members: ["2001"] })
        .run(),
    ).toThrow(/UNIQUE/);
    db.insert(t.users).values({ username: "root1", password: "x" }).run();
    expect(() => db.insert(t.users).values({ username: "root1", password: "y" }).run()).toThrow(/UNIQUE/);
    db.insert(t.apiCredentials).values({ name: "x", type: "tinymdm" }).run();
    expect(() => db.insert(t.apiCredentials).values({ name: "y", type: "tinymdm" }).run()).toThrow(/UNIQUE/);
  });

  test("an outbound route cannot point at a missing trunk (foreign keys are on)", () => {
    expect(() =>
      db
        .insert(t.outboundRoutes)
        .values({ name: "Out", dialPatterns: ["9X."], trunkId: 99999 })
        .run(),
    ).toThrow(/FOREIGN KEY/);
  });

  test("users get a uuid id", () => {
    const u = db.insert(t.users).values({ username: "uuid-user", password: "x" }).returning().get();
    expect(u.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
