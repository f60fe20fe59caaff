/**
 * Fake Asterisk manager interface (AMI) over TCP (`Bun.listen` on 127.0.0.1:0) for the unit tests of the
 * console's AMI parsing and its faults. Its messages follow the real Asterisk 22 + FreePBX 17 of the testbed:
 * every answer and event is built from a block recorded from it (`test/fixtures/ami/*.txt`, recorded by
 * `scripts/record-ami-transcripts.ts`, read by `ami-transcripts.ts`): the field names, their order and every
 * value the fake does not compute (Language, AccountCode, an endpoint's ~130 settings, security event
 * versions, …) are the recorded ones, and a field the fake would send that Asterisk did not is an error.
 *
 * - framing: the banner line `Asterisk Call Manager/<ami version>\r\n` on connect; every message both ways is
 *   `Key: Value\r\n` lines ended by an empty line. The fake only splits on `\r\n` (as Asterisk does), so a client
 *   that sends bare `\n` is not understood. Keys are case-insensitive; `ActionID` is echoed on every answer and
 *   list item (and left out when the action had none, as Asterisk does).
 * - `Login` (`Username`, `Secret`, `Events: on|off|<class list>`): `Authentication accepted` then `FullyBooted`
 *   (login.txt); a wrong user or secret answers `Authentication failed` and closes the socket (login-failed.txt).
 *   Before login every other action answers `Permission denied`.
 * - `Ping`, `Logoff` (`Goodbye`, then close), `Command` (`core show version`, command-core-show-version.txt; another
 *   command answers `Response: Error` with `No such command …`, command-unknown.txt), `Hangup` (`Channel` by exact
 *   name: `Channel Hungup` then the call's events, hangup-action.txt; `No such channel`, hangup-unknown.txt), an
 *   unknown action (`Invalid/unknown command`, unknown-action.txt).
 * - lists: the `EventList: start` answer, the items, then `<Name>Complete` with `ListItems`: `PJSIPShowEndpoints`
 *   (`EndpointList`; none at all answers `No endpoints found`), `PJSIPShowEndpoint` (`EndpointDetail`, an
 *   extension's `AuthDetail` (with the password, as Asterisk sends it), `AorDetail`, one `ContactStatusDetail` per
 *   contact; unknown: `Unable to retrieve endpoint …`), `PJSIPShowContacts` (`ContactList`: the expiry is
 *   `ExpirationTime`, the address `ViaAddr` + `ViaPort`), `PJSIPShowRegistrationsOutbound`
 *   (`OutboundRegistrationDetail` then its `AuthDetail`; the Complete event counts `Registered`/`NotRegistered`),
 *   `CoreShowChannels` (`CoreShowChannel`).
 * - voicemail (voicemail.txt) in context `default` only: `VoicemailUsersList` (`VoicemailUserEntry`; none at all
 *   answers `There are no voicemail users currently defined.` without a list), `VoicemailUserStatus`
 *   (`VoicemailUserDetail`; a mailbox it does not have: `There is no voicemail user of the given info.`, no list),
 *   `VoicemailBoxSummary` (`VoicemailBoxDetail` per message, folder by folder; no such mailbox: `There is no
 *   voicemail user matching the given user.`), `VoicemailMove` / `VoicemailRemove` (`Response: Success` either
 *   way, `Message move successful` or `Message move failed`…), each change followed by `MessageWaiting`
 *   (`New` counts INBOX and Urgent, `Old` the Old folder). `leaveVoicemail` puts a message in a mailbox as a
 *   caller would; its `MessageWaiting` is the short form Asterisk sends for a change without a channel;
 * - events go only to logged-in sessions whose `Events:` allow the event's class (the first of its recorded
 *   `Privilege`): `DeviceStateChange`, `ContactStatus` (`NonQualified` when a contact registers, then `Reachable`;
 *   `Removed`; no address, user agent or expiry: those come from `ContactStatusDetail`), `Registry` (PJSIP: the
 *   client URI as `Username`, the server URI as `Domain`, no `Cause`), the call lifecycle (`Newchannel`,
 *   `Newstate`, `DialBegin`, `DialEnd`, `BridgeEnter`, `BridgeLeave`, `Hangup` with `Cause`/`Cause-txt`), the
 *   security class: `ChallengeResponseFailed` (a wrong SIP password) and `InvalidAccountID` (an unknown SIP
 *   account) as PJSIP sends them; `InvalidPassword` and `FailedACL` with the fields Asterisk sends for a refused
 *   manager login (security-ami.txt), as SIP failures (PJSIP itself reports neither). Empty caller ID fields are
 *   `<unknown>`.
 *
 * Where the fake still differs from the recordings, on purpose (its tests pin these):
 * - the order of a call's events is the fake's own, shorter one: Asterisk also sends `NewConnectedLine`,
 *   `DialState`, `BridgeCreate`/`BridgeDestroy`, `HangupRequest`/`SoftHangupRequest`, `ExtensionStatus`,
 *   `Cdr`, `PeerStatus`, `ChallengeSent`, `SuccessfulAuth` and `RequestNotAllowed`, which the fake does not, and
 *   the callee enters the bridge first (call.txt);
 * - `PJSIPShowContacts` with no contact answers an empty list; Asterisk answers `Response: Error` /
 *   `No Contacts found` (pjsip-show-contacts-none.txt);
 * - an unknown action's `Message` is `Invalid/unknown command`; Asterisk's goes on `: <name>. Use Action:
 *   ListCommands to show available commands.`;
 * - the banner says AMI 9.0.0 and `core show version` Asterisk 20.5.2 unless given (`amiVersion`, `version`);
 *   the recordings are of Asterisk 22.10.1, AMI 11.0.0 (`recordedAsteriskVersion()`, `recordedAmiVersion()`).
 *
 * The fake's own choices: device states follow calls and registrations (a registered extension is `NOT_INUSE`, a
 * caller `INUSE`, a callee `RINGING` then `INUSE`); channel names `PJSIP/<endpoint>-<8 hex>`; uniqueids
 * `<seconds>.<n>`; `Hangup` of one channel ends the whole call; the regex form of `Hangup` (`/…/`) is not
 * implemented (answers `No such channel`); `Command` knows only `core show version`; a trunk's
 * `PJSIPShowEndpoint` has no `AuthDetail`; values the recordings carry for extension 2401 or trunk `carrier`
 * name the fake's endpoint instead.
 */
