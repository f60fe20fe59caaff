// REST API tokens (ADR 0074) over HTTP against the real server, on a clock the test holds still and moves:
// shown once and stored hashed; a token acts with its role through the routes' own role checks; routes that
// decide who gets in never take one; revoked, expired and out-of-network tokens are refused at once; guessing
// is throttled per address with the sign-in's address layer; every call is audited as the token, which never
// appears in a list, the audit or a log line; bad input is refused with field paths.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { createApp } from "../../src/server/app";
import { loadConfig } from "../../src/server/config";
import { requiredRole } from "../../src/server/context";
import { apiRoutes } from "../../src/server/routes";
import {
  API_TOKEN_MAX_DAYS,
  API_TOKEN_NOT_HERE,
  API_TOKEN_REFUSED,
  EXPIRY_IN_THE_PAST,
  EXPIRY_NOT_A_TIME,
  EXPIRY_TOO_FAR,
  TOKEN_NOT_A_NETWORK,
} from "../../src/shared/api-tokens";
import { forbiddenForRole, type Role, roleAllows } from "../../src/shared/users";
import { ADMIN, startTestServer } from "../helpers/server";

setDefaultTimeout(60_000);

const DAY = 24 * 60 * 60 * 1000;
const START = Date.UTC(2026, 11, 7, 8, 0, 0);
let clock = START;

