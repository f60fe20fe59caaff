/**
 * Asterisk's manager interface (AMI): one TCP connection, logged in, kept alive
 * with `Ping`, reconnected with exponential back-off and jitter until stopped.
 * Each action carries its own `ActionID` (`pbxc-<n>`); a list action collects
 * its events up to the `…Complete` one. Every action times out; everything
 * pending is rejected when the connection drops or the client stops. Every
 * buffer is bounded (line 8 KiB, 500 fields a message, 50,000 items a list) and
 * a field with a line break is refused before anything is sent (header
 * injection). Error texts never carry the secret. ADR 0027.
 */
import type { Socket } from "node:net";
import { redact } from "../redact";
import { deadlineMessage, ServiceError } from "./http";

const SERVICE = "Asterisk manager (AMI)";

/** A line longer than this is dropped up to the next line break. */
export const AMI_MAX_LINE = 8 * 1024;
/** Fields kept of one message; the rest are cut. */
export const AMI_MAX_FIELDS = 500;
/** Items a list action may collect before it fails. */
export const AMI_MAX_LIST_ITEMS = 50_000;
/** List ActionIDs given up (timed out, too long) whose late events are still swallowed. */
const MAX_ABANDONED = 64;

export interface AmiSettings {
  host: string;
  port: number;
  username: string;
  secret: string;
}

/** One AMI message: keys lower-cased ("event", "response", "actionid", "objectname"…); a repeated key's values joined with "\n". */
export type AmiMessage = Record<string, string>;

/** `Response: Error` from the PBX (message = its `Message:`). */
export class AmiError extends ServiceError {}

/** An action the PBX did not answer within its timeout. */
export class AmiTimeout extends ServiceError {}

export interface AmiClientOptions {
  /** TCP connect, banner and login together. Default 5,000. */
  connectTimeoutMs?: number;
  /** Per action (a list: until its …Complete). Default 10,000. */
  actionTimeoutMs?: number;
  /** Default 20,000; a Ping unanswered within actionTimeoutMs drops the socket. 0 turns the keep-alive off. */
  pingIntervalMs?: number;
  /** Default 1,000 .. 30,000, doubling, with jitter (each wait is up to a quarter shorter). */
  backoff?: { minMs: number; maxMs: number };
  /** Login `Events:`; default "on". */
  events?: "on" | "off";
  /** Added: reconnect after a failure or a drop (default true). `withAmi` turns it off. */
  reconnect?: boolean;
  /**
   * The wait after a refused login (default 300,000): a wrong secret is retried rarely, so Asterisk's
   * security log and fail2ban do not see a login failure every 30 s. Changed settings reconnect at once
   * (the live monitor makes a new client).
   */
  authRetryMs?: number;
}

export interface AmiState {
  connected: boolean;
  reason: string | null;
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);
const hasLineBreak = (s: string) => /[\r\n]/.test(s);

/**
 * The AMI framing: `Key: Value` lines ended by CRLF (a bare LF is accepted too),
 * a blank line ends a message. The first line of a connection is the banner.
 * Lines without a colon are ignored; a line over `AMI_MAX_LINE` is dropped up to
 * the next line break; fields past `AMI_MAX_FIELDS` are cut. Never buffers more
 * than one line plus one message.
 */
export class AmiParser {
  private partial = "";
  private discarding = false;
  private fields: AmiMessage = {};
  private count = 0;
  private bannerSeen: boolean;

  constructor(
    private readonly onMessage: (message: AmiMessage) => void,
    private readonly onBanner?: (line: string) => void,
  ) {
    this.bannerSeen = !onBanner;
  }

  /** Characters held for an unfinished line (at most `AMI_MAX_LINE`). */
  get bufferedChars(): number {
    return this.partial.length;
  }

  push(chunk: string): void {
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf("\n", start);
      if (nl === -1) {
        const rest = chunk.slice(start);
        if (!this.discarding) {
          if (this.partial.length + rest.length > AMI_MAX_LINE + 1) {
            this.partial = "";
            this.discarding = true;
          } else {
            this.partial += rest;
          }
        }
        return;
      }
      const piece = chunk.slice(start, nl);
      start = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      let line = this.partial + piece;
      this.partial = "";
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line.length > AMI_MAX_LINE) continue;
      this.line(line);
    }
  }

  private line(line: string): void {
    if (!this.bannerSeen) {
      this.bannerSeen = true;
      this.onBanner?.(line);
      return;
    }
    if (line === "") {
      if (this.count > 0) {
        const message = this.fields;
        this.fields = {};
        this.count = 0;
        this.onMessage(message);
      }
      return;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) return;
    const key = line.slice(0, colon).trim().toLowerCase();
    if (key === "" || key === "__proto__" || this.count >= AMI_MAX_FIELDS) return;
    const value = line
      .slice(colon + 1)
      .replace(/^ /, "")
      .trimEnd();
    this.fields[key] = Object.hasOwn(this.fields, key) ? `${this.fields[key]}\n${value}` : value;
    this.count++;
  }
}

