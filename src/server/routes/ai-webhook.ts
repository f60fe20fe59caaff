import { openAiWebhookEventSchema, realtimeCallIncomingSchema } from "../../shared/ai";
import { answerIncomingCall } from "../ai/calls";
import { verifyStandardWebhook } from "../clients/dialer";
import type { RouteDef } from "../context";
import { fieldErrors, HttpError, json } from "../http";

const REFUSALS = {
  missing_headers: [400, "Missing webhook-id, webhook-timestamp or webhook-signature header"],
  bad_timestamp: [400, "webhook-timestamp is not a Unix time in seconds"],
  stale_timestamp: [401, "webhook-timestamp is outside the 5-minute tolerance"],
  bad_signature: [401, "Webhook signature does not match"],
} as const;

/**
 * OpenAI's project webhook (services.md §4). No session: the Standard-Webhooks
 * signature over the raw body, with the configured secret, is the
 * authentication. Nothing is stored and nothing is sent to OpenAI unless it
 * verifies. Other event types are acknowledged and ignored.
 */
export const aiWebhookRoutes: RouteDef[] = [
  {
    method: "POST",
    path: "/api/ai/openai/webhook",
    auth: "public",
    handler: async ({ app, req }) => {
      const secret = app.credentials.values("openai").webhookSecret;
      if (!secret) throw new HttpError(503, "The OpenAI webhook signing secret is not configured");
      const raw = await req.text();
      const check = verifyStandardWebhook(secret, req.headers, raw, Math.floor(app.now() / 1000));
      if (!check.ok) {
        const [status, message] = REFUSALS[check.reason];
        if (app.config.logRequests)
          console.warn(`${new Date(app.now()).toISOString()} openai-webhook refused: ${check.reason}`);
        throw new HttpError(status, message);
      }
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        throw new HttpError(400, "Malformed JSON in request body");
      }
      const event = openAiWebhookEventSchema.safeParse(body);
      if (!event.success) throw new HttpError(400, "Not an OpenAI webhook event", fieldErrors(event.error));
      if (event.data.type !== "realtime.call.incoming") return json({ received: true, ignored: event.data.type });
      const data = realtimeCallIncomingSchema.safeParse(event.data.data);
      if (!data.success) throw new HttpError(400, "Malformed realtime.call.incoming event", fieldErrors(data.error));
      const result = await answerIncomingCall(app, {
        callId: data.data.call_id,
        webhookId: check.id,
        sipHeaders: data.data.sip_headers,
      });
      return json({ received: true, ...result });
    },
  },
];
