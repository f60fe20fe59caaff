// Firewall actions against a real, private fail2ban (ADR 0067): bans and unbans read back with fail2ban's own
// client, trusted networks in ignoreip, the refusals (the caller's address, loopback, this server, trusted
// networks), bad input that never reaches fail2ban, fail2ban absent, and the root helper's path.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { checkOp } from "../../src/server/clients/fail2ban";
import { parseIp, parseNetwork } from "../../src/shared/ip";
import { type PrivateFail2ban, startFail2ban } from "../helpers/fail2ban";
import { startTestServer, type TestServer } from "../helpers/server";

let f2b: PrivateFail2ban;
let s: TestServer;
let operatorCookie = "";
/** The address the administrator's requests come from (loopback is a trusted proxy here). */
const ADMIN_IP = "203.0.113.66";
const asAdmin = { "x-forwarded-for": ADMIN_IP };

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  s.call("POST", path, body, { ...asAdmin, ...headers });
const banned = async (jail: string) => (await f2b.client("get", jail, "banip")).out;
const ignored = async (jail: string) => (await f2b.client("get", jail, "ignoreip")).out;
const auditRows = (action: string) =>
  s.db.$client
    .query("SELECT outcome, object_id AS objectId, client_ip AS clientIp, detail FROM audit_log WHERE action = ?")
    .all(action) as { outcome: string; objectId: string | null; clientIp: string | null; detail: string | null }[];

beforeAll(async () => {
  f2b = await startFail2ban(["asterisk", "pbx-console"]);
  s = await startTestServer({ ...f2b.env, TRUSTED_PROXIES: "127.0.0.1,::1" });
  await s.setup();
  const admin = s.cookie;
  await s.call("POST", "/api/users", { username: "op", password: "operator pass 123", role: "operator" });
  await s.call("POST", "/api/auth/login", { username: "op", password: "operator pass 123" }, { cookie: "" });
  operatorCookie = s.cookie;
  s.cookie = admin;
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await f2b?.stop();
});

describe("the jails' real state", () => {
  test("both jails, their ignoreip, no bans, and the caller's own address", async () => {
    const res = await s.call("GET", "/api/firewall", undefined, asAdmin);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ available: true, reason: null, defaultJail: "asterisk", yourAddress: ADMIN_IP });
    expect(res.json.jails.map((j: { name: string; present: boolean }) => [j.name, j.present])).toEqual([
      ["asterisk", true],
      ["pbx-console", true],
    ]);
    expect(res.json.jails[0].banned).toEqual([]);
    expect(res.json.jails[0].ignoreIp).toEqual(["127.0.0.0/8", "::1"]);
    // Everyone may look; the operator's view says where they are too.
    const op = await s.call("GET", "/api/firewall", undefined, { cookie: operatorCookie });
    expect(op.status).toBe(200);
  });
});

