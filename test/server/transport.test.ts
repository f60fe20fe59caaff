// The HTTP transport's own defences (ADR 0014): request bodies limited while they are read, the Host
// allow-list (DNS rebinding), the first-run set-up code beyond loopback, and the security headers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { createApp } from "../../src/server/app";
import { loadConfig } from "../../src/server/config";
import { HttpError, MAX_JSON_BODY, readBodyText } from "../../src/server/http";
import { contentSecurityPolicy } from "../../src/server/transport/headers";
import { HostAllowList, hostName, isLoopbackHost } from "../../src/server/transport/hosts";
import page from "../../src/web/index.html";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server";

/** A request body that streams `total` bytes of JSON-ish filler in 64 KiB chunks, never held whole. */
function streamOf(total: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(chunk.length, total - sent);
      controller.enqueue(n === chunk.length ? chunk : chunk.subarray(0, n));
      sent += n;
    },
  });
}

describe("request size limits", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.stop());

  test("readBodyText stops at the limit while reading, and reads what fits", async () => {
    const ok = new Request("http://x/", { method: "POST", body: "a".repeat(1000) });
    expect(await readBodyText(ok, 1000)).toHaveLength(1000);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        c.enqueue(new Uint8Array(1024));
      },
    });
    const big = new Request("http://x/", { method: "POST", body: endless, duplex: "half" } as RequestInit);
    const err = await readBodyText(big, 10 * 1024).catch((e) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(413);
    // It stopped soon after the limit instead of reading on.
    expect(pulled).toBeLessThan(20);
  });

  test("a declared Content-Length over 1 MiB is refused at once with 413", async () => {
    const res = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(MAX_JSON_BODY + 1) },
      body: streamOf(MAX_JSON_BODY + 1),
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.message).toContain("too large");
  });

  test("a streamed (chunked) body is refused with 413 once it passes 1 MiB", async () => {
    const res = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: streamOf(8 * MAX_JSON_BODY),
    });
    expect(res.status).toBe(413);
  });

  test("a body just under the limit is read and validated as usual", async () => {
    const body = JSON.stringify({ username: "x", password: "y", pad: "p".repeat(MAX_JSON_BODY - 100) });
    expect(body.length).toBeLessThan(MAX_JSON_BODY);
    const res = await s.call("POST", "/api/auth/login", body);
    expect(res.status).toBe(401);
  });

  test("a handler that reads the raw body itself (the OpenAI webhook) reads it through the same limit", async () => {
    const res = await fetch(`${s.base}/api/ai/openai/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: streamOf(8 * MAX_JSON_BODY),
    });
    expect(res.status).toBe(413);
  });

  test("routes that need a session refuse before reading the body", async () => {
    const res = await fetch(`${s.base}/api/extensions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: streamOf(4 * MAX_JSON_BODY),
    });
    expect(res.status).toBe(401);
  });
});

