/**
 * Fake Asterisk manager interface (AMI) over TCP (`Bun.listen` on 127.0.0.1:0), following the real protocol as
 * `shared/reference/ami.md` and Asterisk's manager and res_pjsip sources describe it:
 *
 * - framing: the banner line `Asterisk Call Manager/<ami version>\r\n` on connect; every message both ways is
 *   `Key: Value\r\n` lines ended by an empty line. The fake only splits on `\r\n` (as Asterisk does), so a client
 *   that sends bare `\n` is not understood. Keys are case-insensitive; `ActionID` is echoed on every response and
 *   on every event of a list.
 * - `Login` (`Username`, `Secret`, `Events: on|off|<class list>`): `Response: Success` / `Message: Authentication
 *   accepted` then `Event: FullyBooted`; a wrong user or secret answers `Response: Error` / `Message: Authentication
 *   failed` and closes the socket. Before login every other action answers `Message: Permission denied`.
 * - `Ping` (`Ping: Pong`, `Timestamp`), `Logoff` (`Response: Goodbye`, then close), `Command` (`core show version`
 *   answers `Output: Asterisk <version> built by …`; another command answers `Response: Error` with
 *   `Output: No such command …`), `Hangup` (`Channel` by exact name: `Message: Channel Hungup` then the call's
 *   `Hangup` events; `No such channel`; `No channel specified`), unknown action → `Message: Invalid/unknown command`.
 * - lists: `Response: Success`, `EventList: start`, `Message: …`, then the events, then `<Name>Complete` with
 *   `EventList: Complete` and `ListItems: N`:
 *   `PJSIPShowEndpoints` (`EndpointList`; with no endpoint at all Asterisk answers `Response: Error` /
 *   `Message: No endpoints found` instead, and so does the fake), `PJSIPShowContacts` (`ContactList`),
 *   `PJSIPShowRegistrationsOutbound` (`OutboundRegistrationDetail` each followed by an `AuthDetail` of its outbound
 *   auth, as res_pjsip_outbound_registration does; the Complete event carries `Registered` / `NotRegistered`),
 *   `CoreShowChannels` (`CoreShowChannel`).
 * - events go only to logged-in sessions whose `Events:` allow the event's class (`Privilege: <class>,all`):
 *   `DeviceStateChange` (call), `ContactStatus` and `Registry` (system; PJSIP's `Registry` carries the client URI as
 *   `Username` and the server URI as `Domain`), the call lifecycle (call: `Newchannel`, `Newstate`, `DialBegin`,
 *   `DialEnd`, `BridgeEnter`, `BridgeLeave`, `Hangup` with `Cause`/`Cause-txt`, all with the channel snapshot fields),
 *   the security class (`InvalidAccountID`, `ChallengeResponseFailed`, `InvalidPassword`, `FailedACL`).
 * - a contact's `ViaAddr` is the address only and `ViaPort` the port (the sorcery fields). `ContactStatus` carries
 *   only `URI`, `ContactStatus` (`NonQualified` when it registers, then `Reachable`; `Removed`), `AOR`,
 *   `EndpointName` and `RoundtripUsec`, as Asterisk 22 sends it (`test/fixtures/ami/contact-status.txt`,
 *   recorded from the real testbed); the address, user agent and expiry come from `PJSIPShowEndpoint`'s
 *   `ContactStatusDetail` (`ViaAddress: <address>:<port>`). Empty caller ID fields are `<unknown>`.
 *
 * The fake's own choices (not from the reference): device states follow calls and registrations (a registered
 * extension is `NOT_INUSE`, a caller `INUSE`, a callee `RINGING` then `INUSE`); channel names `PJSIP/<endpoint>-<8 hex>`;
 * uniqueids `<seconds>.<n>`; `Hangup` of one channel ends the whole call; the regex form of `Hangup` (`/…/`) is not
 * implemented (answers `No such channel`); `Command` knows only `core show version`.
 */
import type { Socket, TCPSocketListener } from "bun";

export interface FakeAmiOptions {
  username?: string;
  secret?: string;
  /** Asterisk version in `core show version`. */
  version?: string;
  /** AMI protocol version in the banner. */
  amiVersion?: string;
  /** Clock (ms) for uniqueids, durations, registration expiry and security event times. */
  now?: () => number;
}

export type FakeDeviceState =
  | "NOT_INUSE"
  | "INUSE"
  | "BUSY"
  | "RINGING"
  | "RINGINUSE"
  | "ONHOLD"
  | "UNAVAILABLE"
  | "INVALID"
  | "UNKNOWN";

export interface FakeContact {
  /** `ObjectName`: `<aor>;@<hash>`. */
  id: string;
  uri: string;
  userAgent: string;
  /** `host` or `host:port` as given. */
  viaAddr: string;
  roundtripUsec: number;
  /** Epoch seconds. */
  regExpire: number;
  status: "Reachable" | "Unreachable" | "NonQualified" | "Unknown";
  callId: string;
}

