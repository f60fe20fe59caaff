/**
 * The console's AMI reading fed with what the real Asterisk 22 + FreePBX 17 sent (test/fixtures/ami/*.txt,
 * recorded by scripts/record-ami-transcripts.ts): the parser, the endpoint, contact, registration, call and
 * security state built from it, and the live monitor and Test Connection over a replay of the recorded bytes.
 * Expected values are read from the recordings where they change from one recording to the next (ports,
 * uniqueids, hashes), so recording again keeps these tests meaningful. Last, the fake AMI's output for each
 * recorded event and answer has the recording's field names in its order.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Socket, TCPSocketListener } from "bun";
import { openDatabase } from "../../src/db/client";
import { type AmiMessage, AmiParser } from "../../src/server/clients/ami";
import { loadConfig } from "../../src/server/config";
import { NotFound } from "../../src/server/core/errors";
import { CredentialStore } from "../../src/server/integrations/credentials";
import { testAmiConnection } from "../../src/server/live/ami-settings";
import { CallState } from "../../src/server/live/calls";
import { EndpointState } from "../../src/server/live/endpoints";
import { LiveMonitor } from "../../src/server/live/monitor";
import { SecurityState } from "../../src/server/live/security";
import { SecretBox } from "../../src/server/secret-box";
import { startFakeAmi } from "../fakes/ami";
import {
  type AmiBlock,
  type AmiFields,
  eventTemplate,
  fieldOf,
  recordedAsteriskVersion,
  recordedNames,
  responseTemplate,
  type Transcript,
  transcript,
  transcripts,
  wireText,
} from "../fakes/ami-transcripts";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function until<T>(what: string, check: () => T | null | undefined | false, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** A transcript through the console's parser, as Asterisk sent it (CRLF). */
function parsed(t: Transcript): { banners: string[]; messages: AmiMessage[] } {
  const banners: string[] = [];
  const messages: AmiMessage[] = [];
  let parser = new AmiParser((m) => messages.push(m));
  for (const b of t.blocks) {
    if (b.kind === "banner") {
      // A banner starts a connection: a parser of its own, as the client has.
      parser = new AmiParser(
        (m) => messages.push(m),
        (line) => banners.push(line),
      );
    }
    parser.push(wireText(b));
  }
  return { banners, messages };
}

const messagesOf = (name: string) => parsed(transcript(name)).messages;
const eventsOf = (name: string, event?: string) =>
  messagesOf(name).filter((m) => m.event !== undefined && (!event || m.event === event));
const blocksOf = (name: string, event: string) => transcript(name).blocks.filter((b) => b.name === event);
const field = (b: AmiBlock | undefined, key: string) => fieldOf(b?.fields ?? [], key) ?? "";

describe("the recordings", () => {
  test("every block of every transcript parses to exactly its fields, from CRLF and from the files' LF", () => {
    const all = transcripts();
    expect(all.length).toBeGreaterThanOrEqual(25);
    for (const t of all) {
      const { banners, messages } = parsed(t);
      const blocks = t.blocks.filter((b) => b.kind !== "banner");
      expect(banners).toEqual(t.blocks.filter((b) => b.kind === "banner").map((b) => b.text));
      expect(messages).toHaveLength(blocks.length);
      blocks.forEach((b, i) => {
        const expected: AmiMessage = {};
        for (const [k, v] of b.fields) {
          const key = k.toLowerCase();
          expected[key] = key in expected ? `${expected[key]}\n${v.trimEnd()}` : v.trimEnd();
        }
        expect(messages[i]).toEqual(expected);
      });
      // The files' own LF text reads the same.
      const fromFile: AmiMessage[] = [];
      const lf = new AmiParser((m) => fromFile.push(m));
      for (const b of blocks) lf.push(`${b.text}\n\n`);
      expect(fromFile).toEqual(messages);
    }
  });

  test("they come from Asterisk 22 and never hold a secret", () => {
    expect(recordedAsteriskVersion()).toMatch(/^22\./);
    for (const t of transcripts()) {
      for (const b of t.blocks) {
        for (const [k, v] of b.fields) if (/^(secret|password)$/i.test(k)) expect(v).toBe("<secret>");
      }
      for (const s of t.sent) if (s.secret !== undefined) expect(s.secret).toBe("<not recorded>");
    }
  });
});

