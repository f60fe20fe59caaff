/**
 * The live monitor (src/server/live/monitor.ts) against the fake AMI (test/fakes/ami.ts): the state it
 * builds from the lists after login, what the events change, calls and hang-up, the attack view, and
 * the faults (not configured, AMI down and back, list failures, floods). ADR 0027.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { trunks } from "../../src/db/schema";
import { loadConfig } from "../../src/server/config";
import { Invalid, NotFound, Unavailable } from "../../src/server/core/errors";
import { CredentialStore } from "../../src/server/integrations/credentials";
import { durationSeconds } from "../../src/server/live/calls";
import { deviceStateOf } from "../../src/server/live/endpoints";
import { LiveMonitor, type LiveMonitorOptions } from "../../src/server/live/monitor";
import { remoteAddressOf } from "../../src/server/live/security";
import { SecretBox } from "../../src/server/secret-box";
import { SECURITY_ALERT_THRESHOLD } from "../../src/shared/live";
import type { WsEvent, WsEventType } from "../../src/shared/ws-events";
import { amiMessage, type FakeAmi, startFakeAmi } from "../fakes/ami";

const SECRET = "fake-ami-secret";
/** Short timings: the settings re-read every 50 ms, reconnects within 100 ms, lists retried after 200 ms. */
const FAST: LiveMonitorOptions = {
  settingsCheckMs: 50,
  listRetryMs: 200,
  historyDelayMs: 300,
  client: { backoff: { minMs: 20, maxMs: 100 }, connectTimeoutMs: 2_000, actionTimeoutMs: 2_000, pingIntervalMs: 0 },
};

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function fakeAmi(now?: () => number): Promise<FakeAmi> {
  const fake = await startFakeAmi({ username: "admin", secret: SECRET, now });
  cleanup.push(() => fake.stop());
  return fake;
}

const amiEnv = (fake: FakeAmi, secret = SECRET) => ({
  AMI_HOST: fake.host,
  AMI_PORT: String(fake.port),
  AMI_USERNAME: "admin",
  AMI_SECRET: secret,
});