export interface FakeEndpoint {
  name: string;
  kind: "extension" | "trunk";
  deviceState: FakeDeviceState;
  contacts: FakeContact[];
}

export interface FakeRegistration {
  name: string;
  serverUri: string;
  clientUri: string;
  status: "Registered" | "Unregistered" | "Rejected" | "Failed";
}

export interface FakeChannel {
  name: string;
  endpoint: string;
  uniqueid: string;
  linkedid: string;
  /** Asterisk channel state number: 0 Down, 4 Ring, 5 Ringing, 6 Up. */
  state: number;
  callerNum: string;
  callerName: string;
  connectedNum: string;
  connectedName: string;
  context: string;
  exten: string;
  startedAt: number;
  bridgeId: string;
  /** `Dial` on the caller's channel, `AppDial` on the dialled one. */
  application: string;
  applicationData: string;
}

export interface FakeCall {
  linkedid: string;
  /** The caller's channel first. */
  channels: FakeChannel[];
  answered: boolean;
}

export interface FakeAmiState {
  username: string;
  secret: string;
  version: string;
  endpoints: Map<string, FakeEndpoint>;
  registrations: Map<string, FakeRegistration>;
  calls: Map<string, FakeCall>;
  /** Lower-case action name → the `Message` of the next answer (`Response: Error`), used once. */
  failNext: Map<string, string>;
  /** Lower-case list action names whose next run closes the socket after its first event (used once). */
  dropMidList: Set<string>;
  /** Lower-case action names the fake receives but never answers (e.g. "ping": a peer that stopped answering). */
  unanswered: Set<string>;
}

export interface FakeAmiAction {
  name: string;
  /** Lower-case keys, as received (the Login secret included). */
  fields: Record<string, string>;
  at: number;
  /** Which connection sent it (1, 2, … in connection order). */
  session: number;
}

interface Session {
  id: number;
  socket: Socket<SessionRef>;
  decoder: TextDecoder;
  inbox: string;
  lines: string[];
  loggedIn: boolean;
  /** "all", "none" or the event classes asked for. */
  events: "all" | "none" | Set<string>;
  outbox: Uint8Array[];
  endAfterFlush: boolean;
  closed: boolean;
}

interface SessionRef {
  session?: Session;
}

type Fields = Array<[string, string]>;

const encoder = new TextEncoder();
const STATE_DESC: Record<number, string> = { 0: "Down", 4: "Ring", 5: "Ringing", 6: "Up" };
const DEVICE_STATE_TEXT: Record<FakeDeviceState, string> = {
  NOT_INUSE: "Not in use",
  INUSE: "In use",
  BUSY: "Busy",
  RINGING: "Ringing",
  RINGINUSE: "Ring+Inuse",
  ONHOLD: "On Hold",
  UNAVAILABLE: "Unavailable",
  INVALID: "Invalid",
  UNKNOWN: "Unknown",
};
/** Fake's input limit per connection (Asterisk's own is smaller); a client that sends more is disconnected. */
const MAX_INBOX = 64 * 1024;

