// The fleet hub over HTTP (ADR 0076): a console's own summary and search, adding members (https only, the
// certificate pinned, the token tried), their live state from the poller, a changed certificate refused before
// anything is sent, a slow member holding up nobody, and the fleet-wide search.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FLEET_TOKEN_FORMAT, FLEET_URL_HAS_PATH, FLEET_URL_NOT_HTTPS, type FleetMember } from "../../src/shared/fleet";
import { type Certificate, type FakeMember, makeCertificate, startFakeMember } from "../fakes/fleet-member";
import { startTestServer, type TestServer } from "../helpers/server";

setDefaultTimeout(60_000);

const certDir = mkdtempSync(join(tmpdir(), "pbx-fleet-certs-"));
let certA: Certificate;
let certB: Certificate;
let certC: Certificate;
let s: TestServer;
const fakes: FakeMember[] = [];

beforeAll(async () => {
  certA = makeCertificate(certDir, "member-a");
  certB = makeCertificate(certDir, "member-b");
  certC = makeCertificate(certDir, "member-c");
  s = await startTestServer({ SERVER_LABEL: "hub-console" });
  await s.setup();
});

afterAll(async () => {
  for (const f of fakes) await f.stop();
  await s.stop();
  rmSync(certDir, { recursive: true, force: true });
});

const fake = async (cert: Certificate, name: string) => {
  const f = await startFakeMember({ cert, name });
  fakes.push(f);
  return f;
};

const until = async (what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
};

const members = async () => ((await s.call("GET", "/api/fleet")).json as { items: FleetMember[] }).items;
const member = async (id: number) => (await members()).find((m) => m.id === id);
const add = (f: FakeMember) => s.call("POST", "/api/fleet/members", { url: f.url, token: f.state.token });

describe("a console's own summary and search", () => {
  test("GET /api/fleet/self says what the console knows and null for what it cannot know now", async () => {
    const res = await s.call("GET", "/api/fleet/self");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      name: "hub-console",
      version: "test",
      // No AMI settings and no manager.conf: whether the PBX answers is not known.
      pbx: { reachable: null, ami: expect.any(String) },
      registrations: null,
      activeCalls: null,
      alertsFiring: 0,
      lastDeployAt: null,
      backupAgeSeconds: null,
    });
  });

  test("a viewer token reads the summary and the search (what a hub holds)", async () => {
    const made = await s.call("POST", "/api/tokens", { name: "hub reads", role: "viewer" });
    expect(made.status).toBe(201);
    const auth = { authorization: `Bearer ${made.json.token}`, cookie: "" };
    expect((await s.call("GET", "/api/fleet/self", undefined, auth)).status).toBe(200);
    expect((await s.call("GET", "/api/fleet/self/search?q=1", undefined, auth)).status).toBe(200);
    // …but not the hub's own member list (admin) nor adding a member (a person's session only).
    expect((await s.call("GET", "/api/fleet", undefined, auth)).status).toBe(403);
  });

  test("the search finds extensions, trunks and groups by number or name; wildcards are literal", async () => {
    expect((await s.call("POST", "/api/extensions", { extension: "4711", name: "Alice Fleet" })).status).toBe(201);
    expect((await s.call("POST", "/api/extensions", { extension: "4712", name: "Bob" })).status).toBe(201);
    const byName = await s.call("GET", "/api/fleet/self/search?q=alice");
    expect(byName.status).toBe(200);
    expect(byName.json.items).toEqual([
      { kind: "extension", key: "4711", label: "4711 Alice Fleet", url: "/extensions" },
    ]);
    const byNumber = await s.call("GET", "/api/fleet/self/search?q=471");
    expect(byNumber.json.items.map((i: { key: string }) => i.key)).toEqual(["4711", "4712"]);
    expect((await s.call("GET", `/api/fleet/self/search?q=${encodeURIComponent("%")}`)).json.items).toEqual([]);
  });

  test("a search without text, or too long, is a 400 naming q", async () => {
    for (const q of ["", "%20%20", "x".repeat(101)]) {
      const res = await s.call("GET", `/api/fleet/self/search?q=${q}`);
      expect(res.status).toBe(400);
      expect(res.json.error.fields.q).toBeString();
    }
    expect((await s.call("GET", "/api/fleet/self/search")).status).toBe(400);
  });
});

