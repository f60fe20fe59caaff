/**
 * The live PBX (ADR 0027): one AMI connection, owned here. After each login it reads the endpoint,
 * contact, outbound registration and channel lists, rebuilds its state, then follows the events
 * (device states, contacts, trunk registrations, the call lifecycle, failed sign-ins). The views
 * (`status()`, `activeCalls()`, `security()`) read that state in memory; changes are published on the
 * sync socket, coalesced. Without settings nothing connects and every view says unknown with the
 * reason; the settings are re-read every few seconds and a change reconnects.
 */
import type { Db } from "../../db/client";
import { trunks as trunksTable } from "../../db/schema";
import {
  type ActiveCallsView,
  type AmiConnection,
  CHANNEL_NAME,
  type PbxLiveStatus,
  type PbxSecurity,
} from "../../shared/live";
import { AmiClient, type AmiClientOptions, AmiError, type AmiMessage, type AmiSettings } from "../clients/ami";
import { ServiceError } from "../clients/http";
import type { Deps } from "../core/deps";
import { Invalid, NotFound, Unavailable } from "../core/errors";
import { effectiveAmiSettings } from "./ami-settings";
import { CallState, isCallEvent } from "./calls";
import { EndpointState } from "./endpoints";
import { Coalesced, Delayed } from "./publisher";
import { isSecurityEvent, SecurityState } from "./security";

export type LiveDeps = Pick<Deps, "db" | "events" | "now" | "config" | "credentials">;

export interface LiveMonitorOptions {
  /** How often the effective settings are re-read (a change reconnects). Default 5,000. */
  settingsCheckMs?: number;
  /** `pbx-status-updated` and `calls-updated`: at most one per this. Default 250. */
  coalesceMs?: number;
  /** `pbx-security-updated`: at most one per this. Default 1,000. */
  securityCoalesceMs?: number;
  /** `call-history-updated`: this long after a call ended. Default 3,000. */
  historyDelayMs?: number;
  /** After a list failed on a connection that stays up, read the lists again after this. Default 15,000. */
  listRetryMs?: number;
  /** The AMI client's timings (tests shorten the back-off). */
  client?: AmiClientOptions;
  limits?: Partial<LiveLimits>;
}

export interface LiveLimits {
  channels: number;
  endpoints: number;
  contactsPerEndpoint: number;
  sources: number;
  accountsPerSource: number;
  accounts: number;
  /** Events held while the lists are read after a login (applied after them). */
  queuedEvents: number;
}

const DEFAULT_LIMITS: LiveLimits = {
  channels: 5_000,
  endpoints: 20_000,
  contactsPerEndpoint: 50,
  sources: 5_000,
  accountsPerSource: 20,
  accounts: 10_000,
  queuedEvents: 20_000,
};

/** The lists read after each login, in order, with the event of their items (others, e.g. `AuthDetail`, are skipped). */
const LISTS = [
  ["PJSIPShowEndpoints", "endpointlist"],
  ["PJSIPShowContacts", "contactlist"],
  ["PJSIPShowRegistrationsOutbound", "outboundregistrationdetail"],
  ["CoreShowChannels", "coreshowchannel"],
] as const;

/** At most one re-read of the outbound registrations per this (a `Registry` event for one not known). */
const REGISTRATION_REREAD_MS = 10_000;

const describeSettings = (s: AmiSettings) => `${s.host}:${s.port}`;

/**
 * The mailbox of a `MessageWaiting` event (`Mailbox: 2901@default`) in the context the console's voicemail
 * screens show (FreePBX's `default`), else null.
 */
function voicemailOf(e: AmiMessage): string | null {
  if ((e.event ?? "").toLowerCase() !== "messagewaiting") return null;
  const m = /^(\d{1,10})@default$/.exec((e.mailbox ?? "").trim());
  return m ? (m[1] as string) : null;
}
const sentence = (s: string) => s.trim().replace(/\.?$/, ".");

/** The console's own trunks by name: their endpoints are trunks whatever their names. */
function consoleTrunkNames(db: Db): Set<string> {
  try {
    return new Set(
      db
        .select({ name: trunksTable.name })
        .from(trunksTable)
        .all()
        .map((t) => t.name),
    );
  } catch {
    return new Set();
  }
}

