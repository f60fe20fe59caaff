// Roles: walks the route table and calls every session route as an admin, an
// operator and a viewer: 403 exactly where the role may not, never where it may. Then the user
// administration rules: the last active administrator, disabled users, escalation attempts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { LAST_ADMIN } from "../../src/server/accounts/user-admin";
import { type RouteDef, requiredRole } from "../../src/server/context";
import { apiRoutes } from "../../src/server/routes";
import { AUDIO_NOT_ALLOWED } from "../../src/shared/settings";
import { forbiddenForRole, ROLES, type Role } from "../../src/shared/users";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server";

setDefaultTimeout(30_000);

const label = (r: RouteDef) => `${r.method} ${r.path}`;
const concrete = (path: string) => path.replace(/:([A-Za-z]+)/g, (_m, name: string) => (name === "type" ? "ssh" : "1"));

/** The decisions, written out: administrators only (credentials, users, backups, API tokens). */
const ADMIN_ONLY = [
  "GET /api/credentials",
  "GET /api/credentials/connection-status",
  "POST /api/credentials",
  "POST /api/credentials/test",
  "DELETE /api/credentials/:type",
  "GET /api/ai/tokens",
  "POST /api/ai/tokens",
  "DELETE /api/ai/tokens/:id",
  "GET /api/tokens",
  "POST /api/tokens",
  "DELETE /api/tokens/:id",
  // The price table every call's cost is computed with (ADR 0070); reading it is every role's.
  "PUT /api/ai/prices",
  "GET /api/settings/metrics-token",
  "POST /api/settings/metrics-token",
  "DELETE /api/settings/metrics-token",
  "POST /api/firewall/ban",
  "POST /api/firewall/unban",
  "POST /api/firewall/trusted",
  "DELETE /api/firewall/trusted",
  "GET /api/backup",
  "GET /api/backups/targets",
  "POST /api/backups/targets",
  "PUT /api/backups/targets/:id",
  "DELETE /api/backups/targets/:id",
  "POST /api/backups/targets/:id/test",
  "POST /api/backups/targets/:id/upload",
  "POST /api/backups/targets/:id/drill",
  "GET /api/backups/uploads",
  "GET /api/backups/key",
  "POST /api/backups/key",
  // The fleet hub (ADR 0076): its members' tokens reach other consoles.
  "GET /api/fleet",
  "GET /api/fleet/search",
  "POST /api/fleet/members",
  "POST /api/fleet/members/:id/repin",
  "DELETE /api/fleet/members/:id",
  "GET /api/fleet/templates",
  "POST /api/fleet/templates",
  "DELETE /api/fleet/templates/:id",
  "POST /api/fleet/templates/:id/plan",
  "POST /api/fleet/templates/:id/apply",
  "GET /api/users",
  "POST /api/users",
  "PATCH /api/users/:id",
  "DELETE /api/users/:id",
  "GET /api/settings/security",
  "PUT /api/settings/security",
  "PUT /api/settings/sip",
  "PUT /api/settings/audio",
  "GET /api/update",
  "POST /api/update",
  "POST /api/recordings/retention/run",
  "GET /api/audit",
  "GET /api/audit/export.csv",
  // Alert channels hold secrets (ADR 0062); their list is every role's.
  "POST /api/alerts/channels",
  "PUT /api/alerts/channels/:id",
  "DELETE /api/alerts/channels/:id",
  "POST /api/alerts/channels/:id/test",
  // Alert rules decide what those channels are sent, and turning one off silences a warning (ADR 0063).
  "POST /api/alerts/rules",
  "PUT /api/alerts/rules/:id",
  "PATCH /api/alerts/rules/:id",
  "DELETE /api/alerts/rules/:id",
];
/** Reads that carry a secret (SIP secrets, generated SIP passwords): operators, not viewers. */
const OPERATOR_READS = [
  "GET /api/extensions/:id/provisioning",
  // Issues the extension's provisioning link, as POST …/provisioning-link does (ADR 0054).
  "GET /api/extensions/:id/qr-code",
  "GET /api/extensions/export.csv",
  "GET /api/telnyx/credentials/:id/password",
  "GET /api/config/generate",
  "GET /api/config/script.sql",
];
/** The signed-in user's own account: every role. */
const OWN_ACCOUNT_WRITES = [
  "POST /api/auth/password",
  "DELETE /api/auth/sessions/:id",
  "POST /api/auth/sessions/sign-out-others",
  "POST /api/auth/totp/setup",
  "POST /api/auth/totp/enable",
  "POST /api/auth/totp/disable",
];

/**
 * Reads of voicemail and call recordings: a viewer's only while an administrator allows viewers to listen
 * (GET/PUT /api/settings/audio, off here), else 403 saying so.
 */
const LISTEN_READS = [/^GET \/api\/voicemail(\/|$)/, /^GET \/api\/calls\/:linkedid\/recording$/];
const listenRefused = (r: RouteDef, role: Role, res: { status: number; json: any }) =>
  role === "viewer" &&
  LISTEN_READS.some((re) => re.test(label(r))) &&
  res.status === 403 &&
  res.json.error.message === AUDIO_NOT_ALLOWED;

