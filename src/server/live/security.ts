/**
 * Failed SIP sign-ins from AMI security events (`InvalidAccountID`, `ChallengeResponseFailed`,
 * `InvalidPassword`, `FailedACL`): counts by source address and account over the last hour and day.
 * Kept in memory in fixed-size rings (a restart starts empty), bounded: at most `maxSources` sources
 * (the one that failed longest ago is dropped first), `maxAccountsPerSource` accounts per source and
 * `maxAccounts` accounts overall; a flood of events only moves counters. ADR 0027.
 */
import {
  type PbxSecurity,
  SECURITY_ALERT_THRESHOLD,
  type SecuritySource,
  type SecurityWindow,
} from "../../shared/live";
import type { AmiMessage } from "../clients/ami";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const SECURITY_EVENTS = new Set(["invalidaccountid", "challengeresponsefailed", "invalidpassword", "failedacl"]);

export const isSecurityEvent = (e: AmiMessage) => SECURITY_EVENTS.has((e.event ?? "").toLowerCase());

/** `RemoteAddress: IPV4/UDP/203.0.113.9/5060` (or IPV6/…/2001:db8::1/5060) → the IP address; null when odd. */
export function remoteAddressOf(value: string | undefined): string | null {
  const parts = (value ?? "").trim().split("/");
  const address = parts.length >= 3 ? (parts[2] as string) : parts.length === 1 ? (parts[0] as string) : "";
  const bare = address.replace(/^\[|\]$/g, "");
  return /^[0-9A-Fa-f:.]{2,45}$/.test(bare) && /[.:]/.test(bare) ? bare : null;
}

/** Counts in time slots of `slotMs`, `slots` of them in a ring: constant memory whatever the rate. */
class Ring {
  private readonly counts: Uint32Array;
  private readonly ids: Float64Array;

  constructor(
    private readonly slotMs: number,
    private readonly slots: number,
  ) {
    this.counts = new Uint32Array(slots);
    this.ids = new Float64Array(slots).fill(-1);
  }

  add(t: number): void {
    const id = Math.floor(t / this.slotMs);
    const i = id % this.slots;
    if (this.ids[i] !== id) {
      this.ids[i] = id;
      this.counts[i] = 0;
    }
    this.counts[i] = (this.counts[i] as number) + 1;
  }

  /** The count of the slots that started within `span` ms before the slot holding `t` (inclusive). */
  sum(t: number, span: number): number {
    const now = Math.floor(t / this.slotMs);
    const first = now - Math.ceil(span / this.slotMs) + 1;
    let total = 0;
    for (let i = 0; i < this.slots; i++) {
      const id = this.ids[i] as number;
      if (id >= first && id <= now) total += this.counts[i] as number;
    }
    return total;
  }

  /** The count of the slot starting at `start`. */
  at(start: number): number {
    const id = Math.floor(start / this.slotMs);
    const i = id % this.slots;
    return this.ids[i] === id ? (this.counts[i] as number) : 0;
  }
}

/** Failures over the last hour (in `fine` slots) and the last 24 hours (in hourly slots). */
class Counter {
  private readonly recent: Ring;
  private readonly hours = new Ring(HOUR, 24);

  constructor(fineMs: number) {
    this.recent = new Ring(fineMs, Math.ceil(HOUR / fineMs));
  }

  add(t: number): void {
    this.recent.add(t);
    this.hours.add(t);
  }

  lastHour(t: number): number {
    return this.recent.sum(t, HOUR);
  }

  /** The fine slots that started within `span` ms before the one holding `t`, that one included. */
  within(t: number, span: number): number {
    return this.recent.sum(t, Math.min(span, HOUR));
  }

  lastDay(t: number): number {
    return this.hours.sum(t, DAY);
  }

  hour(start: number): number {
    return this.hours.at(start);
  }
}

interface Source {
  address: string;
  counter: Counter;
  accounts: Map<string, Counter>;
  lastAt: number;
}

export interface SecurityLimits {
  maxSources: number;
  maxAccountsPerSource: number;
  maxAccounts: number;
}

export class SecurityState {
  private readonly total = new Counter(MINUTE);
  /** Least recently failed first (a source moves to the end on each failure). */
  private readonly sources = new Map<string, Source>();
  private accountCount = 0;