export class LiveMonitor {
  private readonly opts: Required<Omit<LiveMonitorOptions, "client" | "limits">> & { client: AmiClientOptions };
  private readonly limits: LiveLimits;
  private readonly endpoints: EndpointState;
  private readonly calls: CallState;
  private readonly attacks: SecurityState;
  private readonly statusEvents: Coalesced;
  private readonly callEvents: Coalesced;
  private readonly securityEvents: Coalesced;
  private readonly historyEvents: Delayed;

  private client: AmiClient | null = null;
  /** What the current client was built from; null without settings. */
  private clientKey: string | null = null;
  private unsubscribe: (() => void)[] = [];
  /** Clients being stopped (awaited by stop()). */
  private stopping = new Set<Promise<void>>();
  /** Bumped with every login, disconnection and new client: the lists of an older login are dropped. */
  private generation = 0;
  /** Endpoints whose contact details are being read. */
  private readonly detailReads = new Set<string>();
  /** A reload came while the lists were being read: read them once more after. */
  private reloadAgain = false;
  /** Events held while the lists are read (null when not reading). */
  private queue: AmiMessage[] | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** A re-read of the outbound registrations is running / when the last one started. */
  private registrationRead = false;
  private lastRegistrationRead = Number.NEGATIVE_INFINITY;
  private checkTimer: ReturnType<typeof setInterval> | null = null;
  private started = false;
  private stopped = false;
  /** Set while start() reads the settings the first time: the initial state is not published. */
  private quiet = false;
  private conn: AmiConnection;
  private readonly eventListeners = new Set<(event: AmiMessage) => void>();

  constructor(
    private readonly deps: LiveDeps,
    opts: LiveMonitorOptions = {},
  ) {
    this.opts = {
      settingsCheckMs: opts.settingsCheckMs ?? 5_000,
      coalesceMs: opts.coalesceMs ?? 250,
      securityCoalesceMs: opts.securityCoalesceMs ?? 1_000,
      historyDelayMs: opts.historyDelayMs ?? 3_000,
      listRetryMs: opts.listRetryMs ?? 15_000,
      client: opts.client ?? {},
    };
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.endpoints = new EndpointState({
      maxEndpoints: this.limits.endpoints,
      maxContacts: this.limits.contactsPerEndpoint,
    });
    this.calls = new CallState(this.limits.channels);
    this.attacks = new SecurityState({
      maxSources: this.limits.sources,
      maxAccountsPerSource: this.limits.accountsPerSource,
      maxAccounts: this.limits.accounts,
    });
    this.statusEvents = new Coalesced(deps.events, "pbx-status-updated", this.opts.coalesceMs);
    this.callEvents = new Coalesced(deps.events, "calls-updated", this.opts.coalesceMs);
    this.securityEvents = new Coalesced(deps.events, "pbx-security-updated", this.opts.securityCoalesceMs);
    this.historyEvents = new Delayed(deps.events, "call-history-updated", this.opts.historyDelayMs);
    this.conn = { connected: false, reason: "The live PBX view has not started", source: "none", since: this.iso() };
  }

  /** Reads the settings and connects when there are any; re-reads them every few seconds. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    // The first state is not news: nobody has read a view yet.
    this.quiet = true;
    this.check();
    this.quiet = false;
    this.checkTimer = setInterval(() => this.check(), this.opts.settingsCheckMs);
    (this.checkTimer as { unref?: () => void }).unref?.();
  }

  /** Closes the AMI connection and cancels every timer; nothing is published afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.checkTimer) clearInterval(this.checkTimer);
    this.checkTimer = null;
    this.clearRetry();
    for (const p of [this.statusEvents, this.callEvents, this.securityEvents, this.historyEvents]) p.close();
    this.detach();
    await Promise.all([...this.stopping]);
  }

  /** GET /api/pbx/status */
  status(): PbxLiveStatus {
    if (!this.conn.connected) return { ...this.conn, extensions: [], trunks: [], activeCalls: 0 };
    const view = this.endpoints.view(consoleTrunkNames(this.deps.db));
    return { ...this.conn, ...view, activeCalls: this.calls.count };
  }

  /** GET /api/calls/active */
  activeCalls(): ActiveCallsView {
    if (!this.conn.connected) return { ...this.conn, calls: [] };
    return { ...this.conn, calls: this.calls.view(this.endpoints.trunkNames(consoleTrunkNames(this.deps.db))) };
  }

