/**
 * OpenAI's project webhook. There is no session: the Standard-Webhooks
 * signature over the raw body, with the configured secret, is the
 * authentication, checked by the official SDK (`webhooks.verifySignature`,
 * ADR 0073). Nothing is stored and nothing is sent to OpenAI unless it
 * verifies. Only `realtime.call.incoming` is acted on; other event types are
 * acknowledged and ignored (docs/decisions/0007-ai-routing-and-webhook.md).
 *
 * Replays: a verified `webhook-id` is remembered for the signature tolerance
 * window. The claim is made in the same turn the signature is found good, with
 * no await between looking for the id and storing it, so the same delivery
 * sent again, or 20 times at once, is acted on once; the copies get the first
 * one's answer marked `duplicate` (ADR 0018).
 */
import { z } from "zod";
import type { Db } from "../../db/client";
import { lazySchema } from "../../shared/lazy-schema";
import { verifyOpenAiWebhook, type WebhookRefusal } from "../clients/openai";
import { Invalid, Unauthenticated, Unavailable } from "../core/errors";
import { fieldErrors } from "../core/validate";
import { answerIncomingCall, type CallDeps, type CallResult } from "./calls";

/** A delivery to POST /api/ai/openai/webhook (an OpenAI project webhook); only `realtime.call.incoming` is acted on. */
const openAiWebhookEventSchema = lazySchema(() =>
  z.object({
    type: z.string({ error: "Event type is required" }).max(100),
    id: z.string().max(200).optional(),
    data: z.unknown().optional(),
  }),
);

/** The `data` of a `realtime.call.incoming` event: the call's id and the SIP headers of its INVITE. */
const realtimeCallIncomingSchema = lazySchema(() =>
  z.object({
    call_id: z
      .string({ error: "call_id is required" })
      .regex(/^[A-Za-z0-9_-]{1,200}$/, "call_id must be letters, digits, _ or -"),
    sip_headers: z
      .array(z.object({ name: z.string().max(200), value: z.string().max(4000) }), {
        error: "sip_headers must be a list of {name, value}",
      })
      .max(200)
      .default([]),
  }),
);

type Refusal = WebhookRefusal | "missing_headers";

/** Malformed deliveries are invalid (400); a wrong signature or a stale timestamp is unauthenticated (401). */
const REFUSALS: Record<Refusal, () => Error> = {
  missing_headers: () => new Invalid("Missing webhook-id, webhook-timestamp or webhook-signature header"),
  bad_timestamp: () => new Invalid("webhook-timestamp is not a Unix time in seconds"),
  stale_timestamp: () => new Unauthenticated("webhook-timestamp is outside the 5-minute tolerance"),
  bad_signature: () => new Unauthenticated("Webhook signature does not match"),
};

export type WebhookAnswer =
  | { received: true; ignored: string; duplicate?: boolean }
  | ({ received: true } & CallResult);

/** How long either side of "now" a signed timestamp is accepted (Standard Webhooks' default). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

interface Seen {
  /** Until when (ms) the id must be remembered: past it the signature check refuses the delivery anyway. */
  until: number;
  answer: Promise<WebhookAnswer>;
}

/** Verified webhook ids, per database (one console, one memory; tests run several apps in one process). */
const seenByDb = new WeakMap<Db, Map<string, Seen>>();

function seenFor(deps: Pick<CallDeps, "db" | "now">): Map<string, Seen> {
  let seen = seenByDb.get(deps.db);
  if (!seen) {
    seen = new Map();
    seenByDb.set(deps.db, seen);
  }
  const now = deps.now();
  for (const [id, s] of seen) if (s.until < now) seen.delete(id);
  return seen;
}

const asDuplicate = (a: WebhookAnswer): WebhookAnswer => ({ ...a, duplicate: true });

/**
 * The headers' shape and the timestamp's window on the console's clock, checked at once: a refusal
 * before any work, the same for every copy of a delivery.
 */
function precheck(
  headers: Headers,
  nowSeconds: number,
): { ok: true; id: string; timestamp: number } | { ok: false; reason: Refusal } {
  const id = headers.get("webhook-id");
  const ts = headers.get("webhook-timestamp");
  if (!id || !ts || !headers.get("webhook-signature")) return { ok: false, reason: "missing_headers" };
  if (!/^\d{1,12}$/.test(ts)) return { ok: false, reason: "bad_timestamp" };
  const timestamp = Number(ts);
  if (Math.abs(nowSeconds - timestamp) > WEBHOOK_TOLERANCE_SECONDS) return { ok: false, reason: "stale_timestamp" };
  return { ok: true, id, timestamp };
}

/** Verifies one delivery (headers + the raw body as sent) and handles the event it carries. */
export function receiveOpenAiWebhook(deps: CallDeps, headers: Headers, rawBody: string): Promise<WebhookAnswer> {
  const secret = deps.credentials.values("openai").webhookSecret;
  if (!secret) throw new Unavailable("The OpenAI webhook signing secret is not configured");
  const refuse = (reason: Refusal) => {
    if (deps.config.logRequests)
      console.warn(`${new Date(deps.now()).toISOString()} openai-webhook refused: ${reason}`);
    return REFUSALS[reason]();
  };
  const check = precheck(headers, Math.floor(deps.now() / 1000));
  if (!check.ok) return Promise.reject(refuse(check.reason));
  return verifyOpenAiWebhook(secret, headers, rawBody, WEBHOOK_TOLERANCE_SECONDS).then((refusal) => {
    if (refusal) throw refuse(refusal);
    // Looked for and claimed in this one turn: a concurrent copy of this delivery finds it and waits for its answer.
    const seen = seenFor(deps);
    const prior = seen.get(check.id);
    if (prior) return prior.answer.then(asDuplicate);
    const answer = handle(deps, check.id, rawBody);
    const entry: Seen = { until: (check.timestamp + WEBHOOK_TOLERANCE_SECONDS + 1) * 1000, answer };
    seen.set(check.id, entry);
    // A delivery that was refused or failed may be sent again (OpenAI retries): forget it then.
    const forget = () => {
      if (seen.get(check.id) === entry) seen.delete(check.id);
    };
    answer.then((a) => ("outcome" in a && a.outcome === "error" ? forget() : undefined), forget);
    return answer;
  });
}

/** The verified delivery's event: a call to answer, or another type to acknowledge. */
async function handle(deps: CallDeps, webhookId: string, rawBody: string): Promise<WebhookAnswer> {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    throw new Invalid("Malformed JSON in request body");
  }
  const event = openAiWebhookEventSchema.safeParse(body);
  if (!event.success) throw new Invalid("Not an OpenAI webhook event", fieldErrors(event.error));
  if (event.data.type !== "realtime.call.incoming") return { received: true, ignored: event.data.type };
  const data = realtimeCallIncomingSchema.safeParse(event.data.data);
  if (!data.success) throw new Invalid("Malformed realtime.call.incoming event", fieldErrors(data.error));
  const result = await answerIncomingCall(deps, {
    callId: data.data.call_id,
    webhookId,
    sipHeaders: data.data.sip_headers,
  });
  return { received: true, ...result };
}
