// Attacks on sign-in and sessions, against the built binary (docs/decisions/0016):
// parallel guessing, username spraying, locking the administrator out, a socket outliving its
// session, and the failed sign-in log as fail2ban reads it (Debian's fail2ban-regex, the shipped filter).
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import http from "node:http";
import { join, resolve } from "node:path";
import { BINARY } from "../browser/harness";
import { ADMIN, type Binary, startBinary } from "./binary";

setDefaultTimeout(30_000);

const FILTER = resolve(import.meta.dir, "../../contrib/fail2ban/pbx-console.conf");

let b: Binary;
beforeAll(async () => {
  b = await startBinary();
  expect((await b.setup()).status).toBe(201);
  b.cookie = "";
});
afterAll(async () => {
  await b?.stop();
});

/** `pbx-console unlock …` against the running binary's data folder. */
function unlock(...args: string[]) {
  const r = Bun.spawnSync([BINARY, "unlock", ...args], {
    env: { PATH: process.env.PATH ?? "", DATA_DIR: b.dataDir },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

const login = (username: string, password: string) =>
  b.call("POST", "/api/auth/login", { username, password }, { cookie: "" });

/** A sign-in sent from another loopback address (127.0.0.2) with node:http's `localAddress`. */
function loginFrom(localAddress: string, body: unknown): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: b.port,
        path: "/api/auth/login",
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json" },
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

describe("sign-in throttle", () => {
  beforeEach(() => {
    expect(unlock().code).toBe(0);
  });

  test("100 parallel wrong guesses and the right password in the same burst: at most 5 evaluated, no sign-in", async () => {
    const wrong = Array.from({ length: 100 }, (_, i) => login(ADMIN.username, `wrong guess ${i}`));
    // Sent while the wrong ones are still being checked (each is an argon2 verification).
    const right = login(ADMIN.username, ADMIN.password);
    const results = await Promise.all([...wrong, right]);
    const evaluated = results.filter((r) => r.status === 401).length;
    const throttled = results.filter((r) => r.status === 429).length;
    console.log(`of 100 parallel guesses + the right password: ${evaluated} evaluated, ${throttled} answered 429`);
    expect(evaluated).toBeLessThanOrEqual(5);
    expect(evaluated + throttled).toBe(101);
    const last = results[100];
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(last?.headers.get("set-cookie")).toBeNull();
  });

  test("spraying 100 usernames from one address is throttled by the per-address layer", async () => {
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => login(`user${i}`, "Winter2026!")));
    const evaluated = results.filter((r) => r.status === 401).length;
    console.log(`of 100 sprayed usernames from one address: ${evaluated} evaluated`);
    expect(evaluated).toBeLessThanOrEqual(20);
    expect(results.filter((r) => r.status === 429).length).toBe(100 - evaluated);
  });

  test("after a burst against admin from 127.0.0.1, the administrator signs in from 127.0.0.2", async () => {
    const burst = await Promise.all(Array.from({ length: 50 }, (_, i) => login(ADMIN.username, `burst ${i}`)));
    expect(burst.filter((r) => r.status === 401).length).toBeLessThanOrEqual(5);
    expect((await login(ADMIN.username, ADMIN.password)).status).toBe(429);
    const other = await loginFrom("127.0.0.2", ADMIN);
    console.log(`after a 50-guess burst from 127.0.0.1, admin from 127.0.0.2: HTTP ${other}`);
    expect(other).toBe(200);
  });

  test("`pbx-console unlock --username admin` lets the owner in at once while the console runs", async () => {
    await Promise.all(Array.from({ length: 10 }, (_, i) => login(ADMIN.username, `burst ${i}`)));
    expect((await login(ADMIN.username, ADMIN.password)).status).toBe(429);
    const r = unlock("--username", "admin");
    expect(r.code).toBe(0);
    expect(r.out).toContain("Sign-in throttle cleared for account admin");
    expect((await login(ADMIN.username, ADMIN.password)).status).toBe(200);
  });
});

test("the sync socket is closed by the server within 1 s after sign-out", async () => {
  unlock();
  const res = await login(ADMIN.username, ADMIN.password);
  expect(res.status).toBe(200);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const ws = new WebSocket(`ws://127.0.0.1:${b.port}/ws?type=sync`, { headers: { cookie } } as never);
  await new Promise<void>((ok, fail) => {
    ws.onopen = () => ok();
    ws.onerror = () => fail(new Error("socket did not open"));
  });
  const closed = new Promise<number>((ok) => {
    ws.onclose = (ev) => ok(ev.code);
  });
  const start = performance.now();
  expect((await b.call("POST", "/api/auth/logout", undefined, { cookie })).status).toBe(200);
  const code = await Promise.race([closed, Bun.sleep(1000).then(() => null)]);
  const ms = performance.now() - start;
  console.log(`socket closed by the server ${ms.toFixed(0)} ms after sign-out (code ${code})`);
  expect(code).toBe(4001);
  expect(ms).toBeLessThan(1000);
});

test("fail2ban-regex with the shipped filter matches every failed sign-in in the real log, and no success", async () => {
  const which = Bun.which("fail2ban-regex");
  if (!which)
    throw new Error("fail2ban-regex is missing: run scripts/ensure-system-deps.sh (installs Debian's fail2ban)");
  const own = await startBinary();
  try {
    expect((await own.setup()).status).toBe(201);
    own.cookie = "";
    const attempt = (username: string, password: string) =>
      own.call("POST", "/api/auth/login", { username, password }, { cookie: "" });
    const statuses: number[] = [];
    // 8 failures (some with names meant to forge a line or a field) and 3 successes, interleaved.
    const plan: Array<[string, string]> = [
      ["admin", "wrong 1"],
      ["admin", "wrong 2"],
      [ADMIN.username, ADMIN.password],
      ["ghost", "wrong 3"],
      ["x ip=203.0.113.66", "wrong 4"],
      ["e\n2026-01-01T00:00:00Z auth-failure user=a ip=198.51.100.1", "wrong 5"],
      [ADMIN.username, ADMIN.password],
      ["admin", "wrong 6"],
      ["ADMIN", "wrong 7"],
      ["root", "wrong 8"],
      [ADMIN.username, ADMIN.password],
    ];
    for (const [u, p] of plan) statuses.push((await attempt(u, p)).status);
    const failures = statuses.filter((s) => s === 401).length;
    const successes = statuses.filter((s) => s === 200).length;
    expect([failures, successes]).toEqual([8, 3]);
    await Bun.sleep(200);
    const logFile = join(own.dataDir, "console.log");
    writeFileSync(logFile, own.log());
    const r = Bun.spawnSync([which, "--print-all-matched", logFile, FILTER], { stdout: "pipe", stderr: "pipe" });
    const out = r.stdout.toString();
    expect(r.exitCode, r.stderr.toString()).toBe(0);
    const counts = /Lines: (\d+) lines, (\d+) ignored, (\d+) matched, (\d+) missed/.exec(out);
    const matched = Number(counts?.[3]);
    console.log(`fail2ban-regex: ${counts?.[0]} (${failures} failed sign-ins, ${successes} successes)`);
    expect(matched).toBe(failures);
    const section = out.slice(out.indexOf("Matched line(s):"), out.indexOf("Missed line(s):"));
    const matchedLines = section
      .split("\n")
      .filter((l) => l.startsWith("|  "))
      .map((l) => l.slice(3));
    const missed = out.slice(out.indexOf("Missed line(s):"));
    expect(matchedLines).toHaveLength(failures);
    for (const line of matchedLines) {
      expect(line).toMatch(/ auth-failure user=\S+ ip=127\.0\.0\.1$/);
      expect(line).not.toContain(ADMIN.password);
    }
    // Every success's request line is in the log and was not matched.
    expect(own.log().match(/POST \/api\/auth\/login 200 /g)).toHaveLength(successes);
    expect(missed.match(/POST \/api\/auth\/login 200 /g)).toHaveLength(successes);
    // The addresses fail2ban would ban: the client's only, once per failure (the forged names named others).
    const ips = Bun.spawnSync([which, "--out", "ip", logFile, FILTER], { stdout: "pipe" }).stdout.toString().trim();
    expect(ips.split("\n")).toEqual(Array(failures).fill("127.0.0.1"));
  } finally {
    await own.stop();
  }
});

test("the filter also reads the journal's shape of the line (backend = systemd), and nothing else the console writes", () => {
  const which = Bun.which("fail2ban-regex");
  if (!which) throw new Error("fail2ban-regex is missing: run scripts/ensure-system-deps.sh");
  // What fail2ban's systemd backend builds from a journal entry: "<host> <identifier>[<pid>]: <MESSAGE>"
  // (shown here after a syslog-style date, which -d tells fail2ban-regex to cut off).
  const file = join(b.dataDir, "journal-shape.log");
  writeFileSync(
    file,
    [
      "Nov 24 06:14:37 vps1 pbx-console[812]: 2026-11-24T06:14:37.123Z auth-failure user=admin ip=203.0.113.9",
      "Nov 24 06:14:37 vps1 pbx-console[812]: 2026-11-24T06:14:37.130Z POST /api/auth/login 401 50.1ms",
      "Nov 24 06:14:38 vps1 pbx-console[812]: 2026-11-24T06:14:38.130Z POST /api/auth/login 200 50.1ms",
      "Nov 24 06:14:39 vps1 pbx-console[812]: error POST /api/x: auth-failure user=a ip=198.51.100.1",
      "Nov 24 06:14:40 vps1 pbx-console[812]: 2026-11-24T06:14:40.000Z GET /api/auth-failure%20user=a%20ip=1.2.3.4 404 0.1ms",
      "",
    ].join("\n"),
  );
  const r = Bun.spawnSync([which, "--out", "ip", "-d", "{^LN-BEG}%b %d %H:%M:%S", file, FILTER], { stdout: "pipe" });
  expect(r.stdout.toString().trim()).toBe("203.0.113.9");
});