  /** GET /api/pbx/security (kept across reconnections: it is the last hour and day of failures). */
  security(): PbxSecurity {
    return { ...this.conn, ...this.attacks.view(this.deps.now()) };
  }

  /** Failed SIP sign-ins in the current minute and the `minutes` before it (the sip-attack alert rule). */
  sipFailuresWithin(minutes: number): number {
    return this.attacks.failuresWithin(this.deps.now(), minutes);
  }

  /**
   * Hangs up one channel of a call in progress (AMI `Hangup`, cause 16: normal clearing). Only a channel
   * in the current call list, by its exact name: never a `/regex/`, which AMI would apply to every match.
   */
  async hangup(channel: string): Promise<{ id: string; channel: string }> {
    if (!CHANNEL_NAME.test(channel)) {
      throw new Invalid("Channel must be a channel name such as PJSIP/1001-00000004", {
        channel: "Channel must be a channel name such as PJSIP/1001-00000004",
      });
    }
    const client = this.client;
    if (!client || !this.conn.connected) throw new Unavailable(this.notConnected());
    const id = this.calls.callOf(channel);
    if (id === null) throw new NotFound("Call", `No call in progress on ${channel}`);
    try {
      await client.action("Hangup", { Channel: channel, Cause: "16" });
    } catch (err) {
      if (err instanceof AmiError && /no such channel/i.test(err.message)) {
        this.dropChannel(channel);
        throw new NotFound("Call", "The call has already ended");
      }
      if (!(err instanceof AmiError) && err instanceof ServiceError && !client.connected) {
        throw new Unavailable(this.notConnected());
      }
      throw err;
    }
    this.dropChannel(channel);
    return { id, channel };
  }

  /**
   * Sends manager actions in order on the connected client (a time condition's override: FreePBX's
   * `setState` is an AstDB put and two global device states). `Unavailable` while not connected; an action
   * Asterisk refuses is an `AmiError` with its message.
   */
  async managerActions(actions: [string, Record<string, string>][]): Promise<void> {
    const client = this.client;
    if (!client || !this.conn.connected) throw new Unavailable(this.notConnected());
    for (const [name, fields] of actions) await client.action(name, fields);
  }

  /**
   * A list action on the connected client (`VoicemailBoxSummary`, `VoicemailUserStatus`): its items.
   * `Unavailable` while not connected; an action Asterisk refuses is an `AmiError` with its message.
   */
  async managerList(name: string, fields: Record<string, string>): Promise<AmiMessage[]> {
    const client = this.client;
    if (!client || !this.conn.connected) throw new Unavailable(this.notConnected());
    return client.list(name, fields);
  }

