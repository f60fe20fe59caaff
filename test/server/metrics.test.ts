// GET /metrics (ADR 0066): the scrape token (environment and UI-made), the throttle on failed scrapes, the
// exposition text parsed line by line, route labels that are templates, and the console's state as numbers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCRAPE_FAILURES_ALLOWED } from "../../src/server/metrics/token";
import { startTestServer, type TestServer } from "../helpers/server";

const ENV_TOKEN = "env-scrape-token-0123456789";
let s: TestServer;
let operatorCookie = "";

/** One sample line: `name{a="b",…} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Prometheus' text exposition format 0.0.4, strictly: `# HELP`/`# TYPE` once per family before its samples,
 * sample names of a declared family (a histogram's `_bucket`/`_sum`/`_count`), quoted label values with
 * the three escapes, numeric values. Throws on the first line that is not so.
 */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  expect(text.endsWith("\n")).toBe(true);
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let m = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
    if (m) {
      if (helps.has(m[1] as string)) throw new Error(`HELP twice: ${line}`);
      helps.add(m[1] as string);
      continue;
    }
    m = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (m) {
      if (types.has(m[1] as string)) throw new Error(`TYPE twice: ${line}`);
      types.set(m[1] as string, m[2] as string);
      continue;
    }
    if (line.startsWith("#")) throw new Error(`unknown comment: ${line}`);
    m = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`).exec(line);
    if (!m) throw new Error(`not a sample: ${line}`);
    const name = m[1] as string;
    const family = [name, name.replace(/_(bucket|sum|count)$/, "")].find((n) => types.has(n));
    if (!family) throw new Error(`sample of no declared family: ${line}`);
    if (family !== name && !["histogram", "summary"].includes(types.get(family) as string)) {
      throw new Error(`suffix on a ${types.get(family)}: ${line}`);
    }
    const labels: Record<string, string> = {};
    const body = m[2] ?? "";
    const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"\s*(,|$)/y;
    let at = 0;
    while (at < body.length) {
      LABEL.lastIndex = at;
      const l = LABEL.exec(body);
      if (!l) throw new Error(`bad labels: ${line}`);
      labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, (_x, c: string) => (c === "n" ? "\n" : c));
      at = LABEL.lastIndex;
    }
    const raw = m[3] as string;
    // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes `Nan`).
    if (!/^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf|nan)$/i.test(raw))
      throw new Error(`bad value: ${line}`);
    const value = /^[+-]?inf$/i.test(raw)
      ? raw.startsWith("-")
        ? -Infinity
        : Infinity
      : /^nan$/i.test(raw)
        ? NaN
        : Number(raw);
    samples.push({ name, labels, value });
  }
  return { types, samples };
}

const scrape = (token?: string, headers: Record<string, string> = {}) =>
  s.call("GET", "/metrics", undefined, {
    cookie: "",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...headers,
  });

async function metrics(token = ENV_TOKEN) {
  const res = await scrape(token);
  expect(res.status, res.text).toBe(200);
  return { res, ...parseExposition(res.text) };
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))
    .reduce((n, x) => n + x.value, 0);

beforeAll(async () => {
  // Loopback is a trusted proxy here, so a test can scrape "from" other addresses (the throttle keys on them).
  s = await startTestServer({ METRICS_TOKEN: ENV_TOKEN, TRUSTED_PROXIES: "127.0.0.1,::1" });
  await s.setup();
  const admin = s.cookie;
  const op = await s.call("POST", "/api/users", { username: "op", password: "operator pass 123", role: "operator" });
  expect(op.status, op.text).toBe(201);
  await s.call("POST", "/api/auth/login", { username: "op", password: "operator pass 123" }, { cookie: "" });
  operatorCookie = s.cookie;
  s.cookie = admin;
});
afterAll(() => s?.stop());

describe("the scrape token", () => {
  test("401 without a token and with a wrong one, 200 with METRICS_TOKEN", async () => {
    const none = await scrape(undefined, { "x-forwarded-for": "198.51.100.1" });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await scrape("wrong-token-wrong-token", { "x-forwarded-for": "198.51.100.1" })).status).toBe(401);
    // A token one character off is still wrong (the comparison is of whole digests).
    expect((await scrape(`${ENV_TOKEN.slice(0, -1)}X`, { "x-forwarded-for": "198.51.100.1" })).status).toBe(401);
    const { res } = await metrics();
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    // No session is needed, and a session alone is not enough.
    expect((await s.call("GET", "/metrics")).status).toBe(401);
  });

  test("failed scrapes from one address are throttled, whatever token it sends next; others are not", async () => {
    const from = { "x-forwarded-for": "203.0.113.50" };
    for (let i = 0; i < SCRAPE_FAILURES_ALLOWED; i++)
      expect((await scrape(`guess-${i}-xxxxxxxxxxxxxx`, from)).status).toBe(401);
    const throttled = await scrape(ENV_TOKEN, from);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address (and the same /64 rule does not reach IPv4 neighbours) scrapes on.
    expect((await scrape(ENV_TOKEN, { "x-forwarded-for": "203.0.113.51" })).status).toBe(200);
    // The window passes: the address may try again.
    s.advance(11 * 60_000);
    expect((await scrape(ENV_TOKEN, from)).status).toBe(200);
  });

  test("a UI token: admin only, shown once, stored hashed, rotated and revoked", async () => {
    expect((await s.call("POST", "/api/settings/metrics-token", {}, { cookie: operatorCookie })).status).toBe(403);
    expect((await s.call("GET", "/api/settings/metrics-token", undefined, { cookie: operatorCookie })).status).toBe(
      403,
    );
    const before = await s.call("GET", "/api/settings/metrics-token");
    expect(before.json).toEqual({ fromEnvironment: true, token: null });

    const made = await s.call("POST", "/api/settings/metrics-token", {});
    expect(made.status, made.text).toBe(201);
    const secret = made.json.secret as string;
    expect(secret).toMatch(/^pbxm_[A-Za-z0-9_-]{43}$/);
    expect(made.json.token).toMatchObject({ prefix: secret.slice(0, 9), last4: secret.slice(-4), createdBy: "admin" });
    // Never again: not in the view, not in the database (only its SHA-256), not in the audit trail.
    const view = await s.call("GET", "/api/settings/metrics-token");
    expect(view.text).not.toContain(secret);
    expect(view.json.token.last4).toBe(secret.slice(-4));
    const row = s.db.$client.query("SELECT value FROM console_settings WHERE key = 'metricsToken'").get() as {
      value: string;
    };
    expect(row.value).not.toContain(secret);
    const hash = new Bun.CryptoHasher("sha256").update(secret).digest("hex");
    expect(JSON.parse(row.value).hash).toBe(hash);
    expect(s.snapshot("audit_log")).not.toContain(secret);
    expect(s.snapshot("audit_log")).toContain("metrics.token.create");

    expect((await scrape(secret)).status).toBe(200);
    // Rotating: the new one works, the old one no longer does; METRICS_TOKEN goes on working beside it.
    const rotated = (await s.call("POST", "/api/settings/metrics-token", {})).json.secret as string;
    expect(rotated).not.toBe(secret);
    expect((await scrape(secret, { "x-forwarded-for": "192.0.2.77" })).status).toBe(401);
    expect((await scrape(rotated)).status).toBe(200);
    expect((await scrape(ENV_TOKEN)).status).toBe(200);

    const revoked = await s.call("DELETE", "/api/settings/metrics-token");
    expect(revoked.status).toBe(200);
    expect(revoked.json.token).toBeNull();
    expect((await scrape(rotated, { "x-forwarded-for": "192.0.2.78" })).status).toBe(401);
    expect((await s.call("DELETE", "/api/settings/metrics-token")).status).toBe(404);
  });

  test("with no token configured at all, /metrics is off: 404", async () => {
    const off = await startTestServer();
    try {
      const res = await off.call("GET", "/metrics", undefined, { authorization: "Bearer anything-at-all-1234" });
      expect(res.status).toBe(404);
      expect(res.json.error.message).toContain("METRICS_TOKEN");
      // A token made in the UI turns it on.
      await off.setup();
      const secret = (await off.call("POST", "/api/settings/metrics-token", {})).json.secret as string;
      expect(
        (await off.call("GET", "/metrics", undefined, { authorization: `Bearer ${secret}`, cookie: "" })).status,
      ).toBe(200);
    } finally {
      await off.stop();
    }
  });
});

describe("the exposition", () => {
  test("parses, and routes are labelled by their template, never the raw path", async () => {
    expect((await s.call("GET", "/api/extensions/7/provisioning")).status).toBe(404);
    expect((await s.call("GET", "/api/extensions/8/provisioning")).status).toBe(404);
    await s.call("GET", "/api/no/such/thing/123");
    const { types, samples, res } = await metrics();
    expect(types.get("pbx_console_http_requests_total")).toBe("counter");
    expect(types.get("pbx_console_http_request_duration_seconds")).toBe("histogram");
    const routes = new Set(samples.filter((x) => x.labels.route).map((x) => x.labels.route));
    expect(routes.has("/api/extensions/:id/provisioning")).toBe(true);
    expect(routes.has("unmatched")).toBe(true);
    for (const r of routes) expect(r === "unmatched" || r?.startsWith("/api/")).toBe(true);
    expect(res.text).not.toContain("/api/extensions/7");
    expect(res.text).not.toContain("/api/no/such");
    expect(
      value(samples, "pbx_console_http_requests_total", { route: "/api/extensions/:id/provisioning", status: "4xx" }),
    ).toBe(2);
    // The histogram's buckets are cumulative and end in +Inf = _count.
    const buckets = samples.filter(
      (x) =>
        x.name === "pbx_console_http_request_duration_seconds_bucket" &&
        x.labels.route === "/api/extensions/:id/provisioning",
    );
    expect(buckets.at(-1)?.labels.le).toBe("+Inf");
    for (let i = 1; i < buckets.length; i++)
      expect(buckets[i]?.value).toBeGreaterThanOrEqual(buckets[i - 1]?.value ?? 0);
    expect(buckets.at(-1)?.value).toBe(
      value(samples, "pbx_console_http_request_duration_seconds_count", { route: "/api/extensions/:id/provisioning" }),
    );
  });

  test("counters move after requests", async () => {
    const count = async () =>
      value((await metrics()).samples, "pbx_console_http_requests_total", {
        method: "GET",
        route: "/api/extensions",
        status: "2xx",
      });
    const before = await count();
    for (let i = 0; i < 3; i++) expect((await s.call("GET", "/api/extensions")).status).toBe(200);
    expect(await count()).toBe(before + 3);
    // The scrapes themselves are not API requests.
    expect(await count()).toBe(before + 3);
  });

  test("the console's state: jobs, deploys, AMI, registrations, calls, alerts firing, backup age; process metrics", async () => {
    const db = s.db.$client;
    const t = Date.now();
    db.run(
      "INSERT INTO jobs (kind, target, started_by, started_at, deadline_at, finished_at, state) VALUES ('deploy','all','admin',?,?,?,'succeeded'), ('deploy','all','admin',?,?,NULL,'running'), ('import','trunks','admin',?,?,?,'failed')",
      [t - 5000, t + 60_000, t - 4000, t, t + 60_000, t - 9000, t + 60_000, t - 8000],
    );
    db.run(
      "INSERT INTO alert_events (rule_name, kind, subject, message, state, started_at) VALUES ('t','trunk','trunk:a','down','firing',?), ('t','trunk','trunk:b','down','resolved',?)",
      [t, t],
    );
    const folder = join(s.dir, "backups");
    mkdirSync(folder, { recursive: true });
    const file = join(folder, "pbx-console-20260101T000000Z.db");
    writeFileSync(file, "x");
    utimesSync(file, new Date(t - 3_600_000), new Date(t - 3_600_000));
    const { samples, types } = await metrics();
    expect(value(samples, "pbx_console_jobs", { kind: "deploy", state: "succeeded" })).toBe(1);
    expect(value(samples, "pbx_console_jobs", { kind: "import", state: "failed" })).toBe(1);
    expect(value(samples, "pbx_console_jobs_running")).toBe(1);
    expect(value(samples, "pbx_console_deploys", { state: "succeeded" })).toBe(1);
    expect(value(samples, "pbx_console_deploy_last_success_timestamp_seconds")).toBe((t - 4000) / 1000);
    expect(value(samples, "pbx_console_alerts_firing")).toBe(1);
    // No AMI configured here: down, nothing registered.
    expect(samples.find((x) => x.name === "pbx_console_ami_up")?.value).toBe(0);
    expect(samples.find((x) => x.name === "pbx_console_extensions_registered")?.value).toBe(0);
    expect(samples.find((x) => x.name === "pbx_console_active_calls")?.value).toBe(0);
    const local = value(samples, "pbx_console_backup_age_seconds", { where: "local" });
    expect(local).toBeGreaterThan(3590);
    expect(local).toBeLessThan(3600 + 60 * 60);
    // No upload yet: the offsite age is absent, not zero.
    expect(samples.some((x) => x.name === "pbx_console_backup_age_seconds" && x.labels.where === "offsite")).toBe(
      false,
    );
    expect(samples.find((x) => x.name === "pbx_console_info")?.labels.version).toBe("test");
    // prom-client's process metrics work under Bun; those that read nothing under it are left out.
    expect(value(samples, "process_resident_memory_bytes")).toBeGreaterThan(1_000_000);
    expect(types.has("process_cpu_seconds_total")).toBe(true);
    expect(types.has("nodejs_eventloop_lag_seconds")).toBe(true);
    expect(types.has("nodejs_heap_space_size_total_bytes")).toBe(false);
    expect(types.has("process_heap_bytes")).toBe(false);
  });
});