describe("endpoints, contacts and registrations as the console reads them", () => {
  const state = () => new EndpointState({ maxEndpoints: 1_000, maxContacts: 10 });
  const only = (list: AmiMessage[], event: string) => list.filter((m) => m.event === event);

  test("the lists after login: extensions, the registered phone with its address, user agent and expiry, the trunk", () => {
    const s = state();
    s.load(
      only(messagesOf("pjsip-show-endpoints"), "EndpointList"),
      only(messagesOf("pjsip-show-contacts"), "ContactList"),
      only(messagesOf("pjsip-show-registrations-outbound"), "OutboundRegistrationDetail"),
    );
    const contact = blocksOf("pjsip-show-contacts", "ContactList")[0];
    const view = s.view(new Set());
    expect(view.extensions.map((e) => [e.extension, e.registered, e.state])).toEqual([
      ["2401", true, "idle"],
      ["2402", false, "unavailable"],
      ["2403", false, "unavailable"],
    ]);
    expect(view.extensions[0]?.contacts).toEqual([
      {
        uri: field(contact, "Uri"),
        status: "reachable",
        address: `127.0.0.1:${field(contact, "ViaPort")}`,
        userAgent: "baresip v1.0.0 (x86_64/linux)",
        roundtripMs: Math.round(Number(field(contact, "RoundtripUsec")) / 100) / 10 || null,
        // ContactList calls it ExpirationTime (epoch seconds).
        expiresAt: new Date(Number(field(contact, "ExpirationTime")) * 1000).toISOString(),
      },
    ]);
    expect(view.trunks).toEqual([{ name: "carrier", registration: "registered", reachable: null }]);
  });

  test("the empty lists of a PBX without extensions or trunks give an empty view", () => {
    const s = state();
    expect(only(messagesOf("pjsip-show-registrations-outbound-none"), "OutboundRegistrationDetail")).toEqual([]);
    expect(messagesOf("pjsip-show-endpoints-none")[0]).toMatchObject({
      response: "Error",
      message: "No endpoints found",
    });
    expect(messagesOf("pjsip-show-contacts-none")[0]).toMatchObject({
      response: "Error",
      message: "No Contacts found",
    });
    s.load([], [], []);
    expect(s.view(new Set())).toEqual({ extensions: [], trunks: [] });
  });

  test("a phone registering and leaving: ContactStatus, the endpoint's details, DeviceStateChange", () => {
    const s = state();
    s.load(only(messagesOf("pjsip-show-endpoints"), "EndpointList"), [], []);
    const ext = () => s.view(new Set()).extensions.find((e) => e.extension === "2401");
    const needDetail: string[] = [];
    for (const e of eventsOf("register")) {
      s.apply(e);
      const endpoint = s.contactNeedsDetail(e);
      if (endpoint) needDetail.push(endpoint);
    }
    // ContactStatus carries no address: the endpoint's details are asked for.
    expect(needDetail).toContain("2401");
    expect(ext()?.registered).toBe(true);
    expect(ext()?.contacts[0]?.address).toBeNull();
    expect(s.contactDetails(messagesOf("pjsip-show-endpoint"))).toBe(true);
    const detail = blocksOf("pjsip-show-endpoint", "ContactStatusDetail")[0];
    expect(ext()).toMatchObject({
      state: "idle",
      contacts: [
        {
          uri: field(detail, "URI"),
          status: "reachable",
          address: field(detail, "ViaAddress"),
          userAgent: field(detail, "UserAgent"),
          expiresAt: new Date(Number(field(detail, "RegExpire")) * 1000).toISOString(),
        },
      ],
    });
    for (const e of eventsOf("unregister")) s.apply(e);
    expect(ext()).toMatchObject({ registered: false, state: "unavailable", contacts: [] });
  });

  test("the trunk's Registry event matches its registration by client and server URI", () => {
    const s = state();
    const regs = only(messagesOf("pjsip-show-registrations-outbound"), "OutboundRegistrationDetail").map((r) => ({
      ...r,
      status: "Unregistered",
    }));
    s.load(only(messagesOf("pjsip-show-endpoints"), "EndpointList"), [], regs);
    expect(s.view(new Set()).trunks[0]?.registration).toBe("unregistered");
    const registry = eventsOf("trunk-registration", "Registry");
    expect(registry).toHaveLength(1);
    expect(s.isUnknownRegistry(registry[0] as AmiMessage)).toBe(false);
    expect(s.apply(registry[0] as AmiMessage)).toBe(true);
    expect(s.view(new Set()).trunks[0]?.registration).toBe("registered");
  });
});

