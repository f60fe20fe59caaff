// Two-factor sign-in required for everyone (ADR 0020): the administrators' setting over
// real HTTP with the server's clock moved by the test. Turning it on needs the admin's own two-factor
// sign-in; while it is on, a user without it signs in to a session that reaches only their own account
// (walked over the route table) until they turn it on, and nobody can turn theirs off.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { totp } from "../../src/server/accounts/totp";
import type { RouteDef } from "../../src/server/context";
import { apiRoutes } from "../../src/server/routes";
import { TOTP_CODE_REQUIRED } from "../../src/shared/auth";
import { REQUIRE_TOTP_NEEDS_OWN, TOTP_REQUIRED_CANNOT_DISABLE, TOTP_SETUP_REQUIRED } from "../../src/shared/settings";
import { forbiddenForRole, type Role } from "../../src/shared/users";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server";
import { TOTP_STEP_MS as STEP, totpClock } from "../helpers/totp-clock";

const PASSWORD = "policy password 123";
const label = (r: RouteDef) => `${r.method} ${r.path}`;
const concrete = (path: string) => path.replace(/:([A-Za-z]+)/g, (_m, name: string) => (name === "type" ? "ssh" : "1"));

/** The routes a session held to setting up two-factor sign-in may use: its own account, to enrol and leave. */
const BEFORE_TOTP = [
  "POST /api/auth/password",
  "GET /api/auth/sessions",
  "DELETE /api/auth/sessions/:id",
  "POST /api/auth/sessions/sign-out-others",
  "GET /api/auth/totp",
  "POST /api/auth/totp/setup",
  "POST /api/auth/totp/enable",
  "GET /api/info",
];

let s: TestServer;
const { now, advance, midStep, reset } = totpClock(() => s);

/** Signs in with a fresh cookie jar; answers the response and the new session's cookie (the test's jar is kept). */
async function signIn(user: { username: string; password: string; code?: string }) {
  const keep = s.cookie;
  const res = await s.call("POST", "/api/auth/login", user, { cookie: "" });
  const cookie = s.cookie;
  s.cookie = keep;
  return { res, cookie };
}
const as = (cookie: string, method: string, path: string, body?: unknown) =>
  s.call(method, path, body ?? (method === "GET" ? undefined : {}), { cookie });

/** Sets up and turns on two-factor sign-in for the session of `cookie`; answers the secret. */
async function enrol(cookie: string) {
  const setup = await as(cookie, "POST", "/api/auth/totp/setup");
  expect(setup.status, setup.text).toBe(200);
  const secret = setup.json.secret as string;
  midStep();
  const enable = await as(cookie, "POST", "/api/auth/totp/enable", { code: totp(secret, now()) });
  expect(enable.status, enable.text).toBe(200);
  expect(enable.json.recoveryCodes).toHaveLength(10);
  return secret;
}

async function addUser(username: string, role: Role) {
  const res = await s.call("POST", "/api/users", { username, password: PASSWORD, role });
  expect(res.status, res.text).toBe(201);
}

/** The administrator (this test's own cookie jar) turns on their two-factor sign-in, then the requirement. */
async function requireForEveryone() {
  const secret = await enrol(s.cookie);
  const res = await s.call("PUT", "/api/settings/security", { requireTotp: true });
  expect(res.status, res.text).toBe(200);
  expect(res.json).toEqual({ requireTotp: true });
  return secret;
}

beforeEach(async () => {
  reset();
  s = await startTestServer();
  await s.setup();
});
afterEach(async () => {
  await s.stop();
});

describe("the setting", () => {
  test("off by default; an administrator cannot turn it on before their own two-factor sign-in", async () => {
    expect((await s.call("GET", "/api/settings/security")).json).toEqual({ requireTotp: false });
    const refused = await s.refused(
      "console_settings",
      () => s.call("PUT", "/api/settings/security", { requireTotp: true }),
      409,
    );
    expect(refused.message).toBe(REQUIRE_TOTP_NEEDS_OWN);
    expect((await s.call("GET", "/api/settings/security")).json).toEqual({ requireTotp: false });
    // Turning it off (or keeping it off) needs nothing.
    expect((await s.call("PUT", "/api/settings/security", { requireTotp: false })).status).toBe(200);

    await requireForEveryone();
    expect((await s.call("GET", "/api/settings/security")).json).toEqual({ requireTotp: true });
    // The administrator who set it keeps a full session.
    expect((await s.call("GET", "/api/auth/me")).json.totpSetupRequired).toBe(false);
    expect((await s.call("GET", "/api/extensions")).status).toBe(200);
  });

  test("a bad body is a 400 with the field message, nothing stored", async () => {
    const err = await s.refused(
      "console_settings",
      () => s.call("PUT", "/api/settings/security", { requireTotp: "yes" }),
      400,
    );
    expect(err.fields?.requireTotp).toBe("Must be true or false");
  });

  test("operators and viewers can neither read nor change it", async () => {
    await addUser("op", "operator");
    await addUser("view", "viewer");
    for (const [username, role] of [
      ["op", "operator"],
      ["view", "viewer"],
    ] as const) {
      const { cookie } = await signIn({ username, password: PASSWORD });
      const read = await as(cookie, "GET", "/api/settings/security");
      expect(read.status).toBe(403);
      expect(read.json.error.message).toBe(forbiddenForRole(role));
      const err = await s.refused(
        "console_settings",
        () => as(cookie, "PUT", "/api/settings/security", { requireTotp: false }),
        403,
      );
      expect(err.message).toBe(forbiddenForRole(role));
    }
  });
});

