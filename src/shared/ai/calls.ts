/**
 * Calls through OpenAI's SIP connector: where the connector and the webhook are (GET /api/ai/sip-uri) and the
 * log of what the console decided for each call. ADR 0007.
 */

export type CallOutcome = "accept" | "reject" | "refer" | "error";

export interface AiCallLog {
  id: number;
  callId: string;
  assistantId: number | null;
  ruleId: number | null;
  calledNumber: string | null;
  callerNumber: string | null;
  outcome: CallOutcome;
  detail: string | null;
  /** What happened on an accepted call's sideband: tools run, refusals, drops, OpenAI errors (ADR 0042). */
  events: string[];
  createdAt: string;
}

/** GET /api/ai/sip-uri */
export interface SipUriInfo {
  /** `sip:<project id>@sip.api.openai.com;transport=tls`, or null without a project id. */
  uri: string | null;
  webhookPath: string;
  apiKeySet: boolean;
  webhookSecretSet: boolean;
}

export const WEBHOOK_PATH = "/api/ai/openai/webhook";
export const sipUriFor = (projectId: string) => `sip:${projectId}@sip.api.openai.com;transport=tls`;