describe("Host allow-list", () => {
  test("host names are read without port, case or trailing dot", () => {
    expect(hostName("LocalHost:3000")).toBe("localhost");
    expect(hostName("pbx.example.com.")).toBe("pbx.example.com");
    expect(hostName("[::1]:3000")).toBe("[::1]");
    expect(hostName("::1")).toBe("[::1]");
    expect(hostName("evil.example:notaport")).toBeNull();
    expect(hostName("a b")).toBeNull();
    expect(isLoopbackHost("127.0.0.1")).toBe(true);
    expect(isLoopbackHost("localhost")).toBe(true);
    expect(isLoopbackHost("::1")).toBe(true);
    expect(isLoopbackHost("0.0.0.0")).toBe(false);
    expect(isLoopbackHost("203.0.113.5")).toBe(false);
  });

  test("loopback, this machine's addresses, HOST, SERVER_ADDRESS and PUBLIC_HOSTNAMES are allowed", () => {
    let addresses = ["10.0.0.5", "[fe80::1]"];
    let clock = 0;
    const list = new HostAllowList(
      { host: "0.0.0.0", serverAddress: "pbx.internal", publicHostnames: ["pbx.example.com", "203.0.113.9:8443"] },
      () => clock,
      () => addresses,
    );
    for (const ok of [
      "localhost",
      "localhost:3000",
      "127.0.0.1:3000",
      "[::1]:3000",
      "10.0.0.5:3000",
      "[fe80::1]",
      "pbx.internal",
      "PBX.example.com:443",
      "203.0.113.9",
    ]) {
      expect([ok, list.allows(ok)]).toEqual([ok, true]);
    }
    for (const bad of ["evil.example", "evil.example:3000", "0.0.0.0:3000", "10.0.0.6", "localhost.evil.example", ""]) {
      expect([bad, list.allows(bad)]).toEqual([bad, false]);
    }
    expect(list.allows(null)).toBe(false);
    // An address the machine gains later is accepted once the list is read again (at most every 10 s).
    addresses = ["10.0.0.6"];
    expect(list.allows("10.0.0.6")).toBe(false);
    clock += 10_001;
    expect(list.allows("10.0.0.6")).toBe(true);
  });

  describe("over HTTP", () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer({ PUBLIC_HOSTNAMES: "pbx.example.com, console.example.org:8443" });
      // Named publicly (a reverse proxy), so set-up needs the code even on loopback.
      const setupCode = s.app.setupCode.code;
      expect(setupCode).not.toBeNull();
      const setup = await s.call("POST", "/api/auth/setup", { ...ADMIN, confirmPassword: ADMIN.password, setupCode });
      expect(setup.status).toBe(201);
    });
    afterAll(() => s.stop());

    const get = (path: string, host: string, headers: Record<string, string> = {}) =>
      fetch(s.base + path, { headers: { host, cookie: s.cookie, ...headers } });

    test("a rebinding name gets 421 on /api, /healthz, /ws and the page, before anything else", async () => {
      for (const host of ["evil.example", "evil.example:3000", `evil.example:${new URL(s.base).port}`]) {
        const api = await get("/api/info", host);
        expect(api.status).toBe(421);
        expect((await api.json()).error.message).toContain("Misdirected");
        expect((await get("/healthz", host)).status).toBe(421);
        expect((await get("/ws?type=sync", host, { upgrade: "websocket", connection: "Upgrade" })).status).toBe(421);
        expect((await get("/", host)).status).toBe(421);
        expect((await get("/extensions", host)).status).toBe(421);
      }
      // A write from a rebound page is refused too (and changes nothing).
      const before = s.snapshot("extensions");
      const write = await fetch(`${s.base}/api/extensions`, {
        method: "POST",
        headers: { host: "evil.example", cookie: s.cookie, "content-type": "application/json" },
        body: JSON.stringify({ extension: "2000", name: "x" }),
      });
      expect(write.status).toBe(421);
      expect(s.snapshot("extensions")).toBe(before);
    });

    test("allowed names are served, with or without the port", async () => {
      const port = new URL(s.base).port;
      for (const host of [
        `127.0.0.1:${port}`,
        "localhost",
        `localhost:${port}`,
        "[::1]",
        "pbx.example.com",
        "pbx.example.com:443",
        "console.example.org:8443",
      ]) {
        expect([host, (await get("/api/info", host)).status]).toEqual([host, 200]);
        expect([host, (await get("/healthz", host)).status]).toEqual([host, 200]);
      }
    });
  });
});

