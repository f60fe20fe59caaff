/**
 * AI voice records: rows → wire shapes (dates as ISO strings, never a token
 * hash), and the PATCH reader the AI routes share.
 */
import type { z } from "zod";
import type { aiAssistants, aiCallLogs, aiRoutingRules, apiTokens, callTranscripts } from "../../db/schema";
import type { AiAssistant, AiCallLog, AiRoutingRule, ApiToken, CallTranscript } from "../../shared/ai";
import { parseJsonObject, validate } from "../http";

type AssistantRow = typeof aiAssistants.$inferSelect;
type TranscriptRow = typeof callTranscripts.$inferSelect;
type RuleRow = typeof aiRoutingRules.$inferSelect;
type TokenRow = typeof apiTokens.$inferSelect;
type CallLogRow = typeof aiCallLogs.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toAssistant = (r: AssistantRow): AiAssistant => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

export const toTranscript = (r: TranscriptRow): CallTranscript => ({ ...r, createdAt: r.createdAt.toISOString() });

export const toRule = (r: RuleRow): AiRoutingRule => ({ ...r, createdAt: r.createdAt.toISOString() });

export const toToken = ({ tokenHash: _hash, ...r }: TokenRow): ApiToken => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
  lastUsedAt: iso(r.lastUsedAt),
  revokedAt: iso(r.revokedAt),
});

export const toCallLog = ({ webhookId: _id, ...r }: CallLogRow): AiCallLog => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
});

/**
 * A PATCH body: the given fields over the current record, validated with the
 * full create schema (a partial schema would fill in defaults for the fields
 * left out). Field-level 400 on failure, like parseBody.
 */
export async function parsePatch<S extends z.ZodType>(
  req: Request,
  schema: S,
  current: Record<string, unknown>,
): Promise<z.output<S>> {
  return validate(schema, { ...current, ...parseJsonObject(await req.text()) });
}
