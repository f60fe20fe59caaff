/**
 * The routing decision: the first enabled rule, by priority descending then
 * oldest first, whose conditions match the facts of a call (all or any of the
 * builder's conditions, or every `key = value` of an older rule; the time-of-day
 * condition reads `Deps.now`); no match means the AI assistant answers
 * (docs/decisions/0007-ai-routing-and-webhook.md, 0040-route-order-and-rule-builder.md).
 */
import { DEFAULT_ROUTE_ACTION, parseJsonObject, type RouteDecision } from "../../shared/ai/routing-rules";
import type { Deps } from "../core/deps";
import type { RuleRow } from "./records";
import { firstMatchingRule } from "./rule-evaluator";
import { rulesInOrder } from "./rules";

/** The decision for these facts, and the rule that made it (null when none matched). */
export function decideRoute(
  deps: Pick<Deps, "db" | "now">,
  facts: Record<string, unknown>,
): { decision: RouteDecision; rule: RuleRow | null } {
  const rule = firstMatchingRule(rulesInOrder(deps), facts, new Date(deps.now()));
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

/** What the rules would do with a call with these facts (the routing page's test); stores nothing. */
export const routeDecision = (deps: Pick<Deps, "db" | "now">, facts: Record<string, unknown>): RouteDecision =>
  decideRoute(deps, facts).decision;