  /**
   * Every manager event of the current connection, as it arrives (a test call follows its own channel's
   * events: ADR 0068). Returns the unsubscribe function; a listener that throws is logged and skipped.
   */
  onManagerEvent(listener: (event: AmiMessage) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /**
   * One manager action on the connected client: its answer (`VoicemailMove` answers `Response: Success`
   * with "Message move failed" when it moved nothing: the caller reads `message`).
   */
  async managerAction(name: string, fields: Record<string, string>): Promise<AmiMessage> {
    const client = this.client;
    if (!client || !this.conn.connected) throw new Unavailable(this.notConnected());
    return client.action(name, fields);
  }

  // -------------------------------------------------------------------------------------------------

  private iso(): string {
    return new Date(this.deps.now()).toISOString();
  }

  private notConnected(): string {
    return `The Asterisk manager interface is not connected: ${sentence(this.conn.reason ?? "not connected")}`;
  }

  /** Re-reads the effective settings; (re)connects when they changed. Cheap: a credential lookup and a small file. */
  private check(): void {
    if (this.stopped) return;
    let found: ReturnType<typeof effectiveAmiSettings>;
    try {
      found = effectiveAmiSettings(this.deps);
    } catch (err) {
      found = {
        settings: null,
        source: "none",
        reason: `Asterisk manager settings could not be read: ${(err as Error).message}`,
      };
    }
    const { settings, source } = found;
    const key = settings ? JSON.stringify([settings.host, settings.port, settings.username, settings.secret]) : null;
    if (key === this.clientKey) {
      // Still not configured: only the reason may have changed (e.g. manager.conf is unreadable now).
      if (key === null && this.started && (this.conn.reason !== found.reason || this.conn.source !== source)) {
        this.setConnection(false, found.reason ?? "Asterisk manager not configured", source);
      }
      if (key !== null && this.conn.source !== source) this.conn = { ...this.conn, source };
      return;
    }
    this.detach();
    this.clientKey = key;
    if (!settings) {
      this.setConnection(false, found.reason ?? "Asterisk manager not configured", source);
      return;
    }
    this.connect(settings, source);
  }

  private connect(settings: AmiSettings, source: AmiConnection["source"]): void {
    const client = new AmiClient(settings, this.opts.client);
    this.client = client;
    this.unsubscribe = [
      client.onEvent((e) => {
        if (this.client === client) this.onEvent(e);
      }),
      client.onState((s) => {
        if (this.client === client) this.onState(client, s);
      }),
    ];
    this.setConnection(false, `Connecting to the Asterisk manager interface at ${describeSettings(settings)}`, source);
    client.start();
  }

  /** Forgets the current client (its late events are ignored) and stops it in the background. */
  private detach(): void {
    this.generation++;
    this.queue = null;
    this.clearRetry();
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    const client = this.client;
    this.client = null;
    this.endpoints.clear();
    this.calls.clear();
    if (client) {
      const p = client.stop().catch(() => {});
      this.stopping.add(p);
      void p.finally(() => this.stopping.delete(p));
    }
  }

  private onState(client: AmiClient, s: { connected: boolean; reason: string | null }): void {
    this.generation++;
    this.clearRetry();
    if (s.connected) {
      void this.load(client, this.generation);
      return;
    }
    this.queue = null;
    this.endpoints.clear();
    this.calls.clear();
    this.setConnection(false, s.reason ?? "The manager interface closed the connection", this.conn.source);
  }

  /** Reads the lists after a login and rebuilds the state; events that arrive meanwhile are applied after. */
  private async load(client: AmiClient, generation: number): Promise<void> {
    this.queue = [];
    const lists: AmiMessage[][] = [];
    try {
      for (const [name, item] of LISTS) {
        const items = await this.readList(client, name);
        lists.push(items.filter((m) => (m.event ?? "").toLowerCase() === item));
      }
    } catch (err) {
      if (generation !== this.generation || this.stopped) return;
      this.queue = null;
      this.endpoints.clear();
      this.calls.clear();
      const message = err instanceof Error ? err.message : String(err);
      const failed = LISTS[lists.length]?.[0] ?? "a list";
      this.setConnection(false, `Could not read the PBX state (${failed}): ${sentence(message)}`, this.conn.source);
      // The connection stays up after `Response: Error`: read again later. A dropped one reconnects by itself.
      if (client.connected) this.scheduleRetry(client, generation);
      return;
    }
    if (generation !== this.generation || this.stopped) return;
    const [endpointList = [], contactList = [], registrationList = [], channelList = []] = lists;
    const now = this.deps.now();
    this.endpoints.load(endpointList, contactList, registrationList);
    this.calls.load(channelList, now);
    const queued = this.queue ?? [];
    this.queue = null;
    for (const e of queued) this.apply(e);
    this.setConnection(true, null, this.conn.source);
  }

  /** A list; AMI answers some empty lists with an error ("No endpoints found"): that is an empty list. */
  private async readList(client: AmiClient, name: string): Promise<AmiMessage[]> {
    try {
      return await client.list(name);
    } catch (err) {
      if (err instanceof AmiError && /^no .* found/i.test(err.message)) return [];
      throw err;
    }
  }

  private scheduleRetry(client: AmiClient, generation: number): void {
    this.clearRetry();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (generation !== this.generation || this.client !== client || !client.connected || this.stopped) return;
      this.generation++;
      void this.load(client, this.generation);
    }, this.opts.listRetryMs);
    (this.retryTimer as { unref?: () => void }).unref?.();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private onEvent(e: AmiMessage): void {
    if (this.stopped) return;
    for (const listener of [...this.eventListeners]) {
      try {
        listener(e);
      } catch (err) {
        console.error(`AMI event listener failed: ${(err as Error).message}`);
      }
    }
    // A reload (FreePBX's Apply Config sends `Reload` for all modules) adds and removes endpoints and
    // registrations without an event for each: the lists are read again.
    if ((e.event ?? "").toLowerCase() === "reload") {
      this.reloadSeen();
      return;
    }
    // Failed sign-ins do not depend on the lists: counted at once, connected or reading.
    if (isSecurityEvent(e)) {
      if (this.attacks.record(e, this.deps.now())) this.securityEvents.request();
      return;
    }
    // A mailbox's message waiting indication (a message left, heard, moved or deleted): its open views refetch.
    const mailbox = voicemailOf(e);
    if (mailbox !== null) {
      this.deps.events.publish({ type: "voicemail-updated", data: { mailbox } });
      return;
    }
    if (this.queue) {
      // Bounded: past the limit the lists read after login stand for the events dropped.
      if (this.queue.length < this.limits.queuedEvents) this.queue.push(e);
      return;
    }
    if (this.conn.connected) this.apply(e);
  }

