// Behind a reverse proxy (TRUSTED_PROXIES, docs/decisions/0069), against the built binary: a forged
// X-Forwarded-For from anyone but a trusted proxy changes nothing (the throttle, the audit and the failed
// sign-in line fail2ban reads keep the real peer), and from a trusted proxy the forwarded client is what they
// all see, so one client's guessing does not lock out the others behind the same proxy.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import http from "node:http";
import { ADMIN, type Binary, startBinary } from "./binary";

setDefaultTimeout(30_000);

/** A request from a given loopback address (node:http's `localAddress`), with extra headers. */
function post(b: Binary, path: string, body: unknown, localAddress: string, headers: Record<string, string> = {}) {
  return new Promise<number>((resolveStatus, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: b.port,
        path,
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json", ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolveStatus(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const guess = (b: Binary, from: string, headers: Record<string, string>, i: number) =>
  post(b, "/api/auth/login", { username: ADMIN.username, password: `wrong ${i}` }, from, headers);

/** The failed sign-in lines' addresses, in order (the shape fail2ban's filter reads). */
const failureAddresses = (b: Binary) => [...b.log().matchAll(/auth-failure user=\S+ ip=(\S+)/g)].map((m) => m[1]);

/** The audit trail's addresses of failed sign-ins, read as the administrator from a fresh session. */
async function auditedAddresses(b: Binary, signInFrom = "127.0.0.1"): Promise<string[]> {
  b.cookie = "";
  const login = await b.call("POST", "/api/auth/login", ADMIN, { "x-forwarded-for": signInFrom });
  expect(login.status).toBe(200);
  const res = await b.call("GET", "/api/audit?action=auth.login&limit=200");
  expect(res.status).toBe(200);
  return res.json.items
    .filter((e: { outcome: string }) => e.outcome !== "ok")
    .map((e: { clientIp: string }) => e.clientIp);
}

describe("without TRUSTED_PROXIES", () => {
  let b: Binary;
  beforeAll(async () => {
    b = await startBinary();
    expect((await b.setup()).status).toBe(201);
  });
  afterAll(() => b?.stop());

  test("100 guesses each with a new forged X-Forwarded-For and Forwarded: throttled as one address, logged as the peer", async () => {
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        guess(b, "127.0.0.3", { "x-forwarded-for": `198.51.100.${i + 1}`, forwarded: `for=203.0.113.${i + 1}` }, i),
      ),
    );
    const evaluated = statuses.filter((s) => s === 401).length;
    console.log(`forged headers, 100 guesses from 127.0.0.3: ${evaluated} evaluated, the rest 429`);
    expect(evaluated).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBe(100 - evaluated);
    expect(new Set(failureAddresses(b))).toEqual(new Set(["127.0.0.3"]));
    expect(new Set(await auditedAddresses(b))).toEqual(new Set(["127.0.0.3"]));
  });
});

describe("TRUSTED_PROXIES=127.0.0.1 (a proxy on this machine)", () => {
  let b: Binary;
  beforeAll(async () => {
    b = await startBinary({ env: { TRUSTED_PROXIES: "127.0.0.1" } });
    expect((await b.setup()).status).toBe(201);
  });
  afterAll(() => b?.stop());

  test("the forwarded client is throttled, logged and audited; another client behind the proxy still signs in", async () => {
    // What nginx sends for a client at 203.0.113.7 that forged its own header: the forged part left of the real one.
    const viaProxy = (i: number) => guess(b, "127.0.0.1", { "x-forwarded-for": `6.6.6.${i % 250}, 203.0.113.7` }, i);
    const statuses = await Promise.all(Array.from({ length: 50 }, (_, i) => viaProxy(i)));
    const evaluated = statuses.filter((s) => s === 401).length;
    console.log(`50 guesses from 203.0.113.7 through the proxy: ${evaluated} evaluated`);
    expect(evaluated).toBeLessThanOrEqual(5);
    expect(new Set(failureAddresses(b))).toEqual(new Set(["203.0.113.7"]));

    // The same account from another client behind the same proxy: the pair and address layers are its own.
    const other = await post(b, "/api/auth/login", ADMIN, "127.0.0.1", { "x-forwarded-for": "203.0.113.8" });
    expect(other).toBe(200);
    expect(new Set(await auditedAddresses(b, "203.0.113.8"))).toEqual(new Set(["203.0.113.7"]));
  });

  test("a peer that is not the trusted proxy is its own address, whatever it forwards", async () => {
    const before = failureAddresses(b).length;
    expect(await guess(b, "127.0.0.2", { "x-forwarded-for": "203.0.113.99" }, 1)).toBe(401);
    expect(failureAddresses(b).slice(before)).toEqual(["127.0.0.2"]);
  });
});