/** A monitor over a real database and credential store; `events` records what it publishes (with the time). */
function monitorWith(env: Record<string, string>, opts: LiveMonitorOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), "pbx-live-"));
  const managerConf = join(dir, "manager.conf");
  const config = loadConfig(
    {
      PORT: "0",
      DATA_DIR: dir,
      LOG_LEVEL: "silent",
      ASTERISK_MANAGER_CONF: managerConf,
      FREEPBX_CONF: join(dir, "freepbx.conf"),
      ...env,
    },
    false,
  );
  const db: Db = openDatabase(join(dir, "test.db"));
  const credentials = new CredentialStore(db, SecretBox.open(dir), config.env);
  const events: (WsEvent & { at: number })[] = [];
  const monitor = new LiveMonitor(
    { db, config, credentials, now: Date.now, events: { publish: (e) => events.push({ ...e, at: Date.now() }) } },
    { ...FAST, ...opts },
  );
  cleanup.push(async () => {
    await monitor.stop();
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const count = (type: WsEventType) => events.filter((e) => e.type === type).length;
  return { monitor, events, count, db, managerConf };
}

/** Polls until `fn` returns something truthy (the monitor works on socket events). */
async function until<T>(what: string, fn: () => T | null | undefined | false, timeoutMs = 3_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

const connected = (m: LiveMonitor) => until("the monitor to connect", () => m.status().connected);
const extension = (m: LiveMonitor, n: string) => m.status().extensions.find((e) => e.extension === n);
const trunk = (m: LiveMonitor, n: string) => m.status().trunks.find((t) => t.name === n);

/** Two registered phones, one not registered, a registering trunk with a qualified contact and an IP trunk. */
function seed(fake: FakeAmi) {
  fake.addEndpoint("1001", { kind: "extension" });
  fake.register("1001", {
    uri: "sip:1001@203.0.113.5:5060;ob",
    userAgent: "Yealink SIP-T46U 108.86.0.20",
    viaAddr: "203.0.113.5:5060",
    roundtripUsec: 23_456,
  });
  fake.addEndpoint("1002", { kind: "extension" });
  fake.addEndpoint("1003", { kind: "extension" });
  fake.register("1003", { uri: "sip:1003@198.51.100.7:5062", userAgent: "Zoiper 5", viaAddr: "198.51.100.7:5062" });
  fake.addEndpoint("telnyx", { kind: "trunk" });
  fake.setTrunkRegistration("telnyx", "Registered", {
    serverUri: "sip:sip.telnyx.com",
    clientUri: "sip:acme@sip.telnyx.com",
  });
  fake.register("telnyx", { uri: "sip:sip.telnyx.com:5060" });
  fake.addEndpoint("provider", { kind: "trunk" });
}

describe("mappings", () => {
  test("device states, durations and remote addresses in the console's terms", () => {
    expect(
      ["Not in use", "In use", "Busy", "Ringing", "Ring+Inuse", "On Hold", "Unavailable", "Invalid", "", "odd"].map(
        deviceStateOf,
      ),
    ).toEqual([
      "idle",
      "in-use",
      "busy",
      "ringing",
      "ringing",
      "on-hold",
      "unavailable",
      "unknown",
      "unknown",
      "unknown",
    ]);
    expect(
      ["NOT_INUSE", "INUSE", "BUSY", "RINGING", "RINGINUSE", "ONHOLD", "UNAVAILABLE", "INVALID", "UNKNOWN"].map(
        deviceStateOf,
      ),
    ).toEqual(["idle", "in-use", "busy", "ringing", "ringing", "on-hold", "unavailable", "unknown", "unknown"]);
    expect(durationSeconds("00:01:05")).toBe(65);
    expect(durationSeconds("120:00:00")).toBe(432_000);
    expect(durationSeconds("1:99:00")).toBeNull();
    expect(remoteAddressOf("IPV4/UDP/203.0.113.9/5060")).toBe("203.0.113.9");
    expect(remoteAddressOf("IPV6/UDP/2001:db8::1/5060")).toBe("2001:db8::1");
    expect(remoteAddressOf("IPV4/UDP/<script>/5060")).toBeNull();
    expect(remoteAddressOf("")).toBeNull();
  });
});

describe("state from the lists after login", () => {
  test("extensions, trunks and a call already in progress", async () => {
    let shift = 0;
    const fake = await fakeAmi(() => Date.now() + shift);
    seed(fake);
    fake.addEndpoint("2000", { kind: "trunk" });
    shift = -65_000;
    const call = fake.startCall({ from: "1001", to: "1003", fromName: "Alice", toName: "Bob" });
    fake.answer(call.linkedid);
    shift = 0;
    const { monitor, db } = monitorWith(amiEnv(fake));
    // A console trunk with an all-digit name is a trunk, not an extension.
    db.insert(trunks).values({ name: "2000", type: "sip", host: "sip.example.com" }).run();
    monitor.start();
    await connected(monitor);

    const status = monitor.status();
    expect(status).toMatchObject({ connected: true, reason: null, source: "settings", activeCalls: 1 });
    expect(status.extensions.map((e) => [e.extension, e.registered, e.state])).toEqual([
      ["1001", true, "in-use"],
      ["1002", false, "unavailable"],
      ["1003", true, "in-use"],
    ]);
    const [contact] = extension(monitor, "1001")?.contacts ?? [];
    expect(contact).toMatchObject({
      uri: "sip:1001@203.0.113.5:5060;ob",
      status: "reachable",
      address: "203.0.113.5:5060",
      userAgent: "Yealink SIP-T46U 108.86.0.20",
      roundtripMs: 23.5,
    });
    expect(Date.parse(contact?.expiresAt ?? "")).toBeGreaterThan(Date.now());
    expect(status.trunks).toEqual([
      { name: "2000", registration: "not-registering", reachable: null },
      { name: "provider", registration: "not-registering", reachable: null },
      { name: "telnyx", registration: "registered", reachable: true },
    ]);

    const { calls } = monitor.activeCalls();
    expect(calls).toHaveLength(1);
    const c = calls[0];
    expect(c).toMatchObject({
      id: call.linkedid,
      caller: { number: "1001", name: "Alice" },
      callee: { number: "1003", name: "Bob" },
      trunk: null,
      direction: "internal",
      state: "up",
    });
    expect(c?.channels.map((ch) => ch.channel)).toEqual(call.channels);
    // startedAt from CoreShowChannel's Duration (65 s), answeredAt known.
    expect(Math.abs(Date.now() - 65_000 - Date.parse(c?.startedAt ?? ""))).toBeLessThan(2_500);
    expect(c?.answeredAt).not.toBeNull();
  });
});

describe("events change the state", () => {
  test("a phone registering flips registered with its contact; unregistering flips it back", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor, count } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    expect(extension(monitor, "1002")).toMatchObject({ registered: false, state: "unavailable", contacts: [] });
    const before = count("pbx-status-updated");

    fake.register("1002", {
      uri: "sip:1002@192.0.2.44:5080",
      userAgent: "Grandstream GXP2170",
      viaAddr: "192.0.2.44:5080",
      roundtripUsec: 8_000,
    });
    // Asterisk's ContactStatus names no address: registered shows first, the details follow from the
    // endpoint's read.
    const e = await until("1002 registered with its contact's details", () => {
      const x = extension(monitor, "1002");
      return x?.registered && x.contacts[0]?.address ? x : null;
    });
    expect(e).toMatchObject({ state: "idle" });
    expect(e.contacts).toEqual([
      expect.objectContaining({
        uri: "sip:1002@192.0.2.44:5080",
        status: "reachable",
        address: "192.0.2.44:5080",
        userAgent: "Grandstream GXP2170",
        roundtripMs: 8,
      }),
    ]);
    await until("pbx-status-updated", () => count("pbx-status-updated") > before);

    fake.unregister("1002");
    await until("1002 unregistered", () => extension(monitor, "1002")?.registered === false);
    expect(extension(monitor, "1002")).toMatchObject({ state: "unavailable", contacts: [] });
  });

  test("a device state change shows on the extension", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    for (const [ami, console] of [
      ["RINGING", "ringing"],
      ["ONHOLD", "on-hold"],
      ["BUSY", "busy"],
      ["INVALID", "unknown"],
      ["NOT_INUSE", "idle"],
    ] as const) {
      fake.setDeviceState("1001", ami);
      await until(`1001 ${console}`, () => extension(monitor, "1001")?.state === console);
    }
  });

  test("trunk registration and reachability follow Registry and ContactStatus", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    fake.setTrunkRegistration("telnyx", "Rejected", { cause: "403 Forbidden" });
    await until("rejected", () => trunk(monitor, "telnyx")?.registration === "rejected");
    fake.setContactStatus("telnyx", "Unreachable");
    await until("unreachable", () => trunk(monitor, "telnyx")?.reachable === false);
    fake.setTrunkRegistration("telnyx", "Registered");
    fake.setContactStatus("telnyx", "Reachable");
    await until("registered again", () => {
      const t = trunk(monitor, "telnyx");
      return t?.registration === "registered" && t.reachable === true;
    });
  });

  test("a trunk registration added after login is read again on its first Registry event", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    expect(trunk(monitor, "voipms")).toBeUndefined();
    const from = fake.actions.length;
    fake.addEndpoint("voipms", { kind: "trunk" });
    fake.setTrunkRegistration("voipms", "Registered", {
      serverUri: "sip:chicago.voip.ms",
      clientUri: "sip:100200@chicago.voip.ms",
    });
    await until("the new trunk registered", () => trunk(monitor, "voipms")?.registration === "registered");
    const reads = fake.actions.slice(from).filter((a) => a.name === "PJSIPShowRegistrationsOutbound");
    expect(reads).toHaveLength(1);
  });
});

