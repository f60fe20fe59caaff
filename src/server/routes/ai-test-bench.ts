import { mintTestBenchSecret } from "../ai/test-bench";
import { type RouteDef, route } from "../context";
import { json } from "../http";

/** The test bench: a browser's WebRTC call to one assistant (ADR 0073). */
export const aiTestBenchRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/api/ai/assistants/:id/client-secret",
    summary:
      "Mint a 60-second OpenAI Realtime client secret scoped to this active assistant's session, and the URL the browser posts its SDP offer to; 404 for an unknown assistant, 400 when inactive or OpenAI is not configured",
    storesNothing:
      "Mints a short-lived secret at OpenAI for the browser's test call; nothing the console shows changes",
    publishes: [],
    audit: {
      action: "ai.assistant.test-call",
      object: "ai-assistant",
      // The secret itself is never recorded: only until when it works.
      detail: (answer) =>
        `Test bench client secret, valid until ${(answer as { expiresAt?: string }).expiresAt ?? "?"}`,
    },
    handler: async ({ app, params }) => json(await mintTestBenchSecret(app, params.id)),
  }),
];