describe("calls as the console reads them", () => {
  test("CoreShowChannels during a call: one internal call, answered, with both legs", () => {
    const calls = new CallState(100);
    calls.load(
      messagesOf("core-show-channels").filter((m) => m.event === "CoreShowChannel"),
      Date.parse("2026-01-01T00:00:10Z"),
    );
    const [a, b] = blocksOf("core-show-channels", "CoreShowChannel");
    const view = calls.view(new Set());
    expect(view).toHaveLength(1);
    expect(view[0]).toMatchObject({
      id: field(a, "Linkedid"),
      caller: { number: "2401", name: "Recorded 2401" },
      callee: { number: "2402", name: "Recorded 2402" },
      trunk: null,
      direction: "internal",
      state: "up",
    });
    expect(view[0]?.answeredAt).not.toBeNull();
    expect(view[0]?.channels.map((c) => c.channel)).toEqual([field(a, "Channel"), field(b, "Channel")]);
    expect(messagesOf("core-show-channels-none").filter((m) => m.event === "CoreShowChannel")).toEqual([]);
  });

  test("a call's events: ringing, answered, then gone with the last Hangup", () => {
    const calls = new CallState(100);
    const seen: string[] = [];
    let ended: string[] = [];
    let t = Date.parse("2026-01-01T00:00:00Z");
    for (const e of eventsOf("call")) {
      t += 100;
      const r = calls.apply(e, t);
      ended = [...ended, ...r.ended];
      const state = calls.view(new Set())[0]?.state ?? "none";
      if (seen.at(-1) !== state) seen.push(state);
      if (e.event === "Newstate" && e.channelstatedesc === "Ringing") {
        expect(calls.view(new Set())[0]).toMatchObject({
          caller: { number: "2401", name: "Recorded 2401" },
          callee: { number: "2402" },
          state: "ringing",
        });
      }
    }
    // The caller's channel starts in state Ring: the call is ringing from its first event.
    expect(seen).toEqual(["none", "ringing", "up", "none"]);
    expect(ended).toEqual([field(blocksOf("call", "Newchannel")[0], "Linkedid")]);
    expect(calls.count).toBe(0);
  });
});

describe("failed sign-ins as the console counts them", () => {
  const count = (name: string, event: string, account?: string) =>
    blocksOf(name, event).filter((b) => account === undefined || field(b, "AccountID") === account).length;

  test("a wrong SIP password, an unknown SIP account and refused manager logins, by address and account", () => {
    const security = new SecurityState({ maxSources: 100, maxAccountsPerSource: 20, maxAccounts: 1_000 });
    const now = Date.parse("2026-01-01T12:00:00Z");
    for (const name of ["register", "security-wrong-password", "security-unknown-account", "security-ami"])
      for (const e of eventsOf(name)) security.record(e, now);
    const wrong = count("security-wrong-password", "ChallengeResponseFailed", "2403");
    const unknown = count("security-unknown-account", "InvalidAccountID", "2999");
    expect(wrong).toBeGreaterThan(0);
    expect(unknown).toBeGreaterThan(0);
    // Each request of the unknown account also failed a challenge as `<unknown>`: not counted twice.
    expect(count("security-unknown-account", "ChallengeResponseFailed", "<unknown>")).toBeGreaterThan(0);
    const view = security.view(now);
    const local = view.lastHour.sources.find((s) => s.address === "127.0.0.1");
    expect(local?.accounts).toEqual(
      [
        { account: "2403", failures: wrong },
        { account: "2999", failures: unknown },
        { account: "nosuchuser", failures: 1 },
        { account: "testbed", failures: 1 },
      ].sort((a, b) => b.failures - a.failures || a.account.localeCompare(b.account)),
    );
    expect(local?.failures).toBe(wrong + unknown + 2);
    // The manager login from an address its permit does not allow.
    expect(view.lastHour.sources.find((s) => s.address === "127.0.0.2")).toMatchObject({
      failures: 1,
      accounts: [{ account: "testbed", failures: 1 }],
    });
    // ChallengeSent, SuccessfulAuth and RequestNotAllowed are no failed sign-ins.
    expect(view.lastHour.failures).toBe(wrong + unknown + 3);
  });
});

