/**
 * AI voice records: stored rows → the shapes the API returns (dates as ISO
 * strings, no internal delivery ids).
 */
import type { aiAssistants, aiCallLogs, aiRoutingRules, callTranscripts } from "../../db/schema";
import type { CallAnalysisResult } from "../../shared/ai/analysis";
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

/** `analysis`: the call's post-call analysis from its log row (ADR 0071), when the reader joined it. */
export const toTranscript = (r: TranscriptRow, analysis: CallAnalysisResult | null = null): CallTranscript => ({
  ...r,
  analysis,
  createdAt: r.createdAt.toISOString(),
});

export const toRule = (r: RuleRow): AiRoutingRule => ({ ...r, createdAt: r.createdAt.toISOString() });

/** The call log's own fields: the measures and the analysis are the call's page (`call-detail.ts`), not the list. */
export const toCallLog = (r: CallLogRow): AiCallLog => ({
  id: r.id,
  callId: r.callId,
  assistantId: r.assistantId,
  ruleId: r.ruleId,
  calledNumber: r.calledNumber,
  callerNumber: r.callerNumber,
  outcome: r.outcome,
  detail: r.detail,
  events: r.events,
  createdAt: r.createdAt.toISOString(),
});
