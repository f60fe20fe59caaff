// Fuzzes every route of the router table against the built binary with a valid session: hostile bodies,
// wrong types, odd path values and query strings never produce a 500, and the console keeps serving.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { apiRoutes } from "../../src/server/routes";
import { generateWebhookSecret } from "../fakes/standard-webhooks";
import { ADMIN, type Binary, startBinary } from "./binary";

let b: Binary;
beforeAll(async () => {
  // A webhook secret, so the webhook route gets past "not configured" and checks signatures.
  b = await startBinary({ logRequests: false, env: { OPENAI_WEBHOOK_SECRET: generateWebhookSecret() } });
  expect((await b.setup()).status).toBe(201);
});
afterAll(() => b?.stop());

/** A small deterministic generator, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const STRINGS = [
  "",
  " ",
  "0",
  "-1",
  "1e309",
  "NaN",
  "null",
  "'; DROP TABLE extensions; --",
  "$(reboot)",
  "`id`",
  "../../etc/passwd",
  "%00",
  "\u0000",
  "\u202e\u0000\ud800",
  "<script>alert(1)</script>",
  "a".repeat(10_000),
  "🙂".repeat(500),
  "__proto__",
  "constructor",
];

function value(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * (depth > 2 ? 6 : 9));
  switch (pick) {
    case 0:
      return STRINGS[Math.floor(r() * STRINGS.length)];
    case 1:
      return [0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER][Math.floor(r() * 7)];
    case 2:
      return r() < 0.5;
    case 3:
      return null;
    case 4:
      return "x".repeat(Math.floor(r() * 300));
    case 5:
      return Math.floor(r() * 100000);
    case 6:
      return Array.from({ length: Math.floor(r() * 5) }, () => value(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      // Own properties even for "__proto__" and "constructor": that is what a hostile JSON body carries.
      for (let i = 0; i < Math.floor(r() * 6); i++) {
        const key = STRINGS[Math.floor(r() * STRINGS.length)] ?? "k";
        Object.defineProperty(o, key, {
          value: value(r, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return o;
    }
  }
}

/** Bodies shaped like the route's own schema (its field names) with hostile values, plus raw junk. */
function bodies(fieldNames: string[], r: () => number, n: number): string[] {
  const out = [
    "",
    "{",
    "[]",
    "null",
    '"text"',
    '{"a":',
    "{}".repeat(1000),
    '{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}',
  ];
  while (out.length < n) {
    const o: Record<string, unknown> = {};
    for (const f of fieldNames) if (r() < 0.8) o[f] = value(r);
    if (r() < 0.2) {
      const key = STRINGS[Math.floor(r() * STRINGS.length)] ?? "x";
      Object.defineProperty(o, key, { value: value(r), enumerable: true, writable: true, configurable: true });
    }
    out.push(JSON.stringify(o));
  }
  return out;
}

const PATH_VALUES = ["1", "0", "-1", "999999999999999999999", "abc", "%2e%2e", "%00", "1;DROP", "ssh", "🙂"];

test("no route answers 5xx to hostile input, and the console keeps serving", async () => {
  const r = rng(20261124);
  let sent = 0;
  const fiveXX: string[] = [];
  for (const route of apiRoutes) {
    const shape = (route.body as { shape?: Record<string, unknown> } | undefined)?.shape;
    const fields = shape ? Object.keys(shape) : ["name", "id", "type"];
    const list = route.method === "GET" ? ["" as string] : bodies(fields, r, 150);
    for (const [i, body] of list.entries()) {
      const path = route.path.replace(/:[A-Za-z]+/g, () =>
        encodeURIComponent(PATH_VALUES[Math.floor(r() * PATH_VALUES.length)] ?? "1").replace(/%25/g, "%"),
      );
      const query =
        route.method === "GET" && i === 0 ? `?q=${encodeURIComponent(JSON.stringify(value(r)))}&limit=-1` : "";
      const res = await b.call(route.method, path + query, route.method === "GET" ? undefined : body);
      sent++;
      if (res.status >= 500)
        fiveXX.push(`${route.method} ${path} ${body.slice(0, 80)} → ${res.status} ${res.text.slice(0, 120)}`);
      // Sign-out and session routes may end this session: sign in again and go on.
      if (res.status === 401) await b.call("POST", "/api/auth/login", ADMIN);
    }
  }
  console.log(`fuzz: ${sent} requests over ${apiRoutes.length} routes, ${fiveXX.length} answered 500 or worse`);
  expect(fiveXX).toEqual([]);
  expect((await fetch(`${b.base}/healthz`)).status).toBe(200);
  expect((await b.call("GET", "/api/extensions")).status).toBe(200);
}, 120_000);
