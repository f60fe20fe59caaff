/**
 * AI voice records: stored rows → the shapes the API returns (dates as ISO
 * strings, no internal delivery ids).
 */
import type { aiAssistants, aiCallLogs, aiRoutingRules, callTranscripts } from "../../db/schema";
import type { AiAssistant } from "../../shared/ai/assistants";
import type { AiCallLog } from "../../shared/ai/calls";
import type { AiRoutingRule } from "../../shared/ai/routing-rules";
import type { CallTranscript } from "../../shared/ai/transcripts";

export type AssistantRow = typeof aiAssistants.$inferSelect;
export type TranscriptRow = typeof callTranscripts.$inferSelect;
export type RuleRow = typeof aiRoutingRules.$inferSelect;
export type CallLogRow = typeof aiCallLogs.$inferSelect;

export const toAssistant = (r: AssistantRow): AiAssistant => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

export const toTranscript = (r: TranscriptRow): CallTranscript => ({ ...r, createdAt: r.createdAt.toISOString() });

export const toRule = (r: RuleRow): AiRoutingRule => ({ ...r, createdAt: r.createdAt.toISOString() });

export const toCallLog = ({ webhookId: _id, ...r }: CallLogRow): AiCallLog => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
});
