/**
 * Routing rules: the records the routing page edits. Conditions and parameters
 * are stored as JSON text, checked by the shared schema (the builder's shape or
 * the older flat object; parameters as the action needs them) and, here, that a
 * chosen assistant exists (docs/decisions/0007, 0040).
 */
import { eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import { aiAssistants, aiCallLogs, aiRoutingRules } from "../../db/schema";
import { type AiRoutingRule, aiRoutingRuleSchema, byRuleOrder, parseJsonObject } from "../../shared/ai/routing-rules";
import { type DeleteAnswer, type Dependents, NO_DEPENDENTS } from "../../shared/safe-delete";
import type { Deps } from "../core/deps";
import { Invalid, NotFound } from "../core/errors";
import { keepForUndo } from "../core/undo";
import { parseId, validate } from "../core/validate";
import { type RuleRow, toRule } from "./records";

export type RuleInput = z.output<typeof aiRoutingRuleSchema>;

const WHAT = "Routing rule";

/** Every rule in evaluation order (priority descending, then oldest first); the list shows this order too. */
export const rulesInOrder = (deps: Pick<Deps, "db">): RuleRow[] =>
  deps.db.select().from(aiRoutingRules).all().sort(byRuleOrder);

export const listRules = (deps: Pick<Deps, "db">): AiRoutingRule[] => rulesInOrder(deps).map(toRule);

function find(deps: Pick<Deps, "db">, rawId: string | undefined): RuleRow {
  const id = parseId(rawId, WHAT);
  const row = deps.db.select().from(aiRoutingRules).where(eq(aiRoutingRules.id, id)).get();
  if (!row) throw new NotFound(WHAT);
  return row;
}

/** A rule that transfers to an assistant names one that exists (a 400 on the parameters otherwise). */
function checkAssistant(deps: Pick<Deps, "db">, input: RuleInput): void {
  if (input.action !== "transfer_to_ai") return;
  const id = Number(parseJsonObject(input.actionParams)?.assistantId);
  if (!Number.isInteger(id) || id <= 0) return;
  const found = deps.db.select({ id: aiAssistants.id }).from(aiAssistants).where(eq(aiAssistants.id, id)).get();
  if (!found) throw new Invalid(`Assistant ${id} does not exist`, { actionParams: "Choose an existing assistant" });
}

export function createRule(deps: Pick<Deps, "db" | "events" | "now">, input: RuleInput): AiRoutingRule {
  checkAssistant(deps, input);
  const row = deps.db
    .insert(aiRoutingRules)
    .values({ ...input, createdAt: new Date(deps.now()) })
    .returning()
    .get();
  deps.events.publish({ type: "ai-rules-updated", data: { id: row.id, action: "created" } });
  return toRule(row);
}

/** The given fields over the stored rule, validated as a whole; fields left out keep their stored values. */
export function updateRule(
  deps: Pick<Deps, "db" | "events">,
  rawId: string | undefined,
  patch: Partial<RuleInput>,
): AiRoutingRule {
  const { id, createdAt: _c, ...current } = find(deps, rawId);
  const input = validate(aiRoutingRuleSchema, { ...current, ...patch });
  checkAssistant(deps, input);
  const row = deps.db.update(aiRoutingRules).set(input).where(eq(aiRoutingRules.id, id)).returning().get();
  deps.events.publish({ type: "ai-rules-updated", data: { id, action: "updated" } });
  return toRule(row);
}

/** GET /api/ai/routing-rules/:id/dependents: nothing in the console points at a rule. */
export function dependentsOfRule(deps: Pick<Deps, "db">, rawId: string | undefined): Dependents {
  find(deps, rawId);
  return NO_DEPENDENTS;
}

/** Deletes a rule; the answer's token restores it (and its call log links) for a few seconds. */
export function deleteRule(deps: Pick<Deps, "db" | "events" | "now">, rawId: string | undefined): DeleteAnswer {
  const row = find(deps, rawId);
  const { id } = row;
  const logIds = deps.db
    .select({ id: aiCallLogs.id })
    .from(aiCallLogs)
    .where(eq(aiCallLogs.ruleId, id))
    .all()
    .map((r) => r.id);
  deps.db.delete(aiRoutingRules).where(eq(aiRoutingRules.id, id)).run();
  deps.events.publish({ type: "ai-rules-updated", data: { id, action: "deleted" } });
  return keepForUndo(deps, "ai-rule", (d) => {
    d.db.transaction((tx) => {
      tx.insert(aiRoutingRules).values(row).run();
      if (logIds.length) tx.update(aiCallLogs).set({ ruleId: id }).where(inArray(aiCallLogs.id, logIds)).run();
    });
    d.events.publish({ type: "ai-rules-updated", data: { id, action: "created" } });
    return toRule(row);
  });
}