describe("active calls", () => {
  test("a call appears ringing, is answered, and is gone after the PBX hangs up; the history event follows", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor, events, count } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);

    const inbound = fake.startCall({ from: "+15551230000", to: "1001", trunk: "telnyx", fromName: "Caller" });
    const ringing = await until("the inbound call", () => monitor.activeCalls().calls[0]);
    expect(ringing).toMatchObject({
      id: inbound.linkedid,
      caller: { number: "+15551230000", name: "Caller" },
      callee: { number: "1001" },
      trunk: "telnyx",
      direction: "inbound",
      state: "ringing",
      answeredAt: null,
    });
    expect(monitor.status().activeCalls).toBe(1);

    fake.answer(inbound.linkedid);
    const up = await until("answered", () => monitor.activeCalls().calls.find((c) => c.state === "up"));
    expect(up.answeredAt).not.toBeNull();
    expect(up.channels.every((ch) => ch.state === "Up")).toBe(true);

    const outbound = fake.startCall({ from: "1003", to: "+15559870000", trunk: "telnyx" });
    const out = await until("the outbound call", () =>
      monitor.activeCalls().calls.find((c) => c.id === outbound.linkedid),
    );
    expect(out).toMatchObject({ direction: "outbound", trunk: "telnyx", caller: { number: "1003" } });
    expect(out.callee.number).toBe("+15559870000");

    const history = count("call-history-updated");
    const hungUpAt = Date.now();
    fake.hangup(inbound.linkedid);
    await until("the inbound call gone", () => monitor.activeCalls().calls.length === 1);
    expect(count("calls-updated")).toBeGreaterThan(0);
    // Published once Asterisk has had time to write the record (historyDelayMs 300 here).
    const event = await until("call-history-updated", () =>
      count("call-history-updated") > history ? events.findLast((e) => e.type === "call-history-updated") : null,
    );
    expect(event.at - hungUpAt).toBeGreaterThanOrEqual(250);
    fake.hangup(outbound.linkedid);
    await until("no calls", () => monitor.status().activeCalls === 0);
  });

  test("hangup() ends a listed channel by its exact name with cause 16; unknown, regex and ended channels are refused", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor, count } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);

    const call = fake.startCall({ from: "1001", to: "1003" });
    const channel = call.channels[1] as string;
    await until("the call", () => monitor.activeCalls().calls.length === 1);
    const published = count("calls-updated");
    const from = fake.actions.length;
    expect(await monitor.hangup(channel)).toEqual({ id: call.linkedid, channel });
    const sent = await fake.waitForAction("Hangup", { from });
    expect(sent.fields).toMatchObject({ channel, cause: "16" });
    // Published by the hang-up itself, not after the coalescing delay.
    expect(count("calls-updated")).toBeGreaterThan(published);
    await until("the call gone", () => monitor.activeCalls().calls.length === 0);

    const tried = fake.actions.length;
    expect(monitor.hangup("PJSIP/1001-00000999")).rejects.toThrow(NotFound);
    expect(monitor.hangup("/.*/")).rejects.toThrow(Invalid);
    expect(monitor.hangup("PJSIP/1001-1\r\nAction: Originate")).rejects.toThrow(Invalid);
    expect(fake.actions.slice(tried).filter((a) => a.name === "Hangup")).toEqual([]);

    // A channel the monitor lists but the PBX no longer has: "already ended", and it leaves the list.
    fake.sendRaw(
      amiMessage({
        Event: "Newchannel",
        Channel: "PJSIP/1002-0000abcd",
        ChannelStateDesc: "Ring",
        CallerIDNum: "1002",
        Uniqueid: "1700000000.77",
        Linkedid: "1700000000.77",
      }),
    );
    await until("the ghost channel", () => monitor.activeCalls().calls.length === 1);
    const ended = await monitor.hangup("PJSIP/1002-0000abcd").catch((e: Error) => e);
    expect(ended).toBeInstanceOf(NotFound);
    expect((ended as Error).message).toBe("The call has already ended");
    expect(monitor.activeCalls().calls).toEqual([]);

    await fake.stop();
    await until("disconnected", () => !monitor.status().connected);
    expect(monitor.hangup("PJSIP/1001-00000001")).rejects.toThrow(Unavailable);
  });
});