// ----- the recorded bytes over TCP ------------------------------------------------------------------------------

interface Replay {
  host: string;
  port: number;
  /** Lower-case action → the transcript whose answer is sent. */
  answers: Map<string, string>;
  actions: string[];
  /** Sends a transcript's events (those without an ActionID; the `from`-th to before the `to`-th) to every connection. */
  push(name: string, range?: { from?: number; to?: number }): void;
}

/** A transcript's events that are no list items: what the PBX sent on its own. */
const asyncEvents = (name: string) =>
  transcript(name).blocks.filter((b) => b.kind === "event" && fieldOf(b.fields, "ActionID") === undefined);

/**
 * A manager interface that answers from the transcripts: the recorded banner and login, and for each action
 * the recorded answer (and list items) of the transcript named for it, with the request's ActionID.
 */
async function replay(answers: Record<string, string>): Promise<Replay> {
  const login = transcript("login");
  const banner = login.blocks.find((b) => b.kind === "banner") as AmiBlock;
  const sockets = new Set<Socket<{ buf: string }>>();
  const r: Replay = {
    host: "127.0.0.1",
    port: 0,
    answers: new Map(Object.entries(answers).map(([k, v]) => [k.toLowerCase(), v])),
    actions: [],
    push(name, range = {}) {
      const text = asyncEvents(name)
        .slice(range.from ?? 0, range.to)
        .map(wireText)
        .join("");
      for (const s of sockets) s.write(text);
    },
  };
  const answer = (s: Socket<{ buf: string }>, request: AmiFields) => {
    const action = (fieldOf(request, "Action") ?? "").toLowerCase();
    const id = fieldOf(request, "ActionID") ?? "";
    r.actions.push(action);
    const name = r.answers.get(action) ?? (["login", "logoff"].includes(action) ? action : "unknown-action");
    const t = transcript(name);
    const recordedId = t.sent[0]?.actionid;
    const blocks = t.blocks.filter(
      (b) =>
        b.kind !== "banner" &&
        (fieldOf(b.fields, "ActionID") === recordedId || (action === "login" && b.name === "FullyBooted")),
    );
    for (const b of blocks) {
      const fields = b.fields.map(([k, v]): [string, string] => [k, k === "ActionID" ? id : v]);
      s.write(`${fields.map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n`);
    }
    if (action === "logoff") s.end();
  };
  const listener: TCPSocketListener<{ buf: string }> = Bun.listen<{ buf: string }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        s.data = { buf: "" };
        sockets.add(s);
        s.write(wireText(banner));
      },
      data(s, bytes) {
        s.data.buf += new TextDecoder().decode(bytes);
        for (let end = s.data.buf.indexOf("\r\n\r\n"); end !== -1; end = s.data.buf.indexOf("\r\n\r\n")) {
          const lines = s.data.buf.slice(0, end).split("\r\n");
          s.data.buf = s.data.buf.slice(end + 4);
          answer(
            s,
            lines.map((l): [string, string] => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]),
          );
        }
      },
      close(s) {
        sockets.delete(s);
      },
    },
  });
  r.port = listener.port;
  cleanup.push(() => {
    for (const s of sockets) s.end();
    listener.stop(true);
  });
  return r;
}

