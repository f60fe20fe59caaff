// The sign-in throttle as a domain unit (docs/decisions/0016), with a clock the test moves. The
// cross-address cases live here: over HTTP every test client comes from 127.0.0.1.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { authFailureLine, logSafeAddress, logSafeName } from "../../src/server/accounts/auth-log";
import { addressKey, backoffMs, IN_FLIGHT_MAX_MS, LAYERS, LoginThrottle } from "../../src/server/accounts/throttle";
import { unlockCommand } from "../../src/server/cli/unlock";

let dir: string;
let db: Db;
let clock: number;
let throttle: LoginThrottle;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pbx-throttle-"));
  db = openDatabase(join(dir, "pbx-console.db"));
  clock = Date.UTC(2026, 0, 1);
  throttle = new LoginThrottle(db, () => clock);
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `n` attempts that all fail (reserved, checked, answered wrong); returns how many were let through. */
function failures(n: number, username: string, ip: string): number {
  let evaluated = 0;
  for (let i = 0; i < n; i++) {
    const attempt = throttle.begin(username, ip);
    if (!attempt.ok) continue;
    evaluated++;
    throttle.finish(attempt.ticket);
  }
  return evaluated;
}

/** `n` attempts reserved whose checks have not answered yet. */
function inFlight(n: number, username: string, ip: string) {
  return Array.from({ length: n }, () => {
    const attempt = throttle.begin(username, ip);
    if (!attempt.ok) throw new Error("refused");
    return attempt.ticket;
  });
}

describe("back-off", () => {
  test("no delay below the threshold, then 1 s doubling up to the cap", () => {
    const pair = LAYERS.pair;
    expect(backoffMs(pair, 4)).toBe(0);
    expect(backoffMs(pair, 5)).toBe(1000);
    expect(backoffMs(pair, 6)).toBe(2000);
    expect(backoffMs(pair, 10)).toBe(32_000);
    expect(backoffMs(pair, 15)).toBe(15 * 60 * 1000);
    expect(backoffMs(pair, 10_000)).toBe(15 * 60 * 1000);
    expect(backoffMs(LAYERS.account, 40)).toBe(60 * 1000);
  });

  test("in-flight attempts count: a burst of 100 reserves 5 slots, the 6th waits 1 s", () => {
    expect(failures(100, "admin", "10.0.0.1")).toBe(5);
    const refused = throttle.begin("admin", "10.0.0.1");
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 1, layer: "pair" });
    clock += 1000;
    expect(throttle.begin("admin", "10.0.0.1").ok).toBe(true);
    const next = throttle.begin("admin", "10.0.0.1");
    expect(next.ok ? 0 : next.retryAfterSeconds).toBe(2);
  });

  test("a success gives its slot back and clears the account's layers", () => {
    const a = throttle.begin("admin", "10.0.0.1");
    failures(3, "admin", "10.0.0.1");
    if (!a.ok) throw new Error("first attempt refused");
    throttle.succeed(a.ticket);
    // 3 failures remained on the pair before the success; now 5 more are allowed.
    expect(failures(10, "admin", "10.0.0.1")).toBe(5);
  });

  test("failures are forgotten a day after the last one", () => {
    failures(5, "admin", "10.0.0.1");
    expect(throttle.begin("admin", "10.0.0.1").ok).toBe(false);
    clock += 24 * 60 * 60 * 1000;
    expect(throttle.begin("admin", "10.0.0.1").ok).toBe(true);
  });

  test("usernames are compared case-insensitively", () => {
    failures(5, "Admin", "10.0.0.1");
    expect(throttle.begin("ADMIN", "10.0.0.1").ok).toBe(false);
  });
});

describe("a check that takes long (a loaded server)", () => {
  test("five attempts still being checked pause the key however long the checks take", () => {
    const checking = inFlight(5, "admin", "10.0.0.1");
    clock += 30_000;
    expect(throttle.begin("admin", "10.0.0.1")).toEqual({ ok: false, retryAfterSeconds: 1, layer: "pair" });
    // The answers go out now: the pause runs a second from them, not from the requests 30 s ago.
    for (const t of checking) throttle.finish(t);
    clock += 999;
    expect(throttle.begin("admin", "10.0.0.1").ok).toBe(false);
    clock += 1;
    expect(throttle.begin("admin", "10.0.0.1").ok).toBe(true);
  });

  test("below the threshold, attempts in flight pause nothing", () => {
    inFlight(4, "admin", "10.0.0.1");
    expect(throttle.begin("admin", "10.0.0.1").ok).toBe(true);
  });

  test("finish() after succeed() changes nothing; a second finish() neither", () => {
    const [a] = inFlight(1, "admin", "10.0.0.1");
    if (!a) throw new Error("no ticket");
    throttle.succeed(a);
    throttle.finish(a);
    throttle.finish(a);
    expect(failures(10, "admin", "10.0.0.1")).toBe(5);
  });

  test("an attempt never finished stops pausing after a minute; unlock clears a key whose checks are running", () => {
    inFlight(5, "admin", "10.0.0.1");
    clock += IN_FLIGHT_MAX_MS - 1;
    expect(throttle.begin("admin", "10.0.0.1").ok).toBe(false);
    clock += 1;
    expect(throttle.begin("admin", "10.0.0.1").ok).toBe(true);
    inFlight(1, "root", "10.0.0.2");
    failures(4, "root", "10.0.0.2");
    expect(throttle.begin("root", "10.0.0.2").ok).toBe(false);
    throttle.clear({ username: "root" });
    expect(throttle.begin("root", "10.0.0.2").ok).toBe(true);
  });
});

