/**
 * Alert rules (ADR 0063): what is watched, how long a condition lasts before it fires, how often it repeats, and
 * which channels hear of it. A rule holds no secret; the channels it names do, and must exist when it is saved.
 * A deleted rule's firing alerts end with it (without a message: there is no rule left to say where to send one).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { alertChannels, alertEvents, alertRules, testCalls } from "../../db/schema";
import {
  type AlertKind,
  type AlertRule,
  type AlertRuleInput,
  type AlertRulePatch,
  alertRuleSchema,
} from "../../shared/alerts";
import type { Deps } from "../core/deps";
import { Conflict, Invalid, NotFound } from "../core/errors";
import { validate } from "../core/validate";

type RuleRow = typeof alertRules.$inferSelect;
type RuleDeps = Pick<Deps, "db" | "events" | "now">;

export const publishAlerts = (deps: Pick<Deps, "events">, what: "rules" | "events") =>
  deps.events.publish({ type: "alerts-updated", data: { what } });

/** The stored rule as the schema reads it (params checked again: a row is never trusted blindly). */
export function ruleInputOf(row: RuleRow): AlertRuleInput | null {
  const parsed = alertRuleSchema.safeParse({
    name: row.name,
    kind: row.kind,
    params: row.params,
    channelIds: row.channelIds,
    repeatMinutes: row.repeatMinutes,
    enabled: row.enabled,
  });
  return parsed.success ? parsed.data : null;
}

function toRule(row: RuleRow, firing: number): AlertRule {
  const input = ruleInputOf(row) ?? {
    name: row.name,
    kind: row.kind as AlertKind,
    params: row.params,
    channelIds: row.channelIds,
    repeatMinutes: row.repeatMinutes,
    enabled: row.enabled,
  };
  return {
    ...(input as AlertRuleInput),
    id: row.id,
    firing,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Every rule by name, each with how many of its alerts fire now. */
export function listAlertRules(deps: Pick<Deps, "db">): AlertRule[] {
  const firing = new Map(
    deps.db
      .select({ ruleId: alertEvents.ruleId, n: sql<number>`count(*)` })
      .from(alertEvents)
      .where(eq(alertEvents.state, "firing"))
      .groupBy(alertEvents.ruleId)
      .all()
      .map((r) => [r.ruleId, r.n]),
  );
  return deps.db
    .select()
    .from(alertRules)
    .all()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((row) => toRule(row, firing.get(row.id) ?? 0));
}

/** The audit trail's view of a rule: what an administrator set (not its firing count or edit time). */
export function auditViewOfRule(deps: Pick<Deps, "db">, id: string | undefined): object | null {
  const n = Number(id);
  if (!id || !Number.isSafeInteger(n)) return null;
  const row = deps.db.select().from(alertRules).where(eq(alertRules.id, n)).get();
  if (!row) return null;
  const { firing: _firing, updatedAt: _updatedAt, ...view } = toRule(row, 0);
  return view;
}

function findRule(deps: Pick<Deps, "db">, id: number): RuleRow {
  const row = deps.db.select().from(alertRules).where(eq(alertRules.id, id)).get();
  if (!row) throw new NotFound("Alert rule");
  return row;
}

const ruleOut = (deps: Pick<Deps, "db">, row: RuleRow) =>
  listAlertRules(deps).find((r) => r.id === row.id) ?? toRule(row, 0);

/** The checks the schema cannot make: a free name, channels and a test call that exist. */
function checkRule(deps: Pick<Deps, "db">, input: AlertRuleInput, self: number | null): void {
  const other = deps.db.select({ id: alertRules.id }).from(alertRules).where(eq(alertRules.name, input.name)).get();
  if (other && other.id !== self) {
    const message = `An alert rule named ${input.name} exists already`;
    throw new Conflict(message, { name: message });
  }
  if (input.channelIds.length > 0) {
    const known = new Set(
      deps.db
        .select({ id: alertChannels.id })
        .from(alertChannels)
        .where(inArray(alertChannels.id, input.channelIds))
        .all()
        .map((c) => c.id),
    );
    const missing = input.channelIds.filter((id) => !known.has(id));
    if (missing.length > 0) {
      const message = `No alert channel ${missing.join(", ")}: choose channels from the list`;
      throw new Invalid(message, { channelIds: message });
    }
  }
  if (input.kind === "test-call-failed" && input.params.testCallId !== null) {
    const id = input.params.testCallId;
    if (!deps.db.select({ id: testCalls.id }).from(testCalls).where(eq(testCalls.id, id)).get()) {
      const message = `No test call ${id}: choose one from the list, or every test call`;
      throw new Invalid(message, { "params.testCallId": message });
    }
  }
}

const rowValues = (input: AlertRuleInput, at: Date) => ({
  name: input.name,
  kind: input.kind,
  params: input.params as Record<string, unknown>,
  channelIds: input.channelIds,
  repeatMinutes: input.repeatMinutes,
  enabled: input.enabled,
  updatedAt: at,
});

export function createAlertRule(deps: RuleDeps, input: AlertRuleInput): AlertRule {
  checkRule(deps, input, null);
  const at = new Date(deps.now());
  const row = deps.db
    .insert(alertRules)
    .values({ ...rowValues(input, at), createdAt: at })
    .returning()
    .get();
  publishAlerts(deps, "rules");
  return ruleOut(deps, row);
}

/** PUT: the whole rule replaces the stored one. */
export function replaceAlertRule(deps: RuleDeps, id: number, input: AlertRuleInput): AlertRule {
  findRule(deps, id);
  checkRule(deps, input, id);
  const row = deps.db
    .update(alertRules)
    .set(rowValues(input, new Date(deps.now())))
    .where(eq(alertRules.id, id))
    .returning()
    .get();
  publishAlerts(deps, "rules");
  return ruleOut(deps, row);
}

/**
 * PATCH: the fields given over the stored ones, checked as a whole rule. A new kind without parameters starts
 * from that kind's defaults (the old kind's parameters mean nothing to it).
 */
export function updateAlertRule(deps: RuleDeps, id: number, patch: AlertRulePatch): AlertRule {
  const row = findRule(deps, id);
  const kindChanged = patch.kind !== undefined && patch.kind !== row.kind;
  const merged: Record<string, unknown> = {
    name: row.name,
    kind: row.kind,
    params: kindChanged ? {} : row.params,
    channelIds: row.channelIds,
    repeatMinutes: row.repeatMinutes,
    enabled: row.enabled,
  };
  for (const [key, value] of Object.entries(patch)) if (value !== undefined) merged[key] = value;
  return replaceAlertRule(deps, id, validate(alertRuleSchema, merged));
}

/** Deletes a rule; its firing alerts end now and stay in the history under the rule's name. */
export function deleteAlertRule(deps: RuleDeps, id: number): void {
  findRule(deps, id);
  const at = new Date(deps.now());
  deps.db.transaction((tx) => {
    tx.update(alertEvents)
      .set({ state: "resolved", resolvedAt: at })
      .where(and(eq(alertEvents.ruleId, id), eq(alertEvents.state, "firing")))
      .run();
    tx.delete(alertRules).where(eq(alertRules.id, id)).run();
  });
  publishAlerts(deps, "rules");
}
