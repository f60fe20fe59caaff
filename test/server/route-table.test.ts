// Tests generated from the router table (src/server/routes/index.ts): whatever route is added, it is
// covered here without anyone remembering to write its auth, content-type, origin and contract checks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { CONFIG_SCHEMA_FILE, OPENAPI_FILE, renderConfigSchema, renderOpenApi } from "../../scripts/openapi";
import type { RouteDef } from "../../src/server/context";
import { apiRoutes } from "../../src/server/routes";
import { startTestServer, type TestServer } from "../helpers/server";

const label = (r: RouteDef) => `${r.method} ${r.path}`;
/** A path the router matches: every `:param` becomes a plausible id. */
const concrete = (path: string) => path.replace(/:([A-Za-z]+)/g, (_m, name: string) => (name === "type" ? "ssh" : "1"));
const authOf = (r: RouteDef) => r.auth ?? "session";
const writes = apiRoutes.filter((r) => r.method !== "GET");

/** The routes anyone may call. Adding one here is a security decision: say why in the route. */
const PUBLIC_ROUTES = [
  "GET /api/auth/me",
  "POST /api/auth/setup",
  "POST /api/auth/login",
  "POST /api/auth/logout",
  "POST /api/ai/openai/webhook",
  // A phone has no session: the one-time token in the path is the credential (ADR 0039).
  "GET /api/provisioning/:file",
];

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

const raw = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  fetch(s.base + path, { method, headers, body });

describe("the route table", () => {
  test("no two routes share a method and path; every path is under /api", () => {
    const seen = apiRoutes.map(label);
    expect(new Set(seen).size).toBe(seen.length);
    for (const r of apiRoutes) expect(r.path.startsWith("/api/")).toBe(true);
  });

  test("only the listed routes are public", () => {
    expect(
      apiRoutes
        .filter((r) => authOf(r) === "public")
        .map(label)
        .sort(),
    ).toEqual([...PUBLIC_ROUTES].sort());
  });

  test("every route has a summary for the contract", () => {
    expect(apiRoutes.filter((r) => !r.summary?.trim()).map(label)).toEqual([]);
  });

  test("every write declares the events it publishes, or why it stores nothing", () => {
    const undeclared = writes.filter((r) => (r.publishes?.length ?? 0) === 0 && !r.storesNothing?.trim());
    expect(undeclared.map(label)).toEqual([]);
    const both = writes.filter((r) => (r.publishes?.length ?? 0) > 0 && r.storesNothing);
    expect(both.map(label)).toEqual([]);
    // A read stores nothing, but for the spec's GET qr-code, which issues the link it draws (ADR 0054).
    expect(apiRoutes.filter((r) => r.method === "GET" && (r.publishes?.length || r.storesNothing)).map(label)).toEqual([
      "GET /api/extensions/:id/qr-code",
    ]);
  });

  test("every write declares what the audit trail records of it, or why it records nothing", () => {
    const undeclared = writes.filter((r) => {
      const a = r.audit;
      if (!a) return true;
      return "skip" in a ? !a.skip.trim() : !/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/.test(a.action);
    });
    expect(undeclared.map(label)).toEqual([]);
    // Skipped writes are call activity from machines, never an administrator's change; the session writes
    // skipped only compute an answer (the rule tester, a bulk delete's preview, the routing simulator).
    const skipped = writes.filter((r) => r.audit && "skip" in r.audit && authOf(r) === "session");
    expect(skipped.map(label).sort()).toEqual([
      "POST /api/ai/route",
      "POST /api/extensions/bulk-delete/check",
      "POST /api/routing/simulate",
    ]);
  });

  test("the audit trail is read-only through the API: no route writes to /api/audit", () => {
    expect(writes.filter((r) => r.path.startsWith("/api/audit")).map(label)).toEqual([]);
  });
});

describe("without a session", () => {
  for (const r of apiRoutes.filter((r) => authOf(r) === "session")) {
    test(`${label(r)} answers 401`, async () => {
      const res = await raw(
        r.method,
        concrete(r.path),
        r.method === "GET" ? {} : { "content-type": "application/json" },
        r.method === "GET" ? undefined : "{}",
      );
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe("Sign in required");
    });
  }
  for (const r of apiRoutes.filter((r) => typeof authOf(r) === "object")) {
    test(`${label(r)} answers 401 without an API token`, async () => {
      const res = await raw(r.method, concrete(r.path), { "content-type": "application/json" }, "{}");
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
    });
  }
});

describe("writes", () => {
  beforeAll(async () => {
    expect((await s.setup()).status).toBe(201);
  });
  for (const r of writes) {
    test(`${label(r)}: 415 without a JSON content type, 403 from another origin`, async () => {
      const path = concrete(r.path);
      const none = await raw(r.method, path, { cookie: s.cookie }, "{}");
      expect(none.status).toBe(415);
      const text = await raw(r.method, path, { cookie: s.cookie, "content-type": "text/plain" }, "{}");
      expect(text.status).toBe(415);
      const form = await raw(
        r.method,
        path,
        { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
        "a=1",
      );
      expect(form.status).toBe(415);
      const foreign = await raw(
        r.method,
        path,
        { cookie: s.cookie, "content-type": "application/json", origin: "https://attacker.example" },
        "{}",
      );
      expect(foreign.status).toBe(403);
    });
  }
});

describe("API-token routes", () => {
  test("a console session does not stand in for the API token", async () => {
    for (const r of apiRoutes.filter((r) => typeof authOf(r) === "object")) {
      const res = await s.call(r.method, concrete(r.path), {});
      expect(res.status, label(r)).toBe(401);
    }
  });
});

describe("the published contract", () => {
  test("GET /api/openapi.json lists every route with its method, auth and body schema", async () => {
    const res = await s.call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.json as { openapi: string; paths: Record<string, Record<string, any>> };
    expect(doc.openapi).toBe("3.1.0");
    for (const r of apiRoutes) {
      const path = r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${label(r)} is missing from the contract`).toBeDefined();
      expect(op.summary).toBe(r.summary);
      expect(op.security).toEqual(authOf(r) === "public" ? [] : expect.any(Array));
      if (r.body) {
        const { $schema: _d, ...schema } = z.toJSONSchema(r.body, { io: "input", unrepresentable: "any" }) as Record<
          string,
          unknown
        >;
        expect(op.requestBody.content["application/json"].schema).toEqual(schema);
      }
    }
    const count = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(count).toBe(apiRoutes.length);
  });

  test("docs/api/openapi.json is the contract of these routes (run `npm run openapi` after changing a route)", async () => {
    expect(await Bun.file(OPENAPI_FILE).text()).toBe(renderOpenApi());
  });

  test("docs/api/config-document.schema.json is the configuration document's JSON Schema (`npm run openapi`)", async () => {
    expect(await Bun.file(CONFIG_SCHEMA_FILE).text()).toBe(renderConfigSchema());
  });

  test("a body schema refuses what its contract refuses: an unknown type gets field messages, not a 500", async () => {
    for (const r of writes.filter((r) => r.body && authOf(r) === "session")) {
      const res = await s.call(r.method, concrete(r.path), { name: { nested: true }, extension: 42, type: [] });
      expect(res.status, label(r)).toBeLessThan(500);
    }
  });
});
