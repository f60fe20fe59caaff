// Three consoles from the built binary on loopback, each with its own port, DATA_DIR and self-signed TLS
// certificate: one hub lists all three (itself included) with their live state; a stopped member is shown
// unreachable within 10 s and back once it is started again on the same port; a revoked token fails at its
// next check; a changed certificate at a pinned address is refused (ADR 0076).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { FleetMember, FleetSearchAnswer } from "../../src/shared/fleet";
import { BINARY, freePort } from "../browser/harness";
import { type Certificate, makeCertificate } from "../fakes/fleet-member";
import { ADMIN } from "./binary";

setDefaultTimeout(120_000);

const root = mkdtempSync(join(tmpdir(), "pbx-fleet-binary-"));
const INSECURE = { tls: { rejectUnauthorized: false } } as RequestInit;

/** One console from the binary over TLS, which can be stopped and started again on its port and DATA_DIR. */
function tlsConsole(name: string, cert: Certificate) {
  const dataDir = join(root, name);
  const port = freePort();
  const base = `https://127.0.0.1:${port}`;
  let proc: Subprocess | null = null;
  let cookie = "";
  let current = cert;

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const h: Record<string, string> = { ...headers };
    if (method !== "GET") h["content-type"] = "application/json";
    if (cookie && !("authorization" in h)) h.cookie = cookie;
    const res = await fetch(base + path, {
      ...INSECURE,
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = res.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0] as string;
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, text, json };
  }

  return {
    name,
    base,
    call,
    /** Starts the binary (again), with another certificate when given; resolves once /healthz answers. */
    async start(next?: Certificate) {
      if (next) current = next;
      proc = Bun.spawn([BINARY], {
        env: {
          PATH: process.env.PATH ?? "",
          PORT: String(port),
          HOST: "127.0.0.1",
          DATA_DIR: dataDir,
          LOG_LEVEL: "silent",
          SERVER_LABEL: name,
          TLS_CERT: current.certFile,
          TLS_KEY: current.keyFile,
          ASTERISK_MANAGER_CONF: join(root, "absent-manager.conf"),
          FREEPBX_CONF: join(root, "absent-freepbx.conf"),
        },
        stdout: "ignore",
        stderr: "ignore",
      });
      const end = Date.now() + 20_000;
      for (;;) {
        if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}`);
        try {
          if ((await fetch(`${base}/healthz`, INSECURE)).ok) return;
        } catch {}
        if (Date.now() > end) throw new Error(`${name} did not start`);
        await Bun.sleep(50);
      }
    },
    async stop() {
      if (!proc) return;
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(5000)]);
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
      proc = null;
    },
    /** A REST API token made on this console (the hub stores it). */
    async token(role: "viewer" | "operator" | "admin" = "viewer") {
      const res = await call("POST", "/api/tokens", { name: `hub ${Date.now()}`, role });
      expect(res.status, res.text).toBe(201);
      return res.json as { id: number; token: string };
    },
  };
}

const until = async (what: string, fn: () => Promise<boolean>, timeoutMs: number) => {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`);
    await Bun.sleep(50);
  }
};

let certs: Record<"hub" | "a" | "b" | "b2", Certificate>;
let hub: ReturnType<typeof tlsConsole>;
let a: ReturnType<typeof tlsConsole>;
let b: ReturnType<typeof tlsConsole>;
const ids: Record<string, number> = {};
let aToken: { id: number; token: string };

const list = async () => ((await hub.call("GET", "/api/fleet")).json as { items: FleetMember[] }).items;
const shown = async (name: string) => (await list()).find((m) => m.id === ids[name]);

beforeAll(async () => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`npm run build\` first`);
  certs = {
    hub: makeCertificate(root, "hub"),
    a: makeCertificate(root, "a"),
    b: makeCertificate(root, "b"),
    b2: makeCertificate(root, "b2"),
  };
  hub = tlsConsole("fleet-hub", certs.hub);
  a = tlsConsole("branch-a", certs.a);
  b = tlsConsole("branch-b", certs.b);
  await Promise.all([hub.start(), a.start(), b.start()]);
  for (const c of [hub, a, b])
    expect((await c.call("POST", "/api/auth/setup", { ...ADMIN, confirmPassword: ADMIN.password })).status).toBe(201);
});

afterAll(async () => {
  await Promise.all([hub?.stop(), a?.stop(), b?.stop()]);
  rmSync(root, { recursive: true, force: true });
});