describe("first-run set-up code beyond loopback", () => {
  let dir: string;
  let base: string;
  let handle: ReturnType<typeof createApp>;
  let db: ReturnType<typeof openDatabase>;

  const start = () => {
    db = openDatabase(join(dir, "pbx-console.db"));
    const config = loadConfig({ PORT: "0", HOST: "0.0.0.0", DATA_DIR: dir, LOG_LEVEL: "silent" }, false);
    handle = createApp({ config, db, version: "test" });
    // Listening on every interface, but reached only over loopback.
    base = `http://127.0.0.1:${handle.server.port}`;
  };
  const stop = async () => {
    await handle.stop(true);
    db.$client.close();
  };
  const post = (body: unknown) =>
    fetch(`${base}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const admin = { ...ADMIN, confirmPassword: ADMIN.password };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "pbx-setup-code-"));
    start();
  });
  afterAll(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the code is made at start-up, kept in DATA_DIR/setup-code (0600), and /me asks for it", async () => {
    const code = handle.app.setupCode.code as string;
    expect(code).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}-[A-Z2-9]{5}$/);
    const file = join(dir, "setup-code");
    expect(readFileSync(file, "utf8").trim()).toBe(code);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const me = await (await fetch(`${base}/api/auth/me`)).json();
    expect(me).toEqual({ authenticated: false, user: null, setupRequired: true, setupCodeRequired: true });
  });

  test("set-up without the code, or with a wrong one, is refused and creates nobody", async () => {
    const missing = await post(admin);
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.fields.setupCode).toContain("set-up code");
    const empty = await post({ ...admin, setupCode: "  " });
    expect(empty.status).toBe(400);
    const wrong = await post({ ...admin, setupCode: "AAAAA-AAAAA-AAAAA" });
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).error.fields.setupCode).toBeDefined();
    expect(db.$client.query("SELECT COUNT(*) AS n FROM users").get()).toEqual({ n: 0 });
  });

  test("with the code (any case, dashes optional) the administrator is created and the code is spent", async () => {
    const code = handle.app.setupCode.code as string;
    const res = await post({ ...admin, setupCode: code.toLowerCase().replaceAll("-", "") });
    expect(res.status).toBe(201);
    expect(existsSync(join(dir, "setup-code"))).toBe(false);
    expect(handle.app.setupCode.required).toBe(false);
    // A second set-up is a conflict, code or not.
    expect((await post({ ...admin, setupCode: code })).status).toBe(409);
  });

  test("once an administrator exists, a restart makes no code", async () => {
    await stop();
    start();
    expect(handle.app.setupCode.code).toBeNull();
    expect(existsSync(join(dir, "setup-code"))).toBe(false);
    const me = await (await fetch(`${base}/api/auth/me`)).json();
    expect(me).toEqual({ authenticated: false, user: null, setupRequired: false });
  });

  test("on loopback no code is made or needed", async () => {
    const s = await startTestServer();
    try {
      expect(s.app.setupCode.code).toBeNull();
      expect(existsSync(join(s.dir, "setup-code"))).toBe(false);
      expect((await s.call("GET", "/api/auth/me")).json.setupCodeRequired).toBeUndefined();
      expect((await s.setup()).status).toBe(201);
    } finally {
      await s.stop();
    }
  });
});

describe("security headers", () => {
  let dir: string;
  let handle: ReturnType<typeof createApp>;
  let db: ReturnType<typeof openDatabase>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pbx-headers-"));
    db = openDatabase(join(dir, "pbx-console.db"));
    const config = loadConfig({ PORT: "0", DATA_DIR: dir, LOG_LEVEL: "silent" }, false);
    // The page from source: Bun bundles it on demand (the compiled binary is checked in test/security).
    handle = createApp({ config, db, version: "test", page });
    // The first request bundles the whole web app (seconds on a busy machine): done here, so the tests below
    // wait for nothing but the answers they check.
    const first = await fetch(new URL("/extensions", handle.url));
    await first.arrayBuffer();
  }, 120_000);
  afterAll(async () => {
    await handle.stop(true);
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the page carries a CSP without inline script, frame and referrer protection", async () => {
    const res = await fetch(new URL("/extensions", handle.url));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<div id="root">');
    const csp = res.headers.get("content-security-policy") as string;
    const directives = Object.fromEntries(
      csp
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v]),
    );
    expect(directives["script-src"]).toEqual(["'self'"]);
    expect(directives["default-src"]).toEqual(["'self'"]);
    expect(directives["object-src"]).toEqual(["'none'"]);
    expect(directives["base-uri"]).toEqual(["'none'"]);
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
    expect(directives["img-src"]).toEqual(["'self'", "data:"]);
    // …and the OpenAI API's origin (the default one here), where the AI test bench posts its WebRTC offer.
    expect(directives["connect-src"]).toEqual(["'self'", `ws://${handle.url.host}`, "https://api.openai.com"]);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("strict-transport-security")).toBeNull();
    // The page itself has no inline script left (the theme moved to theme-init.ts).
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  test("API responses are never cached and are nosniff", async () => {
    const res = await fetch(new URL("/api/auth/me", handle.url));
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("development relaxes only script-src (Bun's HMR client is an inline script)", () => {
    const dev = contentSecurityPolicy({ tls: false, dev: true }, "localhost:3000");
    expect(dev).toContain("script-src 'self' 'unsafe-inline';");
    const prod = contentSecurityPolicy({ tls: true, dev: false }, "pbx.example.com");
    expect(prod).toContain("script-src 'self';");
    expect(prod).toContain("connect-src 'self' wss://pbx.example.com;");
    // The AI test bench posts its WebRTC offer to the configured OpenAI API (ADR 0073), and to nothing else.
    const bench = contentSecurityPolicy(
      { tls: true, dev: false, connect: ["https://api.openai.com"] },
      "pbx.example.com",
    );
    expect(bench).toContain("connect-src 'self' wss://pbx.example.com https://api.openai.com;");
  });

  test("under TLS every response carries HSTS", async () => {
    const fixtures = join(import.meta.dir, "../fixtures/tls");
    const s = await startTestServer({ TLS_CERT: `${fixtures}/cert.pem`, TLS_KEY: `${fixtures}/key.pem` });
    try {
      for (const path of ["/api/auth/me", "/healthz", "/nope"]) {
        const res = await fetch(s.base + path, { tls: { rejectUnauthorized: false } });
        expect([path, res.headers.get("strict-transport-security")]).toEqual([path, "max-age=31536000"]);
      }
    } finally {
      await s.stop();
    }
  });
});