/** The wire text of one action; `ServiceError` if a name or value holds a line break. */
export function encodeAction(name: string, actionId: string, fields: Record<string, string> = {}): string {
  if (!/^[A-Za-z0-9_]{1,80}$/.test(name)) {
    throw new ServiceError(SERVICE, `"${name.replace(/[\r\n]/g, " ").slice(0, 80)}" is not an AMI action name.`);
  }
  let text = `Action: ${name}\r\nActionID: ${actionId}\r\n`;
  for (const [key, value] of Object.entries(fields)) {
    if (hasLineBreak(key) || hasLineBreak(String(value))) {
      throw new ServiceError(
        SERVICE,
        `The ${name} field ${JSON.stringify(key.replace(/[\r\n]/g, " "))} contains a line break; it was not sent.`,
      );
    }
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(key)) {
      throw new ServiceError(SERVICE, `"${key}" is not an AMI field name; ${name} was not sent.`);
    }
    if (key.toLowerCase() === "actionid" || key.toLowerCase() === "action") continue;
    text += `${key}: ${value}\r\n`;
  }
  return `${text}\r\n`;
}

interface Pending {
  name: string;
  resolve: (value: AmiMessage | AmiMessage[]) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Collected events of a list action; undefined for a plain action. */
  items?: AmiMessage[];
}

type Phase = "idle" | "connecting" | "login" | "ready" | "closing";

export class AmiClient {
  private readonly opts: Required<Omit<AmiClientOptions, "backoff">> & { backoff: { minMs: number; maxMs: number } };
  private readonly where: string;
  private socket: Socket | null = null;
  private phase: Phase = "idle";
  private started = false;
  private stopped = false;
  private seq = 0;
  private attempt = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly abandoned = new Set<string>();
  private readonly eventListeners = new Set<(event: AmiMessage) => void>();
  private readonly stateListeners = new Set<(state: AmiState) => void>();
  private connectTimer: ReturnType<typeof setTimeout> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setTimeout> | null = null;
  /** Why the current socket is failing (set by the first cause seen, reported when it closes). */
  private failure: string | null = null;
  private lastState: AmiState = { connected: false, reason: null };
  /** The last login was refused: the next attempt waits `authRetryMs`. */
  private authFailed = false;
  private closed: Promise<void> = Promise.resolve();

  constructor(
    private readonly settings: AmiSettings,
    opts: AmiClientOptions = {},
  ) {
    this.opts = {
      connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
      actionTimeoutMs: opts.actionTimeoutMs ?? 10_000,
      pingIntervalMs: opts.pingIntervalMs ?? 20_000,
      backoff: opts.backoff ?? { minMs: 1_000, maxMs: 30_000 },
      events: opts.events ?? "on",
      reconnect: opts.reconnect ?? true,
      authRetryMs: opts.authRetryMs ?? 300_000,
    };
    this.where = `${settings.host}:${settings.port}`;
  }

  /** Logged in. */
  get connected(): boolean {
    return this.phase === "ready";
  }

  /** The last state reported to `onState` (the reason of the last failure while not connected). */
  get state(): AmiState {
    return { ...this.lastState };
  }

