import { receiveOpenAiWebhook } from "../ai/webhook";
import { type RouteDef, route } from "../context";
import { json } from "../http";

/** OpenAI's project webhook: authenticated by its signature, not by a session. */
export const aiWebhookRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/api/ai/openai/webhook",
    summary: "OpenAI project webhook: answers realtime.call.incoming (Standard-Webhooks signature)",
    auth: "public",
    rawBody:
      "An OpenAI webhook event as JSON ({type, id, data}), signed with the Standard-Webhooks headers " +
      "webhook-id, webhook-timestamp and webhook-signature over the raw bytes",
    publishes: ["ai-calls-updated"],
    audit: { skip: "Incoming calls signalled by OpenAI: call activity, recorded in the AI call log" },
    handler: async ({ app, req }) => json(await receiveOpenAiWebhook(app, req.headers, await req.text())),
  }),
];
