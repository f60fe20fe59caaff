/**
 * Records what the real Asterisk of the testbed (`../shared/testbed`, Asterisk 22 + FreePBX 17 on loopback)
 * sends on its manager interface, into `test/fixtures/ami/<name>.txt`: the fake AMI builds its messages
 * from these recordings and the unit tests feed them to the console's parsing (test/fakes/README.md).
 *
 *   node_modules/.bin/bun scripts/record-ami-transcripts.ts     (as root; it brings the testbed up)
 *
 * It waits while a real-PBX test run (`bun test test/pbx`) uses the testbed, resets it, makes extensions
 * 2401–2403 with FreePBX's own Bulk Handler import and a registering trunk with FreePBX's own `addTrunk`,
 * reloads with `fwconsole reload`, and drives baresip softphones through registration, calls, a hang-up
 * over AMI and refused registrations. It waits for conditions (events, softphone states), and every file
 * holds the same kinds of blocks on each run; uniqueids, times, ports and hashes differ. The AMI secret
 * and the SIP secrets are never written. It resets the testbed again at the end.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { type AmiFields, fieldOf, formatTranscript, TRANSCRIPT_DIR } from "../test/fakes/ami-transcripts";
import { startRegistrar } from "../test/pbx/registrar";
import { Softphone } from "../test/pbx/softphone";
import {
  bulkimport,
  cli,
  freepbxPhp,
  reset,
  sh,
  TESTBED_DIR,
  type TestbedEnv,
  testbed,
  until,
} from "../test/pbx/testbed";

/** Event classes left out of the event recordings: the dialplan's VarSet/Newexten and RTCP reports, by the hundred per call. */
const NOISE_CLASSES = new Set(["dialplan", "reporting"]);
const EXTENSIONS = ["2401", "2402", "2403"] as const;

interface Received {
  /** The block as sent, CRLF made LF, without the blank line after it. */
  text: string;
  fields: AmiFields;
}

type Item = { sent: AmiFields } | { comment: string } | { block: string };

/** A raw AMI connection that keeps every block as Asterisk sent it, in order. */
class AmiTap {
  readonly blocks: Received[] = [];
  /** Actions sent, with the number of blocks received before each. */
  readonly sent: Array<{ at: number; fields: AmiFields }> = [];
  banner = "";
  closed = false;
  private buffer = "";
  private seq = 0;

