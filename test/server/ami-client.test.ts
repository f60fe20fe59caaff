/**
 * The AMI client (src/server/clients/ami.ts) against the fake manager interface (test/fakes/ami.ts):
 * login, ActionID correlation, lists, errors, drops and reconnects with back-off, a parser that survives
 * garbage with bounded memory, the keep-alive, header injection, and a stop() that leaves nothing running.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Socket, TCPSocketListener } from "bun";
import {
  AMI_MAX_FIELDS,
  AMI_MAX_LINE,
  AMI_MAX_LIST_ITEMS,
  AmiClient,
  type AmiClientOptions,
  AmiError,
  type AmiMessage,
  AmiParser,
  type AmiState,
  withAmi,
} from "../../src/server/clients/ami";
import { deadline, ServiceError } from "../../src/server/clients/http";
import { amiMessage, type FakeAmi, startFakeAmi } from "../fakes/ami";

const SECRET = "s3cret-amp-9f2";
const FAST: AmiClientOptions = {
  connectTimeoutMs: 1_000,
  actionTimeoutMs: 1_000,
  pingIntervalMs: 0,
  backoff: { minMs: 20, maxMs: 80 },
};

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function fake(): Promise<FakeAmi> {
  const f = await startFakeAmi({ secret: SECRET, version: "20.5.2" });
  cleanup.push(() => f.stop());
  return f;
}

function client(f: { host: string; port: number }, opts: AmiClientOptions = {}, secret = SECRET): AmiClient {
  const c = new AmiClient({ host: f.host, port: f.port, username: "admin", secret }, { ...FAST, ...opts });
  cleanup.push(() => c.stop());
  return c;
}

/** Resolves with the first state (the current one included) that matches. */
function waitForState(c: AmiClient, match: (s: AmiState) => boolean, timeoutMs = 3_000): Promise<AmiState> {
  if (match(c.state)) return Promise.resolve(c.state);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no matching state within ${timeoutMs} ms (last: ${JSON.stringify(c.state)})`));
    }, timeoutMs);
    const off = c.onState((s) => {
      if (!match(s)) return;
      clearTimeout(timer);
      off();
      resolve(s);
    });
  });
}
const connected = (c: AmiClient) => waitForState(c, (s) => s.connected);
const disconnected = (c: AmiClient) => waitForState(c, (s) => !s.connected && s.reason !== null);

/** Resolves with the next event named `name`. */
function nextEvent(c: AmiClient, name: string, timeoutMs = 3_000): Promise<AmiMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${name} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = c.onEvent((e) => {
      if (e.event !== name) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

async function started(opts: AmiClientOptions = {}) {
  const f = await fake();
  const c = client(f, opts);
  c.start();
  await connected(c);
  return { f, c };
}

/** A TCP server that accepts and then does `onOpen` (nothing: a black hole). */
function rawServer(onOpen: (s: Socket<undefined>) => void = () => {}) {
  const listener: TCPSocketListener<undefined> = Bun.listen<undefined>({
    hostname: "127.0.0.1",
    port: 0,
    socket: { open: onOpen, data() {} },
  });
  cleanup.push(() => listener.stop(true));
  return { host: "127.0.0.1", port: listener.port };
}

describe("login", () => {
  test("logs in with the configured user, events on, and reports connected; FullyBooted arrives as an event", async () => {
    const f = await fake();
    const c = client(f);
    const booted = nextEvent(c, "FullyBooted");
    c.start();
    expect(await connected(c)).toEqual({ connected: true, reason: null });
    expect(c.connected).toBe(true);
    expect((await booted).status).toBe("Fully Booted");
    const login = f.actions[0];
    expect(login?.name).toBe("Login");
    expect(login?.fields).toMatchObject({ username: "admin", secret: SECRET, events: "on" });
    expect(login?.fields.actionid).toMatch(/^pbxc-\d+$/);
  });

  test("a wrong secret gives 'Authentication failed for user admin' without the secret, and retries", async () => {
    const f = await fake();
    const wrong = "wrong-secret-123";
    const c = client(f, { authRetryMs: 300 }, wrong);
    c.start();
    const s = await disconnected(c);
    expect(s.reason).toBe("Authentication failed for user admin");
    expect(s.reason).not.toContain(wrong);
    // The client keeps trying (the secret may be fixed on the PBX), but only after authRetryMs, not the
    // 20–80 ms back-off: Asterisk's security log and fail2ban do not see a refused login every few seconds.
    const second = await f.waitForAction("Login", { from: 1 });
    const first = f.actions.find((a) => a.name === "Login");
    expect(second.at - (first?.at ?? 0)).toBeGreaterThanOrEqual(290);
    const err = await c.action("Ping").catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.message).toContain("Not connected to the Asterisk manager interface");
    expect(err.message).not.toContain(wrong);
  });

  test("a refused connection says so with the address", async () => {
    const f = await startFakeAmi();
    const port = f.port;
    await f.stop();
    const c = client({ host: "127.0.0.1", port });
    c.start();
    expect((await disconnected(c)).reason).toBe(`Connection refused by 127.0.0.1:${port}`);
  });

  test("a server that accepts but never greets is given up after the connect timeout", async () => {
    const hole = rawServer();
    const c = client(hole, { connectTimeoutMs: 100 });
    c.start();
    expect((await disconnected(c)).reason).toBe(
      `No answer from the Asterisk manager interface at 127.0.0.1:${hole.port} within 100 ms`,
    );
  });

  test("a server that is not AMI is named as such", async () => {
    const ssh = rawServer((s) => {
      s.write("SSH-2.0-OpenSSH_9.6\r\n");
    });
    const c = client(ssh);
    c.start();
    expect((await disconnected(c)).reason).toBe(
      `127.0.0.1:${ssh.port} is not an Asterisk manager interface (it greeted with "SSH-2.0-OpenSSH_9.6")`,
    );
  });

  test("Events: off is sent when asked for", async () => {
    const { f } = await started({ events: "off" });
    expect(f.actions[0]?.fields.events).toBe("off");
  });
});

describe("actions", () => {
  test("concurrent actions each get their own answer by ActionID", async () => {
    const { f, c } = await started();
    f.addEndpoint("1001", { kind: "extension" });
    const [version, ping, endpoints, hangup] = await Promise.all([
      c.action("Command", { Command: "core show version" }),
      c.action("Ping"),
      c.list("PJSIPShowEndpoints"),
      c.action("Hangup", { Channel: "PJSIP/1009-00000001" }).catch((e) => e),
    ]);
    expect(version.output).toContain("Asterisk 20.5.2");
    expect(ping.ping).toBe("Pong");
    expect(endpoints.map((e) => e.objectname)).toEqual(["1001"]);
    expect(hangup).toBeInstanceOf(AmiError);
    expect(hangup.message).toBe("No such channel.");
    const ids = f.actions.map((a) => a.fields.actionid);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("answers are matched by ActionID, not by order", async () => {
    const { f, c } = await started();
    f.state.unanswered.add("ping");
    const from = f.actions.length;
    const ping = c.action("Ping");
    const pingAction = await f.waitForAction("Ping", { from });
    const command = await c.action("Command", { Command: "core show version" });
    expect(command.output).toContain("20.5.2");
    // The Ping's answer arrives after the Command's, with the Ping's ActionID.
    f.sendRaw(amiMessage({ Response: "Success", ActionID: pingAction.fields.actionid as string, Ping: "Pong" }));
    expect((await ping).actionid).toBe(pingAction.fields.actionid as string);
  });

  test("Response: Error is an AmiError with the PBX's message, never carrying the secret", async () => {
    const { f, c } = await started();
    f.failNext("CoreShowChannels", "Permission denied");
    const err = await c.list("CoreShowChannels").catch((e) => e);
    expect(err).toBeInstanceOf(AmiError);
    expect(err.message).toBe("Permission denied.");
    f.failNext("Ping", `Bad secret ${SECRET}`);
    const echoed = await c.action("Ping").catch((e) => e);
    expect(echoed).toBeInstanceOf(AmiError);
    expect(echoed.message).not.toContain(SECRET);
    const unknown = await c.action("NoSuchAction").catch((e) => e);
    expect(unknown.message).toBe("Invalid/unknown command.");
  });

  test("an unanswered action times out with a clear message", async () => {
    const { f, c } = await started();
    f.state.unanswered.add("command");
    const err = await c.action("Command", { Command: "core show version" }, 50).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).not.toBeInstanceOf(AmiError);
    expect(err.message).toBe("The Asterisk manager did not answer Command within 50 ms.");
    expect(c.connected).toBe(true);
  });

  test("a field name or value with CR or LF is refused and nothing is sent", async () => {
    const { f, c } = await started();
    const before = f.actions.length;
    const injected = await c.action("Hangup", { Channel: "PJSIP/1001\r\nAction: Originate" }).catch((e) => e);
    expect(injected).toBeInstanceOf(ServiceError);
    expect(injected.message).toContain("line break");
    const key = await c.action("Hangup", { "Channel\nAction": "x" }).catch((e) => e);
    expect(key.message).toContain("line break");
    const name = await c.action("Ping\r\nAction: Originate").catch((e) => e);
    expect(name).toBeInstanceOf(ServiceError);
    const list = await c.list("CoreShowChannels", { Foo: "a\rb" }).catch((e) => e);
    expect(list.message).toContain("line break");
    // A Ping round trip: everything sent before it has arrived.
    await c.action("Ping");
    expect(f.actions.slice(before).map((a) => a.name)).toEqual(["Ping"]);
    expect(f.actions.some((a) => /originate/i.test(a.name))).toBe(false);
  });
});

describe("lists", () => {
  test("collects the events of a list and only those; async events in between go to listeners", async () => {
    const { f, c } = await started();
    f.state.unanswered.add("pjsipshowcontacts");
    const events: AmiMessage[] = [];
    c.onEvent((e) => events.push(e));
    const from = f.actions.length;
    const list = c.list("PJSIPShowContacts");
    const id = (await f.waitForAction("PJSIPShowContacts", { from })).fields.actionid as string;
    f.sendRaw(
      amiMessage({ Response: "Success", ActionID: id, EventList: "start", Message: "Contacts will follow" }) +
        amiMessage({ Event: "ContactList", ActionID: id, ObjectName: "1001;@a", Uri: "sip:1001@198.51.100.7" }) +
        amiMessage({ Event: "DeviceStateChange", Privilege: "call,all", Device: "PJSIP/1001", State: "INUSE" }) +
        amiMessage({ Event: "ContactList", ActionID: id, ObjectName: "1002;@b", Uri: "sip:1002@198.51.100.8" }) +
        amiMessage({ Event: "ContactListComplete", ActionID: id, EventList: "Complete", ListItems: "2" }),
    );
    const items = await list;
    expect(items.map((i) => i.objectname)).toEqual(["1001;@a", "1002;@b"]);
    expect(events.map((e) => e.event)).toEqual(["DeviceStateChange"]);
  });

  test("an empty list resolves with no items (ListItems: 0)", async () => {
    const { c } = await started();
    expect(await c.list("PJSIPShowContacts")).toEqual([]);
    expect(await c.list("CoreShowChannels")).toEqual([]);
  });

  test("a list of real shape: endpoints, contacts, registrations and channels from the fake", async () => {
    const { f, c } = await started();
    f.addEndpoint("1001", { kind: "extension" });
    f.addEndpoint("1002", { kind: "extension" });
    f.addEndpoint("telnyx", { kind: "trunk" });
    f.register("1001", { uri: "sip:1001@203.0.113.5:5060", viaAddr: "203.0.113.5:5060", userAgent: "Zoiper" });
    f.setTrunkRegistration("telnyx", "Registered");
    const call = f.startCall({ from: "1001", to: "1002" });
    const [endpoints, contacts, regs, channels] = await Promise.all([
      c.list("PJSIPShowEndpoints"),
      c.list("PJSIPShowContacts"),
      c.list("PJSIPShowRegistrationsOutbound"),
      c.list("CoreShowChannels"),
    ]);
    expect(endpoints.find((e) => e.objectname === "1001")?.devicestate).toBe("In use");
    expect(contacts[0]).toMatchObject({ endpoint: "1001", uri: "sip:1001@203.0.113.5:5060", status: "Reachable" });
    expect(regs.filter((r) => r.event === "OutboundRegistrationDetail")[0]?.status).toBe("Registered");
    expect(channels.map((ch) => ch.channel)).toEqual(call.channels);
    expect(new Set(channels.map((ch) => ch.linkedid))).toEqual(new Set([call.linkedid]));
  });

  test("a list over the item limit fails, and its late events do not leak to listeners", async () => {
    const { f, c } = await started({ actionTimeoutMs: 5_000 });
    f.state.unanswered.add("coreshowchannels");
    const events: string[] = [];
    c.onEvent((e) => events.push(e.event as string));
    const from = f.actions.length;
    const list = c.list("CoreShowChannels").catch((e) => e);
    const after = nextEvent(c, "AfterTheList");
    const id = (await f.waitForAction("CoreShowChannels", { from })).fields.actionid as string;
    const item = amiMessage({ Event: "CoreShowChannel", ActionID: id, Channel: "PJSIP/1-1" });
    f.sendRaw(
      amiMessage({ Response: "Success", ActionID: id, EventList: "start" }) +
        item.repeat(AMI_MAX_LIST_ITEMS + 5) +
        amiMessage({ Event: "CoreShowChannelsComplete", ActionID: id, EventList: "Complete" }) +
        amiMessage({ Event: "AfterTheList" }),
    );
    const err = await list;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.message).toBe("CoreShowChannels returned more than 50,000 items.");
    await after;
    expect(events).toEqual(["AfterTheList"]);
  });
});

describe("drops and reconnects", () => {
  test("a drop mid-list rejects the list and the client reconnects by itself", async () => {
    const { f, c } = await started();
    f.addEndpoint("1001", { kind: "extension" });
    f.addEndpoint("1002", { kind: "extension" });
    f.dropMidList("PJSIPShowEndpoints");
    const pending = c.action("Command", { Command: "core show version" });
    const err = await c.list("PJSIPShowEndpoints").catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).not.toBeInstanceOf(AmiError);
    expect(err.message).toBe("The manager interface closed the connection.");
    await pending; // answered before the drop
    await connected(c);
    expect((await c.list("PJSIPShowEndpoints")).length).toBe(2);
    expect(f.actions.filter((a) => a.name === "Login").length).toBe(2);
  });

  test("when the PBX goes away the client backs off, and connects again when it is back", async () => {
    const { f, c } = await started({ backoff: { minMs: 20, maxMs: 60 } });
    await f.stop();
    await waitForState(c, (s) => s.reason?.startsWith("Connection refused") ?? false);
    await f.restart();
    await connected(c);
    expect(await c.action("Ping")).toMatchObject({ response: "Success" });
  });

  test("the back-off doubles up to its maximum, with jitter, and resets after a login", async () => {
    const f = await fake();
    // authRetryMs 0: refused logins follow the back-off like any failure (tested on its own below).
    const c = client(f, { backoff: { minMs: 40, maxMs: 240 }, authRetryMs: 0 }, "wrong");
    c.start();
    await f.waitForAction("Login", { from: 5 });
    const at = f.actions.filter((a) => a.name === "Login").map((a) => a.at);
    const gaps = at.slice(1, 6).map((t, i) => t - (at[i] as number));
    // Waits 40, 80, 160, 240, 240 ms, each up to a quarter shorter (timers never fire early).
    // Without the cap the 5th would be 640 ms (at least 480).
    expect(gaps[0]).toBeGreaterThanOrEqual(29);
    expect(gaps[1]).toBeGreaterThanOrEqual(59);
    expect(gaps[2]).toBeGreaterThanOrEqual(119);
    expect(gaps[3]).toBeGreaterThanOrEqual(179);
    expect(gaps[4]).toBeGreaterThanOrEqual(179);
    expect(gaps[4]).toBeLessThan(420);
    f.state.secret = "wrong";
    await connected(c);
    // After a successful login the next drop starts again at the minimum (else at least 180 ms).
    const from = f.actions.length;
    const dropAt = Date.now();
    f.kickAll();
    const again = await f.waitForAction("Login", { from });
    expect(again.at - dropAt).toBeLessThan(170);
  });
});

describe("events from the fake PBX", () => {
  test("registration, call lifecycle, Hangup action, trunk registration and security events arrive in order", async () => {
    const { f, c } = await started();
    const events: AmiMessage[] = [];
    c.onEvent((e) => events.push(e));
    f.addEndpoint("1001", { kind: "extension" });
    f.addEndpoint("1002", { kind: "extension" });
    f.addEndpoint("telnyx", { kind: "trunk" });
    f.register("1001", { uri: "sip:1001@203.0.113.5:5060", viaAddr: "203.0.113.5:5060", userAgent: "Zoiper" });
    f.register("1002", { uri: "sip:1002@203.0.113.6:5060", viaAddr: "203.0.113.6:5060" });
    f.setTrunkRegistration("telnyx", "Registered", { serverUri: "sip:sip.telnyx.com" });
    const call = f.startCall({ from: "1001", to: "1002", fromName: "Alice" });
    f.answer(call.linkedid);
    f.securityEvent({ type: "InvalidPassword", account: "1001", address: "198.51.100.9" });
    // Carries a `Response:` field of its own (the phone's digest): still an event, not an answer.
    f.securityEvent({ type: "ChallengeResponseFailed", account: "1001", address: "198.51.100.9" });
    const from = f.actions.length;
    const hung = await c.action("Hangup", { Channel: call.channels[1] as string, Cause: "16" });
    expect(hung.message).toBe("Channel Hungup");
    expect(f.actions[from]?.fields).toMatchObject({ channel: call.channels[1], cause: "16" });
    f.unregister("1002");
    const done = nextEvent(c, "Done");
    f.emit({ Event: "Done" });
    await done;

    const names = events.map((e) => e.event);
    expect(names).toEqual([
      ...["ContactStatus", "ContactStatus", "DeviceStateChange"], // 1001 NonQualified, Reachable, NOT_INUSE
      ...["ContactStatus", "ContactStatus", "DeviceStateChange"], // 1002
      "Registry",
      ...["Newchannel", "DeviceStateChange", "Newchannel", "DialBegin", "Newstate", "DeviceStateChange"],
      ...["Newstate", "Newstate", "DialEnd", "BridgeEnter", "BridgeEnter", "DeviceStateChange"],
      "InvalidPassword",
      "ChallengeResponseFailed",
      ...["BridgeLeave", "Hangup", "BridgeLeave", "Hangup", "DeviceStateChange", "DeviceStateChange"],
      ...["ContactStatus", "DeviceStateChange"], // 1002 Removed, UNAVAILABLE
      "Done",
    ]);
    // As Asterisk 22 sends it: no address in ContactStatus (test/fixtures/ami/contact-status.txt).
    expect(events[1]).toMatchObject({ contactstatus: "Reachable", aor: "1001", uri: "sip:1001@203.0.113.5:5060" });
    expect(events[1]?.viaaddress).toBeUndefined();
    expect(events[6]).toMatchObject({
      channeltype: "PJSIP",
      username: "sip:telnyx@sip.example.net",
      domain: "sip:sip.telnyx.com",
      status: "Registered",
    });
    const newchannel = events[7] as AmiMessage;
    expect(newchannel).toMatchObject({ channel: call.channels[0], calleridnum: "1001", calleridname: "Alice" });
    expect(newchannel.linkedid).toBe(call.linkedid);
    expect(events.find((e) => e.event === "InvalidPassword")).toMatchObject({
      privilege: "security,all",
      service: "PJSIP",
      accountid: "1001",
      remoteaddress: "IPV4/UDP/198.51.100.9/5060",
    });
    expect(events.filter((e) => e.event === "Hangup").map((e) => e["cause-txt"])).toEqual([
      "Normal Clearing",
      "Normal Clearing",
    ]);
    expect(await c.list("CoreShowChannels")).toEqual([]);
    expect((await c.action("Hangup", { Channel: call.channels[0] as string }).catch((e) => e)).message).toBe(
      "No such channel.",
    );
  });

  test("the fake follows Events: with a class list (only those classes are sent)", async () => {
    const f = await fake();
    let text = "";
    let wake = () => {};
    const until = async (needle: string) => {
      while (!text.includes(needle)) await new Promise<void>((r) => (wake = r));
    };
    const socket = await Bun.connect({
      hostname: f.host,
      port: f.port,
      socket: {
        data(_s, d) {
          text += d.toString();
          wake();
        },
      },
    });
    cleanup.push(() => {
      socket.end();
    });
    socket.write(
      amiMessage({ Action: "Login", ActionID: "raw-1", Username: "admin", Secret: SECRET, Events: "security" }),
    );
    await until("Authentication accepted");
    f.emit({ Event: "DeviceStateChange", Device: "PJSIP/1", State: "INUSE" }, "call");
    f.securityEvent({ type: "InvalidAccountID", account: "9999", address: "198.51.100.1:5062" });
    await until("Event: InvalidAccountID");
    expect(text).toStartWith("Asterisk Call Manager/9.0.0\r\nResponse: Success\r\nActionID: raw-1\r\n");
    expect(text).not.toContain("DeviceStateChange");
    expect(text).not.toContain("FullyBooted");
    expect(text).toContain("RemoteAddress: IPV4/UDP/198.51.100.1/5062\r\n");
  });
});

describe("parser", () => {
  test("garbage, lines without a colon and unknown events do not stop later events", async () => {
    const { f, c } = await started();
    f.addEndpoint("1001", { kind: "extension" });
    const unknown = nextEvent(c, "SomethingNew");
    const state = nextEvent(c, "DeviceStateChange");
    f.sendRaw("this line has no colon\r\n: no key\r\n\r\n\r\n\u0000\u00ff\u0007binary\r\n\r\n");
    f.sendRaw("Event: SomethingNew\r\nWeird Key : spaced\r\nValue: with: colons\r\n\r\n");
    f.setDeviceState("1001", "INUSE");
    expect(await unknown).toMatchObject({ event: "SomethingNew", "weird key": "spaced", value: "with: colons" });
    expect(await state).toMatchObject({ device: "PJSIP/1001", state: "INUSE" });
    expect(c.connected).toBe(true);
  });

  test("an over-long line is dropped (the rest of its message kept) and later events still arrive", async () => {
    const { f, c } = await started();
    const big = nextEvent(c, "Big");
    f.sendRaw(`Event: Big\r\nData: ${"x".repeat(200_000)}\r\nAfter: yes\r\n\r\n`);
    const e = await big;
    expect(e.data).toBeUndefined();
    expect(e.after).toBe("yes");
    expect(await c.action("Ping")).toMatchObject({ ping: "Pong" });
  });

  test("memory stays bounded: an endless line holds at most one line's worth; fields per message are capped", () => {
    const got: AmiMessage[] = [];
    const p = new AmiParser((m) => got.push(m));
    const chunk = "y".repeat(1024);
    let peak = 0;
    for (let i = 0; i < 2_000; i++) {
      p.push(chunk);
      peak = Math.max(peak, p.bufferedChars);
    }
    expect(peak).toBeLessThanOrEqual(AMI_MAX_LINE + 1);
    p.push("\r\nEvent: After\r\n\r\n");
    expect(got).toEqual([{ event: "After" }]);
    const many = Array.from({ length: AMI_MAX_FIELDS + 100 }, (_, i) => `K${i}: v`).join("\r\n");
    p.push(`Event: Many\r\n${many}\r\n\r\n`);
    expect(Object.keys(got[1] ?? {}).length).toBe(AMI_MAX_FIELDS);
  });

  test("split reads, repeated keys, bare LF and a banner", () => {
    const got: AmiMessage[] = [];
    const banners: string[] = [];
    const p = new AmiParser(
      (m) => got.push(m),
      (b) => banners.push(b),
    );
    const text =
      "Asterisk Call Manager/9.0.0\r\nResponse: Success\r\nOutput: line 1\r\nOutput: line 2\r\n\r\nEvent: Lf\n\n";
    for (const ch of text) p.push(ch);
    expect(banners).toEqual(["Asterisk Call Manager/9.0.0"]);
    expect(got).toEqual([{ response: "Success", output: "line 1\nline 2" }, { event: "Lf" }]);
    p.push("Event: X\r\n__proto__: polluted\r\nconstructor: c\r\n\r\n");
    expect(got[2]).toEqual({ event: "X", constructor: "c" });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("keep-alive and stop", () => {
  test("a peer that stops answering Ping is dropped, and the client reconnects when it answers again", async () => {
    const { f, c } = await started({ pingIntervalMs: 30, actionTimeoutMs: 100 });
    await f.waitForAction("Ping");
    f.state.unanswered.add("ping");
    const s = await disconnected(c);
    expect(s.reason).toBe("The Asterisk manager interface stopped answering (no reply to Ping within 100 ms)");
    f.state.unanswered.delete("ping");
    await connected(c);
  });

  test("stop() logs off, rejects what is pending, and nothing reconnects afterwards", async () => {
    const { f, c } = await started();
    f.state.unanswered.add("command");
    const pending = c.action("Command", { Command: "core show version" }).catch((e) => e);
    await f.waitForAction("Command");
    await c.stop();
    const err = await pending;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.message).toBe("The connection to the manager interface was stopped.");
    expect(f.actions.at(-1)?.name).toBe("Logoff");
    expect(c.connected).toBe(false);
    expect((await c.action("Ping").catch((e) => e)).message).toContain("Not connected");
    await c.stop(); // twice is fine
    c.start(); // a stopped client stays stopped
    // Observe for several back-off periods (max 80 ms): no new connection, no new Login.
    const logins = f.actions.filter((a) => a.name === "Login").length;
    await Bun.sleep(300);
    expect(f.actions.filter((a) => a.name === "Login").length).toBe(logins);
    expect(f.connections).toBe(0);
  });

  test("stop() during the back-off wait cancels the reconnect", async () => {
    const { f, c } = await started({ backoff: { minMs: 50, maxMs: 50 } });
    const logins = f.actions.filter((a) => a.name === "Login").length;
    f.kickAll();
    await disconnected(c);
    await c.stop();
    await Bun.sleep(200);
    expect(f.actions.filter((a) => a.name === "Login").length).toBe(logins);
    expect(f.connections).toBe(0);
  });

  test("after stop() nothing keeps a process alive (no socket, no timer of a pending action or reconnect)", async () => {
    const f = await fake();
    f.state.unanswered.add("command");
    const clientModule = join(import.meta.dir, "../../src/server/clients/ami.ts");
    const script = `
      const { AmiClient } = await import(${JSON.stringify(clientModule)});
      const c = new AmiClient({ host: "127.0.0.1", port: ${f.port}, username: "admin", secret: ${JSON.stringify(SECRET)} },
        { actionTimeoutMs: 20000, connectTimeoutMs: 20000, pingIntervalMs: 20000, backoff: { minMs: 20000, maxMs: 20000 } });
      const up = new Promise((r) => c.onState((s) => s.connected && r()));
      c.start();
      await up;
      const pending = c.action("Command", { Command: "core show version" }).catch((e) => e.message);
      await new Promise((r) => setTimeout(r, 20));
      await c.stop();
      console.log(await pending);
    `;
    const t0 = Date.now();
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const killer = setTimeout(() => proc.kill(), 10_000);
    const code = await proc.exited;
    clearTimeout(killer);
    expect(await new Response(proc.stdout).text()).toBe("The connection to the manager interface was stopped.\n");
    expect(code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  test("stop() while connecting to a peer that never greets resolves at once", async () => {
    const hole = rawServer();
    const c = client(hole, { connectTimeoutMs: 10_000 });
    c.start();
    const t0 = Date.now();
    await c.stop();
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(c.connected).toBe(false);
  });
});

describe("withAmi", () => {
  test("runs the function logged in (events off) and logs off", async () => {
    const f = await fake();
    const settings = { host: f.host, port: f.port, username: "admin", secret: SECRET };
    const pong = await withAmi(settings, (c) => c.action("Ping"));
    expect(pong.ping).toBe("Pong");
    expect(f.actions.map((a) => a.name)).toEqual(["Login", "Ping", "Logoff"]);
    expect(f.actions[0]?.fields.events).toBe("off");
  });

  test("a failed login throws the reason, without the secret", async () => {
    const f = await fake();
    const err = await withAmi(
      { host: f.host, port: f.port, username: "admin", secret: "nope-secret" },
      async () => 1,
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.message).toBe("Authentication failed for user admin.");
    expect(f.actions.filter((a) => a.name === "Login")).toHaveLength(1);
  });

  test("the deadline bounds it", async () => {
    const hole = rawServer();
    const t0 = Date.now();
    const err = await withAmi(
      { host: hole.host, port: hole.port, username: "admin", secret: SECRET },
      async () => 1,
      deadline("Test Connection of the Asterisk manager interface", 100),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.message).toBe("Test Connection of the Asterisk manager interface did not finish within 100 ms");
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
