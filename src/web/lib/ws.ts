/**
 * The sync socket: /ws?type=sync pushes `{type, data}` events and the console
 * refetches the queries each event makes stale (EVENT_QUERY_KEYS, lib/query-keys.ts).
 * No DOM or React here: everything the class touches (WebSocket, timers, query
 * invalidation, logging) is injected.
 */
import { isWsEvent, SESSION_ENDED_CLOSE_CODE } from "../../shared/ws-events";
import { EVENT_QUERY_KEYS } from "./query-keys";

export { EVENT_QUERY_KEYS };

export const MAX_RECONNECT_ATTEMPTS = 5;
export const MAX_RECONNECT_DELAY_MS = 30_000;

/** Delay before reconnect attempt `attempt` (0-based): 1 s, 2 s, 4 s … capped at 30 s. */
export function reconnectDelay(attempt: number): number {
  return Math.min(1000 * 2 ** attempt, MAX_RECONNECT_DELAY_MS);
}

/** The part of the browser WebSocket the client uses. */
export interface WebSocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  close(): void;
}

export type WebSocketCtor = new (url: string) => WebSocketLike;

export interface SyncSocketOptions {
  url: string;
  invalidate: (queryKey: readonly string[]) => void;
  WebSocket?: WebSocketCtor;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
  log?: (...args: unknown[]) => void;
  /** The server closed the socket because the session ended: no reconnect; show the sign-in page. */
  onSessionEnded?: () => void;
  /**
   * The first open, with every key an event can make stale: answers fetched before it (a screen's loader
   * starts its queries beside the session check, ADR 0030) may have missed an event.
   */
  onFirstOpen?: (keys: (readonly string[])[]) => void;
}

/** `ws://host/ws?type=sync`, or `wss://` when the page is served over https. */
export function syncSocketUrl(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/ws?type=sync`;
}

/** Every key some event makes stale, each once. */
function allEventKeys(): (readonly string[])[] {
  const keys = new Map<string, readonly string[]>();
  for (const list of Object.values(EVENT_QUERY_KEYS)) for (const key of list) keys.set(JSON.stringify(key), key);
  return [...keys.values()];
}

export class SyncSocket {
  private socket: WebSocketLike | null = null;
  private timer: unknown = null;
  private attempts = 0;
  private stopped = true;
  /** A socket has been open before: the next open is a reconnect, after which events may have been missed. */
  private wasOpen = false;
  private readonly WS: WebSocketCtor;
  private readonly schedule: (fn: () => void, ms: number) => unknown;
  private readonly cancel: (handle: unknown) => void;
  private readonly log: (...args: unknown[]) => void;

  constructor(private readonly opts: SyncSocketOptions) {
    this.WS = opts.WebSocket ?? (globalThis.WebSocket as unknown as WebSocketCtor);
    this.schedule = opts.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
    this.cancel = opts.clearTimeout ?? ((h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>));
    this.log = opts.log ?? ((...args) => console.log(...args));
  }

  /** Reconnect attempts made since the last successful open. */
  get reconnectAttempts(): number {
    return this.attempts;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  /** Closes for good (sign-out, unmount): no reconnect follows. */
  close(): void {
    this.stopped = true;
    if (this.timer !== null) this.cancel(this.timer);
    this.timer = null;
    const ws = this.socket;
    this.socket = null;
    ws?.close();
  }

  private connect(): void {
    const ws = new this.WS(this.opts.url);
    this.socket = ws;
    ws.onopen = () => {
      this.attempts = 0;
      // Events sent while the socket was down are lost, and views such as the live PBX never poll:
      // refetch everything an event can make stale, once.
      if (this.wasOpen) for (const key of allEventKeys()) this.opts.invalidate(key);
      else this.opts.onFirstOpen?.(allEventKeys());
      this.wasOpen = true;
    };
    ws.onmessage = (ev) => this.handleMessage(ev.data);
    ws.onclose = (ev) => {
      if (this.socket !== ws) return;
      this.socket = null;
      if ((ev as { code?: number } | null)?.code === SESSION_ENDED_CLOSE_CODE) {
        this.stopped = true;
        this.opts.onSessionEnded?.();
        return;
      }
      if (!this.stopped) this.reconnect();
    };
  }

  private reconnect(): void {
    if (this.attempts >= MAX_RECONNECT_ATTEMPTS) {
      this.log("Sync socket: gave up reconnecting; refresh the page to receive live updates.");
      return;
    }
    const delay = reconnectDelay(this.attempts);
    this.attempts += 1;
    this.timer = this.schedule(() => {
      this.timer = null;
      if (!this.stopped) this.connect();
    }, delay);
  }

  handleMessage(data: unknown): void {
    let value: unknown;
    try {
      value = JSON.parse(String(data));
    } catch {
      this.log("Sync socket: ignored a message that is not JSON", data);
      return;
    }
    // Checked without zod, so that the sync socket stays in the first chunk without it (ADR 0030).
    if (!isWsEvent(value)) {
      this.log("Sync socket: ignored an unknown message", value);
      return;
    }
    if (value.type === "sync-status") this.log("Sync status", value.data);
    for (const key of EVENT_QUERY_KEYS[value.type]) this.opts.invalidate(key);
  }
}

/**
 * Coalesces invalidations: a burst of events (an import, a script creating
 * thousands of extensions) refetches each query once per `delayMs`, not once
 * per event.
 */
export function coalesceInvalidations(
  invalidate: (queryKey: readonly string[]) => void,
  delayMs = 200,
  timers: { set: (fn: () => void, ms: number) => unknown } = { set: (fn, ms) => setTimeout(fn, ms) },
): (queryKey: readonly string[]) => void {
  const pending = new Map<string, readonly string[]>();
  let scheduled = false;
  return (queryKey) => {
    pending.set(JSON.stringify(queryKey), queryKey);
    if (scheduled) return;
    scheduled = true;
    timers.set(() => {
      scheduled = false;
      const keys = [...pending.values()];
      pending.clear();
      for (const key of keys) invalidate(key);
    }, delayMs);
  };
}
