import { describe, expect, test } from "bun:test";
import { signedInServer } from "../helpers/server";

const s = signedInServer();

describe("one JSON error shape under /api", () => {
  test("an unknown /api path is a JSON 404, never the web app", async () => {
    const res = await s.call("GET", "/api/does-not-exist");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.json).toEqual({ error: { message: "No API endpoint /api/does-not-exist" } });
  });

  test("a wrong method is 405 with Allow", async () => {
    const res = await s.call("DELETE", "/api/auth/me");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
    expect(res.json.error.message).toContain("DELETE");
  });

  test("malformed JSON is 400 with a clear message, not a 500", async () => {
    const res = await s.call("POST", "/api/auth/login", "{not json");
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: { message: "Malformed JSON in request body" } });
  });

  test("a body that is not an object, or lacks a field, is a 400 naming the problem", async () => {
    const list = await s.call("POST", "/api/auth/login", [1, 2]);
    expect(list.status).toBe(400);
    expect(list.json.error.message).toBe("Request body must be a JSON object");
    const missing = await s.call("POST", "/api/auth/login", { password: "x", username: 42 });
    expect(missing.status).toBe(400);
    expect(missing.json.error.fields).toEqual({ username: "Username is required" });
  });

  test("API responses are not cached", async () => {
    const res = await s.call("GET", "/api/auth/me");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

test("/healthz answers without a session", async () => {
  const res = await fetch(`${s.base}/healthz`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: "ok", version: "test" });
});

test("/api/info gives the sidebar footer values", async () => {
  const res = await s.call("GET", "/api/info");
  expect(res.status).toBe(200);
  expect(Object.keys(res.json).sort()).toEqual(["serverAddress", "serverLabel", "version"]);
  expect(res.json.serverAddress).toBe("127.0.0.1");
});

describe("/ws?type=sync", () => {
  const open = (query: string, cookie: string) =>
    new Promise<{ ws: WebSocket; messages: string[] }>((resolve, reject) => {
      const ws = new WebSocket(`${s.base.replace("http", "ws")}/ws${query}`, { headers: { cookie } } as never);
      const messages: string[] = [];
      ws.onmessage = (e) => messages.push(String(e.data));
      ws.onopen = () => resolve({ ws, messages });
      ws.onerror = () => reject(new Error("socket refused"));
    });

  test("a signed-in socket receives published events as {type, data}", async () => {
    const { ws, messages } = await open("?type=sync", s.cookie);
    // The server subscribes the socket after its upgrade; on a busy machine that may trail the client's open.
    while (s.app.events.subscribers < 1) await Bun.sleep(5);
    expect(s.app.events.subscribers).toBe(1);
    s.app.events.publish({ type: "extensions-updated", data: { id: 7 } });
    s.app.events.publish({ type: "trunks-updated" });
    while (messages.length < 2) await Bun.sleep(5);
    expect(messages.map((m) => JSON.parse(m))).toEqual([
      { type: "extensions-updated", data: { id: 7 } },
      { type: "trunks-updated" },
    ]);
    ws.close();
  });

  test("an unknown socket type or a missing session is refused before upgrading", async () => {
    expect(open("?type=other", s.cookie)).rejects.toThrow("socket refused");
    expect(open("?type=sync", "")).rejects.toThrow("socket refused");
    const res = await fetch(`${s.base}/ws?type=other`, {
      headers: { cookie: s.cookie, upgrade: "websocket", connection: "Upgrade" },
    });
    expect(res.status).toBe(400);
  });
});