describe("attack view", () => {
  test("failed sign-ins aggregate by source and account; a source over the threshold is an alert", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor, count } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    const attacker = "203.0.113.9";
    for (let i = 0; i < SECURITY_ALERT_THRESHOLD; i++) {
      fake.securityEvent({ type: "InvalidPassword", account: "1001", address: attacker });
    }
    for (let i = 0; i < 5; i++) fake.securityEvent({ type: "InvalidAccountID", account: "admin", address: attacker });
    fake.securityEvent({ type: "InvalidAccountID", account: "100", address: "198.51.100.20:5080" });
    fake.securityEvent({ type: "FailedACL", account: "1003", address: "198.51.100.20" });
    // Not failures: a successful sign-in, and an event without a usable address.
    fake.emit(
      { Event: "SuccessfulAuth", Service: "PJSIP", AccountID: "1001", RemoteAddress: "IPV4/UDP/192.0.2.1/5060" },
      "security",
    );
    fake.emit({ Event: "InvalidPassword", Service: "PJSIP", AccountID: "x", RemoteAddress: "garbage" }, "security");

    const total = SECURITY_ALERT_THRESHOLD + 7;
    await until("all failures counted", () => monitor.security().lastHour.failures === total);
    const view = monitor.security();
    expect(view.threshold).toBe(SECURITY_ALERT_THRESHOLD);
    expect(view.lastHour.sources.map((s) => [s.address, s.failures])).toEqual([
      [attacker, SECURITY_ALERT_THRESHOLD + 5],
      ["198.51.100.20", 2],
    ]);
    expect(view.lastHour.sources[0]?.accounts).toEqual([
      { account: "1001", failures: SECURITY_ALERT_THRESHOLD },
      { account: "admin", failures: 5 },
    ]);
    expect(view.lastHour.sources[1]?.accounts.map((a) => a.account).sort()).toEqual(["100", "1003"]);
    expect(view.lastDay.failures).toBe(total);
    expect(view.alerts.map((s) => s.address)).toEqual([attacker]);
    expect(view.perHour).toHaveLength(24);
    expect(view.perHour.at(-1)?.failures).toBe(total);
    expect(view.perHour.slice(0, 23).every((h) => h.failures === 0)).toBe(true);
    await until("pbx-security-updated", () => count("pbx-security-updated") > 0);

    // Kept across a reconnection (the last hour and day of failures are not the PBX's state).
    fake.kickAll();
    await until("reconnected", () => fake.loggedIn > 0 && monitor.status().connected);
    expect(monitor.security().lastHour.failures).toBe(total);
  });

  test("ChallengeResponseFailed counts too (its `Response` field does not make it an action's response)", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    fake.securityEvent({ type: "ChallengeResponseFailed", account: "1001", address: "203.0.113.50" });
    fake.securityEvent({ type: "InvalidPassword", account: "1001", address: "203.0.113.50" });
    await until("the later event", () => monitor.security().lastHour.failures > 0);
    expect(monitor.security().lastHour.sources).toEqual([
      expect.objectContaining({ address: "203.0.113.50", failures: 2 }),
    ]);
  });
});

