// Lists with an ETag (ADR 0029): 304 on a matching If-None-Match, a new ETag after every write by any
// path (the API, another connection on the same file), per table, per role, and still behind the session.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiRoutes } from "../../src/server/routes";
import { ifNoneMatchHits, VERSIONED_TABLES } from "../../src/server/transport/list-cache";
import { startTestServer, type TestServer } from "../helpers/server";

const PASSWORD = "viewer password 123";
let s: TestServer;
let viewer = "";

const ext = (extension: string) =>
  s.call("POST", "/api/extensions", { extension, name: `User ${extension}`, email: "", voicemail: false, secret: "" });
const get = (path: string, headers: Record<string, string> = {}) => s.call("GET", path, undefined, headers);
const etagOf = async (path: string, headers: Record<string, string> = {}) => {
  const res = await get(path, headers);
  expect(res.status, res.text).toBe(200);
  return res.headers.get("etag") as string;
};

beforeAll(async () => {
  s = await startTestServer();
  await s.setup();
  const made = await s.call("POST", "/api/users", { username: "watcher", password: PASSWORD, role: "viewer" });
  expect(made.status, made.text).toBe(201);
  const admin = s.cookie;
  await s.call("POST", "/api/auth/login", { username: "watcher", password: PASSWORD }, { cookie: "" });
  viewer = s.cookie;
  s.cookie = admin;
});
afterAll(() => s?.stop());

