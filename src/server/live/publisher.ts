/**
 * Coalesced publishing of the live PBX's events: a burst of AMI events becomes at most one WebSocket
 * event per interval, sent within that interval of the first change. ADR 0027.
 */
import type { WsEventType } from "../../shared/ws-events";
import type { Events } from "../core/deps";

const unref = (t: ReturnType<typeof setTimeout>) => (t as { unref?: () => void }).unref?.();

/** At most one `type` event per `intervalMs`; `request()` schedules one, `flush()` sends one now. */
export class Coalesced {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private last = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(
    private readonly events: Events,
    private readonly type: WsEventType,
    private readonly intervalMs: number,
  ) {}

  request(): void {
    if (this.closed || this.timer) return;
    const wait = Math.max(0, this.last + this.intervalMs - performance.now());
    this.timer = setTimeout(() => this.send(), wait);
    unref(this.timer);
  }

  /** Publishes now (e.g. in the request that made the change), replacing a pending one. */
  flush(): void {
    if (this.closed) return;
    this.send();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private send(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.last = performance.now();
    this.events.publish({ type: this.type });
  }
}

/**
 * `call-history-updated`: `delayMs` after a call ended (Asterisk writes its record when the call ends).
 * Calls ending while one is pending share it; a call that ends later than that gets another, so every
 * ended call is followed by an event at least `delayMs` later.
 */
export class Delayed {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private due = 0;
  private closed = false;

  constructor(
    private readonly events: Events,
    private readonly type: WsEventType,
    private readonly delayMs: number,
  ) {}

  request(): void {
    if (this.closed) return;
    this.due = performance.now() + this.delayMs;
    if (!this.timer) this.arm(this.delayMs);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(wait: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.events.publish({ type: this.type });
      const left = this.due - performance.now();
      if (left > 0 && !this.closed) this.arm(left);
    }, wait);
    unref(this.timer);
  }
}