describe("a hub of three consoles", () => {
  test("the hub adds itself and two others, each pinned, and lists their live state", async () => {
    // The branches give the hub operator tokens (templates are applied with them); the hub itself a viewer's.
    aToken = await a.token("operator");
    const tokens = { hub: await hub.token("viewer"), a: aToken, b: await b.token("operator") };
    for (const [key, c] of [
      ["hub", hub],
      ["a", a],
      ["b", b],
    ] as const) {
      const res = await hub.call("POST", "/api/fleet/members", { url: c.base, token: tokens[key].token });
      expect(res.status, res.text).toBe(201);
      expect(res.json.pin).toBe(certs[key].fingerprint);
      ids[c.name] = res.json.id;
    }
    const items = await list();
    expect(items.map((m) => [m.name, m.reachable]).sort()).toEqual([
      ["branch-a", true],
      ["branch-b", true],
      ["fleet-hub", true],
    ]);
    for (const m of items) {
      expect(m.version).toMatch(/\d/);
      // No PBX is configured on these consoles: what they cannot know is null, not a guess.
      expect(m.pbx).toEqual({ reachable: null, ami: expect.any(String) });
      expect(m.registrations).toBeNull();
      expect(m.alertsFiring).toBe(0);
      expect(m.error).toBeNull();
    }
    // http is refused with the field's message, before any contact.
    const plain = await hub.call("POST", "/api/fleet/members", {
      url: a.base.replace("https", "http"),
      token: aToken.token,
    });
    expect(plain.status).toBe(400);
    expect(plain.json.error.fields.url).toMatch(/https/);
  });

  test("the fleet search finds an extension on the member that has it, naming it", async () => {
    expect((await b.call("POST", "/api/extensions", { extension: "2101", name: "Dora Fleetwide" })).status).toBe(201);
    const res = await hub.call("GET", "/api/fleet/search?q=dora");
    expect(res.status).toBe(200);
    const answer = res.json as FleetSearchAnswer;
    expect(answer.notSearched).toEqual([]);
    expect(answer.items).toEqual([
      expect.objectContaining({ kind: "extension", key: "2101", memberName: "branch-b", href: `${b.base}/extensions` }),
    ]);
  });

  test("a template planned on three members changes exactly the two whose tokens may apply, after review", async () => {
    const fragment = { version: 1, extensions: [{ extension: "2950", name: "From the template" }] };
    const tpl = await hub.call("POST", "/api/fleet/templates", { name: "Lobby phone", document: fragment });
    expect(tpl.status, tpl.text).toBe(201);
    const all = ["fleet-hub", "branch-a", "branch-b"].map((n) => ids[n] as number);
    const planned = await hub.call("POST", `/api/fleet/templates/${tpl.json.id}/plan`, { members: all });
    expect(planned.status, planned.text).toBe(200);
    for (const entry of planned.json.items) {
      expect(entry.error).toBeNull();
      expect(entry.plan.counts).toEqual({ create: 1, update: 0, delete: 0, unchanged: 0 });
      expect(entry.plan.items).toEqual([
        expect.objectContaining({ kind: "extensions", key: "2950", action: "create" }),
      ]);
    }
    // Planning changed nothing anywhere.
    for (const c of [hub, a, b])
      expect(
        ((await c.call("GET", "/api/extensions")).json as { extension: string }[]).map((e) => e.extension),
      ).not.toContain("2950");
    const plans = planned.json.items.map((e: { member: number; plan: { fingerprint: string } }) => ({
      member: e.member,
      fingerprint: e.plan.fingerprint,
    }));
    const applied = await hub.call("POST", `/api/fleet/templates/${tpl.json.id}/apply`, { plans });
    expect(applied.status, applied.text).toBe(200);
    const byName = Object.fromEntries(
      applied.json.items.map((i: { memberName: string; ok: boolean; error: string | null }) => [i.memberName, i]),
    );
    expect(byName["branch-a"]).toMatchObject({ ok: true, counts: { create: 1 } });
    expect(byName["branch-b"]).toMatchObject({ ok: true, counts: { create: 1 } });
    // The hub's own token is a viewer's: its console refuses to apply.
    expect(byName["fleet-hub"]).toMatchObject({ ok: false, error: expect.stringMatching(/refused the token \(403\)/) });
    const has2950 = async (c: typeof hub) =>
      ((await c.call("GET", "/api/extensions")).json as { extension: string }[]).some((e) => e.extension === "2950");
    expect([await has2950(hub), await has2950(a), await has2950(b)]).toEqual([false, true, true]);
    // The same fingerprints again: those plans are spent or stale, nothing is applied twice.
    const again = await hub.call("POST", `/api/fleet/templates/${tpl.json.id}/apply`, { plans: plans.slice(1) });
    expect(again.json.items.map((i: { ok: boolean }) => i.ok)).toEqual([false, false]);
  });

  test("a stopped member is unreachable within 10 s, and back once started on the same port", async () => {
    await b.stop();
    const stopped = Date.now();
    await until("branch-b unreachable", async () => (await shown("branch-b"))?.reachable === false, 10_000);
    expect(Date.now() - stopped).toBeLessThan(10_000);
    expect((await shown("branch-b"))?.error).toMatch(/connection refused|did not answer/);
    // The others are not held up.
    expect((await shown("branch-a"))?.reachable).toBe(true);
    const search = (await hub.call("GET", "/api/fleet/search?q=dora")).json as FleetSearchAnswer;
    expect(search.notSearched.map((n) => n.memberName)).toEqual(["branch-b"]);
    await b.start();
    await until("branch-b reachable again", async () => (await shown("branch-b"))?.reachable === true, 10_000);
  });

  test("a revoked token fails at the next check, with the member's 401 as the reason", async () => {
    expect((await a.call("DELETE", `/api/tokens/${aToken.id}`)).status).toBe(204);
    const revoked = Date.now();
    await until("branch-a refused", async () => (await shown("branch-a"))?.reachable === false, 10_000);
    expect(Date.now() - revoked).toBeLessThan(10_000);
    expect((await shown("branch-a"))?.error).toMatch(/refused the token \(401\)/);
  });

  test("a changed certificate at a pinned address is refused, until an administrator accepts it", async () => {
    await b.stop();
    await b.start(certs.b2);
    await until(
      "branch-b refused for its certificate",
      async () => (await shown("branch-b"))?.pinMismatch === true,
      10_000,
    );
    const m = await shown("branch-b");
    expect(m?.reachable).toBe(false);
    expect(m?.error).toMatch(/not the pinned one/);
    expect(m?.presentedPin).toBe(certs.b2.fingerprint);
    const res = await hub.call("POST", `/api/fleet/members/${ids["branch-b"]}/repin`, {
      fingerprint: certs.b2.fingerprint,
    });
    expect(res.status, res.text).toBe(200);
    await until(
      "branch-b reachable with its new pin",
      async () => (await shown("branch-b"))?.reachable === true,
      10_000,
    );
  });
});