  private apply(e: AmiMessage): void {
    if (isCallEvent(e)) {
      const before = this.calls.count;
      const { changed, ended } = this.calls.apply(e, this.deps.now());
      if (changed) this.callEvents.request();
      if (this.calls.count !== before) this.statusEvents.request();
      if (ended.length) this.historyEvents.request();
      return;
    }
    if (this.endpoints.isUnknownRegistry(e)) {
      void this.refreshRegistrations();
      return;
    }
    if (this.endpoints.apply(e)) this.statusEvents.request();
    const detail = this.endpoints.contactNeedsDetail(e);
    if (detail) void this.readContactDetails(detail);
  }

  /** A new contact's address and user agent, from its endpoint's details (one read per endpoint at a time). */
  private async readContactDetails(endpoint: string): Promise<void> {
    const client = this.client;
    if (!client || this.detailReads.has(endpoint)) return;
    this.detailReads.add(endpoint);
    const generation = this.generation;
    try {
      const items = await client.list("PJSIPShowEndpoint", { Endpoint: endpoint });
      if (generation !== this.generation || this.stopped) return;
      if (this.endpoints.contactDetails(items)) this.statusEvents.request();
    } catch {
      // The contact stays without an address until the next list read.
    } finally {
      this.detailReads.delete(endpoint);
    }
  }

  /**
   * Reads the lists again after a reload, once the one in progress (if any) is done: one read at a time,
   * and the reloads that come meanwhile make one more.
   */
  private reloadSeen(): void {
    const client = this.client;
    if (!client || !this.conn.connected) return; // a login reads the lists anyway
    if (this.queue) {
      this.reloadAgain = true;
      return;
    }
    this.generation++;
    const generation = this.generation;
    void this.load(client, generation).then(() => {
      if (this.reloadAgain && generation === this.generation) {
        this.reloadAgain = false;
        this.reloadSeen();
      }
    });
  }

  /**
   * A trunk registration appeared after login: read the registrations again (one read at a time, at
   * most one per `REGISTRATION_REREAD_MS`, so a flood of odd `Registry` events costs little).
   */
  private async refreshRegistrations(): Promise<void> {
    const client = this.client;
    const now = this.deps.now();
    if (!client || this.registrationRead || now - this.lastRegistrationRead < REGISTRATION_REREAD_MS) return;
    this.registrationRead = true;
    this.lastRegistrationRead = now;
    const generation = this.generation;
    try {
      const items = await this.readList(client, "PJSIPShowRegistrationsOutbound");
      if (generation !== this.generation || this.stopped) return;
      this.endpoints.loadRegistrations(
        items.filter((m) => (m.event ?? "").toLowerCase() === "outboundregistrationdetail"),
      );
      this.statusEvents.request();
    } catch {
      // The next login reads them anyway.
    } finally {
      this.registrationRead = false;
    }
  }

  /**
   * A channel hung up through the console: gone from the list at once (unless its Hangup event came
   * first), and `calls-updated` published now, by the request that made the change.
   */
  private dropChannel(channel: string): void {
    const ended = this.calls.remove(channel);
    this.callEvents.flush();
    if (ended) {
      this.statusEvents.request();
      this.historyEvents.request();
    }
  }

  private setConnection(connected: boolean, reason: string | null, source: AmiConnection["source"]): void {
    const since = connected !== this.conn.connected ? this.iso() : this.conn.since;
    const changed = connected !== this.conn.connected || reason !== this.conn.reason || source !== this.conn.source;
    this.conn = { connected, reason, source, since };
    if (!changed || this.stopped || this.quiet) return;
    this.statusEvents.request();
    this.callEvents.request();
    this.securityEvents.request();
  }
}
