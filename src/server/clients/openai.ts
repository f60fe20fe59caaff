import { expectJson, httpRequest, isObject, ServiceError } from "./http";

const SERVICE = "OpenAI";

export const openAiErrorMessage = (b: unknown) =>
  isObject(b) && isObject(b.error) && typeof b.error.message === "string" ? b.error.message : undefined;

/** The session config the Realtime (GA) SIP `accept` call takes; only the fields the console sets. */
export interface RealtimeSession {
  type: "realtime";
  model?: string;
  instructions?: string;
  audio?: { output?: { voice?: string } };
  tools?: { type: "function"; name: string; description: string; parameters: Record<string, unknown> }[];
}

/** OpenAI REST: Bearer key; models and Realtime SIP call control. */
export class OpenAiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    /** The operation's overall deadline (`deadline()` in ./http): every call of this client stops with it. */
    private readonly signal?: AbortSignal,
  ) {}

  async listModels(): Promise<string[]> {
    const res = await httpRequest({
      service: SERVICE,
      url: `${this.baseUrl}/models`,
      headers: { Authorization: `Bearer ${this.apiKey}` },
      signal: this.signal,
      secrets: [this.apiKey],
      errorMessage: openAiErrorMessage,
    });
    const body = expectJson<{ data: { id: string }[] }>(SERVICE, res, (v) => isObject(v) && Array.isArray(v.data));
    return body.data.map((m) => m.id);
  }

  /**
   * POST /chat/completions with `response_format: {type: "json_schema", json_schema: {name, schema, strict: true}}`
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
    const res = await httpRequest({
      service: SERVICE,
      method: "POST",
      url: `${this.baseUrl}/chat/completions`,
      headers: { Authorization: `Bearer ${this.apiKey}` },
      body: {
        model: req.model,
        messages: req.messages,
        response_format: {
          type: "json_schema",
          json_schema: { name: req.schemaName, schema: req.schema, strict: true },
        },
        max_completion_tokens: req.maxTokens,
      },
      timeoutMs: req.timeoutMs,
      signal: this.signal,
      secrets: [this.apiKey],
      errorMessage: openAiErrorMessage,
    });
    const body = expectJson<{ choices: { message?: { content?: unknown; refusal?: unknown } }[] }>(
      SERVICE,
      res,
      (v) => isObject(v) && Array.isArray(v.choices),
    );
    const message = body.choices[0]?.message;
    if (typeof message?.refusal === "string" && message.refusal)
      throw new ServiceError(SERVICE, "the model refused to answer");
    if (typeof message?.content !== "string") throw new ServiceError(SERVICE, "the answer had no content");
    return message.content;
  }

  /** POST /realtime/calls/{call_id}/accept with the session that answers the call. */
  async acceptCall(callId: string, session: RealtimeSession): Promise<void> {
    await this.control(callId, "accept", session);
  }

  /** POST /realtime/calls/{call_id}/reject; the SIP code defaults to 603 at OpenAI. */
  async rejectCall(callId: string, statusCode?: number): Promise<void> {
    await this.control(callId, "reject", statusCode === undefined ? {} : { status_code: statusCode });
  }

  /** POST /realtime/calls/{call_id}/refer: SIP REFER of an active call to `tel:` or `sip:` URI. */
  async referCall(callId: string, targetUri: string): Promise<void> {
    await this.control(callId, "refer", { target_uri: targetUri });
  }

  /** POST /realtime/calls/{call_id}/hangup */
  async hangupCall(callId: string): Promise<void> {
    await this.control(callId, "hangup");
  }

  private async control(callId: string, action: string, body?: unknown): Promise<void> {
    await httpRequest({
      service: SERVICE,
      method: "POST",
      url: `${this.baseUrl}/realtime/calls/${encodeURIComponent(callId)}/${action}`,
      headers: { Authorization: `Bearer ${this.apiKey}` },
      body,
      signal: this.signal,
      secrets: [this.apiKey],
      errorMessage: openAiErrorMessage,
    });
  }
}
