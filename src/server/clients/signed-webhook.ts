/**
 * Standard Webhooks (standardwebhooks.com), both ways: the one HMAC the console signs with (the web dialer
 * push, alert webhooks) and checks with (OpenAI's project webhook), and the signed POST of an alert channel.
 * A secret is `whsec_` and base64 of its key bytes; the signature is base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>" in `webhook-signature: v1,<sig>`.
 */
import { nodeCrypto } from "../lazy-node";
import { httpRequest } from "./http";

/** Standard Webhooks signature: base64 HMAC-SHA256 of "id.timestamp.body" with the decoded whsec_ secret. */
export function signStandardWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
  return `v1,${nodeCrypto().createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

export type WebhookVerification =
  | { ok: true; id: string; timestamp: number }
  | { ok: false; reason: "missing_headers" | "bad_timestamp" | "stale_timestamp" | "bad_signature" };

/**
 * Checks a Standard Webhooks delivery: the `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * headers, the timestamp within `toleranceSeconds` of now either way, and any of the space-separated
 * `v1,<sig>` values equal (constant time) to the HMAC of `id.timestamp.rawBody`.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: Headers,
  rawBody: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): WebhookVerification {
  const id = headers.get("webhook-id");
  const ts = headers.get("webhook-timestamp");
  const signatures = headers.get("webhook-signature");
  if (!id || !ts || !signatures) return { ok: false, reason: "missing_headers" };
  if (!/^\d{1,12}$/.test(ts)) return { ok: false, reason: "bad_timestamp" };
  const timestamp = Number(ts);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: "stale_timestamp" };
  const expected = Buffer.from(signStandardWebhook(secret, id, timestamp, rawBody).slice(3), "base64");
  for (const part of signatures.split(" ")) {
    const comma = part.indexOf(",");
    if (comma < 0 || part.slice(0, comma) !== "v1") continue;
    const given = Buffer.from(part.slice(comma + 1), "base64");
    if (given.length === expected.length && nodeCrypto().timingSafeEqual(given, expected))
      return { ok: true, id, timestamp };
  }
  return { ok: false, reason: "bad_signature" };
}

/** A new signing secret as the spec has it: `whsec_` and 32 random bytes in base64. */
export function generateSigningSecret(): string {
  return `whsec_${nodeCrypto().randomBytes(32).toString("base64")}`;
}

export interface SignedDelivery {
  url: string;
  secret: string;
  /** The JSON text sent, exactly as signed. */
  body: string;
  /** Unix seconds for `webhook-timestamp`. */
  timestamp: number;
  /** `webhook-id`; a new `msg_…` when not given (a retry of one message sends the same id). */
  id?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** POSTs one signed message; a non-2xx answer is a ServiceError with the receiver's own text (secret redacted). */
export async function postSignedWebhook(d: SignedDelivery): Promise<{ id: string; status: number }> {
  const id = d.id ?? `msg_${crypto.randomUUID().replace(/-/g, "")}`;
  let host = d.url;
  try {
    host = new URL(d.url).host;
  } catch {}
  const res = await httpRequest({
    service: `The webhook at ${host}`,
    method: "POST",
    url: d.url,
    headers: {
      "Content-Type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(d.timestamp),
      "webhook-signature": signStandardWebhook(d.secret, id, d.timestamp, d.body),
    },
    body: d.body,
    signal: d.signal,
    timeoutMs: d.timeoutMs,
    secrets: [d.secret],
  });
  return { id, status: res.status };
}