import type { Socket, TCPSocketListener } from "bun";
import {
  type AmiFields,
  eventTemplate,
  fieldOf,
  recordedAsteriskVersion,
  responseTemplate,
  Template,
  transcript,
} from "./ami-transcripts";

export interface FakeAmiOptions {
  username?: string;
  secret?: string;
  /** Asterisk version in `core show version` (default: the recorded one). */
  version?: string;
  /** AMI protocol version in the banner (default: the recorded one). */
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

export interface FakeVoicemailMessage {
  /** app_voicemail's `msg_id` (`<seconds>-<8 hex>`). */
  id: string;
  folder: string;
  callerId: string;
  /** Epoch ms when it was left. */
  at: number;
  durationS: number;
}

export interface FakeMailbox {
  mailbox: string;
  name: string;
  maxMessages: number;
  messages: FakeVoicemailMessage[];
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
  /** AstDB as `DBPut` left it (`/TC/1` → `false_sticky`). */
  astdb: Map<string, string>;
  /** Global variables `Setvar` without a channel set (`DEVICE_STATE(Custom:TC1)` → `INUSE`). */
  globals: Map<string, string>;
  /** The mailboxes of voicemail context `default`, by number. */
  voicemail: Map<string, FakeMailbox>;
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

type Fields = AmiFields;
type Values = Record<string, string | string[]>;

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
/** The extension and trunk the recordings were made with: recorded values naming them name the fake's endpoint. */
const RECORDED_EXTENSION = "2401";
const RECORDED_TRUNK = "carrier";
/** Where each security event type is taken from: PJSIP's own, or a refused manager login's. */
const SECURITY_SOURCE: Record<string, string> = {
  ChallengeResponseFailed: "security-wrong-password",
  InvalidAccountID: "security-unknown-account",
  InvalidPassword: "security-ami",
  FailedACL: "security-ami",
};
const CALL_EVENTS = ["Newchannel", "Newstate", "DialBegin", "DialEnd", "BridgeEnter", "BridgeLeave", "Hangup"];
const LIST_ACTIONS = [
  "PJSIPShowEndpoints",
  "PJSIPShowEndpoint",
  "PJSIPShowContacts",
  "PJSIPShowRegistrationsOutbound",
  "CoreShowChannels",
];

/** The recorded blocks the fake builds from, read once. */
function loadTemplates() {
  const listAck = new Map(LIST_ACTIONS.map((a) => [a.toLowerCase(), responseTemplate(a, "Success")]));
  const complete = (name: string) => eventTemplate(name);
  return {
    loginOk: responseTemplate("Login", "Success"),
    loginFailed: responseTemplate("Login", "Error"),
    fullyBooted: eventTemplate("FullyBooted"),
    ping: responseTemplate("Ping", "Success"),
    logoff: responseTemplate("Logoff", "Goodbye"),
    commandOk: responseTemplate("Command", "Success"),
    commandError: responseTemplate("Command", "Error"),
    hangupOk: responseTemplate("Hangup", "Success"),
    dbPutOk: responseTemplate("DBPut", "Success"),
    setvarOk: responseTemplate("Setvar", "Success"),
    unknownAction: responseTemplate("NoSuchAction", "Error"),
    /** Every `Response: Error` has this shape (astman_send_error). */
    error: responseTemplate("Hangup", "Error"),
    noEndpoints: responseTemplate("PJSIPShowEndpoints", "Error"),
    listAck,
    deviceStateChange: eventTemplate("DeviceStateChange"),
    contactStatus: eventTemplate("ContactStatus"),
    registry: eventTemplate("Registry"),
    channel: new Map(CALL_EVENTS.map((e) => [e, eventTemplate(e, { source: "call" })])),
    security: new Map(Object.entries(SECURITY_SOURCE).map(([e, source]) => [e, eventTemplate(e, { source })])),
    endpointListExtension: eventTemplate("EndpointList", { where: { ObjectName: RECORDED_EXTENSION } }),
    endpointListTrunk: eventTemplate("EndpointList", { where: { ObjectName: RECORDED_TRUNK } }),
    contactList: eventTemplate("ContactList", { where: { Endpoint: RECORDED_EXTENSION } }),
    registrationDetail: eventTemplate("OutboundRegistrationDetail"),
    registrationAuth: eventTemplate("AuthDetail", { source: "pjsip-show-registrations-outbound" }),
    coreShowChannel: eventTemplate("CoreShowChannel"),
    endpointDetail: eventTemplate("EndpointDetail"),
    endpointAuth: eventTemplate("AuthDetail", { source: "pjsip-show-endpoint" }),
    aorDetail: eventTemplate("AorDetail"),
    contactStatusDetail: eventTemplate("ContactStatusDetail", { source: "pjsip-show-endpoint" }),
    endpointListComplete: complete("EndpointListComplete"),
    endpointDetailComplete: complete("EndpointDetailComplete"),
    contactListComplete: complete("ContactListComplete"),
    registrationComplete: complete("OutboundRegistrationDetailComplete"),
    channelsComplete: complete("CoreShowChannelsComplete"),
    vm: loadVoicemailTemplates(),
  };
}
/** A recorded answer of voicemail.txt to `action` with these field values (its answers differ by `Message`). */
function voicemailAnswer(action: string, where: Record<string, string>): Template {
  const t = transcript("voicemail");
  for (const b of t.blocks)
    if (
      b.kind === "response" &&
      b.name === action &&
      Object.entries(where).every(([k, v]) => fieldOf(b.fields, k) === v)
    )
      return new Template(b.name, b.fields, t.name);
  throw new Error(`no recorded ${action} answer ${JSON.stringify(where)} in voicemail.txt`);
}

function loadVoicemailTemplates() {
  const ack = (action: string) => voicemailAnswer(action, { EventList: "start" });
  return {
    usersNone: voicemailAnswer("VoicemailUsersList", { Message: "There are no voicemail users currently defined." }),
    usersAck: ack("VoicemailUsersList"),
    userEntry: eventTemplate("VoicemailUserEntry"),
    usersComplete: eventTemplate("VoicemailUserEntryComplete"),
    statusNone: voicemailAnswer("VoicemailUserStatus", { Message: "There is no voicemail user of the given info." }),
    statusAck: ack("VoicemailUserStatus"),
    userDetail: eventTemplate("VoicemailUserDetail"),
    statusComplete: eventTemplate("VoicemailUserDetailComplete"),
    summaryNone: voicemailAnswer("VoicemailBoxSummary", {
      Message: "There is no voicemail user matching the given user.",
    }),
    summaryAck: ack("VoicemailBoxSummary"),
    boxDetail: eventTemplate("VoicemailBoxDetail"),
    summaryComplete: eventTemplate("VoicemailBoxDetailComplete"),
    moved: voicemailAnswer("VoicemailMove", { Message: "Message move successful" }),
    moveFailed: voicemailAnswer("VoicemailMove", { Message: "Message move failed" }),
    removed: voicemailAnswer("VoicemailRemove", { Message: "Message remove successful" }),
    removeFailed: voicemailAnswer("VoicemailRemove", { Message: "Message remove failed" }),
    /** The short form (a change without a channel: a move, a remove). */
    messageWaiting: eventTemplate("MessageWaiting", { source: "voicemail", where: { Old: "1" } }),
  };
}

/** app_voicemail's folders in the order its summary lists them. */
const VOICEMAIL_FOLDER_ORDER = ["INBOX", "Old", "Work", "Family", "Friends", "Urgent"];
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** A message's date as app_voicemail writes it (`%a %b %e %r UTC %Y`): `Mon Dec  7 12:30:53 AM UTC 2026`. */
export function voicemailDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  const h = d.getUTCHours();
  const time = `${p(h % 12 || 12)}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} ${h < 12 ? "AM" : "PM"}`;
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, " ")} ${time} UTC ${d.getUTCFullYear()}`;
}

let templates: ReturnType<typeof loadTemplates> | null = null;

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
/** The template's fields with `values` and the `ActionID` (left out when the action had none). */
const build = (t: Template, id: string | undefined, values: Values = {}, rename?: Record<string, string>): Fields =>
  t.build(id === undefined ? values : { ...values, ActionID: id }, {
    omit: id === undefined ? ["ActionID"] : [],
    rename,
  });

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
  /** A mailbox in voicemail context `default` (as voicemail.conf has it after a voicemail reload). */
  addMailbox(mailbox: string, opts?: { name?: string; maxMessages?: number }): FakeMailbox;
  /** A caller leaves a message (in INBOX unless given): its id; `MessageWaiting` follows. */
  leaveVoicemail(
    mailbox: string,
    msg?: { callerId?: string; folder?: string; durationS?: number; at?: number },
  ): string;
  /** Any event to logged-in sessions (fields in order; `Event` first). `cls` is its class for `Events:` filters. */
  emit(fields: Record<string, string>, cls?: string): void;
  dropMidList(actionName: string): void;
  failNext(actionName: string, message: string): void;
  /** Raw text to every connection (garbage, malformed lines, over-long lines). */
  sendRaw(text: string): void;
  /**
   * Answers an action the fake does not model (`Originate`, `Getvar`, `ModuleCheck`…) with the fields `answer`
   * returns, `ActionID` put second as Asterisk puts it; null leaves the action to the fake. A test builds the
   * fields from its own recording of the real Asterisk (e.g. test/fixtures/test-calls/).
   */
  answerAction(name: string, answer: (action: FakeAmiAction) => Record<string, string> | null): void;
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
  templates ??= loadTemplates();
  const T = templates;
  const now = opts.now ?? Date.now;
  const amiVersion = opts.amiVersion ?? "9.0.0";
  const recordedVersion = recordedAsteriskVersion();
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
    astdb: new Map(),
    globals: new Map(),
    voicemail: new Map(),
  };
  const actions: FakeAmiAction[] = [];
  const answers = new Map<string, (action: FakeAmiAction) => Record<string, string> | null>();
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
  /** An event to the sessions that want its class (the first of its `Privilege`). */
  const broadcastFields = (fields: Fields) => {
    const cls = (fieldOf(fields, "Privilege") ?? "system").split(",")[0]?.trim() ?? "system";
    const text = amiMessage(fields);
    for (const s of sessions) if (wants(s, cls)) sendText(s, text);
  };
  const emitEvent = (t: Template, values: Values, rename?: Record<string, string>) =>
    broadcastFields(build(t, undefined, values, rename));

  // ----- model helpers -----------------------------------------------------------------------------

  const endpointOf = (name: string): FakeEndpoint => {
    const ep = state.endpoints.get(name);
    if (!ep) throw new Error(`fake AMI: no endpoint ${name} (call addEndpoint first)`);
    return ep;
  };
  const setState = (ep: FakeEndpoint, next: FakeDeviceState) => {
    if (ep.deviceState === next) return;
    ep.deviceState = next;
    emitEvent(T.deviceStateChange, { Device: `PJSIP/${ep.name}`, State: next });
  };
  const idleState = (ep: FakeEndpoint): FakeDeviceState =>
    ep.kind === "trunk" || ep.contacts.length > 0 ? "NOT_INUSE" : "UNAVAILABLE";
  const inCall = (ep: FakeEndpoint) =>
    [...state.calls.values()].some((c) => c.channels.some((ch) => ch.endpoint === ep.name));
  const channelsOf = (ep: FakeEndpoint) =>
    [...state.calls.values()].flatMap((c) => c.channels).filter((ch) => ch.endpoint === ep.name);
  const contactStatus = (ep: FakeEndpoint, c: FakeContact, status: string, rtt: string) =>
    emitEvent(T.contactStatus, {
      URI: c.uri,
      ContactStatus: status,
      AOR: ep.name,
      EndpointName: ep.name,
      RoundtripUsec: rtt,
    });

  /** A channel's snapshot fields (`Dest…` for the dialled one); Language and AccountCode are the recorded ones. */
  const snapshot = (ch: FakeChannel, prefix = ""): Record<string, string> => ({
    [`${prefix}Channel`]: ch.name,
    [`${prefix}ChannelState`]: String(ch.state),
    [`${prefix}ChannelStateDesc`]: STATE_DESC[ch.state] ?? "Unknown",
    [`${prefix}CallerIDNum`]: orUnknown(ch.callerNum),
    [`${prefix}CallerIDName`]: orUnknown(ch.callerName),
    [`${prefix}ConnectedLineNum`]: orUnknown(ch.connectedNum),
    [`${prefix}ConnectedLineName`]: orUnknown(ch.connectedName),
    [`${prefix}Context`]: ch.context,
    [`${prefix}Exten`]: ch.exten,
    [`${prefix}Priority`]: "1",
    [`${prefix}Uniqueid`]: ch.uniqueid,
    [`${prefix}Linkedid`]: ch.linkedid,
  });
  const channelEvent = (name: string, ch: FakeChannel, extra: Record<string, string> = {}) =>
    emitEvent(T.channel.get(name) as Template, { ...snapshot(ch), ...extra });

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
      channelEvent("DialEnd", a, { ...snapshot(b, "Dest"), DialStatus: "CANCEL" });
    }
    let inBridge = call.channels.filter((ch) => ch.bridgeId).length;
    for (const ch of [...call.channels].reverse()) {
      if (ch.bridgeId) {
        inBridge -= 1;
        channelEvent("BridgeLeave", ch, { BridgeUniqueid: ch.bridgeId, BridgeNumChannels: String(inBridge) });
      }
      channelEvent("Hangup", ch, { Cause: String(cause.code), "Cause-txt": cause.text });
    }
    for (const ch of call.channels) {
      const ep = state.endpoints.get(ch.endpoint);
      if (ep && ep.kind === "extension" && !inCall(ep)) setState(ep, idleState(ep));
    }
  };

  // ----- lists ---------------------------------------------------------------------------------------

  const endpointItems = (id: string | undefined): Fields[] =>
    [...state.endpoints.values()].map((ep) => {
      const trunk = ep.kind === "trunk";
      return build(
        trunk ? T.endpointListTrunk : T.endpointListExtension,
        id,
        {
          ObjectName: ep.name,
          Contacts: ep.contacts.map((c) => `${ep.name}/${c.uri},`).join(""),
          DeviceState: DEVICE_STATE_TEXT[ep.deviceState],
          ActiveChannels: String(channelsOf(ep).length),
        },
        { [trunk ? RECORDED_TRUNK : RECORDED_EXTENSION]: ep.name },
      );
    });
  const contactItems = (id: string | undefined): Fields[] =>
    [...state.endpoints.values()].flatMap((ep) =>
      ep.contacts.map((c): Fields => {
        const via = splitAddr(c.viaAddr);
        return build(
          T.contactList,
          id,
          {
            ObjectName: c.id,
            ViaAddr: via.host,
            CallId: c.callId,
            Endpoint: ep.name,
            ViaPort: via.port,
            Uri: c.uri,
            UserAgent: c.userAgent,
            ExpirationTime: String(c.regExpire),
            Status: c.status,
            RoundtripUsec: c.status === "Reachable" ? String(c.roundtripUsec) : "N/A",
          },
          { [RECORDED_EXTENSION]: ep.name },
        );
      }),
    );
  const registrationItems = (id: string | undefined): Fields[] =>
    [...state.registrations.values()].flatMap((r): Fields[] => [
      build(
        T.registrationDetail,
        id,
        { ObjectName: r.name, ServerUri: r.serverUri, ClientUri: r.clientUri, Status: r.status, NextReg: "0" },
        { [RECORDED_TRUNK]: r.name },
      ),
      build(T.registrationAuth, id, { ObjectName: r.name, Username: r.name }, { [RECORDED_TRUNK]: r.name }),
    ]);
  const channelItems = (id: string | undefined): Fields[] =>
    [...state.calls.values()].flatMap((call) =>
      call.channels.map(
        (ch): Fields =>
          build(T.coreShowChannel, id, {
            ...snapshot(ch),
            Application: ch.application,
            ApplicationData: ch.applicationData,
            Duration: hms(now() - ch.startedAt),
            BridgeId: ch.bridgeId,
          }),
      ),
    );
  /** `PJSIPShowEndpoint`: the endpoint, an extension's auth, its AOR, then one detail per contact (as recorded). */
  const endpointDetailItems = (ep: FakeEndpoint, id: string | undefined): Fields[] => {
    const rename = { [RECORDED_EXTENSION]: ep.name };
    return [
      build(
        T.endpointDetail,
        id,
        {
          ObjectName: ep.name,
          DeviceState: DEVICE_STATE_TEXT[ep.deviceState],
          ActiveChannels: String(channelsOf(ep).length),
        },
        rename,
      ),
      ...(ep.kind === "extension"
        ? [build(T.endpointAuth, id, { ObjectName: `${ep.name}-auth`, Username: ep.name, EndpointName: ep.name })]
        : []),
      build(
        T.aorDetail,
        id,
        {
          ObjectName: ep.name,
          Contacts: ep.contacts.map((c) => `${ep.name}/${c.uri}`).join(","),
          TotalContacts: String(ep.contacts.length),
          ContactsRegistered: String(ep.contacts.length),
          EndpointName: ep.name,
        },
        rename,
      ),
      ...ep.contacts.map(
        (c): Fields =>
          build(T.contactStatusDetail, id, {
            AOR: ep.name,
            URI: c.uri,
            UserAgent: c.userAgent,
            RegExpire: String(c.regExpire),
            ViaAddress: c.viaAddr,
            CallID: c.callId,
            Status: c.status,
            RoundtripUsec: c.status === "Reachable" ? String(c.roundtripUsec) : "0",
            EndpointName: ep.name,
            ID: c.id,
          }),
      ),
    ];
  };

  // ----- voicemail (context `default`) ---------------------------------------------------------------

  let voicemailSeq = 0;
  const inFolder = (box: FakeMailbox, folder: string) => box.messages.filter((m) => m.folder === folder).length;
  const mailboxOf = (fields: Record<string, string>) =>
    (fields.context ?? "") === "default" ? state.voicemail.get((fields.mailbox ?? "").trim()) : undefined;
  const messageWaiting = (box: FakeMailbox) => {
    const fresh = inFolder(box, "INBOX") + inFolder(box, "Urgent");
    emitEvent(T.vm.messageWaiting, {
      Mailbox: `${box.mailbox}@default`,
      Waiting: fresh > 0 ? "1" : "0",
      New: String(fresh),
      Old: String(inFolder(box, "Old")),
    });
  };
  const userFields = (box: FakeMailbox) => ({
    VMContext: "default",
    VoiceMailbox: box.mailbox,
    Fullname: box.name,
    MaxMessageCount: String(box.maxMessages),
    NewMessageCount: String(inFolder(box, "INBOX")),
    OldMessageCount: String(inFolder(box, "Old")),
  });
  const voicemailList = (s: Session, id: string | undefined, ack: Template, items: Fields[], complete: Template) =>
    sendText(
      s,
      [build(ack, id), ...items, build(complete, id, { ListItems: String(items.length) })].map(amiMessage).join(""),
    );
  /** `VoicemailMove` and `VoicemailRemove`: the message by its id in the folder named, or the failed answer. */
  const voicemailChange = (s: Session, id: string | undefined, fields: Record<string, string>, move: boolean) => {
    const box = mailboxOf(fields);
    const msg = box?.messages.find((m) => m.id === fields.id && m.folder === fields.folder);
    const to = fields.tofolder ?? "";
    const ok = box && msg && (!move || (VOICEMAIL_FOLDER_ORDER.includes(to) && inFolder(box, to) < box.maxMessages));
    if (!box || !msg || !ok) return send(s, build(move ? T.vm.moveFailed : T.vm.removeFailed, id));
    if (move) msg.folder = to;
    else box.messages.splice(box.messages.indexOf(msg), 1);
    send(s, build(move ? T.vm.moved : T.vm.removed, id));
    messageWaiting(box);
  };

  const LISTS: Record<
    string,
    {
      complete: Template;
      items: (id: string | undefined) => Fields[];
      empty?: Template;
      counts?: () => Record<string, string>;
    }
  > = {
    pjsipshowendpoints: { complete: T.endpointListComplete, items: endpointItems, empty: T.noEndpoints },
    pjsipshowcontacts: { complete: T.contactListComplete, items: contactItems },
    pjsipshowregistrationsoutbound: {
      complete: T.registrationComplete,
      items: registrationItems,
      counts: () => {
        const all = [...state.registrations.values()];
        const registered = all.filter((r) => r.status === "Registered").length;
        return {
          ListItems: String(all.length),
          Registered: String(registered),
          NotRegistered: String(all.length - registered),
        };
      },
    },
    coreshowchannels: { complete: T.channelsComplete, items: channelItems },
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
    const id = fields.actionid;
    actions.push({ name, fields, at: now(), session: s.id });
    for (const w of [...waiters]) w();
    const reply = (t: Template, values: Values = {}, rename?: Record<string, string>) =>
      send(s, build(t, id, values, rename));
    const error = (message: string) => reply(T.error, { Message: message });

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
    const answered = answers.get(lower)?.(actions[actions.length - 1] as FakeAmiAction);
    if (answered) {
      const fields = Object.entries(answered);
      if (id !== undefined) fields.splice(1, 0, ["ActionID", id]);
      return sendText(s, amiMessage(fields));
    }
    const list = LISTS[lower];
    if (list) {
      const items = list.items(id);
      if (items.length === 0 && list.empty) return reply(list.empty);
      const ack = build(T.listAck.get(lower) as Template, id);
      if (state.dropMidList.delete(lower)) {
        sendText(s, amiMessage(ack) + (items[0] ? amiMessage(items[0]) : ""));
        close(s);
        return;
      }
      // The whole answer in one write (the fake's own choice): the same bytes, no pause within the list.
      const done = build(list.complete, id, list.counts?.() ?? { ListItems: String(items.length) });
      sendText(s, [ack, ...items, done].map(amiMessage).join(""));
      return;
    }
    switch (lower) {
      case "pjsipshowendpoint": {
        const ep = state.endpoints.get(fields.endpoint ?? "");
        if (!ep) return error(`Unable to retrieve endpoint ${fields.endpoint ?? ""}`);
        const items = endpointDetailItems(ep, id);
        const ack = build(T.listAck.get(lower) as Template, id);
        const done = build(T.endpointDetailComplete, id, { ListItems: String(items.length) });
        sendText(s, [ack, ...items, done].map(amiMessage).join(""));
        return;
      }
      case "login": {
        const user = fields.username ?? "";
        if (user.toLowerCase() !== state.username.toLowerCase() || fields.secret !== state.secret) {
          reply(T.loginFailed);
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
        reply(T.loginOk);
        if (wants(s, "system")) send(s, build(T.fullyBooted, undefined));
        return;
      }
      case "logoff":
        reply(T.logoff);
        close(s);
        return;
      case "ping":
        reply(T.ping, { Timestamp: (now() / 1000).toFixed(6) });
        return;
      case "command": {
        const command = (fields.command ?? "").trim();
        if (command === "core show version") {
          // The recorded output line, with this fake's version in it.
          reply(T.commandOk, {}, { [recordedVersion]: state.version });
        } else {
          reply(T.commandError, {
            Output: `No such command '${command}' (type 'core show help ${command}' for other possible commands)`,
          });
        }
        return;
      }
      case "hangup": {
        const channel = (fields.channel ?? "").trim();
        if (!channel) return error("No channel specified");
        const call = [...state.calls.values()].find((c) => c.channels.some((ch) => ch.name === channel));
        if (!call) return error("No such channel");
        reply(T.hangupOk);
        const code = Number(fields.cause) || 16;
        endCall(call, { code, text: code === 16 ? "Normal Clearing" : "Unknown" });
        return;
      }
      case "dbput": {
        state.astdb.set(`/${fields.family ?? ""}/${fields.key ?? ""}`, fields.val ?? "");
        return reply(T.dbPutOk);
      }
      case "setvar": {
        if (!fields.channel) state.globals.set(fields.variable ?? "", fields.value ?? "");
        return reply(T.setvarOk);
      }
      case "voicemailuserslist": {
        const boxes = [...state.voicemail.values()];
        if (boxes.length === 0) return reply(T.vm.usersNone);
        const items = boxes.map((b) => build(T.vm.userEntry, id, userFields(b)));
        return voicemailList(s, id, T.vm.usersAck, items, T.vm.usersComplete);
      }
      case "voicemailuserstatus": {
        const box = mailboxOf(fields);
        if (!box) return reply(T.vm.statusNone);
        return voicemailList(s, id, T.vm.statusAck, [build(T.vm.userDetail, id, userFields(box))], T.vm.statusComplete);
      }
      case "voicemailboxsummary": {
        const box = mailboxOf(fields);
        if (!box) return reply(T.vm.summaryNone);
        const items = VOICEMAIL_FOLDER_ORDER.flatMap((folder) =>
          box.messages
            .filter((m) => m.folder === folder)
            .map((m) =>
              build(T.vm.boxDetail, id, {
                Folder: m.folder,
                CallerID: m.callerId,
                Date: voicemailDate(m.at),
                Duration: String(m.durationS),
                Flag: "",
                ID: m.id,
              }),
            ),
        );
        return voicemailList(s, id, T.vm.summaryAck, items, T.vm.summaryComplete);
      }
      case "voicemailmove":
        return voicemailChange(s, id, fields, true);
      case "voicemailremove":
        return voicemailChange(s, id, fields, false);
      default:
        // Asterisk adds ": <name>. Use Action: ListCommands …" (unknown-action.txt); the client's tests pin this text.
        return reply(T.unknownAction, { Message: "Invalid/unknown command" });
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
      contactStatus(ep, contact, "NonQualified", "0");
      contactStatus(ep, contact, "Reachable", String(contact.roundtripUsec));
      if (ep.kind === "extension" && ep.deviceState === "UNAVAILABLE") setState(ep, "NOT_INUSE");
      return contact;
    },

    unregister(endpoint, uri) {
      const ep = endpointOf(endpoint);
      const gone = ep.contacts.filter((c) => uri === undefined || c.uri === uri);
      ep.contacts = ep.contacts.filter((c) => !gone.includes(c));
      for (const c of gone) contactStatus(ep, c, "Removed", "0");
      if (ep.kind === "extension" && ep.contacts.length === 0 && !inCall(ep)) setState(ep, "UNAVAILABLE");
    },

    setContactStatus(endpoint, status, uri) {
      const ep = endpointOf(endpoint);
      for (const c of ep.contacts.filter((x) => uri === undefined || x.uri === uri)) {
        c.status = status;
        contactStatus(ep, c, status, status === "Reachable" ? String(c.roundtripUsec) : "0");
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
      // PJSIP's Registry carries no Cause (trunk-registration.txt): `o.cause` is not sent.
      emitEvent(T.registry, { ChannelType: "PJSIP", Username: reg.clientUri, Domain: reg.serverUri, Status: status });
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
      channelEvent("DialBegin", a, { ...snapshot(b, "Dest"), DialString: dialString });
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
      channelEvent("DialEnd", a, { ...snapshot(b, "Dest"), DialStatus: "ANSWER" });
      bridgeSeq += 1;
      const bridge = `${hex8(bridgeSeq)}-fake-bridge`;
      let n = 0;
      for (const ch of [a, b]) {
        n += 1;
        ch.bridgeId = bridge;
        channelEvent("BridgeEnter", ch, { BridgeUniqueid: bridge, BridgeNumChannels: String(n) });
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
      const t = T.security.get(o.type) as Template;
      const addr = /:\d+$/.test(o.address) ? o.address : `${o.address}:5060`;
      const [ip, port] = [addr.replace(/:\d+$/, ""), addr.replace(/^.*:/, "")];
      const family = ip.includes(":") ? "IPV6" : "IPV4";
      // Every type comes as a SIP failure (Service PJSIP, over UDP), as the tests use them, with the fields of
      // its recording; InvalidPassword and FailedACL were recorded from the manager (PJSIP sends neither).
      emitEvent(t, {
        EventTV: `${new Date(now()).toISOString().replace("Z", "")}+0000`,
        Service: "PJSIP",
        AccountID: o.account,
        SessionID: `${hex8(uniqueSeq)}-fake`,
        LocalAddress: "IPV4/UDP/127.0.0.1/5060",
        RemoteAddress: `${family}/UDP/${ip}/${port}`,
      });
    },

    addMailbox(mailbox, o = {}) {
      const box: FakeMailbox = {
        mailbox,
        name: o.name ?? `Mailbox ${mailbox}`,
        maxMessages: o.maxMessages ?? 100,
        messages: [],
      };
      state.voicemail.set(mailbox, box);
      return box;
    },

    leaveVoicemail(mailbox, msg = {}) {
      const box = state.voicemail.get(mailbox);
      if (!box) throw new Error(`fake AMI: no mailbox ${mailbox} (call addMailbox first)`);
      const at = msg.at ?? now();
      voicemailSeq += 1;
      const id = `${Math.floor(at / 1000)}-${hex8(voicemailSeq)}`;
      box.messages.push({
        id,
        folder: msg.folder ?? "INBOX",
        callerId: msg.callerId ?? '"Caller" <2902>',
        at,
        durationS: msg.durationS ?? 5,
      });
      messageWaiting(box);
      return id;
    },

    emit(fields, cls = "system") {
      const [first, ...rest] = Object.entries(fields);
      if (first) broadcastFields([first, ["Privilege", `${cls},all`], ...rest]);
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
    answerAction(name, answer) {
      answers.set(name.toLowerCase(), answer);
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
