/**
 * The hub's live view of its members (ADR 0076): every few seconds each member is asked GET /api/fleet/self,
 * all in parallel, each with its own short timeout, and each member's state is written the moment its own
 * answer (or failure) comes: a member that answers slowly holds up nobody else's state. A member whose check
 * is still running is not asked again. A change of what the list shows publishes `fleet-updated`, at most
 * once per `coalesceMs`.
 */
import {
  checkMember,
  type FleetDeps,
  type MemberState,
  memberPin,
  memberStates,
  memberTargets,
  publishFleet,
} from "./members";

export interface FleetPollerOptions {
  /** Between passes (default 3 s). */
  intervalMs?: number;
  /** One member's check (default 4 s): a stopped member is shown unreachable within interval + timeout. */
  timeoutMs?: number;
  /** At most one `fleet-updated` per this (default 250 ms). */
  coalesceMs?: number;
}

/** What the list shows of a state; a change of only `checkedAt` is not news. */
const shown = (s: MemberState | undefined) =>
  s ? JSON.stringify([s.reachable, s.self, s.error, s.pinMismatch, s.presented]) : "";

export class FleetPoller {
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly inFlight = new Map<number, Promise<void>>();
  private publishTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private readonly opts: Required<FleetPollerOptions>;

  constructor(
    private readonly deps: FleetDeps,
    opts: FleetPollerOptions = {},
  ) {
    this.opts = { intervalMs: 3_000, timeoutMs: 4_000, coalesceMs: 250, ...opts };
  }

  start(): void {
    if (this.timer) return;
    this.stopped = false;
    this.pass();
    this.timer = setInterval(() => this.pass(), this.opts.intervalMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** Stops the passes and waits for the checks in flight (each ends within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.publishTimer) clearTimeout(this.publishTimer);
    this.publishTimer = null;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Starts a check of every member not being checked now; resolves when all of those have ended. */
  pass(): Promise<void> {
    const states = memberStates(this.deps.db);
    let targets: ReturnType<typeof memberTargets>;
    try {
      targets = memberTargets(this.deps);
    } catch {
      // The database is closing (the console stops): nothing to check.
      return Promise.resolve();
    }
    const ids = new Set(targets.map((t) => t.id));
    for (const id of states.keys()) if (!ids.has(id)) states.delete(id);
    const started: Promise<void>[] = [];
    for (const t of targets) {
      if (this.inFlight.has(t.id)) continue;
      const check = this.check(t).finally(() => this.inFlight.delete(t.id));
      this.inFlight.set(t.id, check);
      started.push(check);
    }
    return Promise.all(started).then(() => undefined);
  }

  private async check(t: ReturnType<typeof memberTargets>[number]): Promise<void> {
    const next = await checkMember(this.deps, t, this.opts.timeoutMs);
    if (this.stopped) return;
    const states = memberStates(this.deps.db);
    // Removed (or repinned) while this check ran: its answer is not about the member as it is now.
    if (memberPin(this.deps.db, t.id) !== t.pin) return;
    const changed = shown(states.get(t.id)) !== shown(next);
    states.set(t.id, next);
    if (changed) this.publishSoon();
  }

  private publishSoon(): void {
    if (this.publishTimer || this.stopped) return;
    this.publishTimer = setTimeout(() => {
      this.publishTimer = null;
      if (!this.stopped) publishFleet(this.deps, { action: "state" });
    }, this.opts.coalesceMs);
  }
}

const pollers = new WeakMap<object, FleetPoller>();

/** The hub's poller of this database (made at first use; the app starts and stops it). */
export function fleetPoller(deps: FleetDeps, opts?: FleetPollerOptions): FleetPoller {
  let p = pollers.get(deps.db);
  if (!p) {
    p = new FleetPoller(deps, opts);
    pollers.set(deps.db, p);
  }
  return p;
}
