import { type AiPricesRequest, aiPricesSchema } from "../../shared/ai/measures";
import { listPrices, savePrices } from "../ai/prices";
import { type RouteDef, route } from "../context";
import { json } from "../http";

/** The price table per model that turns an AI call's usage into its cost (ADR 0070). */
export const aiPriceRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/ai/prices",
    summary:
      "The AI price table per model (USD per million tokens of each kind); the built-in defaults with updatedAt null until one is saved",
    handler: ({ app }) => json(listPrices(app)),
  }),
  route<AiPricesRequest>({
    method: "PUT",
    path: "/api/ai/prices",
    summary:
      "Replace the AI price table (administrators): every price of every model, none negative, no model twice; models not listed are removed",
    minRole: "admin",
    body: aiPricesSchema,
    publishes: ["ai-prices-updated"],
    audit: { action: "ai.prices.update", object: "ai-prices", load: (app) => ({ id: "prices", ...tableOf(app) }) },
    handler: ({ app, body }) => json(savePrices(app, body)),
  }),
];

/** The table as the audit compares it: one field per model. */
const tableOf = (app: Parameters<typeof listPrices>[0]) =>
  Object.fromEntries(listPrices(app).items.map(({ model, ...p }) => [model, JSON.stringify(p)]));