function monitorOn(r: Replay): LiveMonitor {
  const dir = mkdtempSync(join(tmpdir(), "pbx-ami-rec-"));
  const config = loadConfig(
    {
      PORT: "0",
      DATA_DIR: dir,
      LOG_LEVEL: "silent",
      ASTERISK_MANAGER_CONF: join(dir, "manager.conf"),
      FREEPBX_CONF: join(dir, "freepbx.conf"),
      AMI_HOST: r.host,
      AMI_PORT: String(r.port),
      AMI_USERNAME: "testbed",
      AMI_SECRET: "replayed-secret",
    },
    false,
  );
  const db = openDatabase(join(dir, "test.db"));
  const credentials = new CredentialStore(db, SecretBox.open(dir), config.env);
  const monitor = new LiveMonitor(
    { db, config, credentials, now: Date.now, events: { publish: () => {} } },
    {
      settingsCheckMs: 50,
      coalesceMs: 10,
      client: {
        backoff: { minMs: 20, maxMs: 100 },
        connectTimeoutMs: 2_000,
        actionTimeoutMs: 2_000,
        pingIntervalMs: 0,
      },
    },
  );
  cleanup.push(async () => {
    await monitor.stop();
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });
  monitor.start();
  return monitor;
}

const LISTS_IN_CALL = {
  PJSIPShowEndpoints: "pjsip-show-endpoints",
  PJSIPShowContacts: "pjsip-show-contacts",
  PJSIPShowRegistrationsOutbound: "pjsip-show-registrations-outbound",
  CoreShowChannels: "core-show-channels",
  PJSIPShowEndpoint: "pjsip-show-endpoint",
  Hangup: "hangup-action",
};

/** The answers of a PBX just reset: no endpoint, contact, registration or call. */
const EMPTY_PBX = {
  PJSIPShowEndpoints: "pjsip-show-endpoints-none",
  PJSIPShowContacts: "pjsip-show-contacts-none",
  PJSIPShowRegistrationsOutbound: "pjsip-show-registrations-outbound-none",
  CoreShowChannels: "core-show-channels-none",
};