describe("faults", () => {
  test("not configured: unknown with the reason and no connection; manager.conf appearing connects, removing it disconnects", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor, managerConf, events } = monitorWith({});
    monitor.start();
    const status = monitor.status();
    expect(status).toMatchObject({ connected: false, source: "none", extensions: [], trunks: [], activeCalls: 0 });
    expect(status.reason).toContain(`${managerConf} was not found`);
    expect(monitor.activeCalls()).toMatchObject({ connected: false, calls: [] });
    expect(monitor.security()).toMatchObject({ connected: false, lastHour: { failures: 0 } });
    // Several settings checks later: nothing sent anywhere, and the unchanged state not published.
    await Bun.sleep((FAST.settingsCheckMs ?? 50) * 4);
    expect(fake.actions).toEqual([]);
    expect(events).toEqual([]);

    writeFileSync(
      managerConf,
      `[general]\nenabled = yes\nport = ${fake.port}\nbindaddr = 0.0.0.0\n\n[admin]\nsecret = ${SECRET}\nread = all\nwrite = all\n`,
    );
    await connected(monitor);
    expect(monitor.status()).toMatchObject({ source: "manager.conf", reason: null });
    expect(extension(monitor, "1001")?.registered).toBe(true);

    unlinkSync(managerConf);
    await until("disconnected", () => !monitor.status().connected);
    expect(monitor.status().reason).toContain("was not found");
    await until("logged off", () => fake.connections === 0);
  });

  test("AMI refused, then a wrong secret: unknown with the reason", async () => {
    const fake = await fakeAmi();
    const port = fake.port;
    await fake.stop();
    const { monitor } = monitorWith({ ...amiEnv(fake), AMI_PORT: String(port) });
    monitor.start();
    const refused = await until("refused", () => monitor.status().reason?.includes("refused") && monitor.status());
    expect(refused).toMatchObject({ connected: false, extensions: [] });

    const other = await fakeAmi();
    const wrong = monitorWith(amiEnv(other, "not-the-secret"));
    wrong.monitor.start();
    await until("login failed", () => wrong.monitor.status().reason?.includes("Authentication failed for user admin"));
    expect(wrong.monitor.status().reason).not.toContain("not-the-secret");
  });

  test("AMI going away: unknown and cleared; back: reconnects and the state is read again", async () => {
    const fake = await fakeAmi();
    seed(fake);
    fake.startCall({ from: "1001", to: "1003" });
    const { monitor, count } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    expect(monitor.activeCalls().calls).toHaveLength(1);
    const published = { status: count("pbx-status-updated"), calls: count("calls-updated") };

    await fake.stop();
    await until("disconnected", () => !monitor.status().connected);
    expect(monitor.status()).toMatchObject({ extensions: [], trunks: [], activeCalls: 0 });
    expect(monitor.status().reason).toBeTruthy();
    expect(monitor.activeCalls().calls).toEqual([]);
    await until("status and calls published", () => {
      return count("pbx-status-updated") > published.status && count("calls-updated") > published.calls;
    });

    // Changes while AMI is away are in the lists read after the reconnection.
    fake.addEndpoint("1004", { kind: "extension" });
    fake.state.calls.clear();
    await fake.restart();
    await connected(monitor);
    expect(extension(monitor, "1004")).toMatchObject({ registered: false });
    expect(monitor.activeCalls().calls).toEqual([]);
    const logins = fake.actions.filter((a) => a.name === "Login");
    expect(logins.length).toBeGreaterThanOrEqual(2);
  });

  test("a list answered with an error: unknown with the reason, read again later on the same connection", async () => {
    const fake = await fakeAmi();
    seed(fake);
    fake.failNext("PJSIPShowContacts", "Permission denied");
    const { monitor } = monitorWith(amiEnv(fake));
    monitor.start();
    const failed = await until("the list failure", () => monitor.status().reason?.includes("Permission denied"));
    expect(failed).toBe(true);
    expect(monitor.status()).toMatchObject({ connected: false, extensions: [] });
    expect(monitor.status().reason).toContain("PJSIPShowContacts");
    await connected(monitor);
    expect(extension(monitor, "1001")?.registered).toBe(true);
    expect(fake.actions.filter((a) => a.name === "Login")).toHaveLength(1);
  });

  test("a connection dropped mid-list: unknown, then reconnected and complete", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    fake.dropMidList("PJSIPShowEndpoints");
    const from = fake.actions.length;
    fake.kickAll();
    await until("the drop", () => !monitor.status().connected);
    await connected(monitor);
    expect(fake.actions.slice(from).filter((a) => a.name === "PJSIPShowEndpoints").length).toBe(2);
    expect(monitor.status().extensions.map((e) => e.extension)).toEqual(["1001", "1002", "1003"]);
  });

  test("malformed lines and unknown events change nothing", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    const before = JSON.stringify(monitor.status());
    fake.sendRaw("this line has no colon\r\nEvent: VarSet\r\nVariable: X\r\n\r\n");
    fake.sendRaw(`Event: DeviceStateChange\r\nDevice: PJSIP/1001\r\nJunk: ${"x".repeat(20_000)}\r\n\r\n`);
    fake.sendRaw(amiMessage({ Event: "DeviceStateChange", Device: "Custom:DND1001", State: "INUSE" }));
    fake.sendRaw(amiMessage({ Event: "Hangup", Channel: "PJSIP/unknown-00000001" }));
    fake.setDeviceState("1002", "BUSY");
    await until("the later valid event", () => extension(monitor, "1002")?.state === "busy");
    const after = monitor.status();
    expect(after.connected).toBe(true);
    expect(JSON.stringify({ ...after, extensions: after.extensions.filter((e) => e.extension !== "1002") })).toBe(
      JSON.stringify({
        ...JSON.parse(before),
        extensions: JSON.parse(before).extensions.filter((e: { extension: string }) => e.extension !== "1002"),
      }),
    );
  });

  test("a flood of channels and attack sources stays within the limits, and its events are coalesced", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor, count } = monitorWith(amiEnv(fake), { limits: { channels: 100, sources: 50 } });
    monitor.start();
    await connected(monitor);
    const base = { calls: count("calls-updated"), security: count("pbx-security-updated") };
    const n = 3_000;
    let raw = "";
    for (let i = 0; i < n; i++) {
      raw += amiMessage({
        Event: "Newchannel",
        Channel: `PJSIP/1001-${i.toString(16).padStart(8, "0")}`,
        ChannelStateDesc: "Ring",
        CallerIDNum: "1001",
        Uniqueid: `1700000000.${i}`,
        Linkedid: `1700000000.${i}`,
      });
      raw += amiMessage({
        Event: "InvalidAccountID",
        Service: "PJSIP",
        AccountID: `user${i}`,
        RemoteAddress: `IPV4/UDP/10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/5060`,
      });
    }
    fake.sendRaw(raw);
    await until("the flood read", () => monitor.security().lastHour.failures === n, 10_000);
    const calls = monitor.activeCalls().calls;
    expect(calls).toHaveLength(100);
    // The newest are kept.
    expect(calls.some((c) => c.id === `1700000000.${n - 1}`)).toBe(true);
    expect(monitor.security().lastDay.sources).toHaveLength(50);
    expect(monitor.security().tracked).toMatchObject({ sources: 50, maxSources: 50 });
    await until("calls-updated", () => count("calls-updated") > base.calls);
    await until("pbx-security-updated", () => count("pbx-security-updated") > base.security);
    expect(count("calls-updated") - base.calls).toBeLessThanOrEqual(3);
    expect(count("pbx-security-updated") - base.security).toBeLessThanOrEqual(2);
  });

  test("status, calls and security are published on connect and disconnect, coalesced, within a second", async () => {
    const fake = await fakeAmi();
    seed(fake);
    const { monitor, events, count } = monitorWith(amiEnv(fake));
    monitor.start();
    await connected(monitor);
    await until("the connect events", () =>
      (["pbx-status-updated", "calls-updated", "pbx-security-updated"] as const).every((t) => count(t) > 0),
    );
    const before = count("pbx-status-updated");
    const sentAt = Date.now();
    for (let i = 0; i < 100; i++) fake.setDeviceState("1001", i % 2 ? "INUSE" : "RINGING");
    const first = await until("the first status event", () =>
      count("pbx-status-updated") > before ? events.findLast((e) => e.type === "pbx-status-updated") : null,
    );
    expect(first.at - sentAt).toBeLessThan(1_000);
    await Bun.sleep(400);
    // 100 changes in a burst: at most two events (the coalescing window is 250 ms).
    expect(count("pbx-status-updated") - before).toBeLessThanOrEqual(2);

    const published = events.length;
    await monitor.stop();
    fake.setDeviceState("1001", "BUSY");
    await Bun.sleep(300);
    expect(events.length).toBe(published);
  });
});

