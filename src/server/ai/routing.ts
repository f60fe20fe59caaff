/**
 * Routing rules that decide: the first enabled rule, by priority descending
 * then oldest first, whose conditions all match the facts of a call
 * (docs/decisions/0007-ai-routing-and-webhook.md).
 */
import { aiRoutingRules } from "../../db/schema";
import {
  byRuleOrder,
  DEFAULT_ROUTE_ACTION,
  firstMatchingRule,
  parseJsonObject,
  type RouteDecision,
} from "../../shared/ai";
import type { AppContext } from "../context";

export type RuleRow = typeof aiRoutingRules.$inferSelect;

/** Every rule in evaluation order (the order the list shows too). */
export const rulesInOrder = (app: AppContext): RuleRow[] =>
  app.db.select().from(aiRoutingRules).all().sort(byRuleOrder);

export function decideRoute(
  app: AppContext,
  facts: Record<string, unknown>,
): { decision: RouteDecision; rule: RuleRow | null } {
  const rule = firstMatchingRule(rulesInOrder(app), facts);
  if (!rule)
    return { rule: null, decision: { matched: false, rule: null, action: DEFAULT_ROUTE_ACTION, actionParams: {} } };
  return {
    rule,
    decision: {
      matched: true,
      rule: { id: rule.id, name: rule.name, priority: rule.priority },
      action: rule.action,
      actionParams: parseJsonObject(rule.actionParams) ?? {},
    },
  };
}
