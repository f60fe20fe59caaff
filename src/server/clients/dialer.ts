import { createHmac, randomUUID } from "node:crypto";
import { httpRequest } from "./http";

const SERVICE = "Web dialer";

/** Standard Webhooks signature: base64 HMAC-SHA256 of "id.timestamp.body" with the decoded whsec_ secret. */
export function signStandardWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** Pushes web-dialer configs as signed webhooks (services.md §6). */
export class DialerClient {
  constructor(
    private readonly url: string,
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  async send(payload: Record<string, unknown>): Promise<void> {
    const body = JSON.stringify(payload);
    const id = `msg_${randomUUID()}`;
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
      secrets: [this.secret],
    });
  }
}