/** Writes by method only: they compute an answer from what a viewer may read, and store nothing. */
const VIEWER_QUESTIONS = ["POST /api/routing/simulate", "POST /api/config/plan"];
const expectedRole = (r: RouteDef): Role => {
  const l = label(r);
  if (ADMIN_ONLY.includes(l)) return "admin";
  if (OPERATOR_READS.includes(l)) return "operator";
  if (OWN_ACCOUNT_WRITES.includes(l) || VIEWER_QUESTIONS.includes(l)) return "viewer";
  return r.method === "GET" ? "viewer" : "operator";
};
const allowed = (role: Role, needed: Role) => ROLES.indexOf(role) <= ROLES.indexOf(needed);

const sessionRoutes = apiRoutes.filter((r) => (r.auth ?? "session") === "session");
const PASSWORD = "role password 123";

let s: TestServer;
const cookies: Record<Role, string> = { admin: "", operator: "", viewer: "" };
const ids: Record<string, string> = {};

/** Signs `username` in with a fresh cookie jar and returns the cookie (the test's own jar is kept). */
async function signIn(username: string, password = PASSWORD) {
  const keep = s.cookie;
  const res = await s.call("POST", "/api/auth/login", { username, password }, { cookie: "" });
  const cookie = s.cookie;
  s.cookie = keep;
  return { res, cookie };
}
const as = (role: Role, method: string, path: string, body?: unknown) =>
  s.call(method, path, body ?? (method === "GET" ? undefined : {}), { cookie: cookies[role] });