describe("adding members", () => {
  test("bad input is a 400 with the field's message, and nothing is stored", async () => {
    const cases: [unknown, string, string | RegExp][] = [
      [{ url: "http://127.0.0.1:9/", token: "pbxt_abc" }, "url", FLEET_URL_NOT_HTTPS],
      [{ url: "https://127.0.0.1:9/api", token: "pbxt_abc" }, "url", FLEET_URL_HAS_PATH],
      [{ url: "https://user:pw@127.0.0.1:9", token: "pbxt_abc" }, "url", /user name and password/],
      [{ url: "ftp://127.0.0.1", token: "pbxt_abc" }, "url", /http/],
      [{ url: "not a url", token: "pbxt_abc" }, "url", /valid URL/],
      [{ url: "https://127.0.0.1:9", token: "secret" }, "token", FLEET_TOKEN_FORMAT],
      [{ url: "https://127.0.0.1:9" }, "token", /required/],
      [{ token: "pbxt_abc" }, "url", /required/],
    ];
    for (const [body, field, message] of cases) {
      const err = await s.refused("fleet_members", () => s.call("POST", "/api/fleet/members", body), 400);
      expect(err.fields?.[field]).toMatch(message);
    }
  });

  test("a viewer cannot add members, and neither can an admin's token", async () => {
    await s.call("POST", "/api/users", { username: "fleetviewer", password: "viewer password 1", role: "viewer" });
    const keep = s.cookie;
    await s.call("POST", "/api/auth/login", { username: "fleetviewer", password: "viewer password 1" }, { cookie: "" });
    const body = { url: "https://127.0.0.1:9", token: "pbxt_abc" };
    await s.refused("fleet_members", () => s.call("POST", "/api/fleet/members", body), 403);
    expect((await s.call("GET", "/api/fleet")).status).toBe(403);
    s.cookie = keep;
    const made = await s.call("POST", "/api/tokens", { name: "admin token", role: "admin" });
    const auth = { authorization: `Bearer ${made.json.token}`, cookie: "" };
    await s.refused("fleet_members", () => s.call("POST", "/api/fleet/members", body, auth), 403);
  });

  test("an address that does not answer, or a refused token, is refused with the field to fix", async () => {
    const f = await fake(certA, "refusing");
    const wrong = await s.refused(
      "fleet_members",
      () => s.call("POST", "/api/fleet/members", { url: f.url, token: "pbxt_notTheToken" }),
      400,
    );
    expect(wrong.fields?.token).toMatch(/refused the token \(401\)/);
    await f.stop();
    const down = await s.refused(
      "fleet_members",
      () => s.call("POST", "/api/fleet/members", { url: f.url, token: f.state.token }),
      400,
    );
    expect(down.fields?.url).toMatch(/connection refused/);
    // The token never appears in a message.
    expect(JSON.stringify(down)).not.toContain(f.state.token);
  });

  test("a member is pinned at first contact, its token stored sealed, and listed with its state", async () => {
    const f = await fake(certA, "branch-a");
    const res = await add(f);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      url: f.url,
      name: "branch-a",
      pin: certA.fingerprint,
      reachable: true,
      version: "9.9.9",
    });
    expect(res.text).not.toContain(f.state.token);
    const row = s.db.$client.query("SELECT token FROM fleet_members WHERE id = ?").get(res.json.id) as {
      token: string;
    };
    expect(row.token).not.toContain(f.state.token);
    expect(s.app.box.open(row.token)).toBe(f.state.token);
    expect(f.calls.at(-1)?.headers.authorization).toBe(`Bearer ${f.state.token}`);
    const listed = await member(res.json.id);
    expect(listed).toMatchObject({
      reachable: true,
      registrations: { registered: 3, total: 5 },
      activeCalls: 1,
      alertsFiring: 0,
      backupAgeSeconds: 3600,
      error: null,
    });
    expect(JSON.stringify(await members())).not.toContain(f.state.token);
    // The same console twice is a conflict on the URL.
    const again = await s.refused("fleet_members", () => add(f), 409);
    expect(again.fields?.url).toBeString();
    expect((await s.call("DELETE", `/api/fleet/members/${res.json.id}`)).status).toBe(204);
    expect(await member(res.json.id)).toBeUndefined();
  });
});