/** The real app on a loopback port over a temp database, its clock `clock` (still unless a test moves it). */
function startServer(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "pbx-api-tokens-"));
  const absent = { ASTERISK_MANAGER_CONF: `${dir}/absent.conf`, FREEPBX_CONF: `${dir}/absent-freepbx.conf` };
  const config = loadConfig({ PORT: "0", DATA_DIR: dir, LOG_LEVEL: "silent", ...absent, ...env }, false);
  const db: Db = openDatabase(join(dir, "pbx-console.db"));
  const handle = createApp({ config, db, version: "test", now: () => clock });
  const base = handle.url.href.replace(/\/$/, "");
  return {
    db,
    base,
    async stop() {
      await handle.stop(true);
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let server: ReturnType<typeof startServer>;
let adminCookie = "";

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function send(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  const h: Record<string, string> = { ...headers };
  if (method !== "GET" && !("content-type" in h)) h["content-type"] = "application/json";
  const res = await fetch(server.base + path, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, text, json };
}

/** As the signed-in administrator (a browser session). */
const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  send(method, path, body, { cookie: adminCookie, ...headers });
/** With a token and no cookie, as a script or another console sends it. */
const withToken = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  send(method, path, body, { authorization: `Bearer ${token}`, ...headers });

let made = 0;
async function makeToken(role: Role, extra: Record<string, unknown> = {}) {
  const res = await admin("POST", "/api/tokens", { name: `${role} token ${++made}`, role, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: number; token: string; name: string };
}

const rows = (table: string) => JSON.stringify(server.db.$client.query(`SELECT * FROM ${table} ORDER BY 1`).all());
const auditRows = () =>
  server.db.$client.query("SELECT * FROM audit_log ORDER BY id").all() as {
    actor: string;
    actor_user_id: string | null;
    client_ip: string | null;
    action: string;
    outcome: string;
    object_id: string | null;
  }[];

/** Waits for a condition (the audit row of an answered call is written once it is answered). */
async function until<T>(read: () => T | undefined | null | false, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

beforeAll(async () => {
  server = startServer();
  const res = await send("POST", "/api/auth/setup", { ...ADMIN, confirmPassword: ADMIN.password }, {});
  expect(res.status).toBe(201);
  adminCookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
});
afterAll(() => server?.stop());
// Each test starts with no refused attempts remembered (the throttle test fills them) and at the same instant.
beforeEach(() => {
  server.db.$client.run("DELETE FROM sign_in_throttle");
  clock = START;
});

describe("creating and listing", () => {
  test("a token is shown once and stored hashed; the list shows role, expiry, networks, creator and use, never the token", async () => {
    const expiresAt = new Date(START + 30 * DAY).toISOString();
    const created = await admin("POST", "/api/tokens", {
      name: "Fleet hub",
      role: "operator",
      expiresAt,
      networks: [" 198.51.100.7 ", "2001:DB8:0:0::/32", "127.0.0.1", "198.51.100.7"],
    });
    expect(created.status).toBe(201);
    const { token, id } = created.json;
    expect(token).toMatch(/^pbxt_[A-Za-z0-9_-]{40,}$/);
    expect(created.json).toMatchObject({
      name: "Fleet hub",
      role: "operator",
      prefix: token.slice(0, 9),
      last4: token.slice(-4),
      expiresAt,
      networks: ["198.51.100.7", "2001:db8::/32", "127.0.0.1"],
      createdBy: ADMIN.username,
      lastUsedAt: null,
      lastUsedFrom: null,
      revokedAt: null,
      state: "active",
    });
    const stored = server.db.$client.query("SELECT token_hash, scope FROM api_tokens WHERE id = ?").get(id) as {
      token_hash: string;
      scope: string;
    };
    expect(stored).toEqual({ token_hash: new Bun.CryptoHasher("sha256").update(token).digest("hex"), scope: "api" });

    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
    const list = await admin("GET", "/api/tokens");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(token);
    expect(list.text).not.toContain(stored.token_hash);
    const listed = list.json.find((t: { id: number }) => t.id === id);
    expect(listed).not.toHaveProperty("token");
    expect(listed).toMatchObject({ lastUsedAt: new Date(START).toISOString(), lastUsedFrom: "127.0.0.1" });
    // The voice bridge's intake tokens are another list, and neither list names the other's.
    const intake = await admin("POST", "/api/ai/tokens", { name: "Bridge" });
    expect((await admin("GET", "/api/ai/tokens")).json.map((t: { id: number }) => t.id)).toEqual([intake.json.id]);
    expect((await admin("GET", "/api/tokens")).json.some((t: { id: number }) => t.id === intake.json.id)).toBe(false);
  });

  test("its last use is written at most once a minute from one address, at once from another", async () => {
    const { token, id } = await makeToken("viewer");
    const lastUse = () =>
      server.db.$client.query("SELECT last_used_at AS at, last_used_from AS ip FROM api_tokens WHERE id = ?").get(id);
    expect(lastUse()).toEqual({ at: null, ip: null });
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
    expect(lastUse()).toEqual({ at: START, ip: "127.0.0.1" });
    clock = START + 59_000;
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
    expect(lastUse()).toEqual({ at: START, ip: "127.0.0.1" });
    clock = START + 60_000;
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
    expect(lastUse()).toEqual({ at: START + 60_000, ip: "127.0.0.1" });
  });

  test("bad input is refused with 400 and the field's path; nothing is stored", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: " " }, "name", "Name is required"],
      [{ name: "x".repeat(101) }, "name", "Name must be at most 100 characters"],
      [{ role: "root" }, "role", "Choose admin, operator or viewer"],
      [{ role: undefined }, "role", "Choose admin, operator or viewer"],
      [{ expiresAt: "next tuesday" }, "expiresAt", EXPIRY_NOT_A_TIME],
      [{ expiresAt: new Date(START - 1000).toISOString() }, "expiresAt", EXPIRY_IN_THE_PAST],
      [{ expiresAt: new Date(START + (API_TOKEN_MAX_DAYS + 1) * DAY).toISOString() }, "expiresAt", EXPIRY_TOO_FAR],
      [{ networks: ["10.0.0.0/8", "10.0.0.0/33"] }, "networks.1", TOKEN_NOT_A_NETWORK],
      [{ networks: ["10.0.0.0/8", "", "x"] }, "networks.1", TOKEN_NOT_A_NETWORK],
      [{ networks: "10.0.0.0/8" }, "networks", "Networks must be a list of addresses or networks"],
      [{ networks: Array.from({ length: 21 }, (_, i) => `10.0.${i}.0/24`) }, "networks", "At most 20 networks"],
    ];
    for (const [patch, field, message] of cases) {
      const before = rows("api_tokens");
      const res = await admin("POST", "/api/tokens", { name: "Bad", role: "viewer", ...patch });
      expect({ field, status: res.status, message: res.json?.error?.fields?.[field] }).toEqual({
        field,
        status: 400,
        message,
      });
      expect(rows("api_tokens")).toBe(before);
    }
    // Exactly the limits are accepted.
    const far = new Date(START + API_TOKEN_MAX_DAYS * DAY).toISOString();
    const ok = await admin("POST", "/api/tokens", { name: "Edge", role: "viewer", expiresAt: far });
    expect(ok.status).toBe(201);
    expect((await admin("DELETE", "/api/tokens/999999")).status).toBe(404);
    expect((await admin("DELETE", "/api/tokens/abc")).status).toBe(404);
  });
});