  /** Connects, logs in, and keeps reconnecting with back-off until stop(). Never throws; failures go to onState. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.connect();
  }

  /** Logoff (best effort, bounded), closes the socket, cancels every timer and pending action (rejected). */
  async stop(): Promise<void> {
    if (this.stopped) return this.closed;
    this.stopped = true;
    this.clearTimer("reconnectTimer");
    this.clearTimer("pingTimer");
    const socket = this.socket;
    if (socket && this.phase === "ready") {
      this.phase = "closing";
      // Logoff: Asterisk answers Goodbye and closes; wait at most a second for it.
      const id = this.nextId();
      const bye = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(1_000, this.opts.actionTimeoutMs));
        this.pending.set(id, {
          name: "Logoff",
          timer,
          resolve: () => resolve(),
          reject: () => resolve(),
        });
      });
      this.write(encodeAction("Logoff", id));
      await bye;
      const p = this.pending.get(id);
      if (p) {
        clearTimeout(p.timer);
        this.pending.delete(id);
      }
    }
    this.failure ??= "The connection to the manager interface was stopped";
    this.rejectAll(new ServiceError(SERVICE, "The connection to the manager interface was stopped."));
    if (this.socket) {
      this.socket.destroy();
      // The close handler clears the rest; wait for it, bounded.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.closed, new Promise((r) => (timer = setTimeout(r, 1_000)))]);
      clearTimeout(timer);
    }
    this.clearTimer("connectTimer");
    this.clearTimer("reconnectTimer");
    this.clearTimer("pingTimer");
  }

  /** Every asynchronous event (messages with `event` that are not part of a pending list). Returns unsubscribe. */
  onEvent(listener: (event: AmiMessage) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /**
   * Login succeeded (connected true, reason null) or the connection was lost/refused/login failed
   * (connected false, reason a sentence without the secret). Consecutive identical states are reported once.
   */
  onState(listener: (state: AmiState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** One action; resolves with the response; AmiError on `Response: Error`; ServiceError when not connected / timeout / dropped. */
  action(name: string, fields?: Record<string, string>, timeoutMs?: number): Promise<AmiMessage> {
    return this.send(name, fields, timeoutMs, false) as Promise<AmiMessage>;
  }

  /** A list action: resolves with the events between `EventList: start` and the `…Complete` event (bounded). Rejects if the connection drops mid-list. */
  list(name: string, fields?: Record<string, string>, timeoutMs?: number): Promise<AmiMessage[]> {
    return this.send(name, fields, timeoutMs, true) as Promise<AmiMessage[]>;
  }

  // -------------------------------------------------------------------------------------------------

  private send(
    name: string,
    fields: Record<string, string> | undefined,
    timeoutMs: number | undefined,
    isList: boolean,
  ): Promise<AmiMessage | AmiMessage[]> {
    const id = this.nextId();
    let text: string;
    try {
      text = encodeAction(name, id, fields);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.phase !== "ready") {
      const why = this.lastState.reason ? ` (${this.lastState.reason})` : "";
      return Promise.reject(
        new ServiceError(SERVICE, `Not connected to the Asterisk manager interface at ${this.where}${why}.`),
      );
    }
    return this.enqueue(id, name, text, timeoutMs ?? this.opts.actionTimeoutMs, isList);
  }

  private enqueue(
    id: string,
    name: string,
    text: string,
    timeoutMs: number,
    isList: boolean,
  ): Promise<AmiMessage | AmiMessage[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        if (isList) this.abandon(id);
        reject(new AmiTimeout(SERVICE, `The Asterisk manager did not answer ${name} within ${seconds(timeoutMs)}.`));
      }, timeoutMs);
      this.pending.set(id, { name, resolve, reject, timer, items: isList ? [] : undefined });
      this.write(text);
    });
  }

  private nextId(): string {
    this.seq += 1;
    return `pbxc-${this.seq}`;
  }

  private write(text: string): void {
    const s = this.socket;
    if (s && !s.destroyed && s.writable) s.write(text);
  }

  private connect(): void {
    if (this.stopped) return;
    this.phase = "connecting";
    this.failure = null;
    let resolveClosed: () => void = () => {};
    this.closed = new Promise<void>((r) => {
      resolveClosed = r;
    });
    // node:net at the first connection, not at start (ADR 0034; src/server/lazy-node.ts).
    const net = require("node:net") as typeof import("node:net");
    const socket = net.createConnection({ host: this.settings.host, port: this.settings.port });
    this.socket = socket;
    socket.setEncoding("utf8");
    socket.setNoDelay(true);
    const parser = new AmiParser(
      (m) => this.onMessage(m),
      (banner) => this.onBanner(banner),
    );
    this.connectTimer = setTimeout(() => {
      this.fail(
        `No answer from the Asterisk manager interface at ${this.where} within ${seconds(this.opts.connectTimeoutMs)}`,
      );
    }, this.opts.connectTimeoutMs);
    socket.on("data", (chunk: string) => {
      if (this.socket !== socket) return;
      try {
        parser.push(chunk);
      } catch (err) {
        this.fail(`The manager interface sent something the console could not read: ${(err as Error).message}`);
      }
    });
    socket.on("error", (err: Error & { code?: string }) => {
      if (this.socket === socket) this.failure ??= this.socketMessage(err);
    });
    socket.on("close", () => {
      resolveClosed();
      if (this.socket !== socket) return;
      this.onClosed();
    });
  }

  private onBanner(line: string): void {
    if (!/^Asterisk Call Manager\//i.test(line)) {
      const shown = line.replace(/[^\x20-\x7e]/g, "?").slice(0, 60);
      this.fail(`${this.where} is not an Asterisk manager interface (it greeted with "${shown}")`);
      return;
    }
    this.phase = "login";
    const id = this.nextId();
    const fields = { Username: this.settings.username, Secret: this.settings.secret, Events: this.opts.events };
    let text: string;
    try {
      text = encodeAction("Login", id, fields);
    } catch {
      this.fail(`The manager username or secret for ${this.where} contains a line break`);
      return;
    }
    // Settled synchronously from the parser, before a close that follows the answer is handled.
    // (The connect timer bounds the login.)
    this.pending.set(id, {
      name: "Login",
      timer: undefined,
      resolve: () => this.onLoggedIn(),
      reject: (err) => {
        if (err instanceof AmiError) {
          this.authFailed = true;
          this.fail(`Authentication failed for user ${this.settings.username}`);
        }
      },
    });
    this.write(text);
  }

  private onLoggedIn(): void {
    if (this.phase !== "login") return;
    this.clearTimer("connectTimer");
    this.phase = "ready";
    this.attempt = 0;
    this.emitState({ connected: true, reason: null });
    this.schedulePing();
  }

  private schedulePing(): void {
    if (this.opts.pingIntervalMs <= 0 || this.stopped) return;
    this.clearTimer("pingTimer");
    this.pingTimer = setTimeout(() => {
      this.pingTimer = null;
      if (this.phase !== "ready") return;
      this.action("Ping").then(
        () => this.schedulePing(),
        (err: Error) => {
          if (err instanceof AmiError) return this.schedulePing();
          if (this.phase === "ready" && err instanceof AmiTimeout) {
            this.fail(
              `The Asterisk manager interface stopped answering (no reply to Ping within ${seconds(this.opts.actionTimeoutMs)})`,
            );
          }
        },
      );
    }, this.opts.pingIntervalMs);
    unref(this.pingTimer);
  }

  private onMessage(m: AmiMessage): void {
    const id = m.actionid;
    const p = id !== undefined ? this.pending.get(id) : undefined;
    // An answer to an action has `Response:` and no `Event:`. Some events carry a `Response` field of their
    // own (ChallengeResponseFailed: the digest the phone sent), and they are events.
    if (m.response !== undefined && m.event === undefined) {
      if (!p || id === undefined) return;
      const response = m.response.toLowerCase();
      if (response === "error") {
        this.settle(id, p);
        const text = m.message ? redact(m.message, [this.settings.secret]) : `${p.name} failed`;
        p.reject(new AmiError(SERVICE, text.trim().replace(/\.?$/, ".")));
        return;
      }
      if (p.items) {
        // A list: the events follow up to the …Complete event, after an ack that says `EventList: start`. An
        // ack without it starts no list (app_voicemail's answer for a mailbox it does not have: "There is no
        // voicemail user of the given info."): the list is empty.
        if (m.eventlist?.toLowerCase() !== "start") {
          this.settle(id, p);
          p.resolve([]);
        }
        return;
      }
      this.settle(id, p);
      p.resolve(m);
      return;
    }
    if (m.event === undefined) return;
    if (p?.items && id !== undefined) {
      if (m.eventlist?.toLowerCase() === "complete" || /Complete$/i.test(m.event)) {
        this.settle(id, p);
        p.resolve(p.items);
        return;
      }
      if (p.items.length >= AMI_MAX_LIST_ITEMS) {
        this.settle(id, p);
        this.abandon(id);
        p.reject(
          new ServiceError(SERVICE, `${p.name} returned more than ${AMI_MAX_LIST_ITEMS.toLocaleString("en")} items.`),
        );
        return;
      }
      p.items.push(m);
      return;
    }
    if (id !== undefined && this.abandoned.has(id)) {
      if (m.eventlist?.toLowerCase() === "complete" || /Complete$/i.test(m.event)) this.abandoned.delete(id);
      return;
    }
    for (const listener of [...this.eventListeners]) {
      try {
        listener(m);
      } catch (err) {
        console.error(`AMI event listener failed: ${(err as Error).message}`);
      }
    }
  }

  private settle(id: string, p: Pending): void {
    clearTimeout(p.timer);
    this.pending.delete(id);
  }

  private abandon(id: string): void {
    this.abandoned.add(id);
    if (this.abandoned.size > MAX_ABANDONED) {
      const oldest = this.abandoned.values().next().value;
      if (oldest !== undefined) this.abandoned.delete(oldest);
    }
  }

  /** Ends the current socket with a reason (reported when it has closed). */
  private fail(reason: string): void {
    this.failure ??= reason;
    this.socket?.destroy();
  }

  private onClosed(): void {
    const wasReady = this.phase === "ready";
    this.clearTimer("connectTimer");
    this.clearTimer("pingTimer");
    const reason =
      this.failure ??
      (wasReady || this.phase === "login"
        ? "The manager interface closed the connection"
        : `The Asterisk manager interface at ${this.where} closed the connection before it greeted`);
    this.socket = null;
    this.phase = "idle";
    this.abandoned.clear();
    this.rejectAll(new ServiceError(SERVICE, `${reason}.`));
    if (this.stopped) {
      this.emitState({ connected: false, reason: "The connection to the manager interface was stopped" });
      return;
    }
    this.emitState({ connected: false, reason });
    if (this.opts.reconnect) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const { minMs, maxMs } = this.opts.backoff;
    const base = Math.min(maxMs, minMs * 2 ** Math.min(this.attempt, 30));
    const jittered = Math.max(0, Math.round(base - Math.random() * base * 0.25));
    const delay = this.authFailed ? Math.max(jittered, this.opts.authRetryMs) : jittered;
    this.authFailed = false;
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
    unref(this.reconnectTimer);
  }

  private rejectAll(err: ServiceError): void {
    const all = [...this.pending.entries()];
    this.pending.clear();
    for (const [, p] of all) {
      clearTimeout(p.timer);
      p.reject(err);
    }
  }

  private emitState(state: AmiState): void {
    if (state.connected === this.lastState.connected && state.reason === this.lastState.reason) return;
    this.lastState = state;
    for (const listener of [...this.stateListeners]) {
      try {
        listener({ ...state });
      } catch (err) {
        console.error(`AMI state listener failed: ${(err as Error).message}`);
      }
    }
  }

  private clearTimer(name: "connectTimer" | "reconnectTimer" | "pingTimer"): void {
    const t = this[name];
    if (t) clearTimeout(t);
    this[name] = null;
  }

  private socketMessage(err: Error & { code?: string }): string {
    switch (err.code) {
      case "ECONNREFUSED":
        return `Connection refused by ${this.where}`;
      case "ENOTFOUND":
      case "EAI_AGAIN":
        return `Cannot reach the Asterisk manager interface: host ${this.settings.host} not found`;
      case "ECONNRESET":
      case "EPIPE":
        return "The manager interface reset the connection";
      case "EHOSTUNREACH":
      case "ENETUNREACH":
        return `Cannot reach ${this.where}: no route to the host`;
      case "ETIMEDOUT":
        return `No answer from the Asterisk manager interface at ${this.where}`;
      default:
        return redact(`Cannot reach the Asterisk manager interface at ${this.where}: ${err.message}`, [
          this.settings.secret,
        ]);
    }
  }
}

