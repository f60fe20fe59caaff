import { aiRoutingRulePatchSchema, aiRoutingRuleSchema, routeFactsSchema } from "../../shared/ai/routing-rules";
import { routeDecision } from "../ai/routing";
import { createRule, deleteRule, dependentsOfRule, listRules, updateRule } from "../ai/rules";
import { loadById, type RouteDef, route } from "../context";
import { json } from "../http";

/** AI routing rules and the decision they make for a call's facts. */
export const aiRuleRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ai/routing-rules",
    summary: "List routing rules in evaluation order",
    etag: ["ai_routing_rules"],
    handler: ({ app }) => json(listRules(app)),
  }),
  route({
    method: "POST",
    path: "/api/ai/routing-rules",
    summary: "Create a routing rule",
    body: aiRoutingRuleSchema,
    publishes: ["ai-rules-updated"],
    audit: { action: "ai.rule.create", object: "ai-rule", load: loadById(listRules) },
    handler: ({ app, body }) => json(createRule(app, body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/ai/routing-rules/:id",
    summary: "Change some fields of a routing rule",
    body: aiRoutingRulePatchSchema,
    publishes: ["ai-rules-updated"],
    audit: { action: "ai.rule.update", object: "ai-rule", load: loadById(listRules) },
    handler: ({ app, params, body }) => json(updateRule(app, params.id, body)),
  }),
  route({
    method: "DELETE",
    path: "/api/ai/routing-rules/:id",
    summary: "Delete a routing rule; answers an undo token",
    publishes: ["ai-rules-updated"],
    audit: { action: "ai.rule.delete", object: "ai-rule", load: loadById(listRules) },
    handler: ({ app, params }) => json(deleteRule(app, params.id)),
  }),
  route({
    method: "GET",
    path: "/api/ai/routing-rules/:id/dependents",
    summary: "What depends on a routing rule (none in the console); any dependent blocks the delete",
    handler: ({ app, params }) => json(dependentsOfRule(app, params.id)),
  }),
  route({
    method: "POST",
    path: "/api/ai/route",
    summary: "What the routing rules decide for a call with these facts",
    body: routeFactsSchema,
    storesNothing: "Only computes the routing decision for the facts given",
    audit: { skip: "Only computes a routing decision for the facts given; nothing changes" },
    handler: ({ app, body }) => json(routeDecision(app, body)),
  }),
];