describe("the live view", () => {
  test("a stopped member is shown unreachable, and reachable again once it answers", async () => {
    const f = await fake(certA, "stops");
    const { id } = (await add(f)).json as FleetMember;
    await f.stop();
    await until("unreachable", async () => (await member(id))?.reachable === false);
    expect((await member(id))?.error).toMatch(/connection refused/);
    f.start();
    await until("reachable again", async () => (await member(id))?.reachable === true);
    f.state.self.activeCalls = 9;
    await until("the new figure", async () => (await member(id))?.activeCalls === 9);
    await s.call("DELETE", `/api/fleet/members/${id}`);
  });

  test("a changed certificate at a pinned address is refused before the request, so the token is never sent", async () => {
    const f = await fake(certB, "recerts");
    const { id } = (await add(f)).json as FleetMember;
    await f.stop();
    const before = f.calls.length;
    f.start(certC);
    await until("pin mismatch shown", async () => (await member(id))?.pinMismatch === true);
    const shown = await member(id);
    expect(shown?.reachable).toBe(false);
    expect(shown?.error).toMatch(/not the pinned one.*nothing was sent/);
    expect(shown?.presentedPin).toBe(certC.fingerprint);
    // Not a request reached the server with the new certificate: the handshake ended the connection.
    expect(f.calls.slice(before)).toEqual([]);
    // A fleet search does not send it there either.
    await s.call("GET", "/api/fleet/search?q=x");
    expect(f.calls.slice(before)).toEqual([]);
    // A repin needs the fingerprint it presents now.
    const wrong = await s.call("POST", `/api/fleet/members/${id}/repin`, { fingerprint: certB.fingerprint });
    expect(wrong.status).toBe(409);
    const bad = await s.call("POST", `/api/fleet/members/${id}/repin`, { fingerprint: "AB:CD" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields.fingerprint).toBeString();
    const ok = await s.call("POST", `/api/fleet/members/${id}/repin`, { fingerprint: certC.fingerprint });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.pin).toBe(certC.fingerprint);
    await until("reachable with the new pin", async () => (await member(id))?.reachable === true);
    expect(f.calls.at(-1)?.headers.authorization).toBe(`Bearer ${f.state.token}`);
    await s.call("DELETE", `/api/fleet/members/${id}`);
  });

  test("a member that answers slowly holds up neither the others' state nor the list", async () => {
    const slow = await fake(certA, "slow");
    const quick = await fake(certB, "quick");
    const slowId = ((await add(slow)).json as FleetMember).id;
    const quickId = ((await add(quick)).json as FleetMember).id;
    slow.state.delayMs = 30_000;
    const seen = Date.now();
    quick.state.self.activeCalls = 4;
    await until("the quick member's new figure", async () => (await member(quickId))?.activeCalls === 4);
    const list = await s.call("GET", "/api/fleet");
    expect(list.status).toBe(200);
    await until("the slow member timed out", async () => (await member(slowId))?.reachable === false);
    expect((await member(slowId))?.error).toMatch(/did not answer within 4 s/);
    // The quick member kept being checked while the slow one hung.
    quick.state.self.activeCalls = 6;
    await until("another new figure", async () => (await member(quickId))?.activeCalls === 6);
    expect(Date.now() - seen).toBeLessThan(30_000);
    slow.state.delayMs = 0;
    await s.call("DELETE", `/api/fleet/members/${slowId}`);
    await s.call("DELETE", `/api/fleet/members/${quickId}`);
  });
});

describe("the fleet-wide search", () => {
  test("merges the members' hits, each naming its console; a member that fails is listed as not searched", async () => {
    const a = await fake(certA, "search-a");
    const b = await fake(certB, "search-b");
    a.state.items = [{ kind: "extension", key: "2001", label: "2001 Carol", url: "/extensions" }];
    b.state.items = [
      { kind: "extension", key: "3001", label: "3001 Carol B", url: "/extensions" },
      // A member cannot make the hub link elsewhere.
      { kind: "extension", key: "3002", label: "3002 Carol evil", url: "javascript:alert(1)" },
    ];
    const aId = ((await add(a)).json as FleetMember).id;
    const bId = ((await add(b)).json as FleetMember).id;
    const res = await s.call("GET", "/api/fleet/search?q=carol");
    expect(res.status).toBe(200);
    expect(res.json.notSearched).toEqual([]);
    expect(res.json.items).toEqual([
      {
        kind: "extension",
        key: "2001",
        label: "2001 Carol",
        url: "/extensions",
        memberId: aId,
        memberName: "search-a",
        href: `${a.url}/extensions`,
      },
      {
        kind: "extension",
        key: "3001",
        label: "3001 Carol B",
        url: "/extensions",
        memberId: bId,
        memberName: "search-b",
        href: `${b.url}/extensions`,
      },
    ]);
    b.state.failWith = 500;
    const partial = await s.call("GET", "/api/fleet/search?q=carol");
    expect(partial.status).toBe(200);
    expect(partial.json.items.map((i: { key: string }) => i.key)).toEqual(["2001"]);
    expect(partial.json.notSearched).toEqual([
      { memberId: bId, memberName: "search-b", reason: expect.stringMatching(/500/) },
    ]);
    b.state.failWith = null;
    expect((await s.call("GET", "/api/fleet/search?q=")).status).toBe(400);
    await s.call("DELETE", `/api/fleet/members/${aId}`);
    await s.call("DELETE", `/api/fleet/members/${bId}`);
  });
});