describe("while it is required", () => {
  test("a user without two-factor sign-in signs in to an enrolment-only session that becomes full once it is on", async () => {
    await requireForEveryone();
    await addUser("op", "operator");

    const { res, cookie } = await signIn({ username: "op", password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ authenticated: true, totpSetupRequired: true, user: { username: "op" } });
    expect((await as(cookie, "GET", "/api/auth/me")).json.totpSetupRequired).toBe(true);

    const read = await as(cookie, "GET", "/api/extensions");
    expect(read.status).toBe(403);
    expect(read.json.error.message).toBe(TOTP_SETUP_REQUIRED);
    const write = await s.refused(
      "extensions",
      () => as(cookie, "POST", "/api/extensions", { extension: "4100", name: "Held" }),
      403,
    );
    expect(write.message).toBe(TOTP_SETUP_REQUIRED);
    // No sync socket either.
    const ws = await fetch(`${s.base}/ws?type=sync`, { headers: { cookie } });
    expect(ws.status).toBe(403);
    expect(((await ws.json()) as { error: { message: string } }).error.message).toBe(TOTP_SETUP_REQUIRED);

    // Enrolling needs nothing else; the same session is then a full one (no new sign-in).
    await enrol(cookie);
    expect((await as(cookie, "GET", "/api/auth/me")).json.totpSetupRequired).toBe(false);
    expect((await as(cookie, "GET", "/api/extensions")).status).toBe(200);
    const created = await as(cookie, "POST", "/api/extensions", { extension: "4100", name: "Enrolled" });
    expect(created.status, created.text).toBe(201);
    // Past the session check (no upgrade header here, so 426 instead of a socket).
    expect((await fetch(`${s.base}/ws?type=sync`, { headers: { cookie } })).status).toBe(426);
  });

  test("such a session reaches exactly the routes marked allowedBeforeTotp", async () => {
    await requireForEveryone();
    // An administrator, so that only the two-factor requirement can refuse.
    await addUser("second-admin", "admin");
    const { cookie } = await signIn({ username: "second-admin", password: PASSWORD });
    const sessionRoutes = apiRoutes.filter((r) => (r.auth ?? "session") === "session");
    expect(sessionRoutes.filter((r) => r.allowedBeforeTotp).map(label)).toEqual(BEFORE_TOTP);
    const mismatches: string[] = [];
    for (const r of sessionRoutes) {
      const res = await as(cookie, r.method, concrete(r.path));
      const held = res.status === 403 && res.json?.error?.message === TOTP_SETUP_REQUIRED;
      if (res.status === 401) mismatches.push(`${label(r)}: signed out`);
      else if (r.allowedBeforeTotp && held) mismatches.push(`${label(r)}: refused but allowed`);
      else if (!r.allowedBeforeTotp && !held) mismatches.push(`${label(r)}: ${res.status}, expected the 403`);
    }
    expect(mismatches).toEqual([]);
    // Signing out is public and works too.
    expect((await as(cookie, "POST", "/api/auth/logout")).status).toBe(200);
    expect((await as(cookie, "GET", "/api/auth/me")).json.authenticated).toBe(false);
  });

  test("a user with two-factor sign-in signs in with a code as before, to a full session", async () => {
    const secret = await requireForEveryone();
    advance(STEP); // the enable code's step is used up
    const missing = await signIn(ADMIN);
    expect(missing.res.status).toBe(401);
    expect(missing.res.json.error.fields).toEqual({ code: TOTP_CODE_REQUIRED });
    const ok = await signIn({ ...ADMIN, code: totp(secret, now()) });
    expect(ok.res.status).toBe(200);
    expect(ok.res.json.totpSetupRequired).toBe(false);
    expect((await as(ok.cookie, "GET", "/api/extensions")).status).toBe(200);
  });

  test("nobody can turn their two-factor sign-in off until the requirement is lifted", async () => {
    await requireForEveryone();
    const err = await s.refused(
      "user_totp",
      () => s.call("POST", "/api/auth/totp/disable", { password: ADMIN.password }),
      409,
    );
    expect(err.message).toBe(TOTP_REQUIRED_CANNOT_DISABLE);
    expect((await s.call("GET", "/api/auth/totp")).json.enabled).toBe(true);

    expect((await s.call("PUT", "/api/settings/security", { requireTotp: false })).status).toBe(200);
    expect((await s.call("POST", "/api/auth/totp/disable", { password: ADMIN.password })).status).toBe(204);
  });

  test("lifting the requirement frees a held session at once", async () => {
    await requireForEveryone();
    await addUser("view", "viewer");
    const { cookie } = await signIn({ username: "view", password: PASSWORD });
    expect((await as(cookie, "GET", "/api/extensions")).status).toBe(403);
    expect((await s.call("PUT", "/api/settings/security", { requireTotp: false })).status).toBe(200);
    expect((await as(cookie, "GET", "/api/auth/me")).json.totpSetupRequired).toBe(false);
    expect((await as(cookie, "GET", "/api/extensions")).status).toBe(200);
  });
});
