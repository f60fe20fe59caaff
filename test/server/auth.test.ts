import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { signIn } from "../../src/server/accounts/auth";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "../../src/server/accounts/sessions";
import { Unauthenticated } from "../../src/server/core/errors";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer();
});
afterEach(async () => {
  await s.stop();
});

describe("first-run setup", () => {
  test("me reports setupRequired until an administrator exists", async () => {
    const me = await s.call("GET", "/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.json).toEqual({ authenticated: false, user: null, setupRequired: true });
  });

  test("setup creates the admin, signs in with a hardened cookie, then answers 409", async () => {
    const res = await s.setup();
    expect(res.status).toBe(201);
    expect(res.json.user.username).toBe(ADMIN.username);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^pbx_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    expect(cookie).not.toContain("Secure");
    expect((await s.call("GET", "/api/auth/me")).json.authenticated).toBe(true);

    const again = await s.call("POST", "/api/auth/setup", {
      username: "other",
      password: "x".repeat(12),
      confirmPassword: "x".repeat(12),
    });
    expect(again.status).toBe(409);
    expect(s.db.$client.query("SELECT count(*) AS n FROM users").get()).toEqual({ n: 1 });
  });

  test("setup validates the password length and the repeat, field by field", async () => {
    const short = await s.call("POST", "/api/auth/setup", {
      username: "admin",
      password: "short",
      confirmPassword: "short",
    });
    expect(short.status).toBe(400);
    expect(short.json.error.fields.password).toBe("Password must be at least 12 characters");
    const mismatch = await s.call("POST", "/api/auth/setup", {
      username: "admin",
      password: "a".repeat(12),
      confirmPassword: "b".repeat(12),
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.fields.confirmPassword).toBe("Passwords do not match");
    expect((await s.call("GET", "/api/auth/me")).json.setupRequired).toBe(true);
  });

  test("the password is stored as an argon2id hash, the session token only as a hash", async () => {
    await s.setup();
    const row = s.db.$client.query("SELECT password FROM users").get() as { password: string };
    expect(row.password.startsWith("$argon2id$")).toBe(true);
    const token = s.cookie.split("=")[1] as string;
    const sessions = s.db.$client.query("SELECT token_hash FROM sessions").all() as { token_hash: string }[];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.token_hash).not.toBe(token);
    expect(sessions[0]?.token_hash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
  });
});

describe("sign-in", () => {
  beforeEach(async () => {
    await s.setup();
    s.cookie = "";
  });

  test("protected routes and the socket answer 401 without a session", async () => {
    const info = await s.call("GET", "/api/info");
    expect(info.status).toBe(401);
    expect(info.json).toEqual({ error: { message: "Sign in required" } });
    const ws = await fetch(`${s.base}/ws?type=sync`, { headers: { upgrade: "websocket", connection: "Upgrade" } });
    expect(ws.status).toBe(401);
  });

  test("wrong password is 401 with one message; right password signs in", async () => {
    const bad = await s.call("POST", "/api/auth/login", { username: ADMIN.username, password: "wrong password!" });
    expect(bad.status).toBe(401);
    expect(bad.json.error.message).toBe("Wrong username or password");
    const unknown = await s.call("POST", "/api/auth/login", { username: "nobody", password: "wrong password!" });
    expect(unknown.json.error.message).toBe(bad.json.error.message);
    const ok = await s.call("POST", "/api/auth/login", ADMIN);
    expect(ok.status).toBe(200);
    expect((await s.call("GET", "/api/info")).status).toBe(200);
  });

  test("five failures for a username from one address make it wait (429 with Retry-After), with back-off", async () => {
    for (let i = 0; i < 5; i++) {
      expect((await s.call("POST", "/api/auth/login", { username: "ADMIN", password: `nope-${i}` })).status).toBe(401);
    }
    const locked = await s.call("POST", "/api/auth/login", ADMIN);
    expect(locked.status).toBe(429);
    const retry = Number(locked.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(300);
    // Another username is not affected.
    expect((await s.call("POST", "/api/auth/login", { username: "someone", password: "x" })).status).toBe(401);
    s.advance(5 * 60 * 1000 + 1000);
    expect((await s.call("POST", "/api/auth/login", ADMIN)).status).toBe(200);
  });

  test("checks slower than the pause: the next guess waits while they run, then a second from their answers", async () => {
    // signIn reserves its attempt synchronously, before the password check: five wrong guesses are in flight.
    const client = { ip: "127.0.0.1" };
    const guesses = Array.from({ length: 5 }, (_, i) =>
      signIn(s.app, { username: "admin", password: `slow-${i}` }, client).catch((err: unknown) => err),
    );
    // The checks take 10 s (the clock moves while they run): the pause does not run out under them.
    s.advance(10_000);
    await expect(signIn(s.app, ADMIN, client)).rejects.toThrow("Too many failed sign-ins; try again in 1 s");
    for (const answer of await Promise.all(guesses)) expect(answer).toBeInstanceOf(Unauthenticated);
    // Answered now: the pause runs a second from the answers, not from the requests 10 s ago (the clock also
    // runs in real time, so "right after" rather than 999 ms later).
    await expect(signIn(s.app, ADMIN, client)).rejects.toThrow("Too many failed sign-ins; try again in 1 s");
    s.advance(1000);
    expect((await signIn(s.app, ADMIN, client)).user.username).toBe(ADMIN.username);
  });

  test("the 6th attempt waits 1 s, the 7th 2 s: back-off, not a lock", async () => {
    for (let i = 0; i < 5; i++) await s.call("POST", "/api/auth/login", { username: "admin", password: `nope-${i}` });
    const first = await s.call("POST", "/api/auth/login", ADMIN);
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("1");
    s.advance(1000);
    expect((await s.call("POST", "/api/auth/login", { username: "admin", password: "nope-6" })).status).toBe(401);
    const second = await s.call("POST", "/api/auth/login", ADMIN);
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toBe("2");
    s.advance(2000);
    expect((await s.call("POST", "/api/auth/login", ADMIN)).status).toBe(200);
  });

  test("100 parallel wrong guesses and the right password in the same burst: at most 5 evaluated", async () => {
    const sessionsBefore = s.snapshot("sessions");
    const wrong = Array.from({ length: 100 }, (_, i) =>
      s.call("POST", "/api/auth/login", { username: "admin", password: `guess-${i}` }, { cookie: "" }),
    );
    const right = s.call("POST", "/api/auth/login", ADMIN, { cookie: "" });
    const results = await Promise.all([...wrong, right]);
    const evaluated = results.filter((r) => r.status === 401).length;
    const refused = results.filter((r) => r.status === 429).length;
    expect(evaluated).toBeLessThanOrEqual(5);
    expect(evaluated + refused).toBe(101);
    expect(results[100]?.status).toBe(429);
    expect(s.snapshot("sessions")).toBe(sessionsBefore);
  });

  test("every wrong password writes one auth-failure line with the client address, never the password", async () => {
    const lines: string[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => {
      lines.push(args.join(" "));
    };
    try {
      await s.call("POST", "/api/auth/login", { username: "admin", password: "wrong password!" });
      await s.call("POST", "/api/auth/login", { username: "x y=z\nforged", password: "hunter2hunter2" });
      await s.call("POST", "/api/auth/login", ADMIN);
    } finally {
      console.log = original;
    }
    const failures = lines.filter((l) => l.includes("auth-failure"));
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z auth-failure user=admin ip=127\.0\.0\.1$/);
    expect(failures[1]).toMatch(/ auth-failure user=x%20y%3Dz%0Aforged ip=127\.0\.0\.1$/);
    expect(lines.join("\n")).not.toContain("hunter2");
    expect(lines.join("\n")).not.toContain("wrong password!");
  });

  test("sign-out ends the session on the server", async () => {
    await s.call("POST", "/api/auth/login", ADMIN);
    const kept = s.cookie;
    const out = await s.call("POST", "/api/auth/logout");
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    const replay = await s.call("GET", "/api/info", undefined, { cookie: kept });
    expect(replay.status).toBe(401);
  });

  test("sessions expire after 30 idle minutes", async () => {
    await s.call("POST", "/api/auth/login", ADMIN);
    s.advance(SESSION_IDLE_MS - 60_000);
    expect((await s.call("GET", "/api/info")).status).toBe(200);
    s.advance(SESSION_IDLE_MS - 60_000); // active again within the idle window
    expect((await s.call("GET", "/api/info")).status).toBe(200);
    s.advance(SESSION_IDLE_MS + 1000);
    expect((await s.call("GET", "/api/info")).status).toBe(401);
  });

  test("sessions expire 12 hours after sign-in however active", async () => {
    await s.call("POST", "/api/auth/login", ADMIN);
    for (let t = 0; t < SESSION_ABSOLUTE_MS - 20 * 60_000; t += 20 * 60_000) {
      s.advance(20 * 60_000);
      expect((await s.call("GET", "/api/info")).status).toBe(200);
    }
    s.advance(20 * 60_000);
    expect((await s.call("GET", "/api/info")).status).toBe(401);
  });
});

describe("cross-site protection", () => {
  beforeEach(async () => {
    await s.setup();
  });

  test("a state-changing request without a JSON content type is refused", async () => {
    const res = await s.call("POST", "/api/auth/logout", "", { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect((await s.call("GET", "/api/info")).status).toBe(200);
  });

  test("a foreign Origin is refused, the own origin accepted", async () => {
    const foreign = await s.call("POST", "/api/auth/logout", undefined, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect((await s.call("GET", "/api/info")).status).toBe(200);
    const own = await s.call("POST", "/api/auth/logout", undefined, { origin: s.base });
    expect(own.status).toBe(200);
  });
});

test("over HTTPS the session cookie is __Host-pbx_session, Secure", async () => {
  const dir = `${import.meta.dir}/../fixtures/tls`;
  const https = await startTestServer({ TLS_CERT: `${dir}/cert.pem`, TLS_KEY: `${dir}/key.pem` });
  try {
    expect(https.base.startsWith("https://")).toBe(true);
    const res = await fetch(`${https.base}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...ADMIN, confirmPassword: ADMIN.password }),
      tls: { rejectUnauthorized: false },
    });
    expect(res.status).toBe(201);
    const cookies = res.headers.getSetCookie();
    // __Host-: Secure, Path=/ and no Domain, so no other host can set or shadow it.
    expect(cookies[0]).toMatch(
      /^__Host-pbx_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/,
    );
    expect(cookies[0]).not.toContain("Domain");
    // The plain cookie of before the switch is cleared.
    expect(cookies[1]).toMatch(/^pbx_session=; Path=\/;.*Max-Age=0; Secure$/);
    const token = (cookies[0] as string).split(";")[0]?.split("=")[1] as string;
    const get = (cookie: string) =>
      fetch(`${https.base}/api/info`, { headers: { cookie }, tls: { rejectUnauthorized: false } });
    expect((await get(`__Host-pbx_session=${token}`)).status).toBe(200);
    // During the switch the plain name is still read.
    expect((await get(`pbx_session=${token}`)).status).toBe(200);
    const out = await fetch(`${https.base}/api/auth/logout`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `__Host-pbx_session=${token}` },
      tls: { rejectUnauthorized: false },
    });
    expect(out.headers.getSetCookie().every((c) => c.includes("Max-Age=0"))).toBe(true);
    expect((await get(`__Host-pbx_session=${token}`)).status).toBe(401);
  } finally {
    await https.stop();
  }
});
