/**
 * The sign-in throttle (docs/decisions/0016): atomic, layered, back-off rather than a lock.
 *
 * - Atomic: `begin()` checks every layer and, when none is blocking, records the attempt as a failure
 *   on every layer before the caller awaits the password check. An attempt in flight therefore counts
 *   as a failure until it succeeds (`succeed()` gives the slot back), so 100 parallel guesses cannot
 *   all be evaluated. Everything in `begin()` is synchronous SQLite work: no other request runs between
 *   the check and the record.
 * - The pause counts from the answer: a failure happens when the wrong password is known (`finish()`),
 *   and a key at its threshold with an attempt still in flight is paused however long the check takes.
 *   Counted from the request instead, a check slower than the first delay (a loaded VPS, argon2 queued
 *   behind a flood) let a burst's 6th guess through while the first five were still being checked.
 * - Layered: per account at one client address (strong), per client address across accounts (catches
 *   username spraying), and per account across all addresses (looser, and with a short cap, so a burst
 *   against `admin` from one address does not keep the real administrator out from another).
 * - Back-off: once a layer has `threshold` failures, the next attempt must wait `base · 2^(failures −
 *   threshold)`, capped. A success clears the account's layers; a failure is forgotten a day after
 *   the last one.
 * - Persisted in SQLite (`sign_in_throttle`), so `pbx-console unlock` clears it while the console runs.
 */
import { eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { signInThrottle } from "../../db/schema";

export interface ThrottleLayer {
  /** Failures before the first delay. */
  threshold: number;
  /** The first delay; each further failure doubles it. */
  baseMs: number;
  /** The longest delay. */
  capMs: number;
}

export const LAYERS = {
  /** One account from one address: a guessing burst is slowed here first. */
  pair: { threshold: 5, baseMs: 1000, capMs: 15 * 60 * 1000 },
  /** One address, any account: username spraying. */
  address: { threshold: 20, baseMs: 1000, capMs: 15 * 60 * 1000 },
  /** One account, any address: a distributed attack; capped at a minute so its owner gets in. */
  account: { threshold: 20, baseMs: 1000, capMs: 60 * 1000 },
} as const satisfies Record<string, ThrottleLayer>;

export type LayerName = keyof typeof LAYERS;

/**
 * An attempt not finished after this long no longer pauses its keys (a check never takes this long; a
 * leak, were there one, must not lock an account).
 */
export const IN_FLIGHT_MAX_MS = 60 * 1000;

/** A key's failures are forgotten this long after its last one. */
export const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;

/** The delay a key with `failures` failures imposes after its last failure. */
export function backoffMs(layer: ThrottleLayer, failures: number): number {
  if (failures < layer.threshold) return 0;
  const exponent = Math.min(failures - layer.threshold, 40);
  return Math.min(layer.baseMs * 2 ** exponent, layer.capMs);
}

/**
 * The throttle's notion of "one client address": an IPv4 address as is (IPv4-mapped IPv6 unwrapped),
 * an IPv6 address by its /64 (one subscriber usually holds a whole /64), "unknown" without one.
 */
export function addressKey(ip: string | null | undefined): string {
  if (!ip) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1] as string;
  if (!ip.includes(":")) return ip;
  const [head = "", tail = ""] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = ip.includes("::") && tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(":")}::/64`;
}

const keyOf = (layer: LayerName, account: string | null, address: string | null) =>
  JSON.stringify([layer, account, address]);

function parseKey(key: string): { layer: LayerName; account: string | null; address: string | null } | null {
  try {
    const [layer, account, address] = JSON.parse(key) as [LayerName, string | null, string | null];
    return layer in LAYERS ? { layer, account, address } : null;
  } catch {
    return null;
  }
}

/** The keys an attempt counts against, strongest layer first. */
function keysFor(username: string, ip: string | null | undefined): Array<{ layer: LayerName; key: string }> {
  const account = username.trim().toLowerCase();
  const address = addressKey(ip);
  return [
    { layer: "pair", key: keyOf("pair", account, address) },
    { layer: "address", key: keyOf("address", null, address) },
    { layer: "account", key: keyOf("account", account, null) },
  ];
}

/** A reserved attempt: give it to `succeed()` when the password was right, and always to `finish()`. */
export interface AttemptTicket {
  keys: Array<{ layer: LayerName; key: string }>;
  startedAt: number;
  settled: boolean;
}

export type Attempt = { ok: true; ticket: AttemptTicket } | { ok: false; retryAfterSeconds: number; layer: LayerName };

export class LoginThrottle {
  private lastSweep = 0;
  /** Attempts reserved and not finished, per key (this process's own; they end within seconds). */
  private readonly inFlight = new Map<string, Set<AttemptTicket>>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /** Failures still remembered for a key at `now` (0 once forgotten). */
  private read(key: string, now: number): { failures: number; lastFailureAt: number } {
    const row = this.db.select().from(signInThrottle).where(eq(signInThrottle.key, key)).get();
    if (!row || now - row.lastFailureAt.getTime() >= FORGET_AFTER_MS) return { failures: 0, lastFailureAt: 0 };
    return { failures: row.failures, lastFailureAt: row.lastFailureAt.getTime() };
  }

  private write(key: string, failures: number, at: number): void {
    if (failures <= 0) {
      this.db.delete(signInThrottle).where(eq(signInThrottle.key, key)).run();
      return;
    }
    this.db
      .insert(signInThrottle)
      .values({ key, failures, lastFailureAt: new Date(at) })
      .onConflictDoUpdate({ target: signInThrottle.key, set: { failures, lastFailureAt: new Date(at) } })
      .run();
  }

  /**
   * Checks every layer for `username` from `ip`; refuses with the longest wait, or reserves the
   * attempt (counted as a failure on every layer until `succeed()`). Synchronous: call it before
   * any await.
   */
  begin(username: string, ip: string | null | undefined): Attempt {
    const now = this.now();
    this.maybeSweep(now);
    const keys = keysFor(username, ip);
    return this.db.transaction(() => {
      const { wait, blockedBy, states } = this.pauseOn(keys, now);
      if (wait > 0) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)), layer: blockedBy };
      keys.forEach(({ key }, i) => {
        this.write(key, (states[i]?.failures ?? 0) + 1, now);
      });
      const ticket: AttemptTicket = { keys, startedAt: now, settled: false };
      for (const { key } of keys) {
        const set = this.inFlight.get(key) ?? new Set();
        this.inFlight.set(key, set.add(ticket));
      }
      return { ok: true, ticket };
    });
  }

  /** The longest pause these keys ask for at `now` (0: none), the layer asking it, and each key's state. */
  private pauseOn(keys: Array<{ layer: LayerName; key: string }>, now: number) {
    let wait = 0;
    let blockedBy: LayerName = "pair";
    const states = keys.map(({ layer, key }) => {
      const state = this.read(key, now);
      const pause = backoffMs(LAYERS[layer], state.failures);
      // A failure still being checked has not happened yet: its pause starts when it does.
      const until = pause > 0 && this.checking(key, now) ? now + pause : state.lastFailureAt + pause;
      if (until - now > wait) {
        wait = until - now;
        blockedBy = layer;
      }
      return state;
    });
    return { wait, blockedBy, states };
  }

  /**
   * For a check that answers without awaiting (an API token's lookup), so nothing can run between the
   * check and the record and no attempt needs reserving: the seconds an attempt by `username` from `ip`
   * must wait on `layers` (0: it may be checked). Reads only; a check that then fails calls `fail()`.
   */
  retryAfter(username: string, ip: string | null | undefined, layers: readonly LayerName[]): number {
    const now = this.now();
    this.maybeSweep(now);
    const keys = keysFor(username, ip).filter(({ layer }) => layers.includes(layer));
    const { wait } = this.pauseOn(keys, now);
    return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : 0;
  }

  /** Records one failure by `username` from `ip` on `layers`, now (see `retryAfter`). */
  fail(username: string, ip: string | null | undefined, layers: readonly LayerName[]): void {
    const now = this.now();
    const keys = keysFor(username, ip).filter(({ layer }) => layers.includes(layer));
    this.db.transaction(() => {
      for (const { key } of keys) this.write(key, this.read(key, now).failures + 1, now);
    });
  }

  /** Whether an attempt on `key` is still being checked (a stale one is dropped). */
  private checking(key: string, now: number): boolean {
    const set = this.inFlight.get(key);
    if (!set) return false;
    for (const t of set) if (now - t.startedAt >= IN_FLIGHT_MAX_MS) set.delete(t);
    if (set.size === 0) this.inFlight.delete(key);
    return set.size > 0;
  }

  private release(ticket: AttemptTicket): boolean {
    if (ticket.settled) return false;
    ticket.settled = true;
    for (const { key } of ticket.keys) {
      const set = this.inFlight.get(key);
      set?.delete(ticket);
      if (set?.size === 0) this.inFlight.delete(key);
    }
    return true;
  }

  /**
   * Ends an attempt that did not succeed (call it in a `finally`; after `succeed()` it does nothing): its
   * reserved failure stays, and the keys' last failure is now, so the pause runs from the answer.
   */
  finish(ticket: AttemptTicket): void {
    if (!this.release(ticket)) return;
    const now = this.now();
    this.db.transaction(() => {
      for (const { key } of ticket.keys) {
        const state = this.read(key, now);
        // Cleared meanwhile (`unlock`, or a success on the account): nothing to move.
        if (state.failures > 0 && state.lastFailureAt < now) this.write(key, state.failures, now);
      }
    });
  }

  /**
   * The password was right: the account's layers start afresh, and the address layer gets back the
   * slot this attempt reserved (its other failures stay).
   */
  succeed(ticket: AttemptTicket): void {
    if (!this.release(ticket)) return;
    const now = this.now();
    this.db.transaction(() => {
      for (const { layer, key } of ticket.keys) {
        if (layer === "address") {
          const state = this.read(key, now);
          if (state.failures > 0) this.write(key, state.failures - 1, state.lastFailureAt);
        } else this.write(key, 0, now);
      }
    });
  }

  /**
   * Forgets throttle state: everything, or every key of an account (at any address, and across
   * addresses) and/or of an address (any account at it, and the address itself). Returns the number
   * of keys cleared. Used by `pbx-console unlock`.
   */
  clear(filter: { username?: string; address?: string } = {}): number {
    const account = filter.username?.trim().toLowerCase();
    const address = filter.address ? addressKey(filter.address) : undefined;
    const rows = this.db.select({ key: signInThrottle.key }).from(signInThrottle).all();
    let cleared = 0;
    for (const { key } of rows) {
      const k = parseKey(key);
      const everything = account === undefined && address === undefined;
      const matches =
        everything ||
        !k ||
        (account !== undefined && k.account === account) ||
        (address !== undefined && k.address === address);
      if (!matches) continue;
      this.db.delete(signInThrottle).where(eq(signInThrottle.key, key)).run();
      cleared++;
    }
    return cleared;
  }

  /** Deletes keys whose failures are forgotten (run at most every ten minutes, from `begin`). */
  sweep(now = this.now()): void {
    this.lastSweep = now;
    this.db
      .delete(signInThrottle)
      .where(lt(signInThrottle.lastFailureAt, new Date(now - FORGET_AFTER_MS)))
      .run();
  }

  private maybeSweep(now: number): void {
    if (now - this.lastSweep >= SWEEP_EVERY_MS) this.sweep(now);
  }
}
