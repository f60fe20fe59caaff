/** The arguments of the tools an AI call's model calls (sideband.ts runs them; ADR 0042), as the model sends them. */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema";

export const transferArgs = lazySchema(() =>
  z.object({ extension: z.union([z.string(), z.number()]).transform((v) => String(v).trim()) }),
);

export const messageArgs = lazySchema(() =>
  z.object({
    recipient: z.string().trim().min(1).max(200),
    message: z.string().trim().min(1).max(4000),
    callback_number: z.string().trim().max(50).optional().nullable(),
  }),
);

/** Arguments as the model sent them: a JSON object, or null when they are not one. */
export function parseArgs(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
