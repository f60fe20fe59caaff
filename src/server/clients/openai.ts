/**
 * OpenAI over the official `openai` SDK (ADR 0073): models, Structured-Outputs chat completions, Realtime SIP
 * call control, client secrets for the browser's WebRTC test bench, and the project webhook's signature.
 * The SDK is loaded at the first call (a dynamic import), so the console's start does not evaluate it.
 * Every SDK error becomes a `ServiceError` with a message a person can act on; the API key is redacted from
 * all of them. No retries (`maxRetries: 0`): callers decide what a failure means (a webhook is redelivered).
 */
import type { OpenAI } from "openai";
import type { ClientSecretCreateParams } from "openai/resources/realtime/client-secrets";
import { DEFAULT_TIMEOUT_MS, deadlineMessage, isObject, redact, ServiceError } from "./http";

const SERVICE = "OpenAI";

type Sdk = typeof import("openai");
let sdk: Promise<Sdk> | null = null;
/** The SDK module, imported once at first use. */
const loadSdk = (): Promise<Sdk> => {
  sdk ??= import("openai");
  return sdk;
};

export const openAiErrorMessage = (b: unknown) =>
  isObject(b) && isObject(b.error) && typeof b.error.message === "string" ? b.error.message : undefined;

/** The session config the Realtime (GA) SIP `accept` call takes; only the fields the console sets. */
export interface RealtimeSession {
  type: "realtime";
  model?: string;
  instructions?: string;
  audio?: { input?: { transcription?: { model: string } }; output?: { voice?: string } };
  tools?: { type: "function"; name: string; description: string; parameters: Record<string, unknown> }[];
}

/** A 429 from OpenAI; `retryAfterMs` when it said how long to wait (`retry-after-ms` or `retry-after`). */
export class OpenAiRateLimited extends ServiceError {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(SERVICE, message, 429);
  }
}

/** A minted client secret: the ephemeral key and when it stops opening sessions (Unix seconds, OpenAI's). */
export interface ClientSecret {
  value: string;
  expiresAt: number;
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

/** How long a 429 asks to wait: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | null {
  const ms = Number(headers?.get("retry-after-ms"));
  if (headers?.get("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers?.get("retry-after");
  if (!after) return null;
  const s = Number(after);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(after);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The network failure under an SDK connection error, as the other clients word it. */
function connectionMessage(baseUrl: string, err: { cause?: unknown; message?: string }): string {
  let host = baseUrl;
  try {
    host = new URL(baseUrl).host;
  } catch {}
  const cause = (err.cause ?? {}) as { code?: string; message?: string };
  const text = cause.message ?? "";
  if (cause.code === "ConnectionRefused" || cause.code === "ECONNREFUSED")
    return `Cannot reach ${SERVICE} at ${host}: connection refused`;
  if (cause.code === "ENOTFOUND" || /resolve|DNS/i.test(text)) return `Cannot reach ${SERVICE}: host ${host} not found`;
  if (/certificate|TLS|SSL/i.test(text)) return `Cannot reach ${SERVICE} at ${host}: TLS error (${text})`;
  return `Cannot reach ${SERVICE} at ${host}: ${text || err.message || "network error"}`;
}

/** OpenAI REST through the SDK: Bearer key; models, chat completions, Realtime SIP call control, client secrets. */
export class OpenAiClient {
  private client: Promise<OpenAI> | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    /** The operation's overall deadline (`deadline()` in ./http): every call of this client stops with it. */
    private readonly signal?: AbortSignal,
  ) {}

  /** The SDK client, made at first use. Nothing is read from the environment: the console's settings are all. */
  private sdkClient(): Promise<OpenAI> {
    this.client ??= loadSdk().then(
      ({ OpenAI }) =>
        new OpenAI({
          apiKey: this.apiKey,
          baseURL: this.baseUrl,
          organization: null,
          project: null,
          webhookSecret: null,
          maxRetries: 0,
          timeout: DEFAULT_TIMEOUT_MS,
          // The SDK's own log lines could carry request details; the console logs its own outcome.
          logLevel: "off",
        }),
    );
    return this.client;
  }

