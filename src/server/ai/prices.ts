/**
 * The price table per model that turns a call's usage into its cost (ADR 0070): the built-in defaults while
 * the table is empty, else exactly the rows an administrator saved (the whole table, in one transaction).
 */
import { aiPrices } from "../../db/schema";
import { type AiPrices, type AiPricesRequest, DEFAULT_PRICES, type ModelPrice } from "../../shared/ai/measures";
import type { Deps } from "../core/deps";

type PriceRow = typeof aiPrices.$inferSelect;

const toPrice = ({ updatedAt: _at, ...price }: PriceRow): ModelPrice => price;

/** GET /api/ai/prices: the saved table by model name, or the defaults (`updatedAt: null`) while none is saved. */
export function listPrices(deps: Pick<Deps, "db">): AiPrices {
  const rows = deps.db.select().from(aiPrices).orderBy(aiPrices.model).all();
  if (!rows.length) return { items: DEFAULT_PRICES.map((p) => ({ ...p })), updatedAt: null };
  const updatedAt = Math.max(...rows.map((r) => r.updatedAt.getTime()));
  return { items: rows.map(toPrice), updatedAt: new Date(updatedAt).toISOString() };
}

/** The price of a model as the table says now; null when the table has no row for it. */
export function priceFor(deps: Pick<Deps, "db">, model: string): ModelPrice | null {
  return listPrices(deps).items.find((p) => p.model === model) ?? null;
}

/**
 * PUT /api/ai/prices: replaces the table with these rows (validated by `aiPricesSchema`: every price present,
 * none negative, no model twice), in one transaction, and announces it.
 */
export function savePrices(deps: Pick<Deps, "db" | "events" | "now">, body: AiPricesRequest): AiPrices {
  const at = new Date(deps.now());
  deps.db.transaction((tx) => {
    tx.delete(aiPrices).run();
    for (const p of body.items) {
      tx.insert(aiPrices)
        .values({ ...p, updatedAt: at })
        .run();
    }
  });
  deps.events.publish({ type: "ai-prices-updated", data: { models: body.items.length } });
  return listPrices(deps);
}