describe("list ETags", () => {
  test("every list route declares tables that have a version and its three triggers", () => {
    const declared = apiRoutes.filter((r) => r.etag);
    expect(declared.map((r) => r.path).sort()).toEqual(
      [
        "/api/ai/assistants",
        "/api/ai/messages",
        "/api/ai/routing-rules",
        "/api/ai/transcripts",
        "/api/announcements",
        "/api/dashboard/summary",
        "/api/destinations",
        "/api/extensions",
        "/api/inbound-routes",
        "/api/ivrs",
        "/api/outbound-routes",
        "/api/ptt-groups",
        "/api/ring-groups",
        "/api/routing/flows",
        "/api/time-conditions",
        "/api/time-groups",
        "/api/queues",
        "/api/trunks",
      ].sort(),
    );
    for (const r of declared) expect(r.method).toBe("GET");
    const versioned = s.db.$client.query("SELECT name FROM table_versions ORDER BY name").all() as { name: string }[];
    expect(versioned.map((v) => v.name)).toEqual([...VERSIONED_TABLES].sort());
    for (const table of VERSIONED_TABLES) {
      const triggers = s.db.$client
        .query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name")
        .all(table) as { name: string }[];
      expect(triggers.map((t) => t.name)).toEqual([
        `${table}_version_delete`,
        `${table}_version_insert`,
        `${table}_version_update`,
      ]);
    }
  });

  test("a list carries an ETag and no-cache, private; a matching If-None-Match is a 304 without a body", async () => {
    await ext("2001");
    const res = await get("/api/extensions");
    expect(res.status).toBe(200);
    const tag = res.headers.get("etag") as string;
    expect(tag).toMatch(/^"[0-9a-z]+"$/);
    expect(res.headers.get("cache-control")).toBe("no-cache, private");
    expect(res.headers.get("content-type")).toContain("application/json");

    const again = await get("/api/extensions", { "if-none-match": tag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(tag);
    expect(again.headers.get("cache-control")).toBe("no-cache, private");
    // Weak and listed forms match too; another tag does not.
    expect((await get("/api/extensions", { "if-none-match": `"x", W/${tag}` })).status).toBe(304);
    const other = await get("/api/extensions", { "if-none-match": '"not-this-one"' });
    expect(other.status).toBe(200);
    expect(other.text).toBe(res.text);
    expect(other.headers.get("etag")).toBe(tag);
  });

  test("a create, an update and a delete each change the ETag, and the new body is the new list", async () => {
    const before = await etagOf("/api/extensions");
    const made = await ext("2002");
    expect(made.status).toBe(201);
    const afterCreate = await get("/api/extensions", { "if-none-match": before });
    expect(afterCreate.status).toBe(200);
    expect(afterCreate.json.map((e: { extension: string }) => e.extension)).toContain("2002");
    const created = afterCreate.headers.get("etag") as string;
    expect(created).not.toBe(before);

    // An update (an AI assistant: the API has PATCH there).
    const assistant = await s.call("POST", "/api/ai/assistants", {
      name: "Front desk",
      description: "",
      provider: "openai",
      model: "gpt-4o-realtime-preview",
      systemPrompt: "You are the receptionist.",
      voice: "alloy",
      temperature: 80,
      extensionId: "2002",
      ivrId: "",
      status: "active",
    });
    expect(assistant.status, assistant.text).toBe(201);
    const listed = await etagOf("/api/ai/assistants");
    expect((await s.call("PATCH", `/api/ai/assistants/${assistant.json.id}`, { name: "Back desk" })).status).toBe(200);
    const renamed = await get("/api/ai/assistants", { "if-none-match": listed });
    expect(renamed.status).toBe(200);
    expect(renamed.json.map((a: { name: string }) => a.name)).toEqual(["Back desk"]);
    expect(renamed.headers.get("etag")).not.toBe(listed);
    expect((await s.call("DELETE", `/api/ai/assistants/${assistant.json.id}`)).status).toBe(200);

    expect((await s.call("DELETE", `/api/extensions/${made.json.id}`)).status).toBe(200);
    const afterDelete = await get("/api/extensions", { "if-none-match": created });
    expect(afterDelete.status).toBe(200);
    expect(afterDelete.json.map((e: { extension: string }) => e.extension)).not.toContain("2002");
    expect(afterDelete.headers.get("etag")).not.toBe(created);
    expect(afterDelete.headers.get("etag")).not.toBe(before);
  });

  test("a write to trunks leaves the extensions' ETag and kept body alone", async () => {
    const extensions = await etagOf("/api/extensions");
    const trunks = await etagOf("/api/trunks");
    const made = await s.call("POST", "/api/trunks", { name: "Carrier", type: "sip", host: "sip.example.com" });
    expect(made.status, made.text).toBe(201);
    expect((await get("/api/extensions", { "if-none-match": extensions })).status).toBe(304);
    const changed = await get("/api/trunks", { "if-none-match": trunks });
    expect(changed.status).toBe(200);
    expect(changed.json.map((t: { name: string }) => t.name)).toContain("Carrier");
  });

  test("a write by another connection on the same file (like the CLI) changes the ETag", async () => {
    const before = await get("/api/extensions");
    const tag = before.headers.get("etag") as string;
    const other = new Database(s.dbFile);
    try {
      other.run("UPDATE extensions SET name = 'Renamed elsewhere' WHERE extension = '2001'");
    } finally {
      other.close();
    }
    const after = await get("/api/extensions", { "if-none-match": tag });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(tag);
    expect(after.json.find((e: { extension: string }) => e.extension === "2001").name).toBe("Renamed elsewhere");
  });

  test("each role has its own ETag and kept body; the same list for both", async () => {
    const admin = await get("/api/extensions");
    const asViewer = await get("/api/extensions", { cookie: viewer });
    expect(asViewer.status).toBe(200);
    expect(asViewer.text).toBe(admin.text);
    const adminTag = admin.headers.get("etag") as string;
    expect(asViewer.headers.get("etag")).not.toBe(adminTag);
    // The admin's tag does not revalidate the viewer's copy (nor the other way round).
    expect((await get("/api/extensions", { cookie: viewer, "if-none-match": adminTag })).status).toBe(200);
    const viewerTag = asViewer.headers.get("etag") as string;
    expect((await get("/api/extensions", { "if-none-match": viewerTag })).status).toBe(200);
  });

  test("the 304 path still needs a session; a route with a secret stays no-store", async () => {
    const tag = await etagOf("/api/extensions");
    const anonymous = await get("/api/extensions", { cookie: "", "if-none-match": tag });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("etag")).toBeNull();
    expect(anonymous.headers.get("cache-control")).toBe("no-store");
    const id = (await get("/api/extensions")).json[0].id;
    const secret = await get(`/api/extensions/${id}/provisioning`);
    expect(secret.headers.get("etag")).toBeNull();
    expect(secret.headers.get("cache-control")).toBe("no-store");
  });
});

test("If-None-Match: strong, weak, listed and * match; anything else does not", () => {
  expect(ifNoneMatchHits('"a"', '"a"')).toBe(true);
  expect(ifNoneMatchHits('W/"a"', '"a"')).toBe(true);
  expect(ifNoneMatchHits('"b" , "a"', '"a"')).toBe(true);
  expect(ifNoneMatchHits("*", '"a"')).toBe(true);
  expect(ifNoneMatchHits('"ab"', '"a"')).toBe(false);
  expect(ifNoneMatchHits(null, '"a"')).toBe(false);
});
