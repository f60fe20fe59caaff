/**
 * Routing rules: the records the routing page edits. Conditions and parameters
 * are stored as the text given, even when it is not JSON; a rule whose
 * conditions are not a JSON object never matches (docs/decisions/0007).
 */
import { eq } from "drizzle-orm";
import type { z } from "zod";
import { aiRoutingRules } from "../../db/schema";
import { type AiRoutingRule, aiRoutingRuleSchema, byRuleOrder } from "../../shared/ai";
import type { Deps } from "../domain/deps";
import { NotFound } from "../domain/errors";
import { parseId, validate } from "../domain/validate";
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

export function createRule(deps: Pick<Deps, "db" | "events" | "now">, input: RuleInput): AiRoutingRule {
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
  const row = deps.db.update(aiRoutingRules).set(input).where(eq(aiRoutingRules.id, id)).returning().get();
  deps.events.publish({ type: "ai-rules-updated", data: { id, action: "updated" } });
  return toRule(row);
}

export function deleteRule(deps: Pick<Deps, "db" | "events">, rawId: string | undefined): void {
  const { id } = find(deps, rawId);
  deps.db.delete(aiRoutingRules).where(eq(aiRoutingRules.id, id)).run();
  deps.events.publish({ type: "ai-rules-updated", data: { id, action: "deleted" } });
}
