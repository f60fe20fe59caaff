/**
 * The alert engine (ADR 0063). Every few seconds a pass evaluates each enabled rule (conditions.ts) and moves its
 * alerts on:
 *
 * - a subject in the condition is pending until the condition has lasted the rule's `seconds` (counted from the
 *   source's own since-time when it has one, else from the pass that first saw it), then it fires once: an
 *   `alert_events` row and a firing message to each of the rule's channels;
 * - while it lasts, a repeat message goes every `repeatMinutes` (0: never);
 * - when it ends, the row is resolved and a resolved message goes;
 * - a rule that cannot know now (its source is not connected) leaves its alerts as they are.
 *
 * The state is the `alert_events` rows, so a restarted console neither fires an alert again nor loses one that
 * was firing: the first pass finds it firing and resolves it only if the condition has ended. Only pending
 * subjects (not fired yet) are in memory, and start counting again after a restart.
 *
 * Messages never hold up a pass: each is sent in the background with a deadline. An alert storm is limited per
 * channel: at most `perChannelPerMinute` messages in any minute; the rest wait and go as ONE summary message as
 * soon as the channel has room again (a single waiting message goes as itself).
 */
import { eq, inArray } from "drizzle-orm";
import { alertChannels, alertDeliveries, alertEvents, alertRules } from "../../db/schema";
import { type AlertRuleInput, durationText } from "../../shared/alerts";
import type { Deps } from "../core/deps";
import { DELIVERY_DEADLINE_MS } from "./channels";
import { type AlertSources, type Evaluation, evaluateRule, newReadingCache, Readings } from "./conditions";
import { pruneAlertHistory } from "./history";
import type { AlertMessage, AlertWhat } from "./message";
import { publishAlerts, ruleInputOf } from "./rules";

/** Sends one message to one channel; never throws for a failed delivery (src/server/alerts/channels.ts). */
export type DeliverFn = (
  channelId: number,
  message: AlertMessage,
  signal: AbortSignal,
) => Promise<{ ok: true } | { ok: false; error: string }>;

/** Evaluates one rule; the default is conditions.ts (a test injects its own). */
export type EvaluateFn = (
  rule: AlertRuleInput & { id: number },
  readings: Readings,
) => Evaluation | Promise<Evaluation>;

export interface AlertEngineOptions {
  deliver: DeliverFn;
  evaluate?: EvaluateFn;
  /** Between passes (default 5 s). */
  tickMs?: number;
  /** A message's deadline (default 30 s, a channel's own). */
  deliveryTimeoutMs?: number;
  /** A rule's evaluation's deadline (default 10 s); past it the rule counts as not known this pass. */
  evaluateTimeoutMs?: number;
  /** Messages per channel in any minute before the rest are folded into a summary (default 5). */
  perChannelPerMinute?: number;
  /** Between history prunes (default an hour). */
  pruneEveryMs?: number;
}

export type AlertEngineDeps = Pick<Deps, "db" | "events" | "now"> & {
  config: Pick<Deps["config"], "tls" | "serverLabel">;
} & AlertSources;

type EventRow = typeof alertEvents.$inferSelect;
type Rule = AlertRuleInput & { id: number };

const MINUTE = 60_000;
export const DEFAULT_TICK_MS = 5_000;
export const DEFAULT_PER_CHANNEL_PER_MINUTE = 5;
/** At most this many waiting messages are named in a summary; the rest are counted. */
const SUMMARY_LINES = 20;

/** What waits for a channel with no room this minute, and what it sent in the last minute. */
interface Gate {
  sent: number[];
  held: AlertMessage[];
}