describe("the live monitor over the recorded bytes", () => {
  test("a PBX just reset (No endpoints found, No Contacts found): connected, with nothing in it", async () => {
    const r = await replay(EMPTY_PBX);
    const monitor = monitorOn(r);
    const status = await until("connected", () => (monitor.status().connected ? monitor.status() : null));
    expect(status).toMatchObject({ extensions: [], trunks: [], activeCalls: 0, reason: null });
    expect(r.actions).toEqual([
      "login",
      "pjsipshowendpoints",
      "pjsipshowcontacts",
      "pjsipshowregistrationsoutbound",
      "coreshowchannels",
    ]);
  });

  test("during a call: endpoints, the registered phone, the trunk, the call; the console's hang-up; the call's end", async () => {
    const r = await replay(LISTS_IN_CALL);
    const monitor = monitorOn(r);
    const status = await until("connected", () => (monitor.status().connected ? monitor.status() : null));
    const contact = blocksOf("pjsip-show-contacts", "ContactList")[0];
    expect(status.extensions.map((e) => [e.extension, e.registered])).toEqual([
      ["2401", true],
      ["2402", false],
      ["2403", false],
    ]);
    expect(status.extensions[0]?.contacts[0]?.expiresAt).toBe(
      new Date(Number(field(contact, "ExpirationTime")) * 1000).toISOString(),
    );
    expect(status.trunks).toEqual([{ name: "carrier", registration: "registered", reachable: null }]);
    expect(status.activeCalls).toBe(1);
    const [call] = monitor.activeCalls().calls;
    expect(call).toMatchObject({ direction: "internal", state: "up", caller: { number: "2401" } });

    const [, callee] = blocksOf("core-show-channels", "CoreShowChannel");
    expect(await monitor.hangup(field(callee, "Channel"))).toEqual({
      id: call?.id as string,
      channel: field(callee, "Channel"),
    });
    r.answers.set("hangup", "hangup-unknown");
    const [caller] = blocksOf("core-show-channels", "CoreShowChannel");
    const gone = await monitor.hangup(field(caller, "Channel")).catch((e) => e);
    expect(gone).toBeInstanceOf(NotFound);
    expect(gone.message).toBe("The call has already ended");
    expect(monitor.activeCalls().calls).toEqual([]);
  });

  test("a call's events from the PBX show it and end it", async () => {
    const r = await replay({ ...LISTS_IN_CALL, CoreShowChannels: "core-show-channels-none" });
    const monitor = monitorOn(r);
    await until("connected", () => monitor.status().connected);
    expect(monitor.activeCalls().calls).toEqual([]);
    const hangingUp = asyncEvents("call").findIndex((b) => b.name === "HangupRequest");
    expect(hangingUp).toBeGreaterThan(0);
    r.push("call", { to: hangingUp });
    const up = await until("the call, answered", () => monitor.activeCalls().calls.find((c) => c.state === "up"));
    expect(up).toMatchObject({
      direction: "internal",
      caller: { number: "2401", name: "Recorded 2401" },
      callee: { number: "2402", name: "Recorded 2402" },
    });
    expect(up.channels).toHaveLength(2);
    expect(monitor.status().extensions.find((e) => e.extension === "2402")?.state).toBe("in-use");
    r.push("call", { from: hangingUp });
    await until("the call gone", () => monitor.activeCalls().calls.length === 0);
    await until("2402 idle", () => monitor.status().extensions.find((e) => e.extension === "2402")?.state === "idle");
  });

  test("a phone registers after login: its address, user agent and expiry come from PJSIPShowEndpoint; it leaves", async () => {
    const r = await replay({ ...LISTS_IN_CALL, PJSIPShowContacts: "pjsip-show-contacts-none" });
    const monitor = monitorOn(r);
    await until("connected", () => monitor.status().connected);
    const ext = () => monitor.status().extensions.find((e) => e.extension === "2401");
    expect(ext()?.registered).toBe(false);
    r.push("register");
    const detail = blocksOf("pjsip-show-endpoint", "ContactStatusDetail")[0];
    const contact = await until("2401's contact with its address", () => {
      const c = ext()?.contacts[0];
      return c?.address ? c : null;
    });
    expect(r.actions).toContain("pjsipshowendpoint");
    expect(contact).toMatchObject({
      uri: field(detail, "URI"),
      address: field(detail, "ViaAddress"),
      userAgent: field(detail, "UserAgent"),
      expiresAt: new Date(Number(field(detail, "RegExpire")) * 1000).toISOString(),
    });
    r.push("unregister");
    await until("2401 gone", () => ext()?.registered === false && ext()?.state === "unavailable");
  });

  test("FreePBX's Apply Config (Reload) reads the lists again", async () => {
    const r = await replay(EMPTY_PBX);
    const monitor = monitorOn(r);
    await until("connected", () => monitor.status().connected);
    r.answers.set("pjsipshowendpoints", "pjsip-show-endpoints");
    r.push("reload");
    await until("the imported extensions", () => monitor.status().extensions.length === 3);
  });

  test("the attack view counts the recorded failures", async () => {
    const r = await replay(LISTS_IN_CALL);
    const monitor = monitorOn(r);
    await until("connected", () => monitor.status().connected);
    for (const name of ["security-wrong-password", "security-unknown-account", "security-ami"]) r.push(name);
    const expected =
      blocksOf("security-wrong-password", "ChallengeResponseFailed").length +
      blocksOf("security-unknown-account", "InvalidAccountID").length +
      3;
    await until("every failure counted", () => monitor.security().lastHour.failures === expected);
    expect(monitor.security().lastHour.sources.map((s) => s.address)).toEqual(["127.0.0.1", "127.0.0.2"]);
  });

  test("Test Connection names the recorded Asterisk version and counts the endpoints", async () => {
    const r = await replay({ Command: "command-core-show-version", PJSIPShowEndpoints: "pjsip-show-endpoints" });
    expect(await testAmiConnection({ host: r.host, port: r.port, username: "testbed", secret: "x" })).toBe(
      `Connected to Asterisk ${recordedAsteriskVersion()} as testbed: 4 endpoints.`,
    );
    r.answers.set("pjsipshowendpoints", "pjsip-show-endpoints-none");
    expect(await testAmiConnection({ host: r.host, port: r.port, username: "testbed", secret: "x" })).toBe(
      `Connected to Asterisk ${recordedAsteriskVersion()} as testbed: 0 endpoints.`,
    );
  });
});

// ----- the fake against the recordings -----------------------------------------------------------------------