  private constructor(
    readonly label: string,
    private readonly socket: Socket,
  ) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => this.onData(chunk));
    socket.on("close", () => {
      this.closed = true;
    });
  }

  static async open(env: TestbedEnv, label: string, localAddress?: string): Promise<AmiTap> {
    const socket = connect({ host: env.amiHost, port: env.amiPort, localAddress });
    await new Promise<void>((done, fail) => {
      socket.once("connect", done);
      socket.once("error", fail);
    });
    const tap = new AmiTap(label, socket);
    await until("the AMI banner", () => (tap.banner ? true : undefined), 10_000);
    return tap;
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    if (!this.banner) {
      const nl = this.buffer.indexOf("\r\n");
      if (nl === -1) return;
      this.banner = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 2);
    }
    for (let end = this.buffer.indexOf("\r\n\r\n"); end !== -1; end = this.buffer.indexOf("\r\n\r\n")) {
      const raw = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 4);
      const text = raw.replace(/\r\n/g, "\n");
      const fields = text.split("\n").map((line): [string, string] => {
        const colon = line.indexOf(":");
        const value = line.slice(colon + 1);
        return [line.slice(0, colon), value.startsWith(" ") ? value.slice(1) : value];
      });
      this.blocks.push({ text, fields });
    }
  }

  /** Sends an action (an ActionID `<label>-<n>` first); its ActionID. */
  send(name: string, fields: AmiFields = []): string {
    this.seq += 1;
    const id = `${this.label}-${this.seq}`;
    const all: AmiFields = [["Action", name], ["ActionID", id], ...fields];
    this.sent.push({ at: this.blocks.length, fields: all });
    this.socket.write(`${all.map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n`);
    return id;
  }

  /** The answer to an action and, for a list, its items up to the `…Complete` event: their indexes. */
  async action(name: string, fields: AmiFields = [], list = false): Promise<number[]> {
    const id = this.send(name, fields);
    const mine = () => this.blocks.flatMap((b, i) => (fieldOf(b.fields, "ActionID") === id ? [i] : []));
    await until(
      `the answer to ${name}`,
      () => {
        const got = mine().map((i) => this.blocks[i] as Received);
        const response = got.find((b) => fieldOf(b.fields, "Response") !== undefined);
        if (!response) return undefined;
        if (!list || fieldOf(response.fields, "Response") !== "Success") return true;
        return got.some((b) => fieldOf(b.fields, "EventList") === "Complete") ? true : undefined;
      },
      20_000,
    );
    return mine();
  }

  /** Waits for a block at index ≥ `from` that `match` accepts; its index. */
  async waitFor(what: string, from: number, match: (fields: AmiFields) => boolean, ms = 30_000): Promise<number> {
    return until(
      what,
      () => {
        const i = this.blocks.findIndex((b, n) => n >= from && match(b.fields));
        return i === -1 ? undefined : i;
      },
      ms,
    );
  }

  /** Waits until nothing has arrived for `quietMs` (late events of what was just done), at most `ms`. */
  async settle(quietMs = 1_000, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    let count = this.blocks.length;
    let since = Date.now();
    while (Date.now() < deadline) {
      await Bun.sleep(100);
      if (this.blocks.length !== count) {
        count = this.blocks.length;
        since = Date.now();
      } else if (Date.now() - since >= quietMs) return;
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

const isEvent = (f: AmiFields, name: string, check: Record<string, string | RegExp> = {}) =>
  fieldOf(f, "Event") === name &&
  Object.entries(check).every(([k, v]) => {
    const got = fieldOf(f, k) ?? "";
    return typeof v === "string" ? got === v : v.test(got);
  });

const classesOf = (f: AmiFields) =>
  (fieldOf(f, "Privilege") ?? "")
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c && c !== "all");
const isNoise = (f: AmiFields) => {
  const classes = classesOf(f);
  return classes.length > 0 && classes.every((c) => NOISE_CLASSES.has(c));
};

/** The items of a window of `tap`: the actions it sent in it and the blocks, noise left out. */
function windowItems(tap: AmiTap, from: number, to = tap.blocks.length, o: { answers?: boolean } = {}): Item[] {
  const items: Item[] = [];
  const sentAt = o.answers ? tap.sent.filter((s) => s.at >= from && s.at <= to) : [];
  const ids = new Set(sentAt.map((s) => fieldOf(s.fields, "ActionID")));
  for (let i = from; i < to; i++) {
    for (const s of sentAt) if (s.at === i) items.push({ sent: s.fields });
    const b = tap.blocks[i] as Received;
    const id = fieldOf(b.fields, "ActionID");
    if (id !== undefined && !(o.answers && ids.has(id))) continue;
    if (fieldOf(b.fields, "Event") !== undefined && id === undefined && isNoise(b.fields)) continue;
    items.push({ block: b.text });
  }
  for (const s of sentAt) if (s.at === to) items.push({ sent: s.fields });
  return items;
}

/** The items of one action: what was sent, then its answer and list items. */
function actionItems(tap: AmiTap, indexes: number[]): Item[] {
  const first = indexes[0] ?? tap.blocks.length;
  const id = fieldOf(tap.blocks[first]?.fields ?? [], "ActionID");
  const sent = tap.sent.find((s) => fieldOf(s.fields, "ActionID") === id);
  return [
    ...(sent ? [{ sent: sent.fields }] : []),
    ...indexes.map((i) => ({ block: (tap.blocks[i] as Received).text })),
  ];
}

/** No real-PBX test run (nor another `up`) on the testbed: they would collide. Polled every 30 s. */
async function waitForIdleTestbed(): Promise<void> {
  const busy = () => {
    const rows = (Bun.spawnSync(["ps", "-eo", "pid=,ppid=,args="]).stdout?.toString() ?? "")
      .split("\n")
      .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null);
    // `up` leaves a shell behind as MariaDB's parent for as long as it runs: that one is no run.
    const mariadbParents = new Set(rows.filter((m) => /\bmariadbd\b/.test(m[3] as string)).map((m) => m[2]));
    return rows
      .filter((m) => {
        const args = m[3] as string;
        if (/\bbun\b.*\btest\b.*test\/pbx(\/|\s|$)/.test(args)) return true;
        return /testbed\/(up|reset|selftest)\b|\s\.\/(up|reset|selftest)\b/.test(args) && !mariadbParents.has(m[1]);
      })
      .map((m) => m[3] as string);
  };
  for (let running = busy(); running.length > 0; running = busy()) {
    console.error(`waiting: the testbed is in use by\n  ${running.join("\n  ")}`);
    await Bun.sleep(30_000);
  }
}

