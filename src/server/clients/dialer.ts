import { httpRequest } from "./http";
import { signStandardWebhook } from "./signed-webhook";

// The signing and its check are Standard Webhooks' one implementation (./signed-webhook).
export { signStandardWebhook, verifyStandardWebhook, type WebhookVerification } from "./signed-webhook";

const SERVICE = "Web dialer";

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
