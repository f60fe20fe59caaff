/**
 * Standard Webhooks signing as OpenAI uses it (reference: services.md §4 "Webhook signature check", §6):
 * secret `whsec_<base64>` → base64-decode the part after the prefix → HMAC-SHA256 over
 * "<webhook-id>.<webhook-timestamp>.<raw body>" → header `webhook-signature: v1,<base64>`; the header may carry
 * several space-separated `v1,<sig>` values; default timestamp tolerance 300 s.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** A random secret in the `whsec_<base64>` form (32 random bytes). */
export function generateWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` — the value of the `webhook-signature` header. */
export function signWebhook(secret: string, id: string, timestamp: number | string, body: string): string {
  const mac = createHmac("sha256", secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The three headers for one delivery (plus content-type). `timestamp` is unix seconds. */
export function webhookHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook(secret, id, timestamp, body),
  };
}

export type WebhookVerifyResult =
  | { ok: true; id: string; timestamp: number }
  | {
      ok: false;
      reason: "missing_headers" | "bad_timestamp" | "timestamp_too_old" | "timestamp_too_new" | "bad_signature";
    };

/**
 * Verifies a delivery. `headers` may be a Headers object or a lower-case record. `nowSeconds` defaults to the
 * current time.
 */
export function verifyWebhook(
  secret: string,
  headers: Headers | Record<string, string | undefined>,
  rawBody: string,
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): WebhookVerifyResult {
  const get = (k: string) => (headers instanceof Headers ? headers.get(k) : headers[k]) ?? null;
  const id = get("webhook-id");
  const ts = get("webhook-timestamp");
  const sigHeader = get("webhook-signature");
  if (!id || !ts || !sigHeader) return { ok: false, reason: "missing_headers" };
  if (!/^\d+$/.test(ts)) return { ok: false, reason: "bad_timestamp" };
  const timestamp = Number(ts);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (now - timestamp > tolerance) return { ok: false, reason: "timestamp_too_old" };
  if (timestamp - now > tolerance) return { ok: false, reason: "timestamp_too_new" };
  const expected = Buffer.from(signWebhook(secret, id, ts, rawBody).slice(3), "base64");
  for (const part of sigHeader.split(" ")) {
    const [version, sig] = part.split(",", 2);
    if (version !== "v1" || !sig) continue;
    const given = Buffer.from(sig, "base64");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, id, timestamp };
  }
  return { ok: false, reason: "bad_signature" };
}
