export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 5 * 60 * 1000;

/**
 * Failed sign-in throttle, per username (case-insensitive), in memory: the
 * console is one process, and a restart forgetting the counters is acceptable.
 * After MAX_FAILURES failures within FAILURE_WINDOW_MS further attempts are
 * refused until the oldest failure leaves the window.
 */
export class LoginThrottle {
  private failures = new Map<string, number[]>();

  constructor(private readonly now: () => number) {}

  private recent(username: string): number[] {
    const key = username.toLowerCase();
    const cutoff = this.now() - FAILURE_WINDOW_MS;
    const list = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** Seconds to wait before another attempt is allowed, or 0. */
  retryAfter(username: string): number {
    const list = this.recent(username);
    if (list.length < MAX_FAILURES) return 0;
    const oldest = list[list.length - MAX_FAILURES] as number;
    return Math.max(1, Math.ceil((oldest + FAILURE_WINDOW_MS - this.now()) / 1000));
  }

  fail(username: string): void {
    const list = this.recent(username);
    list.push(this.now());
    this.failures.set(username.toLowerCase(), list);
  }

  succeed(username: string): void {
    this.failures.delete(username.toLowerCase());
  }
}