describe("acting with the token's role", () => {
  test("a viewer token reads but cannot write: 403 and nothing changes", async () => {
    const { token } = await makeToken("viewer");
    const read = await withToken(token, "GET", "/api/extensions");
    expect(read.status).toBe(200);
    const before = rows("extensions");
    const write = await withToken(token, "POST", "/api/extensions", { extension: "1001", name: "Sales" });
    expect(write.status).toBe(403);
    expect(write.json.error.message).toBe(forbiddenForRole("viewer"));
    expect(rows("extensions")).toBe(before);
  });

  test("an operator token writes the inventory but cannot create tokens or users, nor reach admin routes", async () => {
    const { token } = await makeToken("operator");
    const created = await withToken(token, "POST", "/api/extensions", { extension: "2001", name: "Ops desk" });
    expect(created.status, created.text).toBe(201);
    const before = rows("api_tokens") + rows("users");
    const mint = await withToken(token, "POST", "/api/tokens", { name: "Mine", role: "admin" });
    expect([mint.status, mint.json.error.message]).toEqual([403, API_TOKEN_NOT_HERE]);
    const user = await withToken(token, "POST", "/api/users", {
      username: "sneaky",
      password: "pw pw pw pw 12",
      role: "admin",
    });
    expect([user.status, user.json.error.message]).toEqual([403, API_TOKEN_NOT_HERE]);
    expect(rows("api_tokens") + rows("users")).toBe(before);
    const credentials = await withToken(token, "GET", "/api/credentials");
    expect([credentials.status, credentials.json.error.message]).toEqual([403, forbiddenForRole("operator")]);
  });

  test("even an admin token never reaches the routes that decide who gets in; it does reach other admin routes", async () => {
    const { token } = await makeToken("admin");
    const sessionOnly = apiRoutes.filter((r) => r.sessionOnly);
    for (const r of sessionOnly) {
      const path = r.path.replace(/:[A-Za-z]+/g, "1");
      const res = await withToken(token, r.method, path, r.method === "GET" ? undefined : {});
      expect({ route: `${r.method} ${r.path}`, status: res.status, message: res.json?.error?.message }).toEqual({
        route: `${r.method} ${r.path}`,
        status: 403,
        message: API_TOKEN_NOT_HERE,
      });
    }
    expect((await withToken(token, "GET", "/api/audit")).status).toBe(200);
    expect((await withToken(token, "GET", "/api/info")).status).toBe(200);
  });

  test("every route the role table denies a role is denied that role's token, before the body is read", async () => {
    const tokens = { viewer: (await makeToken("viewer")).token, operator: (await makeToken("operator")).token };
    const sessionRoutes = apiRoutes.filter((r) => (r.auth ?? "session") === "session" && !r.sessionOnly);
    let checked = 0;
    for (const role of ["viewer", "operator"] as const) {
      for (const r of sessionRoutes.filter((r) => !roleAllows(role, requiredRole(r)))) {
        const path = r.path.replace(/:[A-Za-z]+/g, "1");
        const res = await withToken(tokens[role], r.method, path, r.method === "GET" ? undefined : "not json");
        expect({ route: `${role} ${r.method} ${r.path}`, status: res.status }).toEqual({
          route: `${role} ${r.method} ${r.path}`,
          status: 403,
        });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  test("the routes that decide who gets in or are a person's own account all declare sessionOnly", () => {
    const mustBe = apiRoutes.filter(
      (r) =>
        (r.auth ?? "session") === "session" &&
        (/^\/api\/(auth|users|tokens|ai\/tokens)(\/|$)/.test(r.path) ||
          /^\/api\/settings\/(security|metrics-token)$/.test(r.path) ||
          (r.path === "/api/backups/key" && r.method === "POST")),
    );
    expect(mustBe.length).toBeGreaterThan(15);
    expect(mustBe.filter((r) => !r.sessionOnly).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    // And only public and session routes are touched: the intake keeps its own token.
    expect(apiRoutes.filter((r) => r.sessionOnly && (r.auth ?? "session") !== "session")).toEqual([]);
  });
});

describe("refused tokens", () => {
  test("a revoked token fails on the very next request", async () => {
    const { token, id } = await makeToken("operator");
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
    expect((await admin("DELETE", `/api/tokens/${id}`)).status).toBe(204);
    const next = await withToken(token, "GET", "/api/extensions");
    expect([next.status, next.json.error.message]).toEqual([401, API_TOKEN_REFUSED]);
    expect(next.headers.get("www-authenticate")).toContain("Bearer");
    const listed = (await admin("GET", "/api/tokens")).json.find((t: { id: number }) => t.id === id);
    expect(listed).toMatchObject({ state: "revoked", revokedAt: new Date(START).toISOString() });
    // Revoking again changes nothing; an intake token is not revoked here, nor this one there.
    expect((await admin("DELETE", `/api/tokens/${id}`)).status).toBe(204);
    expect((await admin("DELETE", `/api/ai/tokens/${id}`)).status).toBe(404);
  });

  test("a token fails once it expires (the server's clock), and is listed as expired", async () => {
    // Ten minutes: well inside the administrator's session, which this test's list read still needs.
    const ends = START + 10 * 60 * 1000;
    const { token, id } = await makeToken("viewer", { expiresAt: new Date(ends).toISOString() });
    clock = ends - 1;
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
    clock = ends;
    const late = await withToken(token, "GET", "/api/extensions");
    expect([late.status, late.json.error.message]).toEqual([401, API_TOKEN_REFUSED]);
    const listed = (await admin("GET", "/api/tokens")).json.find((t: { id: number }) => t.id === id);
    expect(listed).toMatchObject({ state: "expired", lastUsedAt: new Date(ends - 1).toISOString() });
  });

  test("a token outside its networks fails; a forwarded address is believed only from a trusted proxy", async () => {
    const elsewhere = await makeToken("viewer", { networks: ["198.51.100.0/24", "2001:db8::/32"] });
    const here = await makeToken("viewer", { networks: ["10.9.9.9", "127.0.0.0/8"] });
    const refused = await withToken(elsewhere.token, "GET", "/api/extensions");
    expect([refused.status, refused.json.error.message]).toEqual([401, API_TOKEN_REFUSED]);
    // Without TRUSTED_PROXIES a client's own X-Forwarded-For is not its address.
    const spoofed = await withToken(elsewhere.token, "GET", "/api/extensions", undefined, {
      "x-forwarded-for": "198.51.100.9",
    });
    expect(spoofed.status).toBe(401);
    expect((await withToken(here.token, "GET", "/api/extensions")).status).toBe(200);

    // Behind a trusted proxy (the loopback peer), the forwarded client address is the one checked.
    const proxied = await startTestServer({ TRUSTED_PROXIES: "127.0.0.1" });
    try {
      await proxied.setup();
      const made = await proxied.call("POST", "/api/tokens", {
        name: "Branch",
        role: "viewer",
        networks: ["198.51.100.0/24"],
      });
      expect(made.status).toBe(201);
      const from = (address: string) =>
        proxied.call("GET", "/api/extensions", undefined, {
          cookie: "",
          authorization: `Bearer ${made.json.token}`,
          "x-forwarded-for": address,
        });
      expect((await from("198.51.100.9")).status).toBe(200);
      expect((await from("203.0.113.5")).status).toBe(401);
      const listed = (await proxied.call("GET", "/api/tokens")).json[0];
      expect(listed.lastUsedFrom).toBe("198.51.100.9");
    } finally {
      await proxied.stop();
    }
  });

  test("an intake token is not a REST token, and a REST token is not the intake's", async () => {
    const intake = (await admin("POST", "/api/ai/tokens", { name: "Bridge" })).json.token as string;
    const asRest = await withToken(intake, "GET", "/api/extensions");
    expect([asRest.status, asRest.json.error.message]).toEqual([401, API_TOKEN_REFUSED]);
    const { token } = await makeToken("admin");
    const asIntake = await withToken(token, "POST", "/api/ai/transcripts", { transcript: "Hello" });
    expect(asIntake.status).toBe(403);
  });

  test("guessing is throttled per address: 30 guesses at one instant, 5 checked (401), 25 refused unchecked (429)", async () => {
    const { token } = await makeToken("viewer");
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => withToken(`pbxt_guess${i}${"x".repeat(38)}`, "GET", "/api/extensions")),
    );
    const statuses = guesses.map((g) => g.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    const paused = guesses.find((g) => g.status === 429) as Answer;
    expect(Number(paused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // While the address is paused even a good token is not looked up from it.
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(429);
    // The pause doubles from its first second: after it the next guess is checked again (and pauses longer).
    clock = START + 1000;
    expect((await withToken("pbxt_guess-late", "GET", "/api/extensions")).status).toBe(401);
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(429);
    clock = START + 1000 + 2000;
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
    // The guesses count on the address layer sign-in shares (20 there pause sign-ins from this address too).
    const address = server.db.$client
      .query("SELECT failures FROM sign_in_throttle WHERE key = ?")
      .get(JSON.stringify(["address", null, "127.0.0.1"])) as { failures: number };
    expect(address.failures).toBe(6);
  });
});

describe("audit and logs", () => {
  test("calls are audited as the token; refused tokens are logged like failed sign-ins; the token appears nowhere", async () => {
    const { token, id, name } = await makeToken("operator");
    const viewer = await makeToken("viewer");
    const logged: string[] = [];
    const log = spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
    try {
      const created = await withToken(token, "POST", "/api/extensions", { extension: "3001", name: "Audited" });
      expect(created.status).toBe(201);
      const denied = await withToken(viewer.token, "DELETE", `/api/extensions/${created.json.id}`);
      expect(denied.status).toBe(403);
      const wrong = `${token.slice(0, -2)}zz`;
      expect((await withToken(wrong, "GET", "/api/extensions")).status).toBe(401);
    } finally {
      log.mockRestore();
    }
    const write = await until(
      () => auditRows().find((r) => r.action === "extension.create" && r.actor === `token:${name}#${id}`),
      "the token's write in the audit",
    );
    expect(write).toMatchObject({
      actor: `token:${name}#${id}`,
      actor_user_id: null,
      client_ip: "127.0.0.1",
      outcome: "ok",
    });
    const refused = await until(
      () => auditRows().find((r) => r.action === "extension.delete" && r.actor === `token:${viewer.name}#${viewer.id}`),
      "the viewer token's refused delete in the audit",
    );
    expect(refused.outcome).toBe("denied");
    expect(logged.filter((l) => / auth-failure user=api-token ip=127\.0\.0\.1$/.test(l))).toHaveLength(1);

    const everywhere = [rows("audit_log"), logged.join("\n"), (await admin("GET", "/api/tokens")).text].join("\n");
    for (const secret of [token, viewer.token]) expect(everywhere).not.toContain(secret);
    expect(everywhere).not.toContain(token.slice(5, 20));
  });
});

describe("the browser's protections", () => {
  test("a token's write is not origin-checked (it carries no cookie); a session's still is", async () => {
    const { token } = await makeToken("operator");
    const fromScript = await withToken(
      token,
      "POST",
      "/api/extensions",
      { extension: "4001", name: "Script" },
      {
        origin: "https://elsewhere.example",
      },
    );
    expect(fromScript.status).toBe(201);
    const fromSite = await admin(
      "POST",
      "/api/extensions",
      { extension: "4002", name: "Site" },
      {
        origin: "https://elsewhere.example",
      },
    );
    expect(fromSite.status).toBe(403);
    // Still JSON only.
    const form = await withToken(token, "POST", "/api/extensions", "extension=4003", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(form.status).toBe(415);
  });

  test("with a token the cookie is not read; another Authorization leaves the request a session's", async () => {
    const bad = await admin("GET", "/api/extensions", undefined, { authorization: "Bearer pbxt_not-a-real-token" });
    expect([bad.status, bad.json.error.message]).toEqual([401, API_TOKEN_REFUSED]);
    // A proxy's own sign-in (Basic) or another system's bearer token is not ours: the session decides.
    expect((await admin("GET", "/api/extensions", undefined, { authorization: "Basic YTpi" })).status).toBe(200);
    expect((await admin("GET", "/api/extensions", undefined, { authorization: "Bearer eyJhbGciOi.x.y" })).status).toBe(
      200,
    );
    expect((await send("GET", "/api/extensions", undefined, { authorization: "Bearer eyJhbGciOi.x.y" })).status).toBe(
      401,
    );
  });
});
