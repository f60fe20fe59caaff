import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { createApp } from "../../src/server/app";
import { loadConfig } from "../../src/server/config";

export const ADMIN = { username: "admin", password: "correct horse battery" };

/**
 * Starts the real server (createApp → Bun.serve on a free loopback port) over a
 * temp-file database, with a clock the test can move.
 */
export async function startTestServer(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "pbx-test-"));
  const config = loadConfig({ PORT: "0", DATA_DIR: dir, LOG_LEVEL: "silent", ...env }, false);
  const dbFile = join(dir, "pbx-console.db");
  const db: Db = openDatabase(dbFile);
  let offset = 0;
  const now = () => Date.now() + offset;
  const handle = createApp({ config, db, version: "test", now });
  const base = handle.url.href.replace(/\/$/, "");

  /** fetch against the server, JSON by default, keeping the session cookie like a browser. */
  let cookie = "";
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...headers } };
    const h = init.headers as Record<string, string>;
    if (method !== "GET" && method !== "HEAD" && !("content-type" in h)) h["content-type"] = "application/json";
    if (cookie && !("cookie" in h)) h.cookie = cookie;
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const res = await fetch(base + path, init);
    const set = res.headers.get("set-cookie");
    if (set) {
      const pair = set.split(";")[0] as string;
      cookie = pair.endsWith("=") ? "" : pair;
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, text, json: json as any };
  }

  return {
    dir,
    dbFile,
    db,
    base,
    app: handle.app,
    call,
    get cookie() {
      return cookie;
    },
    set cookie(v: string) {
      cookie = v;
    },
    advance(ms: number) {
      offset += ms;
    },
    /** Creates the first administrator through the API (signs this client in). */
    async setup(user = ADMIN) {
      return call("POST", "/api/auth/setup", { ...user, confirmPassword: user.password });
    },
    async stop() {
      await handle.stop(true);
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>;