const orUnknown = (v: string) => (v === "" ? "<unknown>" : v);
const hex8 = (n: number) => n.toString(16).padStart(8, "0");
const hms = (ms: number) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(Math.floor(s / 3600))}:${p(Math.floor((s % 3600) / 60))}:${p(s % 60)}`;
};
const splitAddr = (a: string): { host: string; port: string } => {
  const m = /^(.*):(\d+)$/.exec(a);
  return m ? { host: m[1] as string, port: m[2] as string } : { host: a, port: "5060" };
};

/** One AMI message as text. */
export function amiMessage(fields: Fields | Record<string, string>): string {
  const list = Array.isArray(fields) ? fields : Object.entries(fields);
  return `${list.map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n`;
}

export interface FakeAmi {
  host: string;
  port: number;
  state: FakeAmiState;
  actions: FakeAmiAction[];
  /** Open connections / logged-in connections. */
  readonly connections: number;
  readonly loggedIn: number;
  addEndpoint(name: string, opts: { kind: "extension" | "trunk"; deviceState?: FakeDeviceState }): FakeEndpoint;
  /** A contact registers (or a trunk's static contact is qualified): ContactStatus NonQualified, then Reachable. */
  register(
    endpoint: string,
    opts: { uri: string; userAgent?: string; viaAddr?: string; roundtripUsec?: number },
  ): FakeContact;
  /** The endpoint's contacts (or the one with `uri`) go away: ContactStatus Removed. */
  unregister(endpoint: string, uri?: string): void;
  /** A contact's qualify result changes: ContactStatus Reachable / Unreachable. */
  setContactStatus(endpoint: string, status: "Reachable" | "Unreachable", uri?: string): void;
  setDeviceState(endpoint: string, state: FakeDeviceState): void;
  setTrunkRegistration(
    name: string,
    status: FakeRegistration["status"],
    opts?: { serverUri?: string; clientUri?: string; cause?: string },
  ): FakeRegistration;
  startCall(opts: { from: string; to: string; trunk?: string; fromName?: string; toName?: string }): {
    linkedid: string;
    channels: string[];
  };
  answer(linkedid: string): void;
  hangup(linkedid: string, cause?: { code: number; text: string }): void;
  securityEvent(opts: {
    type: "InvalidAccountID" | "ChallengeResponseFailed" | "InvalidPassword" | "FailedACL";
    account: string;
    /** An IP address, or `ip:port`. */
    address: string;
  }): void;
  /** Any event to logged-in sessions (fields in order; `Event` first). `cls` is its class for `Events:` filters. */
  emit(fields: Record<string, string>, cls?: string): void;
  dropMidList(actionName: string): void;
  failNext(actionName: string, message: string): void;
  /** Raw text to every connection (garbage, malformed lines, over-long lines). */
  sendRaw(text: string): void;
  /** Resolves with the first action named `name` (any case) at index ≥ `from` of `actions`. */
  waitForAction(name: string, opts?: { from?: number; timeoutMs?: number }): Promise<FakeAmiAction>;
  /** Closes every connection; the server keeps listening. */
  kickAll(): void;
  /** Stops listening and closes every connection. */
  stop(): Promise<void>;
  /** Listens again on the same port (after `stop()`; stops first if running). */
  restart(): Promise<void>;
}

export async function startFakeAmi(opts: FakeAmiOptions = {}): Promise<FakeAmi> {
  const now = opts.now ?? Date.now;
  const amiVersion = opts.amiVersion ?? "9.0.0";
  const state: FakeAmiState = {
    username: opts.username ?? "admin",
    secret: opts.secret ?? "amp111",
    version: opts.version ?? "20.5.2",
    endpoints: new Map(),
    registrations: new Map(),
    calls: new Map(),
    failNext: new Map(),
    dropMidList: new Set(),
    unanswered: new Set(),
  };
  const actions: FakeAmiAction[] = [];
  const sessions = new Set<Session>();
  const waiters = new Set<() => void>();
  let sessionSeq = 0;
  let uniqueSeq = 0;
  let channelSeq = 0;
  let bridgeSeq = 0;

  // ----- output ------------------------------------------------------------------------------------

  const flush = (s: Session) => {
    while (s.outbox.length > 0 && !s.closed) {
      const chunk = s.outbox[0] as Uint8Array;
      const n = s.socket.write(chunk);
      if (n < chunk.length) {
        s.outbox[0] = chunk.subarray(Math.max(0, n));
        return;
      }
      s.outbox.shift();
    }
    if (s.outbox.length === 0 && s.endAfterFlush && !s.closed) s.socket.end();
  };
  const sendText = (s: Session, text: string) => {
    if (s.closed) return;
    s.outbox.push(encoder.encode(text));
    flush(s);
  };
  const send = (s: Session, fields: Fields) => sendText(s, amiMessage(fields));
  const close = (s: Session) => {
    s.endAfterFlush = true;
    flush(s);
  };

  const wants = (s: Session, cls: string) =>
    s.loggedIn && (s.events === "all" || (s.events !== "none" && s.events.has(cls)));
  const broadcast = (cls: string, fields: Fields) => {
    const text = amiMessage([fields[0] as [string, string], ["Privilege", `${cls},all`], ...fields.slice(1)]);
    for (const s of sessions) if (wants(s, cls)) sendText(s, text);
  };

  // ----- model helpers -----------------------------------------------------------------------------

  const endpointOf = (name: string): FakeEndpoint => {
    const ep = state.endpoints.get(name);
    if (!ep) throw new Error(`fake AMI: no endpoint ${name} (call addEndpoint first)`);
    return ep;
  };
  const setState = (ep: FakeEndpoint, next: FakeDeviceState) => {
    if (ep.deviceState === next) return;
    ep.deviceState = next;
    broadcast("call", [
      ["Event", "DeviceStateChange"],
      ["Device", `PJSIP/${ep.name}`],
      ["State", next],
    ]);
  };
  const idleState = (ep: FakeEndpoint): FakeDeviceState =>
    ep.kind === "trunk" || ep.contacts.length > 0 ? "NOT_INUSE" : "UNAVAILABLE";
  const inCall = (ep: FakeEndpoint) =>
    [...state.calls.values()].some((c) => c.channels.some((ch) => ch.endpoint === ep.name));

  const snapshot = (ch: FakeChannel, prefix = ""): Fields => [
    [`${prefix}Channel`, ch.name],
    [`${prefix}ChannelState`, String(ch.state)],
    [`${prefix}ChannelStateDesc`, STATE_DESC[ch.state] ?? "Unknown"],
    [`${prefix}CallerIDNum`, orUnknown(ch.callerNum)],
    [`${prefix}CallerIDName`, orUnknown(ch.callerName)],
    [`${prefix}ConnectedLineNum`, orUnknown(ch.connectedNum)],
    [`${prefix}ConnectedLineName`, orUnknown(ch.connectedName)],
    [`${prefix}Language`, "en"],
    [`${prefix}AccountCode`, ""],
    [`${prefix}Context`, ch.context],
    [`${prefix}Exten`, ch.exten],
    [`${prefix}Priority`, "1"],
    [`${prefix}Uniqueid`, ch.uniqueid],
    [`${prefix}Linkedid`, ch.linkedid],
  ];
  const channelEvent = (name: string, ch: FakeChannel, extra: Fields = []) =>
    broadcast("call", [["Event", name], ...snapshot(ch), ...extra]);

  const newChannel = (
    endpoint: string,
    linkedid: string | null,
    p: Omit<FakeChannel, "name" | "endpoint" | "uniqueid" | "linkedid" | "startedAt" | "bridgeId" | "applicationData">,
  ): FakeChannel => {
    channelSeq += 1;
    uniqueSeq += 1;
    const uniqueid = `${Math.floor(now() / 1000)}.${uniqueSeq}`;
    return {
      ...p,
      name: `PJSIP/${endpoint}-${hex8(channelSeq)}`,
      endpoint,
      uniqueid,
      linkedid: linkedid ?? uniqueid,
      startedAt: now(),
      bridgeId: "",
      applicationData: "",
    };
  };

  const endCall = (call: FakeCall, cause = { code: 16, text: "Normal Clearing" }) => {
    state.calls.delete(call.linkedid);
    const [a, b] = call.channels;
    if (a && b && !call.answered) {
      channelEvent("DialEnd", a, [...snapshot(b, "Dest"), ["DialStatus", "CANCEL"]]);
    }
    for (const ch of [...call.channels].reverse()) {
      if (ch.bridgeId) {
        channelEvent("BridgeLeave", ch, [
          ["BridgeUniqueid", ch.bridgeId],
          ["BridgeType", "basic"],
          ["BridgeTechnology", "simple_bridge"],
          ["BridgeCreator", "<unknown>"],
          ["BridgeName", "<unknown>"],
          ["BridgeNumChannels", "1"],
        ]);
      }
      channelEvent("Hangup", ch, [
        ["Cause", String(cause.code)],
        ["Cause-txt", cause.text],
      ]);
    }
    for (const ch of call.channels) {
      const ep = state.endpoints.get(ch.endpoint);
      if (ep && ep.kind === "extension" && !inCall(ep)) setState(ep, idleState(ep));
    }
  };

  // ----- lists ---------------------------------------------------------------------------------------

  const endpointItems = (): Fields[] =>
    [...state.endpoints.values()].map((ep) => [
      ["Event", "EndpointList"],
      ["ObjectType", "endpoint"],
      ["ObjectName", ep.name],
      ["Transport", "0.0.0.0-udp"],
      ["Aor", ep.name],
      ["Auths", ep.kind === "extension" ? `${ep.name}-auth` : ""],
      ["OutboundAuths", ep.kind === "trunk" ? ep.name : ""],
      ["Contacts", ep.contacts.map((c) => `${ep.name}/${c.uri},`).join("")],
      ["DeviceState", DEVICE_STATE_TEXT[ep.deviceState]],
      [
        "ActiveChannels",
        [...state.calls.values()]
          .flatMap((c) => c.channels)
          .filter((ch) => ch.endpoint === ep.name)
          .map((ch) => ch.uniqueid)
          .join(","),
      ],
    ]);
  const contactItems = (): Fields[] =>
    [...state.endpoints.values()].flatMap((ep) =>
      ep.contacts.map((c): Fields => {
        const via = splitAddr(c.viaAddr);
        return [
          ["Event", "ContactList"],
          ["ObjectType", "contact"],
          ["ObjectName", c.id],
          ["ViaAddr", via.host],
          ["QualifyTimeout", "3.000000"],
          ["CallId", c.callId],
          ["RegServer", ""],
          ["PruneOnBoot", "no"],
          ["Path", ""],
          ["Endpoint", ep.name],
          ["ViaPort", via.port],
          ["AuthenticateQualify", "false"],
          ["Uri", c.uri],
          ["QualifyFrequency", "60"],
          ["UserAgent", c.userAgent],
          ["RegExpire", String(c.regExpire)],
          ["Status", c.status],
          ["RoundtripUsec", c.status === "Reachable" ? String(c.roundtripUsec) : "N/A"],
        ];
      }),
    );
  const registrationItems = (): Fields[] =>
    [...state.registrations.values()].flatMap((r): Fields[] => [
      [
        ["Event", "OutboundRegistrationDetail"],
        ["ObjectType", "registration"],
        ["ObjectName", r.name],
        ["ServerUri", r.serverUri],
        ["ClientUri", r.clientUri],
        ["Transport", "0.0.0.0-udp"],
        ["OutboundAuth", r.name],
        ["Expiration", "3600"],
        ["RetryInterval", "60"],
        ["MaxRetries", "10000"],
        ["Line", "no"],
        ["Endpoint", r.name],
        ["Status", r.status],
        ["NextReg", "0"],
      ],
      [
        ["Event", "AuthDetail"],
        ["ObjectType", "auth"],
        ["ObjectName", r.name],
        ["Username", r.name],
        ["AuthType", "userpass"],
        ["Realm", ""],
        ["EndpointName", r.name],
      ],
    ]);
  const channelItems = (): Fields[] =>
    [...state.calls.values()].flatMap((call) =>
      call.channels.map(
        (ch): Fields => [
          ["Event", "CoreShowChannel"],
          ...snapshot(ch),
          ["Application", ch.application],
          ["ApplicationData", ch.applicationData],
          ["Duration", hms(now() - ch.startedAt)],
          ["BridgeId", ch.bridgeId],
        ],
      ),
    );

  const LISTS: Record<string, { complete: string; message: string; items: () => Fields[]; emptyError?: string }> = {
    pjsipshowendpoints: {
      complete: "EndpointListComplete",
      message: "A listing of Endpoints follows, presented as EndpointList events",
      items: endpointItems,
      emptyError: "No endpoints found",
    },
    pjsipshowcontacts: {
      complete: "ContactListComplete",
      message: "A listing of Contacts follows, presented as ContactList events",
      items: contactItems,
    },
    pjsipshowregistrationsoutbound: {
      complete: "OutboundRegistrationDetailComplete",
      message: "Following are Events for each Outbound registration",
      items: registrationItems,
    },
    coreshowchannels: {
      complete: "CoreShowChannelsComplete",
      message: "Channels will follow",
      items: channelItems,
    },
  };

  // ----- input ---------------------------------------------------------------------------------------

  const onData = (s: Session, bytes: Uint8Array) => {
    s.inbox += s.decoder.decode(bytes, { stream: true });
    if (s.inbox.length > MAX_INBOX) {
      s.inbox = "";
      close(s);
      return;
    }
    let i = s.inbox.indexOf("\r\n");
    while (i !== -1) {
      const line = s.inbox.slice(0, i);
      s.inbox = s.inbox.slice(i + 2);
      if (line === "") {
        if (s.lines.length > 0) handle(s, s.lines.splice(0));
      } else {
        s.lines.push(line);
      }
      i = s.inbox.indexOf("\r\n");
    }
  };

  const handle = (s: Session, lines: string[]) => {
    const fields: Record<string, string> = {};
    for (const line of lines) {
      const c = line.indexOf(":");
      if (c <= 0) continue;
      const key = line.slice(0, c).trim().toLowerCase();
      const value = line.slice(c + 1).trim();
      fields[key] = key in fields ? `${fields[key]}\n${value}` : value;
    }
    const name = fields.action ?? "";
    const lower = name.toLowerCase();
    const id: Fields = fields.actionid !== undefined ? [["ActionID", fields.actionid]] : [];
    actions.push({ name, fields, at: now(), session: s.id });
    for (const w of [...waiters]) w();
    const error = (message: string) => send(s, [["Response", "Error"], ...id, ["Message", message]]);

    if (!name) return error("Missing action in request");
    if (!s.loggedIn && lower !== "login" && lower !== "logoff" && lower !== "challenge") {
      return error("Permission denied");
    }
    if (state.unanswered.has(lower)) return;
    const forced = state.failNext.get(lower);
    if (forced !== undefined) {
      state.failNext.delete(lower);
      return error(forced);
    }
    const list = LISTS[lower];
    if (list) {
      const items = list.items();
      if (items.length === 0 && list.emptyError) return error(list.emptyError);
      send(s, [["Response", "Success"], ...id, ["EventList", "start"], ["Message", list.message]]);
      if (state.dropMidList.delete(lower)) {
        const first = items[0];
        if (first) send(s, [first[0] as [string, string], ...id, ...first.slice(1)]);
        close(s);
        return;
      }
      for (const item of items) send(s, [item[0] as [string, string], ...id, ...item.slice(1)]);
      const extra: Fields =
        lower === "pjsipshowregistrationsoutbound"
          ? [
              ["Registered", String([...state.registrations.values()].filter((r) => r.status === "Registered").length)],
              [
                "NotRegistered",
                String([...state.registrations.values()].filter((r) => r.status !== "Registered").length),
              ],
            ]
          : [];
      const count = lower === "pjsipshowregistrationsoutbound" ? state.registrations.size : items.length;
      send(s, [["Event", list.complete], ...id, ["EventList", "Complete"], ["ListItems", String(count)], ...extra]);
      return;
    }
    if (lower === "pjsipshowendpoint") {
      const ep = state.endpoints.get(fields.endpoint ?? "");
      if (!ep) return error(`Unable to retrieve endpoint ${fields.endpoint ?? ""}`);
      const items: Fields[] = [
        [
          ["Event", "EndpointDetail"],
          ["ObjectType", "endpoint"],
          ["ObjectName", ep.name],
          ["DeviceState", ep.deviceState],
        ],
        ...ep.contacts.map(
          (c): Fields => [
            ["Event", "ContactStatusDetail"],
            ["AOR", ep.name],
            ["URI", c.uri],
            ["UserAgent", c.userAgent],
            ["RegExpire", String(c.regExpire)],
            ["ViaAddress", c.viaAddr],
            ["CallID", c.callId],
            ["Status", c.status],
            ["RoundtripUsec", c.status === "Reachable" ? String(c.roundtripUsec) : "0"],
            ["EndpointName", ep.name],
            ["ID", c.id],
          ],
        ),
      ];
      send(s, [
        ["Response", "Success"],
        ...id,
        ["EventList", "start"],
        ["Message", "Following are Events for each object associated with the Endpoint"],
      ]);
      for (const item of items) send(s, [item[0] as [string, string], ...id, ...item.slice(1)]);
      send(s, [
        ["Event", "EndpointDetailComplete"],
        ...id,
        ["EventList", "Complete"],
        ["ListItems", String(items.length)],
      ]);
      return;
    }
    switch (lower) {
      case "login": {
        const user = fields.username ?? "";
        if (user.toLowerCase() !== state.username.toLowerCase() || fields.secret !== state.secret) {
          error("Authentication failed");
          close(s);
          return;
        }
        const ev = (fields.events ?? "on").trim().toLowerCase();
        s.events =
          ev === "on" || ev === "yes" || ev === "all" || ev === ""
            ? "all"
            : ev === "off" || ev === "no"
              ? "none"
              : new Set(ev.split(",").map((c) => c.trim()));
        s.loggedIn = true;
        send(s, [["Response", "Success"], ...id, ["Message", "Authentication accepted"]]);
        if (wants(s, "system")) {
          send(s, [
            ["Event", "FullyBooted"],
            ["Privilege", "system,all"],
            ["Uptime", "3600"],
            ["LastReload", "60"],
            ["Status", "Fully Booted"],
          ]);
        }
        return;
      }
      case "logoff":
        send(s, [["Response", "Goodbye"], ...id, ["Message", "Thanks for all the fish."]]);
        close(s);
        return;
      case "ping":
        send(s, [["Response", "Success"], ...id, ["Ping", "Pong"], ["Timestamp", (now() / 1000).toFixed(6)]]);
        return;
      case "command": {
        const command = (fields.command ?? "").trim();
        if (command === "core show version") {
          send(s, [
            ["Response", "Success"],
            ...id,
            ["Message", "Command output follows"],
            [
              "Output",
              `Asterisk ${state.version} built by mockbuild @ fake-pbx on a x86_64 running Linux on 2024-01-01 00:00:00 UTC`,
            ],
          ]);
        } else {
          send(s, [
            ["Response", "Error"],
            ...id,
            ["Message", "Command output follows"],
            ["Output", `No such command '${command}' (type 'core show help ${command}' for other possible commands)`],
          ]);
        }
        return;
      }
      case "hangup": {
        const channel = (fields.channel ?? "").trim();
        if (!channel) return error("No channel specified");
        const call = [...state.calls.values()].find((c) => c.channels.some((ch) => ch.name === channel));
        if (!call) return error("No such channel");
        send(s, [["Response", "Success"], ...id, ["Message", "Channel Hungup"]]);
        const code = Number(fields.cause) || 16;
        endCall(call, { code, text: code === 16 ? "Normal Clearing" : "Unknown" });
        return;
      }
      default:
        return error("Invalid/unknown command");
    }
  };

  // ----- server --------------------------------------------------------------------------------------

  const socketHandlers = {
    open(socket: Socket<SessionRef>) {
      sessionSeq += 1;
      const s: Session = {
        id: sessionSeq,
        socket,
        decoder: new TextDecoder(),
        inbox: "",
        lines: [],
        loggedIn: false,
        events: "none",
        outbox: [],
        endAfterFlush: false,
        closed: false,
      };
      socket.data = { session: s };
      sessions.add(s);
      sendText(s, `Asterisk Call Manager/${amiVersion}\r\n`);
    },
    data(socket: Socket<SessionRef>, bytes: Uint8Array) {
      const s = socket.data?.session;
      if (s && !s.closed) onData(s, bytes);
    },
    drain(socket: Socket<SessionRef>) {
      const s = socket.data?.session;
      if (s) flush(s);
    },
    close(socket: Socket<SessionRef>) {
      const s = socket.data?.session;
      if (!s) return;
      s.closed = true;
      sessions.delete(s);
    },
    error(socket: Socket<SessionRef>) {
      const s = socket.data?.session;
      if (!s) return;
      s.closed = true;
      sessions.delete(s);
    },
  };

  let listener: TCPSocketListener<SessionRef> | null = Bun.listen<SessionRef>({
    hostname: "127.0.0.1",
    port: 0,
    socket: socketHandlers,
  });
  const port = listener.port;

  const closeAll = () => {
    for (const s of [...sessions]) {
      s.closed = true;
      sessions.delete(s);
      s.socket.end();
    }
  };

  const fake: FakeAmi = {
    host: "127.0.0.1",
    port,
    state,
    actions,
    get connections() {
      return sessions.size;
    },
    get loggedIn() {
      return [...sessions].filter((s) => s.loggedIn).length;
    },

    addEndpoint(name, o) {
      const ep: FakeEndpoint = { name, kind: o.kind, deviceState: "UNAVAILABLE", contacts: [] };
      ep.deviceState = o.deviceState ?? idleState(ep);
      state.endpoints.set(name, ep);
      return ep;
    },

    register(endpoint, o) {
      const ep = endpointOf(endpoint);
      const hash = Bun.hash(`${endpoint}|${o.uri}`).toString(16).padStart(16, "0").slice(0, 16);
      const contact: FakeContact = {
        id: `${endpoint};@${hash}`,
        uri: o.uri,
        userAgent: o.userAgent ?? "",
        viaAddr: o.viaAddr ?? "",
        roundtripUsec: o.roundtripUsec ?? 12_000,
        regExpire: Math.floor(now() / 1000) + 3600,
        status: "Reachable",
        callId: `${hash}-call`,
      };
      ep.contacts = ep.contacts.filter((c) => c.uri !== o.uri);
      ep.contacts.push(contact);
      const statusEvent = (status: string, rtt: string): Fields => [
        ["Event", "ContactStatus"],
        ["URI", contact.uri],
        ["ContactStatus", status],
        ["AOR", endpoint],
        ["EndpointName", endpoint],
        ["RoundtripUsec", rtt],
      ];
      broadcast("system", statusEvent("NonQualified", "0"));
      broadcast("system", statusEvent("Reachable", String(contact.roundtripUsec)));
      if (ep.kind === "extension" && ep.deviceState === "UNAVAILABLE") setState(ep, "NOT_INUSE");
      return contact;
    },

    unregister(endpoint, uri) {
      const ep = endpointOf(endpoint);
      const gone = ep.contacts.filter((c) => uri === undefined || c.uri === uri);
      ep.contacts = ep.contacts.filter((c) => !gone.includes(c));
      for (const c of gone) {
        broadcast("system", [
          ["Event", "ContactStatus"],
          ["URI", c.uri],
          ["ContactStatus", "Removed"],
          ["AOR", endpoint],
          ["EndpointName", endpoint],
          ["RoundtripUsec", "0"],
        ]);
      }
      if (ep.kind === "extension" && ep.contacts.length === 0 && !inCall(ep)) setState(ep, "UNAVAILABLE");
    },

    setContactStatus(endpoint, status, uri) {
      const ep = endpointOf(endpoint);
      for (const c of ep.contacts.filter((x) => uri === undefined || x.uri === uri)) {
        c.status = status;
        broadcast("system", [
          ["Event", "ContactStatus"],
          ["URI", c.uri],
          ["ContactStatus", status],
          ["AOR", endpoint],
          ["EndpointName", endpoint],
          ["RoundtripUsec", status === "Reachable" ? String(c.roundtripUsec) : "0"],
        ]);
      }
    },

    setDeviceState(endpoint, next) {
      setState(endpointOf(endpoint), next);
    },

    setTrunkRegistration(name, status, o = {}) {
      const existing = state.registrations.get(name);
      const reg: FakeRegistration = {
        name,
        serverUri: o.serverUri ?? existing?.serverUri ?? "sip:sip.example.net",
        clientUri: o.clientUri ?? existing?.clientUri ?? `sip:${name}@sip.example.net`,
        status,
      };
      state.registrations.set(name, reg);
      broadcast("system", [
        ["Event", "Registry"],
        ["ChannelType", "PJSIP"],
        ["Username", reg.clientUri],
        ["Domain", reg.serverUri],
        ["Status", status],
        ...(o.cause ? ([["Cause", o.cause]] as Fields) : []),
      ]);
      return reg;
    },

    startCall(o) {
      const fromEp = state.endpoints.get(o.from);
      const outbound = Boolean(o.trunk) && fromEp?.kind === "extension";
      const aEndpoint = o.trunk && !outbound ? o.trunk : o.from;
      const bEndpoint = o.trunk && outbound ? o.trunk : o.to;
      const a = newChannel(aEndpoint, null, {
        state: 4,
        callerNum: o.from,
        callerName: o.fromName ?? "",
        connectedNum: "",
        connectedName: "",
        context: o.trunk && !outbound ? "from-trunk" : "from-internal",
        exten: o.to,
        application: "Dial",
      });
      const b = newChannel(bEndpoint, a.linkedid, {
        state: 0,
        callerNum: o.to,
        callerName: o.toName ?? "",
        connectedNum: o.from,
        connectedName: o.fromName ?? "",
        context: "from-internal",
        exten: o.to,
        application: "AppDial",
      });
      const dialString = bEndpoint === o.trunk ? `${o.to}@${o.trunk}` : o.to;
      a.applicationData = `PJSIP/${dialString},,HhtrIb(func-apply-sipheaders^s^1)`;
      b.applicationData = "(Outgoing Line)";
      const call: FakeCall = { linkedid: a.linkedid, channels: [a, b], answered: false };
      state.calls.set(call.linkedid, call);
      channelEvent("Newchannel", a);
      const aEp = state.endpoints.get(aEndpoint);
      if (aEp?.kind === "extension") setState(aEp, "INUSE");
      channelEvent("Newchannel", b);
      channelEvent("DialBegin", a, [...snapshot(b, "Dest"), ["DialString", dialString]]);
      b.state = 5;
      channelEvent("Newstate", b);
      const bEp = state.endpoints.get(bEndpoint);
      if (bEp?.kind === "extension") setState(bEp, "RINGING");
      return { linkedid: call.linkedid, channels: [a.name, b.name] };
    },

    answer(linkedid) {
      const call = state.calls.get(linkedid);
      if (!call) throw new Error(`fake AMI: no call ${linkedid}`);
      const [a, b] = call.channels as [FakeChannel, FakeChannel];
      call.answered = true;
      b.state = 6;
      channelEvent("Newstate", b);
      a.state = 6;
      a.connectedNum = b.callerNum;
      a.connectedName = b.callerName;
      channelEvent("Newstate", a);
      channelEvent("DialEnd", a, [...snapshot(b, "Dest"), ["DialStatus", "ANSWER"]]);
      bridgeSeq += 1;
      const bridge = `${hex8(bridgeSeq)}-fake-bridge`;
      let n = 0;
      for (const ch of [a, b]) {
        n += 1;
        ch.bridgeId = bridge;
        channelEvent("BridgeEnter", ch, [
          ["BridgeUniqueid", bridge],
          ["BridgeType", "basic"],
          ["BridgeTechnology", "simple_bridge"],
          ["BridgeCreator", "<unknown>"],
          ["BridgeName", "<unknown>"],
          ["BridgeNumChannels", String(n)],
        ]);
      }
      const bEp = state.endpoints.get(b.endpoint);
      if (bEp?.kind === "extension") setState(bEp, "INUSE");
    },

    hangup(linkedid, cause) {
      const call = state.calls.get(linkedid);
      if (!call) throw new Error(`fake AMI: no call ${linkedid}`);
      endCall(call, cause);
    },

    securityEvent(o) {
      const t = new Date(now());
      const eventTv = `${t.toISOString().replace("Z", "")}+0000`;
      const addr = /:\d+$/.test(o.address) ? o.address : `${o.address}:5060`;
      const [ip, port] = [addr.replace(/:\d+$/, ""), addr.replace(/^.*:/, "")];
      const extra: Fields =
        o.type === "ChallengeResponseFailed"
          ? [
              ["Challenge", "1a2b3c4d"],
              ["Response", "0000"],
              ["ExpectedResponse", ""],
            ]
          : o.type === "InvalidPassword"
            ? [
                ["Challenge", "1a2b3c4d"],
                ["ReceivedChallenge", "1a2b3c4d"],
                ["ReceivedHash", "0000"],
              ]
            : o.type === "FailedACL"
              ? [["ACLName", "no_extension_match"]]
              : [];
      broadcast("security", [
        ["Event", o.type],
        ["EventTV", eventTv],
        ["Severity", "Error"],
        ["Service", "PJSIP"],
        ["EventVersion", "1"],
        ["AccountID", o.account],
        ["SessionID", `${hex8(uniqueSeq)}-fake`],
        ["LocalAddress", "IPV4/UDP/127.0.0.1/5060"],
        ["RemoteAddress", `IPV4/UDP/${ip}/${port}`],
        ...extra,
      ]);
    },

    emit(fields, cls = "system") {
      const list = Object.entries(fields);
      broadcast(cls, list);
    },

    dropMidList(actionName) {
      state.dropMidList.add(actionName.toLowerCase());
    },
    failNext(actionName, message) {
      state.failNext.set(actionName.toLowerCase(), message);
    },
    sendRaw(text) {
      for (const s of sessions) sendText(s, text);
    },

    waitForAction(name, o = {}) {
      const from = o.from ?? 0;
      const timeoutMs = o.timeoutMs ?? 5_000;
      const find = () => actions.slice(from).find((a) => a.name.toLowerCase() === name.toLowerCase());
      const found = find();
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = find();
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake AMI: no ${name} action within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
      });
    },

    kickAll() {
      closeAll();
    },
    async stop() {
      closeAll();
      listener?.stop(true);
      listener = null;
    },
    async restart() {
      await fake.stop();
      listener = Bun.listen<SessionRef>({ hostname: "127.0.0.1", port, socket: socketHandlers });
    },
  };
  return fake;
}