  /** Runs one SDK call with the deadline and this call's timeout; any failure becomes a ServiceError. */
  private async call<T>(
    run: (client: OpenAI, options: { signal?: AbortSignal; timeout: number }) => Promise<T>,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<T> {
    const late = deadlineMessage(this.signal);
    if (late) throw new ServiceError(SERVICE, late);
    try {
      const client = await this.sdkClient();
      return await run(client, { signal: this.signal, timeout: timeoutMs });
    } catch (err) {
      throw await this.serviceError(err, timeoutMs);
    }
  }

  private async serviceError(err: unknown, timeoutMs: number): Promise<ServiceError> {
    const clean = (message: string) => redact(message, [this.apiKey]).slice(0, 500);
    const late = deadlineMessage(this.signal);
    if (late) return new ServiceError(SERVICE, late);
    if (err instanceof ServiceError) return new ServiceError(SERVICE, clean(err.message), err.status);
    const m = await loadSdk().catch(() => null);
    if (!m) return new ServiceError(SERVICE, clean(`${SERVICE} client could not be loaded: ${(err as Error).message}`));
    if (err instanceof m.APIConnectionTimeoutError)
      return new ServiceError(SERVICE, `${SERVICE} did not answer within ${seconds(timeoutMs)}`);
    if (err instanceof m.APIUserAbortError) return new ServiceError(SERVICE, `The request to ${SERVICE} was cancelled`);
    if (err instanceof m.APIConnectionError)
      return new ServiceError(SERVICE, clean(connectionMessage(this.baseUrl, err)));
    if (err instanceof m.APIError && typeof err.status === "number") {
      const status = err.status;
      const given = openAiErrorMessage({ error: err.error }) ?? err.message.replace(/^\d{3}\s+/, "");
      const detail = given && !/^status code \(no body\)$/.test(given) ? given : "";
      if (err instanceof m.RateLimitError) {
        const wait = retryAfterMs(err.headers);
        const retry = wait === null ? "" : `; retry after ${seconds(Math.ceil(wait / 1000) * 1000)}`;
        const text = `${SERVICE} is rate-limiting requests (429)${detail ? `: ${detail}` : ""}${retry}`;
        return new OpenAiRateLimited(clean(text), wait);
      }
      const prefix =
        status === 401 || status === 403
          ? `${SERVICE} rejected the credentials (${status})`
          : `${SERVICE} answered ${status}`;
      return new ServiceError(SERVICE, clean(detail ? `${prefix}: ${detail}` : prefix), status);
    }
    return new ServiceError(SERVICE, clean(`${SERVICE} request failed: ${(err as Error)?.message ?? String(err)}`));
  }

  async listModels(): Promise<string[]> {
    const page = await this.call((c, o) => c.models.list(o));
    if (!Array.isArray(page.data)) throw this.unexpected();
    return page.data.map((m) => m.id);
  }

  /**
   * Chat Completions with `response_format: {type: "json_schema", json_schema: {name, schema, strict: true}}`
   * (Structured Outputs): the first choice's message content, the JSON text the model wrote (ADR 0043).
   * A refusal or an answer without content is an error.
   */
  async chatJson(req: {
    model: string;
    messages: { role: "system" | "user"; content: string }[];
    schemaName: string;
    schema: Record<string, unknown>;
    maxTokens: number;
    timeoutMs: number;
  }): Promise<string> {
    const body = await this.call(
      (c, o) =>
        c.chat.completions.create(
          {
            model: req.model,
            messages: req.messages,
            response_format: {
              type: "json_schema",
              json_schema: { name: req.schemaName, schema: req.schema, strict: true },
            },
            max_completion_tokens: req.maxTokens,
          },
          o,
        ),
      req.timeoutMs,
    );
    if (!isObject(body) || !Array.isArray(body.choices)) throw this.unexpected();
    const message = body.choices[0]?.message;
    if (typeof message?.refusal === "string" && message.refusal)
      throw new ServiceError(SERVICE, "the model refused to answer");
    if (typeof message?.content !== "string") throw new ServiceError(SERVICE, "the answer had no content");
    return message.content;
  }

  /** POST /realtime/calls/{call_id}/accept with the session that answers the call. */
  async acceptCall(callId: string, session: RealtimeSession): Promise<void> {
    await this.call((c, o) => c.realtime.calls.accept(callId, session, o));
  }

  /** POST /realtime/calls/{call_id}/reject; the SIP code defaults to 603 at OpenAI. */
  async rejectCall(callId: string, statusCode?: number): Promise<void> {
    await this.call((c, o) =>
      c.realtime.calls.reject(callId, statusCode === undefined ? {} : { status_code: statusCode }, o),
    );
  }

  /** POST /realtime/calls/{call_id}/refer: SIP REFER of an active call to `tel:` or `sip:` URI. */
  async referCall(callId: string, targetUri: string): Promise<void> {
    await this.call((c, o) => c.realtime.calls.refer(callId, { target_uri: targetUri }, o));
  }

  /** POST /realtime/calls/{call_id}/hangup */
  async hangupCall(callId: string): Promise<void> {
    await this.call((c, o) => c.realtime.calls.hangup(callId, o));
  }

  /**
   * POST /realtime/client_secrets: an ephemeral key that opens only `session` (the browser's WebRTC call
   * presents it instead of the API key), valid `expiresAfterSeconds` from its creation (OpenAI: 10–7200).
   */
  async createClientSecret(
    session: RealtimeSession,
    { expiresAfterSeconds }: { expiresAfterSeconds: number },
  ): Promise<ClientSecret> {
    const params = {
      expires_after: { anchor: "created_at", seconds: expiresAfterSeconds },
      session,
    } satisfies ClientSecretCreateParams;
    const answer = await this.call((c, o) => c.realtime.clientSecrets.create(params, o));
    if (!isObject(answer) || typeof answer.value !== "string" || typeof answer.expires_at !== "number")
      throw this.unexpected();
    return { value: answer.value, expiresAt: answer.expires_at };
  }

  private unexpected(): ServiceError {
    return new ServiceError(SERVICE, `${SERVICE} sent an unexpected answer (not the documented JSON)`);
  }
}

/** Why a webhook delivery was refused: the mapping of webhook.ts turns each into 400 or 401. */
export type WebhookRefusal = "bad_timestamp" | "stale_timestamp" | "bad_signature";

/**
 * Checks an OpenAI webhook delivery's Standard-Webhooks signature with the SDK's `webhooks.verifySignature`
 * (the HMAC over `id.timestamp.body`, any of the given `v1,` signatures, the timestamp within `toleranceSeconds`
 * of the real clock). Null when it verifies, else why not. The headers must be present (the caller checks).
 */
export async function verifyOpenAiWebhook(
  secret: string,
  headers: Headers,
  rawBody: string,
  toleranceSeconds: number,
): Promise<WebhookRefusal | null> {
  const m = await loadSdk();
  // The client only carries the secret here: verification makes no request, so no key is needed.
  const client = new m.OpenAI({
    apiKey: "unused-webhook-verification",
    organization: null,
    project: null,
    webhookSecret: secret,
    logLevel: "off",
  });
  try {
    await client.webhooks.verifySignature(rawBody, headers, secret, toleranceSeconds);
    return null;
  } catch (err) {
    if (err instanceof m.InvalidWebhookSignatureError) {
      if (/timestamp format/i.test(err.message)) return "bad_timestamp";
      if (/timestamp is too (old|new)/i.test(err.message)) return "stale_timestamp";
    }
    return "bad_signature";
  }
}