async function addUser(username: string, role: Role) {
  const res = await s.call("POST", "/api/users", { username, password: PASSWORD, role }, { cookie: cookies.admin });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

beforeAll(async () => {
  s = await startTestServer();
  await s.setup();
  cookies.admin = s.cookie;
  ids.operator = await addUser("op", "operator");
  ids.viewer = await addUser("view", "viewer");
  cookies.operator = (await signIn("op")).cookie;
  cookies.viewer = (await signIn("view")).cookie;
});
afterAll(() => s?.stop());

describe("the role table", () => {
  test("each route declares the role the decisions say", () => {
    const wrong = sessionRoutes.filter((r) => requiredRole(r) !== expectedRole(r)).map(label);
    expect(wrong).toEqual([]);
  });

  test("me tells each user their role", async () => {
    for (const role of ROLES) {
      const res = await as(role, "GET", "/api/auth/me");
      expect(res.json.user.role).toBe(role);
    }
  });

  for (const role of ["viewer", "operator", "admin"] as const) {
    test(`as ${role}: 403 exactly where the role may not`, async () => {
      const mismatches: string[] = [];
      for (const r of sessionRoutes) {
        // The walk's own sessions stay (signing out others would end nothing, but keep the walk plain).
        const res = await as(role, r.method, concrete(r.path));
        const may = allowed(role, expectedRole(r));
        if (res.status === 401) mismatches.push(`${label(r)}: signed out (${res.text})`);
        else if (may && res.status === 403 && !listenRefused(r, role, res))
          mismatches.push(`${label(r)}: 403 but allowed (${res.text})`);
        else if (!may && res.status !== 403) mismatches.push(`${label(r)}: ${res.status}, expected 403`);
        else if (!may && res.json.error.message !== forbiddenForRole(role)) mismatches.push(`${label(r)}: message`);
      }
      expect(mismatches).toEqual([]);
    });
  }

  test("the contract names the roles of every session route", async () => {
    const doc = (await as("viewer", "GET", "/api/openapi.json")).json;
    expect(doc.paths["/api/users"].get["x-roles"]).toEqual(["admin"]);
    expect(doc.paths["/api/extensions"].post["x-roles"]).toEqual(["admin", "operator"]);
    expect(doc.paths["/api/extensions"].get["x-roles"]).toEqual(["admin", "operator", "viewer"]);
    expect(doc.paths["/api/auth/login"].post["x-roles"]).toBeUndefined();
  });
});

describe("escalation attempts", () => {
  test("an operator cannot change a user (not even themself), add one or read the list", async () => {
    const before = s.snapshot("users");
    for (const [method, path, body] of [
      ["PATCH", `/api/users/${ids.operator}`, { role: "admin" }],
      ["PATCH", `/api/users/${ids.viewer}`, { password: "taken over 12345" }],
      ["POST", "/api/users", { username: "mine", password: PASSWORD, role: "admin" }],
      ["DELETE", `/api/users/${ids.viewer}`, undefined],
      ["GET", "/api/users", undefined],
    ] as const) {
      const res = await as("operator", method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect(s.snapshot("users")).toBe(before);
  });

  test("a viewer's writes are refused and change nothing", async () => {
    const tables = ["users", "extensions", "trunks", "api_credentials", "api_tokens"];
    const before = tables.map((t) => s.snapshot(t));
    for (const [method, path, body] of [
      ["POST", "/api/extensions", { extension: "4100", name: "Nope" }],
      ["POST", "/api/trunks", { name: "nope", type: "sip", host: "sip.example.com" }],
      ["POST", "/api/ai/tokens", { name: "nope" }],
      ["PATCH", `/api/users/${ids.viewer}`, { role: "admin" }],
      ["POST", "/api/credentials", { type: "ssh" }],
    ] as const) {
      const res = await as("viewer", method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.error.message).toBe("Your role (viewer) cannot do this");
    }
    expect(tables.map((t) => s.snapshot(t))).toEqual(before);
  });

  test("a demotion takes effect on the user's next request", async () => {
    const id = await addUser("demoted", "admin");
    const { cookie } = await signIn("demoted");
    expect((await s.call("GET", "/api/users", undefined, { cookie })).status).toBe(200);
    expect((await as("admin", "PATCH", `/api/users/${id}`, { role: "viewer" })).status).toBe(200);
    expect((await s.call("GET", "/api/users", undefined, { cookie })).status).toBe(403);
    expect((await s.call("GET", "/api/extensions", undefined, { cookie })).status).toBe(200);
    expect((await as("admin", "DELETE", `/api/users/${id}`)).status).toBe(204);
  });
});

describe("user administration", () => {
  test("lists users with role and status, never a password", async () => {
    const res = await as("admin", "GET", "/api/users");
    expect(res.status).toBe(200);
    const names = res.json.map((u: { username: string; role: string }) => `${u.username}:${u.role}`);
    expect(names).toEqual([`${ADMIN.username}:admin`, "op:operator", "view:viewer"]);
    expect(res.text).not.toContain("argon2");
    expect(res.json[0].current).toBe(true);
  });

  test("a taken username and a bad role are refused with field messages", async () => {
    const taken = await as("admin", "POST", "/api/users", { username: "op", password: PASSWORD, role: "viewer" });
    expect(taken.status).toBe(409);
    expect(taken.json.error.fields.username).toBeDefined();
    const bad = await as("admin", "POST", "/api/users", { username: "x1", password: PASSWORD, role: "root" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields.role).toBeDefined();
  });

  test("the last active administrator cannot be removed, demoted or disabled", async () => {
    const me = (await as("admin", "GET", "/api/auth/me")).json.user.id as string;
    const before = s.snapshot("users");
    for (const [method, body] of [
      ["PATCH", { role: "operator" }],
      ["PATCH", { disabled: true }],
      ["DELETE", undefined],
    ] as const) {
      const res = await as("admin", method, `/api/users/${me}`, body);
      expect(res.status).toBe(409);
      expect(res.json.error.message).toBe(LAST_ADMIN);
    }
    expect(s.snapshot("users")).toBe(before);
    // With a second active administrator, the first may step down (and back up, by the other).
    const other = await addUser("second-admin", "admin");
    expect((await as("admin", "PATCH", `/api/users/${other}`, { disabled: true })).status).toBe(200);
    expect((await as("admin", "PATCH", `/api/users/${me}`, { role: "operator" })).status).toBe(409);
    expect((await as("admin", "DELETE", `/api/users/${other}`)).status).toBe(204);
  });

  test("a disabled user cannot sign in and is signed out at once", async () => {
    const id = await addUser("leaver", "operator");
    const { cookie } = await signIn("leaver");
    expect((await s.call("GET", "/api/extensions", undefined, { cookie })).status).toBe(200);
    expect((await as("admin", "PATCH", `/api/users/${id}`, { disabled: true })).json.disabled).toBe(true);
    expect((await s.call("GET", "/api/extensions", undefined, { cookie })).status).toBe(401);
    const wrong = await signIn("leaver", "not the password 1");
    const refused = await signIn("leaver");
    expect(refused.res.status).toBe(401);
    expect(refused.res.json.error.message).toBe(wrong.res.json.error.message);
    // Enabled again: the password works again.
    expect((await as("admin", "PATCH", `/api/users/${id}`, { disabled: false })).status).toBe(200);
  });

  test("a password reset by an administrator signs that user out everywhere", async () => {
    const id = await addUser("forgetful", "viewer");
    const a = await signIn("forgetful");
    const b = await signIn("forgetful");
    const res = await as("admin", "PATCH", `/api/users/${id}`, { password: "brand new password 1" });
    expect(res.status).toBe(200);
    for (const cookie of [a.cookie, b.cookie]) {
      expect((await s.call("GET", "/api/extensions", undefined, { cookie })).status).toBe(401);
    }
    expect((await signIn("forgetful", "brand new password 1")).res.status).toBe(200);
  });

  test("removing a user ends their sessions", async () => {
    const id = await addUser("gone", "viewer");
    const { cookie } = await signIn("gone");
    expect((await as("admin", "DELETE", `/api/users/${id}`)).status).toBe(204);
    expect((await s.call("GET", "/api/auth/me", undefined, { cookie })).json.authenticated).toBe(false);
    expect((await as("admin", "DELETE", `/api/users/${id}`)).status).toBe(404);
  });
});