  constructor(private readonly limits: SecurityLimits) {}

  get sourceCount(): number {
    return this.sources.size;
  }

  /** Records one security event; false when it is not a failed sign-in or names no address. */
  record(e: AmiMessage, now: number): boolean {
    if (!isSecurityEvent(e)) return false;
    // PJSIP reports each request from an unknown account twice: `InvalidAccountID` with the name it tried,
    // then `ChallengeResponseFailed` against its stand-in endpoint with `AccountID: <unknown>`. The first
    // counts the attempt; the second would count it again under an account nobody tried.
    if ((e.event ?? "").toLowerCase() === "challengeresponsefailed" && (e.accountid ?? "").trim() === "<unknown>")
      return false;
    const address = remoteAddressOf(e.remoteaddress);
    if (!address) return false;
    this.prune(now);
    this.total.add(now);
    let source = this.sources.get(address);
    if (source) this.sources.delete(address);
    else {
      source = { address, counter: new Counter(MINUTE), accounts: new Map(), lastAt: now };
      while (this.sources.size >= this.limits.maxSources) this.evictOldest();
    }
    this.sources.set(address, source);
    source.lastAt = now;
    source.counter.add(now);
    const account = (e.accountid ?? "").trim().slice(0, 80);
    let counter = source.accounts.get(account);
    if (
      !counter &&
      source.accounts.size < this.limits.maxAccountsPerSource &&
      this.accountCount < this.limits.maxAccounts
    ) {
      counter = new Counter(5 * MINUTE);
      source.accounts.set(account, counter);
      this.accountCount++;
    }
    counter?.add(now);
    return true;
  }

  /**
   * Failures in the current minute and the `minutes` whole minutes before it (an alert rule's window: a burst
   * across a minute's turn counts whole). At most an hour.
   */
  failuresWithin(now: number, minutes: number): number {
    return this.total.within(now, (Math.min(minutes, 59) + 1) * MINUTE);
  }

  view(now: number): Pick<PbxSecurity, "threshold" | "lastHour" | "lastDay" | "perHour" | "alerts" | "tracked"> {
    this.prune(now);
    const hourStart = Math.floor(now / HOUR) * HOUR;
    const perHour = Array.from({ length: 24 }, (_, i) => {
      const start = hourStart - (23 - i) * HOUR;
      return { start: new Date(start).toISOString(), failures: this.total.hour(start) };
    });
    const lastHour = this.window((c) => c.lastHour(now), this.total.lastHour(now));
    return {
      threshold: SECURITY_ALERT_THRESHOLD,
      lastHour,
      lastDay: this.window((c) => c.lastDay(now), this.total.lastDay(now)),
      perHour,
      alerts: lastHour.sources.filter((s) => s.failures > SECURITY_ALERT_THRESHOLD),
      tracked: {
        sources: this.sources.size,
        accounts: this.accountCount,
        maxSources: this.limits.maxSources,
        maxAccounts: this.limits.maxAccounts,
      },
    };
  }

  private window(count: (c: Counter) => number, failures: number): SecurityWindow {
    const sources: SecuritySource[] = [];
    for (const s of this.sources.values()) {
      const n = count(s.counter);
      if (n === 0) continue;
      const accounts = [...s.accounts]
        .map(([account, c]) => ({ account, failures: count(c) }))
        .filter((a) => a.failures > 0)
        .sort((a, b) => b.failures - a.failures || a.account.localeCompare(b.account))
        .slice(0, 20);
      sources.push({ address: s.address, failures: n, accounts, lastAt: new Date(s.lastAt).toISOString() });
    }
    sources.sort((a, b) => b.failures - a.failures || b.lastAt.localeCompare(a.lastAt));
    return { failures, sources: sources.slice(0, 100) };
  }

  /** Drops the sources whose last failure is over a day old (they are first in the map). */
  private prune(now: number): void {
    for (const s of this.sources.values()) {
      if (s.lastAt > now - DAY) break;
      this.drop(s);
    }
  }

  private evictOldest(): void {
    const first = this.sources.values().next().value;
    if (first) this.drop(first);
  }

  private drop(s: Source): void {
    this.sources.delete(s.address);
    this.accountCount -= s.accounts.size;
  }
}
