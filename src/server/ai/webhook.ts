/**
 * OpenAI's project webhook. There is no session: the Standard-Webhooks
 * signature over the raw body, with the configured secret, is the
 * authentication. Nothing is stored and nothing is sent to OpenAI unless it
 * verifies. Only `realtime.call.incoming` is acted on; other event types are
 * acknowledged and ignored (docs/decisions/0007-ai-routing-and-webhook.md).
 */
import { openAiWebhookEventSchema, realtimeCallIncomingSchema } from "../../shared/ai";
import { verifyStandardWebhook, type WebhookVerification } from "../clients/dialer";
import { Invalid, Unauthenticated, Unavailable } from "../domain/errors";
import { fieldErrors } from "../domain/validate";
import { answerIncomingCall, type CallDeps, type CallResult } from "./calls";

type Refusal = Extract<WebhookVerification, { ok: false }>["reason"];

/** Malformed deliveries are invalid (400); a wrong signature or a stale timestamp is unauthenticated (401). */
const REFUSALS: Record<Refusal, () => Error> = {
  missing_headers: () => new Invalid("Missing webhook-id, webhook-timestamp or webhook-signature header"),
  bad_timestamp: () => new Invalid("webhook-timestamp is not a Unix time in seconds"),
  stale_timestamp: () => new Unauthenticated("webhook-timestamp is outside the 5-minute tolerance"),
  bad_signature: () => new Unauthenticated("Webhook signature does not match"),
};

export type WebhookAnswer = { received: true; ignored: string } | ({ received: true } & CallResult);

/** Verifies one delivery (headers + the raw body as sent) and handles the event it carries. */
export async function receiveOpenAiWebhook(deps: CallDeps, headers: Headers, rawBody: string): Promise<WebhookAnswer> {
  const secret = deps.credentials.values("openai").webhookSecret;
  if (!secret) throw new Unavailable("The OpenAI webhook signing secret is not configured");
  const check = verifyStandardWebhook(secret, headers, rawBody, Math.floor(deps.now() / 1000));
  if (!check.ok) {
    if (deps.config.logRequests)
      console.warn(`${new Date(deps.now()).toISOString()} openai-webhook refused: ${check.reason}`);
    throw REFUSALS[check.reason]();
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    throw new Invalid("Malformed JSON in request body");
  }
  const event = openAiWebhookEventSchema.safeParse(body);
  if (!event.success) throw new Invalid("Not an OpenAI webhook event", fieldErrors(event.error));
  if (event.data.type !== "realtime.call.incoming") return { received: true, ignored: event.data.type };
  const data = realtimeCallIncomingSchema.safeParse(event.data.data);
  if (!data.success) throw new Invalid("Malformed realtime.call.incoming event", fieldErrors(data.error));
  const result = await answerIncomingCall(deps, {
    callId: data.data.call_id,
    webhookId: check.id,
    sipHeaders: data.data.sip_headers,
  });
  return { received: true, ...result };
}