async function reload(): Promise<void> {
  await sh(["bash", "-c", `. ${TESTBED_DIR}/lib.sh && tb_reload`], { timeoutMs: 300_000 });
}

const secret = () => randomBytes(12).toString("hex");

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error("run as root: the testbed's up, reset and fwconsole need it");
  await waitForIdleTestbed();
  const env = await testbed();
  await reset();
  const asterisk = /^Asterisk (\S+)/.exec((await cli("core show version")).trim())?.[1] ?? "unknown";
  const secrets = [env.amiSecret];
  const files = new Map<string, { what: string[]; items: Item[]; events: boolean }>();
  /** `events`: a window of events, noise classes left out (the header says so). */
  const save = (name: string, what: string[], items: Item[], events = false) =>
    files.set(name, { what, items, events });
  const phones: Softphone[] = [];
  const registrar = await startRegistrar("127.0.0.3");
  try {
    // ----- the session -------------------------------------------------------------------------------
    const tap = await AmiTap.open(env, "rec");
    const login = await tap.action("Login", [
      ["Username", env.amiUsername],
      ["Secret", env.amiSecret],
      ["Events", "on"],
    ]);
    const booted = await tap.waitFor("FullyBooted", 0, (f) => isEvent(f, "FullyBooted"));
    save(
      "login",
      ["The banner, a Login with Events: on (every class, security included) and what follows it."],
      [
        { block: tap.banner },
        ...actionItems(tap, login),
        ...(booted > (login[0] ?? 0) ? [{ block: (tap.blocks[booted] as Received).text }] : []),
      ],
    );
    await tap.settle(500);

    const simple = async (name: string, what: string, action: string, fields: AmiFields = [], list = false) =>
      save(name, [what], actionItems(tap, await tap.action(action, fields, list)));
    await simple("ping", "Ping.", "Ping");
    await simple("command-core-show-version", "Command core show version.", "Command", [
      ["Command", "core show version"],
    ]);
    await simple("command-unknown", "Command with a CLI command that does not exist.", "Command", [
      ["Command", "no such command here"],
    ]);
    await simple("unknown-action", "An action Asterisk does not have.", "NoSuchAction");

    // ----- the lists with nothing in them (right after reset: no extension, no trunk, no call) ------------
    await simple(
      "pjsip-show-endpoints-none",
      "PJSIPShowEndpoints with no endpoint at all.",
      "PJSIPShowEndpoints",
      [],
      true,
    );
    await simple("pjsip-show-contacts-none", "PJSIPShowContacts with no contact.", "PJSIPShowContacts", [], true);
    await simple(
      "pjsip-show-registrations-outbound-none",
      "PJSIPShowRegistrationsOutbound with no outbound registration.",
      "PJSIPShowRegistrationsOutbound",
      [],
      true,
    );
    await simple("core-show-channels-none", "CoreShowChannels with no call.", "CoreShowChannels", [], true);
    await simple(
      "pjsip-show-endpoint-unknown",
      "PJSIPShowEndpoint of an endpoint that does not exist.",
      "PJSIPShowEndpoint",
      [["Endpoint", "2499"]],
      true,
    );

    // ----- extensions the way FreePBX makes them, then Apply Config ---------------------------------------
    const sipSecrets = Object.fromEntries(EXTENSIONS.map((e) => [e, secret()]));
    secrets.push(...Object.values(sipSecrets));
    await bulkimport(
      "extensions",
      ["extension,name,tech,secret", ...EXTENSIONS.map((e) => `${e},Recorded ${e},pjsip,${sipSecrets[e]}`), ""].join(
        "\n",
      ),
    );
    let from = tap.blocks.length;
    await reload();
    await tap.waitFor("the Reload event", from, (f) => isEvent(f, "Reload"));
    await tap.settle();
    save(
      "reload",
      [
        "fwconsole reload (FreePBX's Apply Config) after extensions 2401-2403 were imported with fwconsole",
        "bulkimport: everything Asterisk sent while it ran (FreePBX's own manager session included).",
      ],
      windowItems(tap, from),
      true,
    );

    // ----- a registering trunk, as FreePBX's trunk form adds it -----------------------------------------
    const trunkSecret = secret();
    secrets.push(trunkSecret);
    const settings = {
      trunk_name: "carrier",
      channelid: "carrier",
      tech: "pjsip",
      sip_server: registrar.address,
      sip_server_port: String(registrar.port),
      username: "acct100",
      auth_username: "acct100",
      secret: trunkSecret,
      authentication: "outbound",
      registration: "send",
      context: "from-pstn",
      transport: `${env.sipHost}-udp`,
      dtmfmode: "auto",
      qualify_frequency: "60",
      expiration: "3600",
      retry_interval: "60",
      forbidden_retry_interval: "30",
      fatal_retry_interval: "30",
      max_retries: "10000",
      auth_rejection_permanent: "on",
      outcid: "",
      keepcid: "off",
      maxchans: "",
      dialoutprefix: "",
      disabletrunk: "off",
      continue: "off",
    };
    await freepbxPhp(
      `FreePBX::Core()->addTrunk('carrier', 'pjsip', json_decode(${JSON.stringify(JSON.stringify(settings))}, true));\nneedreload();`,
    );
    from = tap.blocks.length;
    await reload();
    await tap.waitFor("the trunk's registration", from, (f) => isEvent(f, "Registry", { Status: "Registered" }));
    await tap.settle();
    save(
      "trunk-registration",
      [
        "A PJSIP trunk `carrier` added with FreePBX's Core::addTrunk (registration: send, to a registrar on",
        "127.0.0.3 that answers every REGISTER with 200 OK and nothing else), then fwconsole reload: the",
        "events until the trunk has registered.",
      ],
      windowItems(tap, from),
      true,
    );
    await simple(
      "pjsip-show-registrations-outbound",
      "PJSIPShowRegistrationsOutbound with the trunk `carrier` registered.",
      "PJSIPShowRegistrationsOutbound",
      [],
      true,
    );

    // ----- a softphone registers ---------------------------------------------------------------------
    from = tap.blocks.length;
    const a = await Softphone.start({ user: "2401", secret: sipSecrets["2401"] });
    phones.push(a);
    await tap.waitFor("2401 reachable", from, (f) =>
      isEvent(f, "ContactStatus", { EndpointName: "2401", ContactStatus: "Reachable" }),
    );
    await tap.waitFor("2401 not in use", from, (f) =>
      isEvent(f, "DeviceStateChange", { Device: "PJSIP/2401", State: "NOT_INUSE" }),
    );
    await tap.settle();
    const registerFrom = from;
    const registerTo = tap.blocks.length;
    save(
      "register",
      ["A baresip softphone registers extension 2401 (and its contact is qualified)."],
      windowItems(tap, from),
      true,
    );
    const endpointDetail = await tap.action("PJSIPShowEndpoint", [["Endpoint", "2401"]], true);
    save(
      "pjsip-show-endpoint",
      ["PJSIPShowEndpoint of extension 2401 with its softphone registered."],
      actionItems(tap, endpointDetail),
    );
    await simple(
      "pjsip-show-endpoints",
      "PJSIPShowEndpoints: extensions 2401-2403 (2401 registered) and the trunk `carrier`.",
      "PJSIPShowEndpoints",
      [],
      true,
    );
    await simple(
      "pjsip-show-contacts",
      "PJSIPShowContacts with 2401's softphone registered (the trunk's static contact is no contact object).",
      "PJSIPShowContacts",
      [],
      true,
    );

    // ----- a call rings, is answered and hung up -------------------------------------------------------
    const b = await Softphone.start({ user: "2402", secret: sipSecrets["2402"] });
    phones.push(b);
    await tap.waitFor("2402 not in use", 0, (f) =>
      isEvent(f, "DeviceStateChange", { Device: "PJSIP/2402", State: "NOT_INUSE" }),
    );
    await tap.settle();
    from = tap.blocks.length;
    let phoneFrom = b.events.length;
    await a.dial("2402");
    await b.waitFor("CALL_INCOMING", { since: phoneFrom });
    await tap.waitFor("2402 ringing", from, (f) =>
      isEvent(f, "Newstate", { Channel: /^PJSIP\/2402-/, ChannelStateDesc: "Ringing" }),
    );
    await b.accept();
    await a.waitFor("CALL_ESTABLISHED", { since: 0 });
    for (const ch of [/^PJSIP\/2401-/, /^PJSIP\/2402-/])
      await tap.waitFor("both in the bridge", from, (f) => isEvent(f, "BridgeEnter", { Channel: ch }));
    await tap.settle();
    const channels = await tap.action("CoreShowChannels", [], true);
    save(
      "core-show-channels",
      ["CoreShowChannels during an answered call from 2401 to 2402."],
      actionItems(tap, channels),
    );
    const inCall = await tap.action("PJSIPShowEndpoints", [], true);
    save(
      "pjsip-show-endpoints-in-call",
      ["PJSIPShowEndpoints during an answered call from 2401 to 2402."],
      actionItems(tap, inCall),
    );
    let aFrom = a.events.length;
    await a.hangup();
    await a.waitFor("CALL_CLOSED", { since: aFrom });
    for (const ch of [/^PJSIP\/2401-/, /^PJSIP\/2402-/])
      await tap.waitFor("both hung up", from, (f) => isEvent(f, "Hangup", { Channel: ch }));
    for (const dev of ["PJSIP/2401", "PJSIP/2402"])
      await tap.waitFor(`${dev} idle`, from, (f) =>
        isEvent(f, "DeviceStateChange", { Device: dev, State: "NOT_INUSE" }),
      );
    await tap.settle();
    save(
      "call",
      [
        "A call from 2401 to 2402: 2401 dials, 2402 rings and answers, 2401 hangs up. The CoreShowChannels",
        "read while it was up is left out (core-show-channels.txt).",
      ],
      windowItems(tap, from),
      true,
    );

    // ----- a call hung up with the Hangup action, and a Hangup of a channel that is not there ------------
    phoneFrom = b.events.length;
    aFrom = a.events.length;
    from = tap.blocks.length;
    await a.dial("2402");
    await b.waitFor("CALL_INCOMING", { since: phoneFrom });
    await b.accept();
    await a.waitFor("CALL_ESTABLISHED", { since: aFrom });
    const callee = await tap.waitFor("2402's channel up", from, (f) =>
      isEvent(f, "Newstate", { Channel: /^PJSIP\/2402-/, ChannelStateDesc: "Up" }),
    );
    await tap.waitFor("2402 in the bridge", from, (f) => isEvent(f, "BridgeEnter", { Channel: /^PJSIP\/2402-/ }));
    await tap.settle();
    const channel = fieldOf((tap.blocks[callee] as Received).fields, "Channel") as string;
    from = tap.blocks.length;
    tap.send("Hangup", [
      ["Channel", channel],
      ["Cause", "16"],
    ]);
    for (const ch of [/^PJSIP\/2401-/, /^PJSIP\/2402-/])
      await tap.waitFor("both hung up", from, (f) => isEvent(f, "Hangup", { Channel: ch }));
    for (const dev of ["PJSIP/2401", "PJSIP/2402"])
      await tap.waitFor(`${dev} idle`, from, (f) =>
        isEvent(f, "DeviceStateChange", { Device: dev, State: "NOT_INUSE" }),
      );
    await tap.settle();
    save(
      "hangup-action",
      ["Hangup (Cause 16) of 2402's channel during an answered call from 2401: the answer and the events."],
      windowItems(tap, from, tap.blocks.length, { answers: true }),
      true,
    );
    await simple("hangup-unknown", "Hangup of a channel that does not exist.", "Hangup", [
      ["Channel", "PJSIP/2499-00000000"],
      ["Cause", "16"],
    ]);

    // ----- the softphone leaves -----------------------------------------------------------------------
    from = tap.blocks.length;
    await a.stop();
    phones.splice(phones.indexOf(a), 1);
    await tap.waitFor("2401's contact removed", from, (f) =>
      isEvent(f, "ContactStatus", { EndpointName: "2401", ContactStatus: "Removed" }),
    );
    await tap.waitFor("2401 unavailable", from, (f) =>
      isEvent(f, "DeviceStateChange", { Device: "PJSIP/2401", State: "UNAVAILABLE" }),
    );
    await tap.settle();
    const unregisterFrom = from;
    const unregisterTo = tap.blocks.length;
    save("unregister", ["2401's softphone quits (it unregisters on its way out)."], windowItems(tap, from), true);

    // ----- refused registrations ----------------------------------------------------------------------
    from = tap.blocks.length;
    const wrong = await Softphone.start({ user: "2403", secret: "not-the-secret", waitRegistered: false });
    phones.push(wrong);
    await tap.waitFor("a failed challenge for 2403", from, (f) =>
      ["ChallengeResponseFailed", "InvalidPassword"].some((e) => isEvent(f, e, { AccountID: "2403" })),
    );
    await until("2403 refused", async () => ((await wrong.registration()) === "failed" ? true : undefined));
    await tap.settle();
    await wrong.stop();
    phones.splice(phones.indexOf(wrong), 1);
    save(
      "security-wrong-password",
      ["A softphone tries to register extension 2403 with a wrong password (security events)."],
      windowItems(tap, from),
      true,
    );

    from = tap.blocks.length;
    const stranger = await Softphone.start({ user: "2999", secret: "whatever-secret", waitRegistered: false });
    phones.push(stranger);
    await tap.waitFor("an unknown account", from, (f) => isEvent(f, "InvalidAccountID", { AccountID: "2999" }));
    await until("2999 refused", async () => ((await stranger.registration()) === "failed" ? true : undefined));
    await tap.settle();
    await stranger.stop();
    phones.splice(phones.indexOf(stranger), 1);
    save(
      "security-unknown-account",
      ["A softphone tries to register 2999, which is no endpoint (security events)."],
      windowItems(tap, from),
      true,
    );

    // ----- refused manager logins ---------------------------------------------------------------------
    from = tap.blocks.length;
    const refused: Item[] = [];
    const attempts: Array<{ what: string; local?: string; user: string; before?: boolean }> = [
      { what: "a wrong secret (Ping before the Login)", user: env.amiUsername, before: true },
      { what: "a user that does not exist", user: "nosuchuser" },
      { what: "from 127.0.0.2, which the user's permit does not allow", local: "127.0.0.2", user: env.amiUsername },
    ];
    for (const [n, t] of attempts.entries()) {
      const bad = await AmiTap.open(env, `bad${n + 1}`, t.local);
      if (t.before) await bad.action("Ping");
      await bad.action("Login", [
        ["Username", t.user],
        ["Secret", "not-the-secret"],
      ]);
      await until("the refused connection closed", () => (bad.closed ? true : undefined), 15_000);
      bad.close();
      refused.push({ comment: `connection ${n + 1}: ${t.what}` }, { block: bad.banner });
      for (const s of bad.sent)
        refused.push(
          ...actionItems(
            bad,
            bad.blocks.flatMap((b, i) => (fieldOf(b.fields, "ActionID") === fieldOf(s.fields, "ActionID") ? [i] : [])),
          ),
        );
    }
    await tap.waitFor("the security events of the logins", from, (f) => isEvent(f, "FailedACL"));
    await tap.settle();
    save(
      "login-failed",
      ["Refused manager logins, each on its own connection (Asterisk closes it after the answer)."],
      refused,
    );
    save(
      "security-ami",
      [
        "The security events the recording session received for the refused manager logins of",
        "login-failed.txt: a wrong secret, an unknown user, an address the user's permit does not allow.",
      ],
      windowItems(tap, from),
      true,
    );

    // ----- contact-status: the contact events of one registration, the details, a reload --------------
    from = tap.blocks.length;
    await reload();
    await tap.waitFor("the Reload event", from, (f) => isEvent(f, "Reload"));
    await tap.settle();
    const reloadEvent = tap.blocks.slice(from).find((b) => isEvent(b.fields, "Reload"));
    const contactEvents = [
      ...tap.blocks.slice(registerFrom, registerTo),
      ...tap.blocks.slice(unregisterFrom, unregisterTo),
    ].filter((b) => isEvent(b.fields, "ContactStatus", { EndpointName: "2401" }));
    const details = endpointDetail
      .map((i) => tap.blocks[i] as Received)
      .filter((blk) => isEvent(blk.fields, "ContactStatusDetail"));
    save(
      "contact-status",
      [
        "The ContactStatus events while a softphone registered extension 2401 and then left (register.txt,",
        "unregister.txt); then the ContactStatusDetail of PJSIPShowEndpoint Endpoint=2401 while it was",
        "registered (pjsip-show-endpoint.txt); then the Reload event of a later fwconsole reload.",
      ],
      [
        ...contactEvents.map((blk) => ({ block: blk.text })),
        { comment: "PJSIPShowEndpoint Endpoint=2401 (its ContactStatusDetail):" },
        ...details.map((blk) => ({ block: blk.text })),
        { comment: "fwconsole reload (FreePBX's Apply Config):" },
        ...(reloadEvent ? [{ block: reloadEvent.text }] : []),
      ],
    );

    const logoff = await tap.action("Logoff");
    save("logoff", ["Logoff."], actionItems(tap, logoff));
    tap.close();
  } finally {
    await Promise.all(phones.map((p) => p.stop().catch(() => {})));
    registrar.stop();
  }

  const header = (name: string, what: string[], events: boolean) => [
    `${name}.txt: recorded from the real Asterisk ${asterisk} + FreePBX 17 of the testbed by`,
    "scripts/record-ami-transcripts.ts (test/fakes/README.md). Blocks as AMI sent them, each followed by a",
    "blank line; Asterisk sends CRLF, these lines are LF. `; >` lines are the action sent (never a secret).",
    ...(events
      ? [`Events of the ${[...NOISE_CLASSES].join(" and ")} classes (VarSet, Newexten, RTCP…) are left out.`]
      : []),
    "",
    ...what,
  ];
  for (const [name, f] of files) {
    const render = (extra: string[]) =>
      formatTranscript(header(name, [...f.what, ...extra], f.events), f.items).replace(
        /^; > Secret: .*$/gm,
        "; > Secret: <not recorded>",
      );
    let text = render([]);
    if (secrets.some((s) => s && text.includes(s))) {
      // AuthDetail carries the SIP password in clear: it is written as <secret>.
      text = render(["The SIP passwords Asterisk sent (AuthDetail's Password) are written as <secret>."]);
      for (const s of secrets) if (s) text = text.split(s).join("<secret>");
    }
    writeFileSync(join(TRANSCRIPT_DIR, `${name}.txt`), text);
  }
  console.error(`wrote ${files.size} transcripts to ${TRANSCRIPT_DIR} (Asterisk ${asterisk})`);
  // Back to the state every real-PBX test file starts from.
  await reset();
}

await main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
