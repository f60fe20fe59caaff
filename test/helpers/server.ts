import { afterAll, beforeAll, beforeEach, expect } from "bun:test";
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
  // The PBX host's own files are absent unless a test gives them: a machine that has /etc/asterisk does not leak in.
  const absent = { ASTERISK_MANAGER_CONF: `${dir}/absent-manager.conf`, FREEPBX_CONF: `${dir}/absent-freepbx.conf` };
  const config = loadConfig({ PORT: "0", DATA_DIR: dir, LOG_LEVEL: "silent", ...absent, ...env }, false);
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
    // A form (an upload) is sent as multipart/form-data with the boundary fetch chooses.
    const form = body instanceof FormData;
    if (method !== "GET" && method !== "HEAD" && !form && !("content-type" in h))
      h["content-type"] = "application/json";
    if (cookie && !("cookie" in h)) h.cookie = cookie;
    if (body !== undefined) init.body = form || typeof body === "string" ? body : JSON.stringify(body);
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

  /** Rows of a table as text, to prove a refused request changed nothing. */
  const snapshot = (table: string) => JSON.stringify(db.$client.query(`SELECT * FROM ${table} ORDER BY 1`).all());

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
    snapshot,
    /** Empties tables (children before parents), e.g. before each test. */
    clear(...tables: string[]) {
      for (const table of tables) db.$client.run(`DELETE FROM ${table}`);
    },
    /** Sends a request that must be refused with `status` and must leave `table` unchanged; returns the error. */
    async refused(table: string, req: () => Promise<{ status: number; json: any }>, status: number) {
      const before = snapshot(table);
      const res = await req();
      expect(res.status).toBe(status);
      expect(typeof res.json.error.message).toBe("string");
      expect(snapshot(table)).toBe(before);
      return res.json.error as { message: string; fields?: Record<string, string> };
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

/**
 * One signed-in server for the whole test file (hooks registered here), with
 * `clean` tables emptied before each test. Returns a handle that forwards to
 * the running server, so tests write `s.call(...)` as usual.
 */
export function signedInServer(opts: { env?: Record<string, string>; clean?: string[] } = {}): TestServer {
  let current: TestServer | null = null;
  beforeAll(async () => {
    current = await startTestServer(opts.env);
    await current.setup();
  });
  afterAll(async () => {
    await current?.stop();
  });
  if (opts.clean?.length) beforeEach(() => current?.clear(...(opts.clean ?? [])));
  return new Proxy({} as TestServer, {
    get(_target, prop) {
      if (!current) throw new Error("the test server is not started yet (use it inside a test or hook)");
      const value = Reflect.get(current, prop, current);
      return typeof value === "function" ? value.bind(current) : value;
    },
    set(_target, prop, value) {
      if (!current) throw new Error("the test server is not started yet");
      return Reflect.set(current, prop, value, current);
    },
  });
}