describe("layers", () => {
  test("a burst against admin from one address does not keep the administrator out from another", () => {
    const evaluated = failures(100, "admin", "203.0.113.9");
    expect(evaluated).toBe(5);
    const owner = throttle.begin("admin", "198.51.100.7");
    expect(owner.ok).toBe(true);
    console.log(`burst of 100 against admin from one address: ${evaluated} evaluated; admin from another: allowed`);
  });

  test("spraying usernames from one address is throttled by the address layer", () => {
    let evaluated = 0;
    for (let i = 0; i < 100; i++) if (throttle.begin(`user${i}`, "203.0.113.9").ok) evaluated++;
    expect(evaluated).toBe(LAYERS.address.threshold);
    // Another address is not affected.
    expect(throttle.begin("user0", "198.51.100.7").ok).toBe(true);
    console.log(`spraying 100 usernames from one address: ${evaluated} evaluated`);
  });

  test("a distributed attack on one account is slowed by the account layer; its owner waits at most a minute", () => {
    let evaluated = 0;
    for (let a = 1; a <= 40; a++) evaluated += failures(5, "admin", `10.1.0.${a}`);
    expect(evaluated).toBeLessThanOrEqual(LAYERS.account.threshold + 1);
    const owner = throttle.begin("admin", "198.51.100.7");
    expect(owner.ok).toBe(false);
    if (!owner.ok) {
      expect(owner.layer).toBe("account");
      expect(owner.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
    clock += 60 * 1000;
    expect(throttle.begin("admin", "198.51.100.7").ok).toBe(true);
    console.log(`40 addresses × 5 guesses at admin: ${evaluated} evaluated; the owner waited ≤ 60 s`);
  });

  test("IPv6 addresses count by their /64; IPv4-mapped addresses as IPv4", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2::ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey(null)).toBe("unknown");
    failures(5, "admin", "2001:db8:1:2::1");
    expect(throttle.begin("admin", "2001:db8:1:2::9999").ok).toBe(false);
    expect(throttle.begin("admin", "2001:db8:1:3::1").ok).toBe(true);
  });
});

describe("pbx-console unlock", () => {
  const run = (argv: string[]) => unlockCommand(() => openDatabase(join(dir, "pbx-console.db")), argv);

  test("--username clears that account at every address; other accounts stay throttled", () => {
    failures(5, "admin", "10.0.0.1");
    failures(5, "admin", "10.0.0.2");
    failures(5, "other", "10.0.0.3");
    expect(run(["--username", "ADMIN"])).toBe(0);
    expect(throttle.begin("admin", "10.0.0.1").ok).toBe(true);
    expect(throttle.begin("admin", "10.0.0.2").ok).toBe(true);
    expect(throttle.begin("other", "10.0.0.3").ok).toBe(false);
  });

  test("--address clears an address (spraying); no option clears everything", () => {
    for (let i = 0; i < 20; i++) throttle.begin(`u${i}`, "10.0.0.9");
    failures(5, "other", "10.0.0.3");
    expect(throttle.begin("fresh", "10.0.0.9").ok).toBe(false);
    expect(run(["--address", "10.0.0.9"])).toBe(0);
    expect(throttle.begin("fresh", "10.0.0.9").ok).toBe(true);
    expect(throttle.begin("other", "10.0.0.3").ok).toBe(false);
    expect(run([])).toBe(0);
    expect(throttle.begin("other", "10.0.0.3").ok).toBe(true);
  });

  test("bad arguments are a usage error", () => {
    expect(run(["--address", "not an ip"])).toBe(2);
    expect(run(["--bogus"])).toBe(2);
  });
});

describe("the failed sign-in line", () => {
  test("one fixed format with the client address", () => {
    expect(authFailureLine("admin", "203.0.113.9", new Date("2026-01-01T00:00:00Z"))).toBe(
      "2026-01-01T00:00:00.000Z auth-failure user=admin ip=203.0.113.9",
    );
    expect(logSafeAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(logSafeAddress("2001:db8::1")).toBe("2001:db8::1");
    expect(logSafeAddress(null)).toBe("unknown");
    expect(logSafeAddress("x y")).toBe("unknown");
  });

  test("odd usernames cannot forge a field or a line", () => {
    const forged = "x ip=1.2.3.4\n2026-01-01T00:00:00.000Z auth-failure user=admin ip=9.9.9.9";
    const line = authFailureLine(forged, "203.0.113.9");
    expect(line.split("\n")).toHaveLength(1);
    expect(line.match(/ ip=/g)).toHaveLength(1);
    expect(line.endsWith(" ip=203.0.113.9")).toBe(true);
    expect(logSafeName("a b=c%")).toBe("a%20b%3Dc%25");
    expect(logSafeName("é")).toBe("%C3%A9");
    expect(logSafeName("ok.name@x-y_z")).toBe("ok.name@x-y_z");
  });
});
