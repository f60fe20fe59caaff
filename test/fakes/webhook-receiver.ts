/**
 * A receiver of Standard Webhooks (standardwebhooks.com, "Verifying webhooks"), as someone wiring the
 * console's alert webhook into their own system would write it: every POST must carry `webhook-id`,
 * `webhook-timestamp` (Unix seconds, within 5 minutes of now either way) and `webhook-signature`, a
 * space-separated list of `v1,<base64 HMAC-SHA256>` of "<id>.<timestamp>.<raw body>" keyed with the
 * base64-decoded part of the `whsec_` secret. The check is this folder's own (`standard-webhooks.ts`), not
 * the console's signer, so a signing bug cannot pass by agreeing with itself.
 *
 * A verified delivery is answered `204`; a refused one `401 {error}` (the fake's choice: the spec leaves
 * the refusal's shape to the receiver). `state.answer` forces a status for verified deliveries (e.g. 500).
 */
import {
  type CommonOptions,
  type CommonState,
  type FakeRequest,
  type FakeServer,
  json,
  parseJsonBody,
  startFake,
} from "./common";
import { generateWebhookSecret, verifyWebhook, WEBHOOK_TOLERANCE_SECONDS } from "./standard-webhooks";

export interface ReceivedWebhook {
  id: string;
  timestamp: number;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  payload: unknown;
  at: number;
}

export interface WebhookReceiverState extends CommonState {
  /** The secret deliveries are checked with; settable (e.g. to the one the console made). */
  secret: string;
  received: ReceivedWebhook[];
  refused: Array<{ reason: string; headers: Record<string, string>; rawBody: string }>;
  /** A status to answer verified deliveries with instead of 204 (cleared by setting null). */
  answer: number | null;
}

export function startFakeWebhookReceiver(
  options: CommonOptions & { secret?: string } = {},
): FakeServer<WebhookReceiverState> {
  const state: WebhookReceiverState = {
    failNext: null,
    delayMs: options.delayMs ?? 0,
    secret: options.secret ?? generateWebhookSecret(),
    received: [],
    refused: [],
    answer: null,
  };
  function handle(req: FakeRequest): Response {
    if (req.method !== "POST") return json(405, { error: "method_not_allowed" }, { allow: "POST" });
    const check = verifyWebhook(state.secret, req.headers, req.rawBody, {
      toleranceSeconds: WEBHOOK_TOLERANCE_SECONDS,
    });
    if (!check.ok) {
      state.refused.push({ reason: check.reason, headers: req.call.headers, rawBody: req.rawBody });
      return json(401, { error: check.reason });
    }
    state.received.push({
      id: check.id,
      timestamp: check.timestamp,
      path: req.path,
      headers: req.call.headers,
      rawBody: req.rawBody,
      payload: parseJsonBody(req.rawBody),
      at: Date.now(),
    });
    return state.answer ? json(state.answer, { error: "forced" }) : new Response(null, { status: 204 });
  }
  return startFake(state, "", handle);
}