describe("templates", () => {
  const fragment = { version: 1, outboundRoutes: [{ name: "Intl", patterns: ["00."], trunks: ["main"] }] };

  test("a template is kept by name; bad input is a 400 with the field's message", async () => {
    for (const [body, field] of [
      [{ name: "", document: fragment }, "name"],
      [{ name: "x", document: { outboundRoutes: [] } }, "document"],
      [{ name: "x", document: 7 }, "document"],
      [{ name: "x", document: "   " }, "document"],
    ] as const) {
      const err = await s.refused("fleet_templates", () => s.call("POST", "/api/fleet/templates", body), 400);
      expect(err.fields?.[field]).toBeString();
    }
    const made = await s.call("POST", "/api/fleet/templates", { name: "Intl routes", document: fragment });
    expect(made.status, made.text).toBe(201);
    expect((await s.call("GET", "/api/fleet/templates")).json).toEqual([
      { id: made.json.id, name: "Intl routes", document: fragment, updatedAt: expect.any(String) },
    ]);
    await s.refused(
      "fleet_templates",
      () => s.call("POST", "/api/fleet/templates", { name: "Intl routes", document: fragment }),
      409,
    );
    expect((await s.call("DELETE", `/api/fleet/templates/${made.json.id}`)).status).toBe(204);
  });

  test("planned on each chosen member with its token, applied by each reviewed fingerprint; one member's failure is its own", async () => {
    const a = await fake(certA, "tpl-a");
    const b = await fake(certB, "tpl-b");
    const c = await fake(certC, "tpl-c");
    const [aId, bId, cId] = await Promise.all([a, b, c].map(async (f) => ((await add(f)).json as FleetMember).id));
    const tpl = (await s.call("POST", "/api/fleet/templates", { name: "Intl", document: fragment })).json;
    b.state.refuse = { "outboundRoutes[0].trunks[0]": "No trunk is named main" };

    const unknown = await s.call("POST", `/api/fleet/templates/${tpl.id}/plan`, { members: [aId, 9999] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.fields.members).toMatch(/9999/);
    expect((await s.call("POST", `/api/fleet/templates/${tpl.id}/plan`, { members: [] })).status).toBe(400);

    const planned = await s.call("POST", `/api/fleet/templates/${tpl.id}/plan`, { members: [aId, bId] });
    expect(planned.status, planned.text).toBe(200);
    const [pa, pb] = planned.json.items;
    expect(pa).toMatchObject({ member: aId, memberName: "tpl-a", error: null, plan: { fingerprint: "f".repeat(64) } });
    expect(pa.plan.items[0]).toMatchObject({
      action: "create",
      changes: [{ field: "pattern", from: null, to: "00." }],
    });
    expect(pb).toMatchObject({
      member: bId,
      plan: null,
      refused: [{ path: "outboundRoutes[0].trunks[0]", message: "No trunk is named main" }],
    });
    // Each member got the fragment, with its own token; the one not chosen got nothing.
    expect(a.state.received).toEqual([{ path: "/api/config/plan", body: { document: fragment, prune: false } }]);
    expect(a.calls.at(-1)?.headers.authorization).toBe(`Bearer ${a.state.token}`);
    expect(c.state.received).toEqual([]);

    // A member whose objects changed since its plan answers 409: its entry says so, the other is applied.
    a.state.plan = { ...a.state.plan, fingerprint: "e".repeat(64) };
    const applied = await s.call("POST", `/api/fleet/templates/${tpl.id}/apply`, {
      plans: [
        { member: aId, fingerprint: "f".repeat(64) },
        { member: cId, fingerprint: "f".repeat(64) },
      ],
    });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.json.items).toEqual([
      {
        member: aId,
        memberName: "tpl-a",
        ok: false,
        counts: null,
        error: expect.stringMatching(/409.*changed since this plan/),
      },
      {
        member: cId,
        memberName: "tpl-c",
        ok: true,
        counts: { create: 1, update: 0, delete: 0, unchanged: 0 },
        error: null,
      },
    ]);
    expect(c.state.received.at(-1)).toEqual({ path: "/api/config/apply", body: { fingerprint: "f".repeat(64) } });
    expect(
      (await s.call("POST", `/api/fleet/templates/${tpl.id}/apply`, { plans: [{ member: aId, fingerprint: "nope" }] }))
        .status,
    ).toBe(400);
    for (const id of [aId, bId, cId]) await s.call("DELETE", `/api/fleet/members/${id}`);
    await s.call("DELETE", `/api/fleet/templates/${tpl.id}`);
  });
});