const unref = (t: ReturnType<typeof setTimeout> | null) => (t as { unref?: () => void } | null)?.unref?.();

/**
 * Connect, log in (events off, no reconnect), run `fn`, log off, close: for Test Connection.
 * Bounded by `signal` (a `deadline()`): when it fires, the client is stopped and the deadline's message thrown.
 */
export async function withAmi<T>(
  settings: AmiSettings,
  fn: (client: AmiClient) => Promise<T>,
  signal?: AbortSignal,
  opts: AmiClientOptions = {},
): Promise<T> {
  const aborted = () =>
    new ServiceError(SERVICE, deadlineMessage(signal) ?? "The manager interface test was cancelled.");
  if (signal?.aborted) throw aborted();
  const client = new AmiClient(settings, { ...opts, events: "off", reconnect: false, pingIntervalMs: 0 });
  let onAbort: (() => void) | undefined;
  const abort = new Promise<never>((_, reject) => {
    onAbort = () => reject(aborted());
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  abort.catch(() => {});
  try {
    const ready = new Promise<void>((resolve, reject) => {
      const off = client.onState((s) => {
        off();
        if (s.connected) resolve();
        else reject(new ServiceError(SERVICE, `${s.reason ?? "The manager interface closed the connection"}.`));
      });
    });
    client.start();
    await Promise.race([ready, abort]);
    return await Promise.race([fn(client), abort]);
  } finally {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    await client.stop();
  }
}