export class AlertEngine {
  private readonly opts: Required<Omit<AlertEngineOptions, "evaluate">> & { evaluate: EvaluateFn };
  /** `ruleId:subject` → since when the condition holds (not fired yet). */
  private readonly pending = new Map<string, number>();
  private readonly gates = new Map<number, Gate>();
  private readonly inflight = new Set<Promise<void>>();
  private readonly cache = newReadingCache();
  /** Rules whose evaluation failed, so the reason is logged once until it works again. */
  private readonly failing = new Set<number>();
  private running: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private lastPrune = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly deps: AlertEngineDeps,
    opts: AlertEngineOptions,
  ) {
    this.opts = {
      deliver: opts.deliver,
      evaluate: opts.evaluate ?? ((rule, readings) => evaluateRule(rule, readings)),
      tickMs: opts.tickMs ?? DEFAULT_TICK_MS,
      deliveryTimeoutMs: opts.deliveryTimeoutMs ?? DELIVERY_DEADLINE_MS,
      evaluateTimeoutMs: opts.evaluateTimeoutMs ?? 10_000,
      perChannelPerMinute: opts.perChannelPerMinute ?? DEFAULT_PER_CHANNEL_PER_MINUTE,
      pruneEveryMs: opts.pruneEveryMs ?? 60 * MINUTE,
    };
  }

  /** Passes every `tickMs` until stop(). */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.tick(), this.opts.tickMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** Stops passing; waits for the pass under way and the messages on their way (each has its deadline). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.idle();
  }

  /** Resolves once every message sent so far has been delivered or given up. */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** One pass (a pass already under way is awaited instead: passes never overlap). */
  tick(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.pass()
      .catch((err) => console.error(`alerts: ${(err as Error).message}`))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async pass(): Promise<void> {
    const { db } = this.deps;
    const now = this.deps.now();
    const rows = db.select().from(alertRules).all();
    const firing = db.select().from(alertEvents).where(eq(alertEvents.state, "firing")).all();
    const readings = new Readings(this.deps, this.cache);
    let changed = false;
    const ruleIds = new Set(rows.map((r) => r.id));

    for (const row of rows) {
      const events = firing.filter((e) => e.ruleId === row.id);
      const rule = ruleInputOf(row);
      if (!rule?.enabled) {
        // A rule turned off stops watching: its alerts end with a message saying so.
        for (const ev of events)
          this.resolve(ev, rule ? { ...rule, id: row.id } : null, now, "the rule was turned off");
        changed ||= events.length > 0;
        this.forgetPending(row.id, new Set());
        continue;
      }
      const evaluation = await this.evaluate({ ...rule, id: row.id }, readings);
      if (evaluation === null) continue;
      try {
        changed = this.apply({ ...rule, id: row.id }, events, evaluation, now) || changed;
      } catch (err) {
        // E.g. the rule was deleted while it was evaluated: its new alert has no rule to belong to.
        console.error(`alerts: rule ${rule.name}: ${(err as Error).message}`);
      }
    }
    // Alerts of a rule that is gone (deleted between the reads) end without a message.
    for (const ev of firing) {
      if (ev.ruleId !== null && ruleIds.has(ev.ruleId)) continue;
      db.update(alertEvents)
        .set({ state: "resolved", resolvedAt: new Date(now) })
        .where(eq(alertEvents.id, ev.id))
        .run();
      changed = true;
    }
    for (const key of this.pending.keys()) if (!ruleIds.has(Number(key.split(":")[0]))) this.pending.delete(key);
    this.flushGates(now);
    if (now - this.lastPrune >= this.opts.pruneEveryMs) {
      this.lastPrune = now;
      if (pruneAlertHistory(this.deps) > 0) changed = true;
    }
    if (changed) publishAlerts(this.deps, "events");
  }

  /** The rule's evaluation within its deadline; null when it failed or took too long. */
  private async evaluate(rule: Rule, readings: Readings): Promise<Evaluation> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const result = await Promise.race([
        Promise.resolve(this.opts.evaluate(rule, readings)),
        new Promise<never>((_, fail) => {
          timer = setTimeout(() => fail(new Error("no answer in time")), this.opts.evaluateTimeoutMs);
        }),
      ]);
      this.failing.delete(rule.id);
      return result;
    } catch (err) {
      if (!this.failing.has(rule.id)) console.error(`alerts: rule ${rule.name}: ${(err as Error).message}`);
      this.failing.add(rule.id);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Moves one rule's alerts on from what holds now; true when a stored alert changed. */
  private apply(rule: Rule, events: EventRow[], evaluation: NonNullable<Evaluation>, now: number): boolean {
    let changed = false;
    const current = new Map(evaluation.map((c) => [c.subject, c]));
    for (const ev of events) {
      if (current.has(ev.subject)) continue;
      this.resolve(ev, rule, now, null);
      changed = true;
    }
    const holdMs = ("seconds" in rule.params ? (rule.params.seconds as number) : 0) * 1000;
    for (const c of current.values()) {
      const ev = events.find((e) => e.subject === c.subject);
      const key = `${rule.id}:${c.subject}`;
      if (ev) {
        this.pending.delete(key);
        if (this.repeat(ev, rule, c.message, now)) changed = true;
        continue;
      }
      const since = Math.min(this.pending.get(key) ?? now, c.since ?? now);
      if (now - since < holdMs) {
        this.pending.set(key, since);
        continue;
      }
      this.pending.delete(key);
      this.fire(rule, c.subject, c.message, since, now);
      changed = true;
    }
    this.forgetPending(rule.id, new Set(current.keys()));
    return changed;
  }

  private forgetPending(ruleId: number, keep: Set<string>): void {
    const prefix = `${ruleId}:`;
    for (const key of this.pending.keys()) {
      if (key.startsWith(prefix) && !keep.has(key.slice(prefix.length))) this.pending.delete(key);
    }
  }

  private fire(rule: Rule, subject: string, message: string, since: number, now: number): void {
    const channels = this.channelsOf(rule);
    const row = this.deps.db
      .insert(alertEvents)
      .values({
        ruleId: rule.id,
        ruleName: rule.name,
        kind: rule.kind,
        subject,
        message,
        state: "firing",
        startedAt: new Date(since),
        lastNotifiedAt: new Date(now),
        notifications: channels.length > 0 ? 1 : 0,
      })
      .returning()
      .get();
    const lasted = now - since >= 1000 ? ` (for ${durationText(now - since)})` : "";
    this.send(channels, this.message(row, rule, "firing", `${message}${lasted}`, now));
  }

  /** Sends the repeat when it is due; true when it did. */
  private repeat(ev: EventRow, rule: Rule, message: string, now: number): boolean {
    if (rule.repeatMinutes <= 0) return false;
    const last = (ev.lastNotifiedAt ?? ev.startedAt).getTime();
    if (now - last < rule.repeatMinutes * MINUTE) return false;
    const channels = this.channelsOf(rule);
    this.deps.db
      .update(alertEvents)
      .set({
        message,
        lastNotifiedAt: new Date(now),
        notifications: ev.notifications + (channels.length > 0 ? 1 : 0),
      })
      .where(eq(alertEvents.id, ev.id))
      .run();
    const row = { ...ev, message };
    const title = `Still: ${message} (for ${durationText(now - ev.startedAt.getTime())})`;
    this.send(channels, this.message(row, rule, "repeat", title, now));
    return true;
  }

  /** Ends an alert, and says so to the rule's channels (none when the rule is gone). */
  private resolve(ev: EventRow, rule: Rule | null, now: number, why: string | null): void {
    const channels = rule ? this.channelsOf(rule) : [];
    this.deps.db
      .update(alertEvents)
      .set({
        state: "resolved",
        resolvedAt: new Date(now),
        notifications: ev.notifications + (channels.length > 0 ? 1 : 0),
      })
      .where(eq(alertEvents.id, ev.id))
      .run();
    if (!rule) return;
    const lasted = durationText(now - ev.startedAt.getTime());
    const title = `Resolved: ${ev.message} (lasted ${lasted}${why ? `; ${why}` : ""})`;
    this.send(channels, this.message(ev, rule, "resolved", title, now));
  }

  private message(ev: EventRow, rule: Rule, what: AlertWhat, title: string, now: number): AlertMessage {
    const text = [
      title,
      `Rule: ${rule.name}`,
      `Since: ${ev.startedAt.toISOString()}`,
      what === "resolved" ? `Resolved: ${new Date(now).toISOString()}` : null,
      `Console: ${this.deps.config.serverLabel}`,
    ]
      .filter((line): line is string => line !== null)
      .join("\n");
    return {
      what,
      eventId: ev.id,
      ruleName: rule.name,
      kind: rule.kind,
      subject: ev.subject,
      title,
      text,
      startedAt: ev.startedAt.getTime(),
      at: now,
      server: this.deps.config.serverLabel,
    };
  }

  /** The rule's channels that still exist (a channel turned off records the message as skipped). */
  private channelsOf(rule: Rule): number[] {
    if (rule.channelIds.length === 0) return [];
    const on = new Set(
      this.deps.db
        .select({ id: alertChannels.id })
        .from(alertChannels)
        .where(inArray(alertChannels.id, rule.channelIds))
        .all()
        .map((c) => c.id),
    );
    return rule.channelIds.filter((id) => on.has(id));
  }

  /** Each channel gets the message now, or holds it for the next summary when it had its share this minute. */
  private send(channels: number[], message: AlertMessage): void {
    const now = message.at;
    for (const channelId of channels) {
      const gate = this.gateOf(channelId, now);
      if (gate.held.length === 0 && gate.sent.length < this.opts.perChannelPerMinute) {
        gate.sent.push(now);
        this.dispatch(channelId, message, []);
      } else gate.held.push(message);
    }
  }

  private gateOf(channelId: number, now: number): Gate {
    let gate = this.gates.get(channelId);
    if (!gate) {
      gate = { sent: [], held: [] };
      this.gates.set(channelId, gate);
    }
    gate.sent = gate.sent.filter((t) => now - t < MINUTE);
    return gate;
  }

  /** Channels with waiting messages and room again: one summary each (a single waiting message as itself). */
  private flushGates(now: number): void {
    for (const [channelId, gate] of this.gates) {
      this.gateOf(channelId, now);
      if (gate.held.length === 0) {
        if (gate.sent.length === 0) this.gates.delete(channelId);
        continue;
      }
      if (gate.sent.length >= this.opts.perChannelPerMinute) continue;
      const held = gate.held;
      gate.held = [];
      gate.sent.push(now);
      if (held.length === 1) this.dispatch(channelId, held[0] as AlertMessage, []);
      else this.dispatch(channelId, this.summary(held, now), held);
    }
  }

  private summary(held: AlertMessage[], now: number): AlertMessage {
    const firing = held.filter((m) => m.what !== "resolved").length;
    const resolved = held.length - firing;
    const counts = [firing ? `${firing} firing` : null, resolved ? `${resolved} resolved` : null]
      .filter(Boolean)
      .join(", ");
    const lines = held.slice(0, SUMMARY_LINES).map((m) => `- ${m.title}`);
    if (held.length > SUMMARY_LINES) lines.push(`- and ${held.length - SUMMARY_LINES} more`);
    const rules = [...new Set(held.map((m) => m.ruleName))];
    const title = `${held.length} alert messages held back by the rate limit (${counts})`;
    return {
      what: firing ? "firing" : "resolved",
      eventId: null,
      ruleName: rules.length === 1 ? (rules[0] as string) : `${rules.length} rules`,
      kind: "summary",
      subject: "summary",
      title,
      text: [
        title,
        ...lines,
        `At most ${this.opts.perChannelPerMinute} messages go to a channel in a minute; the Alerts screen has every alert.`,
        `Console: ${this.deps.config.serverLabel}`,
      ].join("\n"),
      startedAt: Math.min(...held.map((m) => m.startedAt)),
      at: now,
      server: this.deps.config.serverLabel,
    };
  }

  /**
   * Sends in the background under the deadline. The channel records its own delivery; for a summary, each
   * alert it carries gets a delivery row of its own with the summary's outcome, so its history shows it.
   */
  private dispatch(channelId: number, message: AlertMessage, folded: AlertMessage[]): void {
    const task = this.deliverInTime(channelId, message)
      .then((result) => {
        const error = result.ok ? null : result.error;
        const rows = folded
          .filter((m) => m.eventId !== null)
          .map((m) => ({
            eventId: m.eventId,
            channelId,
            what: m.what,
            at: new Date(this.deps.now()),
            ok: result.ok,
            error: error ? `In a summary: ${error}` : null,
          }));
        if (rows.length > 0) this.deps.db.insert(alertDeliveries).values(rows).run();
        if (!this.stopped) publishAlerts(this.deps, "events");
      })
      .catch((err) => console.error(`alerts: delivery to channel ${channelId}: ${(err as Error).message}`));
    const tracked = task.finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }

  private async deliverInTime(channelId: number, message: AlertMessage) {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<{ ok: false; error: string }>((done) => {
      timer = setTimeout(() => {
        abort.abort(new Error("The delivery took too long"));
        done({ ok: false, error: `No answer within ${Math.round(this.opts.deliveryTimeoutMs / 1000)} s` });
      }, this.opts.deliveryTimeoutMs);
    });
    try {
      return await Promise.race([this.opts.deliver(channelId, message, abort.signal), late]);
    } catch (err) {
      return { ok: false as const, error: (err as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }
}
