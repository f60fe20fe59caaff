import { eq } from "drizzle-orm";
import { aiRoutingRules } from "../../db/schema";
import { aiRoutingRuleSchema, routeFactsSchema } from "../../shared/ai";
import { parsePatch, toRule } from "../ai/records";
import { decideRoute, rulesInOrder } from "../ai/routing";
import type { AppContext, RouteDef } from "../context";
import { HttpError, json, noContent, parseBody, parseId } from "../http";

const find = (app: AppContext, raw: string | undefined) => {
  const id = parseId(raw, "Routing rule");
  const row = app.db.select().from(aiRoutingRules).where(eq(aiRoutingRules.id, id)).get();
  if (!row) throw new HttpError(404, "Routing rule not found");
  return row;
};

/**
 * Routing rules (spec sections 2, 3, 5, 7, 9) and the decision they make.
 * Conditions and parameters are stored as the text given (the spec does not
 * check JSON validity); a rule whose conditions are not a JSON object never matches.
 */
export const aiRuleRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/api/ai/routing-rules",
    handler: ({ app }) => json(rulesInOrder(app).map(toRule)),
  },
  {
    method: "POST",
    path: "/api/ai/routing-rules",
    handler: async ({ app, req }) => {
      const input = await parseBody(req, aiRoutingRuleSchema);
      const row = app.db
        .insert(aiRoutingRules)
        .values({ ...input, createdAt: new Date(app.now()) })
        .returning()
        .get();
      return json(toRule(row), 201);
    },
  },
  {
    method: "PATCH",
    path: "/api/ai/routing-rules/:id",
    handler: async ({ app, req, params }) => {
      const { id, createdAt: _c, ...current } = find(app, params.id);
      const input = await parsePatch(req, aiRoutingRuleSchema, current);
      const row = app.db.update(aiRoutingRules).set(input).where(eq(aiRoutingRules.id, id)).returning().get();
      return json(toRule(row));
    },
  },
  {
    method: "DELETE",
    path: "/api/ai/routing-rules/:id",
    handler: ({ app, params }) => {
      const { id } = find(app, params.id);
      app.db.delete(aiRoutingRules).where(eq(aiRoutingRules.id, id)).run();
      return noContent();
    },
  },
  {
    method: "POST",
    path: "/api/ai/route",
    handler: async ({ app, req }) => {
      const facts = await parseBody(req, routeFactsSchema);
      return json(decideRoute(app, facts).decision);
    },
  },
];
