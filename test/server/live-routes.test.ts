/**
 * The live PBX over HTTP (GET /api/pbx/status, /api/calls/active, /api/pbx/security, POST /api/calls/hangup)
 * with the real app connected to the fake AMI: through the environment, through manager.conf, and not at all.
 * ADR 0027.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ActiveCallsView, PbxLiveStatus, PbxSecurity } from "../../src/shared/live";
import { startFakeAmi } from "../fakes/ami";
import { signedInServer, startTestServer, type TestServer } from "../helpers/server";

setDefaultTimeout(20_000);

const SECRET = "routes-ami-secret";
const fake = await startFakeAmi({ username: "admin", secret: SECRET });
fake.addEndpoint("1001", { kind: "extension" });
fake.register("1001", { uri: "sip:1001@203.0.113.5:5060", userAgent: "Yealink", viaAddr: "203.0.113.5:5060" });
fake.addEndpoint("1002", { kind: "extension" });
fake.register("1002", { uri: "sip:1002@203.0.113.6:5060", userAgent: "Zoiper", viaAddr: "203.0.113.6:5060" });
fake.addEndpoint("telnyx", { kind: "trunk" });
fake.setTrunkRegistration("telnyx", "Registered");
const amiEnv = { AMI_HOST: fake.host, AMI_PORT: String(fake.port), AMI_USERNAME: "admin", AMI_SECRET: SECRET };

const s = signedInServer({ env: amiEnv });
const others: TestServer[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const o of others) await o.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await fake.stop();
});

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 8_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

const status = async (t: TestServer = s) => (await t.call("GET", "/api/pbx/status")).json as PbxLiveStatus;
const activeCalls = async () => (await s.call("GET", "/api/calls/active")).json as ActiveCallsView;

beforeAll(async () => {
  await until("connected", async () => (await status()).connected);
});

describe("reads", () => {
  test("GET /api/pbx/status: the connection, extensions with contacts and device state, trunks", async () => {
    const res = await s.call("GET", "/api/pbx/status");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ connected: true, reason: null, source: "settings", activeCalls: 0 });
    expect(typeof res.json.since).toBe("string");
    expect(res.json.extensions).toEqual([
      {
        extension: "1001",
        registered: true,
        state: "idle",
        contacts: [
          expect.objectContaining({
            uri: "sip:1001@203.0.113.5:5060",
            address: "203.0.113.5:5060",
            userAgent: "Yealink",
          }),
        ],
      },
      expect.objectContaining({ extension: "1002", registered: true }),
    ]);
    expect(res.json.trunks).toEqual([{ name: "telnyx", registration: "registered", reachable: null }]);
    // No secret of the AMI settings in any answer.
    expect(res.text).not.toContain(SECRET);
  });

  test("GET /api/calls/active and GET /api/pbx/security", async () => {
    const calls = await s.call("GET", "/api/calls/active");
    expect(calls.status).toBe(200);
    expect(calls.json).toMatchObject({ connected: true, calls: [] });
    fake.securityEvent({ type: "InvalidAccountID", account: "9999", address: "203.0.113.99" });
    const sec = await until("the failure counted", async () => {
      const r = (await s.call("GET", "/api/pbx/security")).json as PbxSecurity;
      return r.lastHour.failures === 1 ? r : null;
    });
    expect(sec).toMatchObject({ connected: true, threshold: 20, alerts: [] });
    expect(sec.lastHour.sources).toEqual([
      {
        address: "203.0.113.99",
        failures: 1,
        accounts: [{ account: "9999", failures: 1 }],
        lastAt: expect.any(String),
      },
    ]);
    expect(sec.perHour).toHaveLength(24);
  });
});

describe("POST /api/calls/hangup", () => {
  test("hangs up a call in progress by its channel and records it in the audit", async () => {
    const call = fake.startCall({ from: "1001", to: "1002" });
    await until("the call listed", async () => (await activeCalls()).calls.length === 1);
    const channel = call.channels[0] as string;
    const from = fake.actions.length;
    const res = await s.call("POST", "/api/calls/hangup", { channel });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ id: call.linkedid, channel });
    const sent = await fake.waitForAction("Hangup", { from });
    expect(sent.fields).toMatchObject({ channel, cause: "16" });
    await until("the call gone", async () => (await activeCalls()).calls.length === 0);
    const audit = await s.call("GET", "/api/audit?action=call.hangup");
    expect(audit.json.items[0]).toMatchObject({
      action: "call.hangup",
      outcome: "ok",
      objectType: "call",
      objectId: call.linkedid,
      detail: `Hung up ${channel}`,
    });
  });

  test("404 for a channel not in progress, 400 for a regex or a line break, nothing sent to AMI", async () => {
    const from = fake.actions.length;
    const unknown = await s.call("POST", "/api/calls/hangup", { channel: "PJSIP/1001-0000ffff" });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("No call in progress");
    for (const channel of ["/.*/", "/PJSIP\\/.*/", "PJSIP/1001-1\r\nAction: Originate", "PJSIP/1001-1\nx", ""]) {
      const res = await s.call("POST", "/api/calls/hangup", { channel });
      expect(res.status, JSON.stringify(channel)).toBe(400);
      expect(res.json.error.fields.channel).toBeTruthy();
    }
    expect((await s.call("POST", "/api/calls/hangup", {})).status).toBe(400);
    expect(fake.actions.slice(from).filter((a) => a.name === "Hangup")).toEqual([]);
  });

  test("403 for a viewer, and the call goes on", async () => {
    const created = await s.call("POST", "/api/users", {
      username: "watcher",
      password: "viewer password 123",
      role: "viewer",
    });
    expect(created.status, created.text).toBe(201);
    const admin = s.cookie;
    await s.call("POST", "/api/auth/login", { username: "watcher", password: "viewer password 123" }, { cookie: "" });
    const viewer = s.cookie;
    s.cookie = admin;
    const call = fake.startCall({ from: "1002", to: "1001" });
    await until("the call listed", async () => (await activeCalls()).calls.length === 1);
    // A viewer reads the live views…
    expect((await s.call("GET", "/api/calls/active", undefined, { cookie: viewer })).status).toBe(200);
    // …but may not hang up.
    const res = await s.call("POST", "/api/calls/hangup", { channel: call.channels[0] }, { cookie: viewer });
    expect(res.status).toBe(403);
    expect((await activeCalls()).calls).toHaveLength(1);
    fake.hangup(call.linkedid);
    await until("the call gone", async () => (await activeCalls()).calls.length === 0);
  });
});

