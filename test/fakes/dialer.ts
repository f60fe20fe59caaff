/**
 * Fake cloud web-dialer backend that receives the console's signed webhook push
 * (reference: services.md §6 "Signed outbound webhook (push)", signing as in §4 / Standard Webhooks).
 *
 * Accepts `POST` on any path (the reference names no path; each delivery records the path it came to), verifies
 * `webhook-id`, `webhook-timestamp`, `webhook-signature` against the configured secret with a 300 s tolerance,
 * records the delivery and answers 200 with an empty body. Deliveries whose `webhook-id` was already seen are
 * answered 200 again and recorded with `duplicate: true` (the receiver "dedups on id"); they do not update
 * `state.extensions`.
 *
 * Not in the reference, chosen here: the 401 body `{error:"<reason>"}` for a bad/missing signature or stale
 * timestamp, 400 `{error:"invalid_json"}` for a signed body that is not a JSON object, 405 for non-POST.
 * Payload fields follow the reference sketch (`event`, `extension`, `display_name`, `sip_user`, `wss_url`, …)
 * but the fake does not require any of them.
 */
import {
  type CommonOptions,
  type CommonState,
  type FakeRequest,
  type FakeServer,
  INVALID,
  isObject,
  json,
  parseJsonBody,
  startFake,
} from "./common";
import {
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SECONDS,
  webhookHeaders,
} from "./standard-webhooks";

export { generateWebhookSecret, signWebhook, verifyWebhook, webhookHeaders };

export interface DialerDelivery {
  webhookId: string;
  /** unix seconds from `webhook-timestamp` */
  timestamp: number;
  path: string;
  /** Parsed JSON body. */
  payload: Record<string, unknown>;
  rawBody: string;
  duplicate: boolean;
  receivedAt: number;
}

export interface DialerState extends CommonState {
  /** Verified deliveries in arrival order (duplicates included, flagged). */
  deliveries: DialerDelivery[];
  /** Requests that failed verification: reason and the raw request. */
  rejected: Array<{ reason: string; path: string; headers: Record<string, string>; rawBody: string }>;
  /** Latest payload per `extension` field (first delivery of each webhook-id only). */
  extensions: Record<string, Record<string, unknown>>;
  /** The shared secret, `whsec_<base64>`. Can be changed to test rotation. */
  secret: string;
  toleranceSeconds: number;
  /** Clock for the timestamp check, unix seconds. */
  nowSeconds: () => number;
}

export interface DialerOptions extends CommonOptions {
  /** Shared secret (default: a fresh `generateWebhookSecret()`, readable from `state.secret`). */
  secret?: string;
  toleranceSeconds?: number;
  nowSeconds?: () => number;
}

export async function startFakeDialer(options: DialerOptions = {}): Promise<FakeServer<DialerState>> {
  const state: DialerState = {
    failNext: null,
    delayMs: options.delayMs ?? 0,
    deliveries: [],
    rejected: [],
    extensions: {},
    secret: options.secret ?? generateWebhookSecret(),
    toleranceSeconds: options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS,
    nowSeconds: options.nowSeconds ?? (() => Math.floor(Date.now() / 1000)),
  };

  function handle(req: FakeRequest): Response {
    if (req.method !== "POST") return json(405, { error: "method_not_allowed" }, { allow: "POST" });
    const result = verifyWebhook(state.secret, req.headers, req.rawBody, {
      toleranceSeconds: state.toleranceSeconds,
      nowSeconds: state.nowSeconds(),
    });
    if (!result.ok) {
      state.rejected.push({ reason: result.reason, path: req.path, headers: req.call.headers, rawBody: req.rawBody });
      return json(401, { error: result.reason });
    }
    const payload = parseJsonBody(req.rawBody);
    if (payload === INVALID || !isObject(payload)) return json(400, { error: "invalid_json" });
    const duplicate = state.deliveries.some((d) => d.webhookId === result.id);
    state.deliveries.push({
      webhookId: result.id,
      timestamp: result.timestamp,
      path: req.path,
      payload,
      rawBody: req.rawBody,
      duplicate,
      receivedAt: Date.now(),
    });
    const ext = payload.extension;
    if (!duplicate && (typeof ext === "string" || typeof ext === "number")) state.extensions[String(ext)] = payload;
    return new Response(null, { status: 200 });
  }

  return startFake(state, "", handle);
}
