// Attacks with REST API tokens on the built binary (ADR 0074): guessing tokens in a parallel burst, a good
// token inside the burst, a revoked token used again at once, a token from outside its networks (a real second
// loopback address), a token reaching for more than its role or for what decides who gets in, and a cross-site
// page trying to use a token. The token must never show in the console's log; the figures are printed.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import http from "node:http";
import { API_TOKEN_NOT_HERE, API_TOKEN_REFUSED } from "../../src/shared/api-tokens";
import { forbiddenForRole } from "../../src/shared/users";
import { BINARY } from "../browser/harness";
import { type Binary, startBinary } from "./binary";

setDefaultTimeout(60_000);

let b: Binary;
let adminCookie = "";
const made: string[] = [];

beforeAll(async () => {
  b = await startBinary();
  expect((await b.setup()).status).toBe(201);
  adminCookie = b.cookie;
  b.cookie = "";
});
afterAll(async () => {
  await b?.stop();
});

const admin = (method: string, path: string, body?: unknown) => b.call(method, path, body, { cookie: adminCookie });
const withToken = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  b.call(method, path, body, { cookie: "", authorization: `Bearer ${token}`, ...headers });

async function makeToken(name: string, role: string, networks: string[] = []) {
  const res = await admin("POST", "/api/tokens", { name, role, networks });
  expect(res.status, res.text).toBe(201);
  made.push(res.json.token);
  return res.json as { id: number; token: string };
}

/** `pbx-console unlock` against the running binary's data folder: forgets refused attempts. */
function unlock() {
  const r = Bun.spawnSync([BINARY, "unlock"], { env: { PATH: process.env.PATH ?? "", DATA_DIR: b.dataDir } });
  expect(r.exitCode).toBe(0);
}

/** A GET with a token sent from `localAddress` (another loopback address) with node:http. */
function getFrom(localAddress: string, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: b.port,
        path,
        method: "GET",
        localAddress,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("guessing tokens", () => {
  test("100 parallel guesses and a good token in the same burst: 5 checked, the rest 429, the good one too", async () => {
    const { token } = await makeToken("Burst", "viewer");
    unlock();
    const started = performance.now();
    const guesses = Array.from({ length: 100 }, (_, i) =>
      withToken(`pbxt_${String(i).padStart(3, "0")}${"G".repeat(40)}`, "GET", "/api/extensions"),
    );
    const good = withToken(token, "GET", "/api/extensions");
    const results = await Promise.all([...guesses, good]);
    const seconds = (performance.now() - started) / 1000;
    const evaluated = results.filter((r) => r.status === 401).length;
    const throttled = results.filter((r) => r.status === 429).length;
    console.log(
      `of 100 parallel token guesses + a good token (${seconds.toFixed(2)} s): ${evaluated} checked, ${throttled} answered 429`,
    );
    // The pause after the 5th failure is 1 s and doubles with each further one: a burst lasting T seconds
    // can have had at most log2(T + 1) more checked (none when it takes under a second, as it does).
    expect(evaluated).toBeGreaterThanOrEqual(5);
    expect(evaluated).toBeLessThanOrEqual(5 + Math.floor(Math.log2(seconds + 1)));
    expect(evaluated + throttled).toBe(101);
    const last = results[100];
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    // One failed-sign-in line per checked guess (fail2ban's filter reads them), none for the 429s.
    const lines = b
      .log()
      .split("\n")
      .filter((l) => / auth-failure user=api-token ip=127\.0\.0\.1$/.test(l));
    expect(lines).toHaveLength(evaluated);
    unlock();
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
  });
});

describe("what a token may do", () => {
  test("a viewer token reads and cannot write; an operator token cannot make tokens or users", async () => {
    unlock();
    const viewer = await makeToken("Reader", "viewer");
    const operator = await makeToken("Ops", "operator");
    expect((await withToken(viewer.token, "GET", "/api/extensions")).status).toBe(200);
    const write = await withToken(viewer.token, "POST", "/api/extensions", { extension: "1001", name: "X" });
    expect([write.status, write.json.error.message]).toEqual([403, forbiddenForRole("viewer")]);
    const created = await withToken(operator.token, "POST", "/api/extensions", { extension: "1002", name: "Ops" });
    expect(created.status).toBe(201);
    const mint = await withToken(operator.token, "POST", "/api/tokens", { name: "More", role: "admin" });
    expect([mint.status, mint.json.error.message]).toEqual([403, API_TOKEN_NOT_HERE]);
    const user = await withToken(operator.token, "POST", "/api/users", {
      username: "intruder",
      password: "intruder password 1",
      role: "admin",
    });
    expect([user.status, user.json.error.message]).toEqual([403, API_TOKEN_NOT_HERE]);
    expect((await admin("GET", "/api/users")).json.map((u: { username: string }) => u.username)).not.toContain(
      "intruder",
    );
    // The audit names the token for what it did and for what it was refused.
    const items = (await admin("GET", `/api/audit?actor=${encodeURIComponent(`token:Ops#${operator.id}`)}`)).json
      .items as { action: string; outcome: string; clientIp: string }[];
    expect(items.map((i) => [i.action, i.outcome])).toEqual(
      expect.arrayContaining([
        ["extension.create", "ok"],
        ["api-token.create", "denied"],
        ["user.create", "denied"],
      ]),
    );
    expect(items.every((i) => i.clientIp === "127.0.0.1")).toBe(true);
  });

  test("a revoked token is refused on the very next request", async () => {
    unlock();
    const { token, id } = await makeToken("Soon gone", "operator");
    expect((await withToken(token, "GET", "/api/extensions")).status).toBe(200);
    expect((await admin("DELETE", `/api/tokens/${id}`)).status).toBe(204);
    const next = await withToken(token, "GET", "/api/extensions");
    expect([next.status, next.json.error.message]).toEqual([401, API_TOKEN_REFUSED]);
  });

  test("a token allowed only from 127.0.0.2 is refused from 127.0.0.1 and accepted from 127.0.0.2", async () => {
    unlock();
    const { token, id } = await makeToken("Branch", "viewer", ["127.0.0.2"]);
    const here = await withToken(token, "GET", "/api/extensions");
    expect([here.status, here.json.error.message]).toEqual([401, API_TOKEN_REFUSED]);
    // Without a trusted proxy a forwarded header does not change the address.
    expect(
      (await withToken(token, "GET", "/api/extensions", undefined, { "x-forwarded-for": "127.0.0.2" })).status,
    ).toBe(401);
    expect(await getFrom("127.0.0.2", "/api/extensions", token)).toBe(200);
    const listed = (await admin("GET", "/api/tokens")).json.find((t: { id: number }) => t.id === id);
    expect(listed.lastUsedFrom).toBe("127.0.0.2");
  });
});

describe("a cross-site page", () => {
  test("is not let send a token: the preflight for Authorization is never granted", async () => {
    const res = await fetch(`${b.base}/api/extensions`, {
      method: "OPTIONS",
      headers: {
        origin: "https://attacker.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-allow-headers")).toBeNull();
  });

  test("and a form post with the administrator's cookie from elsewhere is still refused", async () => {
    const res = await b.call(
      "POST",
      "/api/extensions",
      { extension: "1003", name: "CSRF" },
      {
        cookie: adminCookie,
        origin: "https://attacker.example",
      },
    );
    expect(res.status).toBe(403);
  });
});

test("no token ever appears in the console's log", () => {
  expect(made.length).toBeGreaterThan(3);
  const log = b.log() + b.errors();
  for (const token of made) expect(log).not.toContain(token);
  expect(log).not.toContain("G".repeat(40));
});
