// The Dashboard's summary (ADR 0031): the counts of a PBX-sized console in one small answer with its own
// ETag made of every counted table's version: a 304 while nothing changed, a new tag after a write to any
// of them (whoever writes), behind the session like the lists.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { extensions } from "../../src/db/schema";
import { SUMMARY_TABLES } from "../../src/server/inventory/summary";
import { apiRoutes } from "../../src/server/routes";
import { dashboardSummarySchema } from "../../src/shared/dashboard";
import { startTestServer, type TestServer } from "../helpers/server";

const PATH = "/api/dashboard/summary";
const EXTENSIONS = 5000;
let s: TestServer;
let viewer = "";

const ok = async (res: Promise<{ status: number; text: string; json: any }>, status = 201) => {
  const r = await res;
  expect(r.status, r.text).toBe(status);
  return r.json;
};
const asViewer = (headers: Record<string, string> = {}) =>
  s.call("GET", PATH, undefined, { cookie: viewer, ...headers });

beforeAll(async () => {
  s = await startTestServer();
  await s.setup();
  await ok(s.call("POST", "/api/users", { username: "watcher", password: "viewer password 123", role: "viewer" }));
  const admin = s.cookie;
  await s.call("POST", "/api/auth/login", { username: "watcher", password: "viewer password 123" }, { cookie: "" });
  viewer = s.cookie;
  s.cookie = admin;
  s.db.transaction((tx) => {
    for (let i = 0; i < EXTENSIONS; i++) {
      tx.insert(extensions)
        .values({ extension: String(10000 + i), name: `User ${i}`, secret: `secret-${i}-0000000000` })
        .run();
    }
  });
  const trunk = await ok(s.call("POST", "/api/trunks", { name: "Carrier", type: "sip", host: "sip.example.com" }));
  await ok(s.call("POST", "/api/trunks", { name: "Backup", type: "sip", host: "sip.backup.example.com" }));
  for (const did of ["15550001", "15550002", "15550003"]) {
    await ok(
      s.call("POST", "/api/inbound-routes", {
        description: `Line ${did}`,
        didNumber: did,
        destination: "10001",
        destinationType: "extension",
      }),
    );
  }
  await ok(s.call("POST", "/api/outbound-routes", { name: "UK", dialPatterns: ["07XXXXXXXXX"], trunkId: trunk.id }));
  await ok(s.call("POST", "/api/ptt-groups", { name: "Floor", extension: "8000", members: ["10001", "10002"] }));
  await ok(s.call("POST", "/api/ring-groups", { name: "Front desk", number: "600", members: ["10001", "10002"] }));
  await ok(s.call("POST", "/api/queues", { name: "Support", number: "400", agents: ["10001", "10002"] }));
  await ok(
    s.call("POST", "/api/ai/assistants", {
      name: "Front desk",
      description: "",
      provider: "openai",
      model: "gpt-4o-realtime-preview",
      systemPrompt: "You are the receptionist.",
      voice: "alloy",
      temperature: 80,
      extensionId: "10003",
      ivrId: "",
      status: "active",
    }),
  );
});
afterAll(() => s?.stop());

describe("GET /api/dashboard/summary", () => {
  test("a viewer gets the counts of a PBX-sized console, the same as the lists' lengths", async () => {
    const res = await asViewer();
    expect(res.status, res.text).toBe(200);
    const summary = dashboardSummarySchema.parse(res.json);
    expect(summary).toEqual({
      extensions: EXTENSIONS,
      trunks: 2,
      inboundRoutes: 3,
      outboundRoutes: 1,
      pttGroups: 1,
      ringGroups: 1,
      queues: 1,
      aiAssistants: 1,
    });
    const lists = {
      extensions: "/api/extensions",
      trunks: "/api/trunks",
      inboundRoutes: "/api/inbound-routes",
      outboundRoutes: "/api/outbound-routes",
      pttGroups: "/api/ptt-groups",
      ringGroups: "/api/ring-groups",
      queues: "/api/queues",
      aiAssistants: "/api/ai/assistants",
    } as const;
    for (const [key, path] of Object.entries(lists)) {
      expect((await s.call("GET", path)).json.length, path).toBe(summary[key as keyof typeof lists]);
    }
    // Small: a few counts, not the 1 MB list; too small to be worth a coding.
    expect(res.text.length).toBeLessThan(200);
    expect(res.headers.get("content-encoding")).toBeNull();
  });

  test("it carries an ETag (no-cache, private); a matching If-None-Match is a 304 without a body", async () => {
    const res = await asViewer();
    const tag = res.headers.get("etag") as string;
    expect(tag).toMatch(/^"[0-9a-z]+"$/);
    expect(res.headers.get("cache-control")).toBe("no-cache, private");
    const again = await asViewer({ "if-none-match": tag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(tag);
  });

  test("the route's ETag is made of every counted table, each versioned", () => {
    const def = apiRoutes.find((r) => r.path === PATH);
    expect(def?.method).toBe("GET");
    expect(def?.minRole).toBeUndefined(); // viewer, like the lists
    expect([...(def?.etag ?? [])].sort()).toEqual([...SUMMARY_TABLES].sort());
  });

  test("a write to any counted table, by any connection, gives a new ETag; another table's does not", async () => {
    for (const table of SUMMARY_TABLES) {
      const tag = (await asViewer()).headers.get("etag") as string;
      // Like the CLI or a script: another connection on the same file.
      const other = new Database(s.dbFile);
      try {
        const column = table === "inbound_routes" ? "description" : "name";
        other.run(
          `UPDATE ${table} SET ${column} = ${column} || ' (renamed)' WHERE id = (SELECT min(id) FROM ${table})`,
        );
      } finally {
        other.close();
      }
      const after = await asViewer({ "if-none-match": tag });
      expect(after.status, table).toBe(200);
      expect(after.headers.get("etag"), table).not.toBe(tag);
    }
    // ai_routing_rules is versioned but not counted: a write there leaves the summary a 304.
    const tag = (await asViewer()).headers.get("etag") as string;
    const other = new Database(s.dbFile);
    try {
      other.run("UPDATE table_versions SET version = version + 1 WHERE name = 'ai_routing_rules'");
    } finally {
      other.close();
    }
    expect((await asViewer({ "if-none-match": tag })).status).toBe(304);
  });

  test("creating and deleting an extension through the API changes the count and the ETag", async () => {
    const before = await asViewer();
    const made = await ok(
      s.call("POST", "/api/extensions", { extension: "2001", name: "New", email: "", voicemail: false, secret: "" }),
    );
    const created = await asViewer({ "if-none-match": before.headers.get("etag") as string });
    expect(created.status).toBe(200);
    expect(created.json.extensions).toBe(EXTENSIONS + 1);
    await ok(s.call("DELETE", `/api/extensions/${made.id}`), 200);
    const deleted = await asViewer({ "if-none-match": created.headers.get("etag") as string });
    expect(deleted.status).toBe(200);
    expect(deleted.json.extensions).toBe(EXTENSIONS);
  });

  test("signed out: 401, no ETag, even with a current tag", async () => {
    const tag = (await asViewer()).headers.get("etag") as string;
    const res = await s.call("GET", PATH, undefined, { cookie: "", "if-none-match": tag });
    expect(res.status).toBe(401);
    expect(res.headers.get("etag")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});