describe("ban and unban", () => {
  test("a ban is in the jail (fail2ban's own client says so), then an unban takes it out", async () => {
    const ban = await post("/api/firewall/ban", { address: "198.18.0.9" });
    expect(ban.status, ban.text).toBe(200);
    expect(ban.json).toEqual({ id: "198.18.0.9", jail: "asterisk", changed: true });
    expect(await banned("asterisk")).toContain("198.18.0.9");
    expect(await banned("pbx-console")).not.toContain("198.18.0.9");
    expect(await f2b.actionLog("asterisk")).toContain("+198.18.0.9");
    const state = await s.call("GET", "/api/firewall", undefined, asAdmin);
    const ban0 = state.json.jails[0].banned.find((b: { address: string }) => b.address === "198.18.0.9");
    expect(Date.parse(ban0.expiresAt) - Date.parse(ban0.bannedAt)).toBe(3_600_000);
    // Banned again: fail2ban changes nothing and says so.
    expect((await post("/api/firewall/ban", { address: "198.18.0.9" })).json.changed).toBe(false);

    const unban = await post("/api/firewall/unban", { address: "198.18.0.9" });
    expect(unban.status, unban.text).toBe(200);
    expect(unban.json).toEqual({ id: "198.18.0.9", jail: "asterisk", changed: true });
    expect(await banned("asterisk")).not.toContain("198.18.0.9");
    expect(await f2b.actionLog("asterisk")).toContain("-198.18.0.9");

    const rows = auditRows("firewall.ban");
    expect(rows[0]).toMatchObject({ outcome: "ok", objectId: "198.18.0.9", clientIp: ADMIN_IP });
    expect(rows[0]?.detail).toContain("asterisk");
    expect(auditRows("firewall.unban")[0]).toMatchObject({ outcome: "ok", objectId: "198.18.0.9" });
  });

  test("a named jail, and IPv6 written as fail2ban writes it", async () => {
    const ban = await post("/api/firewall/ban", { address: "2001:DB8:0:0::77", jail: "pbx-console" });
    expect(ban.status, ban.text).toBe(200);
    expect(ban.json.id).toBe("2001:db8::77");
    expect(await banned("pbx-console")).toContain("2001:db8::77");
    expect((await post("/api/firewall/unban", { address: "2001:db8::77", jail: "pbx-console" })).status).toBe(200);
    expect(await banned("pbx-console")).not.toContain("2001:db8::77");
  });

  test("administrators only", async () => {
    const res = await s.call("POST", "/api/firewall/ban", { address: "198.18.0.10" }, { cookie: operatorCookie });
    expect(res.status).toBe(403);
    expect(await banned("asterisk")).not.toContain("198.18.0.10");
  });
});

describe("refusals", () => {
  const refused = async (address: string, headers: Record<string, string> = {}) => {
    const before = await f2b.actionLog("asterisk");
    const res = await post("/api/firewall/ban", { address }, headers);
    expect(res.status, res.text).toBe(409);
    expect(await f2b.actionLog("asterisk")).toBe(before);
    return res.json.error.message as string;
  };

  test("the address the administrator is using", async () => {
    expect(await refused(ADMIN_IP)).toContain("the address you are using");
    expect(auditRows("firewall.ban").some((r) => r.outcome === "failed" && r.objectId === ADMIN_IP)).toBe(true);
  });

  test("loopback and this server's own addresses", async () => {
    expect(await refused("127.0.0.1")).toContain("loopback");
    expect(await refused("::1")).toContain("loopback");
    const own = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal);
    if (own) expect(await refused(own.address)).toContain("this server's own address");
  });

  test("a trusted network: added to every jail's ignoreip, a ban inside it refused, then removed", async () => {
    const trust = await post("/api/firewall/trusted", { network: "198.51.100.7/24", note: "office" });
    expect(trust.status, trust.text).toBe(200);
    expect(trust.json.id).toBe("198.51.100.0/24");
    expect(trust.json.notApplied).toEqual([]);
    expect(trust.json.trusted[0]).toMatchObject({ network: "198.51.100.0/24", note: "office", addedBy: "admin" });
    expect(await ignored("asterisk")).toContain("198.51.100.0/24");
    expect(await ignored("pbx-console")).toContain("198.51.100.0/24");
    expect(await refused("198.51.100.42")).toContain("trusted network 198.51.100.0/24");
    expect(auditRows("firewall.trust")[0]).toMatchObject({ outcome: "ok", objectId: "198.51.100.0/24" });

    // fail2ban forgets runtime ignoreip when it restarts: the console puts its networks back when it reads the jails.
    await f2b.client("set", "asterisk", "delignoreip", "198.51.100.0/24");
    expect(await ignored("asterisk")).not.toContain("198.51.100.0/24");
    const state = await s.call("GET", "/api/firewall", undefined, asAdmin);
    expect(state.json.jails[0].ignoreIp).toContain("198.51.100.0/24");
    expect(await ignored("asterisk")).toContain("198.51.100.0/24");

    const untrust = await s.call("DELETE", "/api/firewall/trusted?network=198.51.100.0%2F24", undefined, asAdmin);
    expect(untrust.status, untrust.text).toBe(200);
    expect(untrust.json.trusted).toEqual([]);
    expect(await ignored("asterisk")).not.toContain("198.51.100.0/24");
    expect(auditRows("firewall.untrust")[0]).toMatchObject({ outcome: "ok", objectId: "198.51.100.0/24" });
    expect((await s.call("DELETE", "/api/firewall/trusted?network=198.51.100.0/24", undefined, asAdmin)).status).toBe(
      404,
    );
    // No longer trusted: the ban goes through.
    expect((await post("/api/firewall/ban", { address: "198.51.100.42" })).status).toBe(200);
    expect((await post("/api/firewall/unban", { address: "198.51.100.42" })).status).toBe(200);
  });

  test("fail2ban's own ignoreip of the jail", async () => {
    await f2b.client("set", "asterisk", "addignoreip", "192.0.2.0/28");
    expect(await refused("192.0.2.5")).toContain("ignoreip of the asterisk jail (192.0.2.0/28)");
    await f2b.client("set", "asterisk", "delignoreip", "192.0.2.0/28");
  });
});