describe("as the real Asterisk 22 sends it (test/fixtures/ami/contact-status.txt)", () => {
  test("a contact that registers after login gets its address, user agent and expiry from PJSIPShowEndpoint", async () => {
    const fake = await fakeAmi();
    fake.addEndpoint("2301", { kind: "extension" });
    const { monitor } = monitorWith(amiEnv(fake));
    monitor.start();
    await until("connected", () => monitor.status().connected);
    const from = fake.actions.length;
    fake.register("2301", {
      uri: "sip:2301-0x55f7@127.0.0.1:60263",
      userAgent: "baresip v1.0.0 (x86_64/linux)",
      viaAddr: "127.0.0.1:60263",
    });
    // ContactStatus carries no address: the monitor asks for the endpoint's details.
    await fake.waitForAction("PJSIPShowEndpoint", { from });
    const contact = await until("the contact's address", () => {
      const c = monitor.status().extensions.find((e) => e.extension === "2301")?.contacts[0];
      return c?.address ? c : null;
    });
    expect(contact).toMatchObject({
      uri: "sip:2301-0x55f7@127.0.0.1:60263",
      address: "127.0.0.1:60263",
      userAgent: "baresip v1.0.0 (x86_64/linux)",
    });
    expect(contact.expiresAt).not.toBeNull();
  });

  test("a Reload (FreePBX's Apply Config) reads the lists again: endpoints added since login appear", async () => {
    const fake = await fakeAmi();
    fake.addEndpoint("2301", { kind: "extension" });
    const { monitor } = monitorWith(amiEnv(fake));
    monitor.start();
    await until("connected", () => monitor.status().connected);
    fake.addEndpoint("2302", { kind: "extension" });
    expect(monitor.status().extensions.map((e) => e.extension)).toEqual(["2301"]);
    fake.emit({ Event: "Reload", Module: "All", Status: "0" }, "system");
    await until("2302 listed", () => monitor.status().extensions.some((e) => e.extension === "2302"));
  });
});