describe("where the settings come from", () => {
  test("not configured: every view says unknown with the reason; hang-up is 503", async () => {
    const t = await startTestServer();
    others.push(t);
    await t.setup();
    const st = await status(t);
    expect(st).toMatchObject({ connected: false, source: "none", extensions: [], trunks: [], activeCalls: 0 });
    expect(st.reason).toContain("Asterisk manager not configured");
    expect(st.reason).toContain("absent-manager.conf was not found");
    expect((await t.call("GET", "/api/calls/active")).json).toMatchObject({ connected: false, calls: [] });
    expect((await t.call("GET", "/api/pbx/security")).json).toMatchObject({ connected: false, alerts: [] });
    const res = await t.call("POST", "/api/calls/hangup", { channel: "PJSIP/1001-00000001" });
    expect(res.status).toBe(503);
    expect(res.json.error.message).toContain("not connected");
  });

  test("manager.conf on the host (ASTERISK_MANAGER_CONF) when API Settings say nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pbx-manager-"));
    dirs.push(dir);
    const file = join(dir, "manager.conf");
    writeFileSync(
      file,
      [
        "[general]",
        "enabled = yes",
        `port = ${fake.port}`,
        "bindaddr = 0.0.0.0",
        "",
        "[admin]",
        `secret = ${SECRET}`,
        "deny = 0.0.0.0/0.0.0.0",
        "permit = 127.0.0.1/255.255.255.0",
        "read = system,call,log,verbose,command,agent,user,config,dtmf,reporting,cdr,dialplan,security",
        "write = system,call,log,verbose,command,agent,user,config,dtmf,reporting,cdr,dialplan,originate",
        "",
      ].join("\n"),
    );
    const t = await startTestServer({ ASTERISK_MANAGER_CONF: file });
    others.push(t);
    await t.setup();
    const st = await until("connected through manager.conf", async () => {
      const v = await status(t);
      return v.connected ? v : null;
    });
    expect(st).toMatchObject({ source: "manager.conf", reason: null });
    expect(st.extensions.map((e) => e.extension)).toEqual(["1001", "1002"]);
  });
});