describe("bad input never reaches fail2ban", () => {
  test("400 for what is not an address, a network or a configured jail; fail2ban unchanged", async () => {
    const before = [await banned("asterisk"), await ignored("asterisk"), await f2b.actionLog("asterisk")];
    const bad: [string, unknown][] = [
      ["/api/firewall/ban", { address: "not-an-ip" }],
      ["/api/firewall/ban", { address: "1.2.3.4; rm -rf /" }],
      ["/api/firewall/ban", { address: "1.2.3.4 --help" }],
      ["/api/firewall/ban", { address: "01.2.3.4" }],
      ["/api/firewall/ban", { address: "fe80::1%eth0" }],
      ["/api/firewall/ban", { address: "999.1.1.1" }],
      ["/api/firewall/ban", { address: "203.0.113.9", jail: "my jail" }],
      ["/api/firewall/ban", { address: "203.0.113.9", jail: "asterisk;reboot" }],
      ["/api/firewall/ban", { address: "203.0.113.9", jail: "sshd" }],
      ["/api/firewall/unban", { address: "$(id)" }],
      ["/api/firewall/trusted", { network: "0.0.0.0/0" }],
      ["/api/firewall/trusted", { network: "10.0.0.0/7" }],
      ["/api/firewall/trusted", { network: "2001:db8::/31" }],
      ["/api/firewall/trusted", { network: "198.51.100.0/33" }],
      ["/api/firewall/trusted", { network: "198.51.100.0/24 127.0.0.1" }],
    ];
    for (const [path, body] of bad) {
      const res = await post(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(Object.keys(res.json.error.fields ?? {}).length, res.text).toBeGreaterThan(0);
    }
    expect([await banned("asterisk"), await ignored("asterisk"), await f2b.actionLog("asterisk")]).toEqual(before);
  });

  test("the client itself refuses anything but its fixed operations with checked arguments", async () => {
    const refusedOp = (op: unknown) => expect(checkOp(op)).rejects.toMatchObject({ kind: "refused" });
    await refusedOp({ op: "ban", jail: "asterisk", address: "1.2.3.4; rm -rf /" });
    await refusedOp({ op: "ban", jail: "asterisk", address: "::ffff:1.2.3.4" });
    await refusedOp({ op: "ban", jail: "a b", address: "1.2.3.4" });
    await refusedOp({ op: "ban", jail: "-h", address: "1.2.3.4" });
    await refusedOp({ op: "ban", jail: "asterisk", address: "1.2.3.4", extra: "x" });
    await refusedOp({ op: "trust", jail: "asterisk", network: "1.2.3.4/24" });
    await refusedOp({ op: "set", jail: "asterisk", address: "1.2.3.4" });
    await refusedOp(["status"]);
    expect(await checkOp({ op: "trust", jail: "asterisk", network: "1.2.3.0/24" })).toEqual({
      op: "trust",
      jail: "asterisk",
      network: "1.2.3.0/24",
    });
  });

  test("the shared parser: canonical text, containment", () => {
    expect(parseIp("2001:0DB8:0000:0000:0000:0000:0000:0001")?.text).toBe("2001:db8::1");
    expect(parseIp("::ffff:192.0.2.1")?.text).toBe("192.0.2.1");
    expect(parseIp("1:0:0:1:0:0:0:1")?.text).toBe("1:0:0:1::1");
    expect(parseIp("1::2::3")).toBeNull();
    expect(parseIp("1.2.3")).toBeNull();
    expect(parseNetwork("2001:db8::1/32")?.text).toBe("2001:db8::/32");
    expect(parseNetwork("192.0.2.130/25")?.text).toBe("192.0.2.128/25");
    expect(parseNetwork("192.0.2.1")?.text).toBe("192.0.2.1");
  });
});

describe("fail2ban absent", () => {
  test("not running: the state says why, a ban is a clear 503, a trust is kept and applied later", async () => {
    const down = await startTestServer({ FAIL2BAN_SOCKET: `${f2b.dir}/absent.sock`, FAIL2BAN_JAILS: "asterisk" });
    try {
      await down.setup();
      const state = await down.call("GET", "/api/firewall");
      expect(state.status).toBe(200);
      expect(state.json).toMatchObject({ available: false, defaultJail: null });
      expect(state.json.reason).toContain("fail2ban is not running");
      const ban = await down.call("POST", "/api/firewall/ban", { address: "198.18.0.20" });
      expect(ban.status).toBe(503);
      expect(ban.json.error.message).toContain("fail2ban is not running");
      const trust = await down.call("POST", "/api/firewall/trusted", { network: "198.18.5.0/24" });
      expect(trust.status).toBe(200);
      expect(trust.json.notApplied).toEqual(["asterisk"]);
    } finally {
      await down.stop();
    }
  });

  test("a configured jail fail2ban does not run: listed as such, a ban in it 409", async () => {
    const extra = await startTestServer({ FAIL2BAN_SOCKET: f2b.socket, FAIL2BAN_JAILS: "no-such-jail,asterisk" });
    try {
      await extra.setup();
      const state = await extra.call("GET", "/api/firewall");
      expect(state.json.jails[0]).toMatchObject({ name: "no-such-jail", present: false });
      expect(state.json.defaultJail).toBe("asterisk");
      const ban = await extra.call("POST", "/api/firewall/ban", { address: "198.18.0.22", jail: "no-such-jail" });
      expect(ban.status, ban.text).toBe(409);
      expect(ban.json.error.message).toBe('fail2ban has no jail "no-such-jail"');
    } finally {
      await extra.stop();
    }
  });

  test("not installed: 503 naming it", async () => {
    const none = await startTestServer({ ...f2b.env, FAIL2BAN_CLIENT: "/nonexistent/fail2ban-client" });
    try {
      await none.setup();
      const ban = await none.call("POST", "/api/firewall/ban", { address: "198.18.0.21", jail: "asterisk" });
      expect(ban.status).toBe(503);
      expect(ban.json.error.message).toContain("fail2ban is not installed");
    } finally {
      await none.stop();
    }
  });
});

describe("the root helper", () => {
  // systemd's own socket activation tool, as the installed socket unit runs it (Accept=yes, the connection
  // on standard input and output): one `pbx-console fail2ban-helper` per connection.
  test("the console through the helper: bans and reads back; the helper refuses jails outside FAIL2BAN_JAILS", async () => {
    const helperSock = `${f2b.dir}/helper.sock`;
    const activate = Bun.spawn(
      [
        "systemd-socket-activate",
        "--listen",
        helperSock,
        "--accept",
        "--inetd",
        "-E",
        `FAIL2BAN_SOCKET=${f2b.socket}`,
        "-E",
        "FAIL2BAN_JAILS=asterisk",
        "-E",
        `PATH=${process.env.PATH}`,
        process.execPath,
        "src/server/index.ts",
        "fail2ban-helper",
      ],
      { stdout: "ignore", stderr: "ignore" },
    );
    const via = await startTestServer({ FAIL2BAN_HELPER: helperSock, FAIL2BAN_JAILS: "asterisk,pbx-console" });
    try {
      const end = Date.now() + 10_000;
      while (!existsSync(helperSock)) {
        if (Date.now() > end) throw new Error("the helper socket did not appear");
        await Bun.sleep(20);
      }
      await via.setup();
      const ban = await via.call("POST", "/api/firewall/ban", { address: "198.18.0.30", jail: "asterisk" });
      expect(ban.status, ban.text).toBe(200);
      expect(await banned("asterisk")).toContain("198.18.0.30");
      const state = await via.call("GET", "/api/firewall");
      expect(state.json.available).toBe(true);
      expect(state.json.jails[0].banned.map((b: { address: string }) => b.address)).toContain("198.18.0.30");
      // The console may name pbx-console; the helper's own FAIL2BAN_JAILS does not: refused there.
      expect(state.json.jails[1].error).toContain("FAIL2BAN_JAILS");
      const other = await via.call("POST", "/api/firewall/ban", { address: "198.18.0.31", jail: "pbx-console" });
      expect(other.status).toBe(400);
      expect(await banned("pbx-console")).not.toContain("198.18.0.31");
      expect((await via.call("POST", "/api/firewall/unban", { address: "198.18.0.30", jail: "asterisk" })).status).toBe(
        200,
      );
      expect(await banned("asterisk")).not.toContain("198.18.0.30");
    } finally {
      await via.stop();
      activate.kill();
      await activate.exited;
    }
  }, 60_000);

  test("a helper socket that is not there: 503 naming it", async () => {
    const none = await startTestServer({ FAIL2BAN_HELPER: `${f2b.dir}/no-helper.sock` });
    try {
      await none.setup();
      const ban = await none.call("POST", "/api/firewall/ban", { address: "198.18.0.32", jail: "asterisk" });
      expect(ban.status).toBe(503);
      expect(ban.json.error.message).toContain("fail2ban helper is not there");
    } finally {
      await none.stop();
    }
  });
});

describe("many viewers at once", () => {
  test("ten reads at the same moment share one set of fail2ban-client runs; a read after a ban sees it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pbx-f2b-count-"));
    const log = join(dir, "runs.log");
    const wrapper = join(dir, "fail2ban-client");
    // The real client, with each run counted.
    writeFileSync(wrapper, `#!/bin/sh\necho run >> '${log}'\nexec /usr/bin/fail2ban-client "$@"\n`, { mode: 0o755 });
    const counted = await startTestServer({ ...f2b.env, FAIL2BAN_CLIENT: wrapper });
    const runs = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);
    try {
      await counted.setup();
      const reads = await Promise.all(Array.from({ length: 10 }, () => counted.call("GET", "/api/firewall")));
      expect(reads.map((r) => r.status)).toEqual(Array(10).fill(200));
      // One read: the jail list, then each of the two jails' bans and ignoreip.
      console.log(`10 simultaneous reads of the attack view: ${runs()} fail2ban-client runs`);
      expect(runs()).toBeLessThanOrEqual(5);
      const ban = await counted.call("POST", "/api/firewall/ban", { address: "198.51.100.77", jail: "asterisk" });
      expect(ban.status, ban.text).toBe(200);
      const after = await counted.call("GET", "/api/firewall");
      expect(after.json.jails[0].banned.map((b: { address: string }) => b.address)).toContain("198.51.100.77");
      expect((await counted.call("POST", "/api/firewall/unban", { address: "198.51.100.77" })).status).toBe(200);
    } finally {
      await counted.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