/** Recorded events the fake does not send (its call is shorter than Asterisk's; see test/fakes/ami.ts). */
const NOT_FROM_THE_FAKE = [
  "BridgeCreate",
  "BridgeDestroy",
  "Cdr",
  "ChallengeSent",
  "DialState",
  "ExtensionStatus",
  "HangupRequest",
  "NewConnectedLine",
  "PeerStatus",
  "Reload",
  "RequestNotAllowed",
  "SoftHangupRequest",
  "SuccessfulAuth",
];
/** Recorded answers the fake does not give: it answers an empty contact list with the list. */
const NOT_ANSWERED_BY_THE_FAKE = ["PJSIPShowContacts/Error"];

describe("the fake AMI against the recordings", () => {
  test("each recorded event and answer the fake gives has the recording's field names, in its order", async () => {
    const fake = await startFakeAmi({ username: "testbed", secret: "fake-secret" });
    cleanup.push(() => fake.stop());
    const got: Array<{ kind: "event" | "response"; name: string; fields: AmiFields }> = [];
    const open = async () => {
      const buf = { text: "", sent: [] as string[] };
      const sock = await Bun.connect<undefined>({
        hostname: fake.host,
        port: fake.port,
        socket: {
          data(_s, bytes) {
            buf.text += new TextDecoder().decode(bytes);
            const nl = buf.text.indexOf("\r\n");
            if (buf.text.startsWith("Asterisk Call Manager/") && nl !== -1) buf.text = buf.text.slice(nl + 2);
            for (let end = buf.text.indexOf("\r\n\r\n"); end !== -1; end = buf.text.indexOf("\r\n\r\n")) {
              const fields = buf.text
                .slice(0, end)
                .split("\r\n")
                .map((l): [string, string] => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]);
              buf.text = buf.text.slice(end + 4);
              const event = fieldOf(fields, "Event");
              const id = fieldOf(fields, "ActionID");
              if (event) got.push({ kind: "event", name: event, fields });
              else
                got.push({ kind: "response", name: `${buf.sent[Number(id)]}/${fieldOf(fields, "Response")}`, fields });
            }
          },
        },
      });
      const send = (action: string, extra: Record<string, string> = {}) => {
        buf.sent.push(action);
        const lines = [
          `Action: ${action}`,
          `ActionID: ${buf.sent.length - 1}`,
          ...Object.entries(extra).map(([k, v]) => `${k}: ${v}`),
        ];
        sock.write(`${lines.join("\r\n")}\r\n\r\n`);
      };
      return { sock, send, count: () => got.length };
    };
    const settle = async (n: number) => until(`${n} messages from the fake`, () => got.length >= n);

    const bad = await open();
    bad.send("Ping");
    bad.send("Login", { Username: "testbed", Secret: "wrong" });
    await settle(2);
    const c = await open();
    c.send("Login", { Username: "testbed", Secret: "fake-secret", Events: "on" });
    await settle(4);
    c.send("PJSIPShowEndpoints");
    await settle(5);
    fake.addEndpoint("2401", { kind: "extension" });
    fake.addEndpoint("2402", { kind: "extension" });
    fake.addEndpoint("carrier", { kind: "trunk" });
    fake.register("2401", { uri: "sip:2401-0x1@127.0.0.1:5070", userAgent: "baresip", viaAddr: "127.0.0.1:5070" });
    fake.register("2402", { uri: "sip:2402-0x2@127.0.0.1:5072", viaAddr: "127.0.0.1:5072" });
    fake.setTrunkRegistration("carrier", "Registered");
    const call = fake.startCall({ from: "2401", to: "2402", fromName: "Recorded 2401" });
    fake.answer(call.linkedid);
    for (const type of ["ChallengeResponseFailed", "InvalidAccountID", "InvalidPassword", "FailedACL"] as const)
      fake.securityEvent({ type, account: "2403", address: "127.0.0.1:5090" });
    fake.addMailbox("2401", { name: "Recorded 2401" });
    const message = fake.leaveVoicemail("2401", { callerId: '"Recorded 2402" <2402>', durationS: 3 });
    const box = { Context: "default", Mailbox: "2401" };
    const actions: Array<[string, Record<string, string>?]> = [
      ["Ping"],
      ["Command", { Command: "core show version" }],
      ["Command", { Command: "no such command here" }],
      ["NoSuchAction"],
      ["PJSIPShowEndpoints"],
      ["PJSIPShowEndpoint", { Endpoint: "2401" }],
      ["PJSIPShowEndpoint", { Endpoint: "2499" }],
      ["PJSIPShowContacts"],
      ["PJSIPShowRegistrationsOutbound"],
      ["CoreShowChannels"],
      ["Hangup", { Channel: call.channels[1] as string, Cause: "16" }],
      ["Hangup", { Channel: "PJSIP/2499-00000000", Cause: "16" }],
      ["CoreShowChannels"],
      ["DBPut", { Family: "TC", Key: "1", Val: "false_sticky" }],
      ["Setvar", { Variable: "DEVICE_STATE(Custom:TC1)", Value: "INUSE" }],
      ["VoicemailUsersList"],
      ["VoicemailUserStatus", box],
      ["VoicemailBoxSummary", box],
      ["VoicemailMove", { ...box, Folder: "INBOX", ID: message, ToFolder: "Old" }],
      ["VoicemailMove", { ...box, Folder: "INBOX", ID: message, ToFolder: "Old" }],
      ["VoicemailRemove", { ...box, Folder: "INBOX", ID: message }],
      ["VoicemailRemove", { ...box, Folder: "Old", ID: message }],
      ["VoicemailUserStatus", { Context: "default", Mailbox: "2499" }],
      ["VoicemailBoxSummary", { Context: "default", Mailbox: "2499" }],
      ["Logoff"],
    ];
    for (const [name, fields] of actions) c.send(name, fields);
    await until("the Logoff answer", () => got.some((g) => g.name === "Logoff/Goodbye"));
    fake.state.registrations.clear();
    fake.state.voicemail.clear();
    const empty = await open();
    empty.send("Login", { Username: "testbed", Secret: "fake-secret", Events: "off" });
    empty.send("VoicemailUsersList");
    empty.send("PJSIPShowRegistrationsOutbound");
    await until("the empty registration list", () =>
      got.some((g) => g.name === "OutboundRegistrationDetailComplete" && fieldOf(g.fields, "ListItems") === "0"),
    );
    bad.sock.end();
    c.sock.end();
    empty.sock.end();

    const keys = (f: AmiFields) => f.map(([k]) => k);
    const recordedKeys = (kind: "event" | "response", name: string) => {
      const shapes = new Set<string>();
      for (const t of transcripts())
        for (const b of t.blocks) {
          const n = kind === "event" ? b.name : `${b.name}/${fieldOf(b.fields, "Response")}`;
          if (b.kind === kind && n === name) shapes.add(JSON.stringify(keys(b.fields)));
        }
      return [...shapes].map((s) => JSON.parse(s) as string[]);
    };
    const produced = new Set<string>();
    for (const g of got) {
      const name = g.name;
      produced.add(`${g.kind}:${name}`);
      const shapes = recordedKeys(g.kind, name);
      expect({ name, recorded: shapes.length > 0 }).toEqual({ name, recorded: true });
      // Asterisk sends a list item's ActionID only when the action had one; the fake's always had.
      expect(shapes.map((s) => JSON.stringify(s))).toContain(JSON.stringify(keys(g.fields)));
    }
    const { events, responses } = recordedNames();
    const missingEvents = events.filter((e) => !produced.has(`event:${e}`));
    expect(missingEvents.sort()).toEqual([...NOT_FROM_THE_FAKE].sort());
    const missingAnswers = responses
      .map((r) => `${r.action}/${r.outcome}`)
      .filter((r) => !produced.has(`response:${r}`));
    expect(missingAnswers.sort()).toEqual([...NOT_ANSWERED_BY_THE_FAKE].sort());
    // The templates it builds from are the recorded blocks themselves.
    expect(eventTemplate("ContactStatus").keys).toEqual([
      "Event",
      "Privilege",
      "URI",
      "ContactStatus",
      "AOR",
      "EndpointName",
      "RoundtripUsec",
    ]);
    expect(responseTemplate("Login", "Success").source).toBe("login");
  });

  test("a field the fake would make up is refused by its template", () => {
    expect(() => eventTemplate("ContactStatus").build({ ViaAddress: "127.0.0.1:5060" })).toThrow(
      /sends viaaddress in ContactStatus; Asterisk does not/,
    );
  });
});
