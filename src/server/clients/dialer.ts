import { nodeCrypto } from "../lazy-node";
import { httpRequest } from "./http";

const SERVICE = "Web dialer";

/** Standard Webhooks signature: base64 HMAC-SHA256 of "id.timestamp.body" with the decoded whsec_ secret. */
export function signStandardWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
  return `v1,${nodeCrypto().createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

export type WebhookVerification =
  | { ok: true; id: string; timestamp: number }
  | { ok: false; reason: "missing_headers" | "bad_timestamp" | "stale_timestamp" | "bad_signature" };

/**
 * Checks a Standard Webhooks delivery (standardwebhooks.com): the `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` headers, the timestamp within
 * `toleranceSeconds` of now either way, and any of the space-separated `v1,<sig>`
 * values equal (constant time) to the HMAC of `id.timestamp.rawBody`.
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

/** Pushes web-dialer configs to the web dialer as Standard Webhooks (signed POSTs). */
export class DialerClient {
  constructor(
    private readonly url: string,
    private readonly secret: string,
    private readonly now: () => number = Date.now,
    /** The operation's overall deadline (`deadline()` in ./http), when it sends several. */
    private readonly signal?: AbortSignal,
  ) {}

  async send(payload: Record<string, unknown>): Promise<void> {
    const body = JSON.stringify(payload);
    const id = `msg_${crypto.randomUUID()}`;
    const timestamp = Math.floor(this.now() / 1000);
    await httpRequest({
      service: SERVICE,
      method: "POST",
      url: this.url,
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signStandardWebhook(this.secret, id, timestamp, body),
      },
      body,
      signal: this.signal,
      secrets: [this.secret],
    });
  }
}
