/**
 * Fake OpenAI API: models list and Realtime SIP call control (reference: services.md §4; openai-node
 * `src/resources/realtime/calls.ts`), plus builders for the signed `realtime.call.incoming` webhook.
 *
 * Implemented: `GET /v1/models`; `POST /v1/realtime/calls/{call_id}/accept|reject|refer|hangup` (bearer auth,
 * JSON, success = 200 with an empty body). Errors use `{error:{message, type, param, code}}`.
 * Accept requires `type: "realtime"`; it also checks the GA session fields the reference describes
 * (voice under `audio.output.voice`, speed 0.25–1.5, max_output_tokens 1–4096 or "inf", output_modalities
 * ["audio"] or ["text"]) and — unless `state.rejectUnknownSessionFields` is false — rejects top-level fields
 * that `CallAcceptParams` in openai-node does not have (e.g. a top-level `voice` or the beta-only `temperature`).
 *
 * Not in the reference, chosen here: the 401/400/404 `type`/`code` values (OpenAI's usual
 * `invalid_request_error` / `invalid_api_key` / `missing_required_parameter` / `unknown_parameter` /
 * `invalid_value`), the `/v1/models` item shape (openai-node `Model`: id, object, created, owned_by), what happens
 * for an unknown call id (the fake accepts any id and creates the record), and the id formats `rtc_…`, `evt_…`,
 * `wh_…`. The "Live" variant is not implemented.
 *
 * Client secrets and WebRTC (openai-node `realtime/client-secrets.ts`, `realtime/calls.ts` `create`):
 * `POST /v1/realtime/client_secrets` (API key; the body checked against `ClientSecretCreateParams`: only
 * `expires_after` {anchor "created_at", seconds 10–7200} and `session`, the session as accept checks it) answers
 * `ClientSecretCreateResponse` `{value: "ek_…", expires_at, session}` and records it in `state.clientSecrets`.
 * `POST /v1/realtime/calls` takes a browser's SDP offer (`application/sdp`, or the SDK's multipart `sdp` +
 * `session`) with the API key or an unexpired minted secret as bearer, records which in `state.webrtcCalls`, and
 * answers 201 `application/sdp` (`sdpAnswerFor`: a valid answer, no reachable candidate) with `Location:
 * /v1/realtime/calls/rtc_…`; it answers CORS (preflight included), as the page calls it cross-origin. Not in the
 * reference, chosen here: the expired-secret 401's code and the `ek_…`/`sess_…` formats.
 *
 * Rate limits: `state.rateLimit = {count, retryAfterSeconds}` answers the next `count` REST requests 429 with
 * OpenAI's `rate_limit_exceeded` error, `retry-after` and the `x-ratelimit-*` headers.
 *
 * Sideband (services.md §4 item 5): a WebSocket at `/v1/realtime?call_id=<id>` with the bearer header (401
 * without it, 404 for a call the fake never accepted). Scripted per test through `fake.sideband(callId)`:
 * `send(event)` emits a server event, `received` holds what the console sent (parsed), `hangup()` closes it as
 * OpenAI does when the call ends (1000), `drop()` cuts the TCP connection (no close frame). `mode` "hold" never
 * completes the upgrade (until the fake stops), "refuse" answers 503. Like the real API it answers every
 * `response.create` with `response.created` (`lastResponseId`). `sendEvent(e)` and the builders at the end
 * (`responseDoneEvent` with usage, `speechEvent`, `audioDeltaEvent`, …) type server events with the SDK's
 * `RealtimeServerEvent`, so a scripted event with a misspelt field fails typecheck. Not in the reference, chosen
 * here: the 404/503 refusals and the `resp_…`/`event_…` id formats.
 *
 * Chat Completions (the call classification, ADR 0043): `POST /v1/chat/completions` with Structured Outputs
 * (`response_format: {type: "json_schema", json_schema: {name, schema, strict}}`, checked: a missing name or
 * schema is a 400). Answers are scripted per test in `state.chatScripts` (first in, first out; then
 * `state.chatFallback`): `{content}` the message content as given (JSON or garbage), `{refusal}` a refusal
 * (the message's `refusal` set, `content` null), `{status, message}` an
 * OpenAI error, `{hang: true}` no answer until `fake.releaseChats()` or the fake stops. `chatInFlight` /
 * `chatMaxInFlight` count requests being answered. Not in the reference, chosen here: the `chatcmpl-…` id and
 * the usage numbers.
 */

import type {
  ClientSecretCreateResponse,
  RealtimeSessionCreateResponse,
} from "openai/resources/realtime/client-secrets";
import type { RealtimeResponseUsage, RealtimeServerEvent } from "openai/resources/realtime/realtime";
import {
  bearerToken,
  type CommonOptions,
  type CommonState,
  dispatch,
  type FakeRequest,
  type FakeServer,
  INVALID,
  isObject,
  json,
  parseJsonBody,
  type RouteTable,
  randomHex,
  startFake,
} from "./common";
import { type FakeTextModels, fakeTextModels, type TextSocketData } from "./openai-text-model";
import { generateWebhookSecret, signWebhook, verifyWebhook, webhookHeaders } from "./standard-webhooks";

export { generateWebhookSecret, signWebhook, verifyWebhook, webhookHeaders };

export interface OpenAiModel {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

export type RealtimeCallAction = "accept" | "reject" | "refer" | "hangup";

export interface RealtimeCallRecord {
  callId: string;
  /** "incoming" until the first control request; then the last action that succeeded. */
  status: "incoming" | "accepted" | "rejected" | "referred" | "hung_up";
  /** The accept body as received (the session config). */
  session: Record<string, unknown> | null;
  /** SIP code sent on reject (603 when the body had none). */
  rejectStatusCode: number | null;
  referTargetUri: string | null;
  /** Every successful control request, in order. */
  history: Array<{ action: RealtimeCallAction; body: unknown; at: number }>;
}

/** One call's sideband as the fake holds it (see the header). */
export interface FakeSideband {
  callId: string;
  /** "open" (default) upgrades; "hold" never completes the upgrade; "refuse" answers 503. */
  mode: "open" | "hold" | "refuse";
  /** Upgrade requests seen (refused ones included). */
  attempts: number;
  /** Connections that opened. */
  connections: number;
  /** Client events the console sent, parsed, in order (over every connection). */
  received: Array<Record<string, unknown>>;
  /** The id of the last `response.created` the fake emitted. */
  lastResponseId: string | null;
  readonly open: boolean;
  /** Sends a server event on the open connection (adds `event_id`); false when none is open. */
  send(event: Record<string, unknown>): boolean;
  /** `send` for an event exactly as the SDK types it (`RealtimeServerEvent`): a misspelt field fails typecheck. */
  sendEvent(event: FakeServerEvent): boolean;
  /** Closes the connection the way OpenAI does when the call ends (1000). */
  hangup(): void;
  /** Cuts the connection without a close frame (an unexpected drop). */
  drop(): void;
}

/** A client secret `POST /v1/realtime/client_secrets` minted (see the header). */
export interface MintedClientSecret {
  value: string;
  /** Unix seconds. */
  expiresAt: number;
  /** The session the secret opens, as the request gave it. */
  session: Record<string, unknown>;
  /** The request's `expires_after`, as given (undefined when absent). */
  expiresAfter: unknown;
}

/** One WebRTC call `POST /v1/realtime/calls` opened (see the header). */
export interface FakeWebRtcCall {
  callId: string;
  /** Which credential the bearer header carried: the API key, or a minted client secret (its value). */
  credential: { kind: "api_key" } | { kind: "client_secret"; value: string };
  offer: string;
  answer: string;
  /** The session the call runs: the client secret's, else the one posted with the offer (multipart). */
  session: Record<string, unknown> | null;
  /** The Origin header of the request (a browser sends one). */
  origin: string | null;
}

/** One scripted answer of `POST /v1/chat/completions` (see the header). */
export type ChatScript =
  | { content: string }
  | { refusal: string }
  | { status: number; message: string }
  | { hang: true };

export interface OpenAiState extends CommonState {
  /** Answers for the next chat completions, in order; then `chatFallback`. */
  chatScripts: ChatScript[];
  chatFallback: ChatScript;
  /** Chat completions being answered now, and the most at once since the fake started (tests may reset it). */
  chatInFlight: number;
  chatMaxInFlight: number;
  models: OpenAiModel[];
  /** SIP calls by call_id. Seed with `incomingCall()` or let control requests create them. */
  realtimeCalls: Record<string, RealtimeCallRecord>;
  /** Reject accept bodies with top-level fields openai-node's CallAcceptParams does not have (default true). */
  rejectUnknownSessionFields: boolean;
  /** Answer the next `count` REST requests 429 with `retry-after` and `x-ratelimit-*` headers (then null). */
  rateLimit: { count: number; retryAfterSeconds: number } | null;
  /** Client secrets minted, in order. */
  clientSecrets: MintedClientSecret[];
  /** WebRTC calls opened with an SDP offer, in order. */
  webrtcCalls: FakeWebRtcCall[];
}

export interface OpenAiOptions extends CommonOptions {
  /** Valid API key (default "sk-test-openai"). */
  apiKey?: string;
  /** Model ids `GET /v1/models` lists (default: the realtime models below). */
  models?: string[];
}

export const OPENAI_DEFAULT_KEY = "sk-test-openai";

/** Realtime model ids from the reference's SDK enum (2026-08 snapshot). */
export const REALTIME_MODELS = [
  "gpt-realtime",
  "gpt-realtime-2025-08-28",
  "gpt-realtime-1.5",
  "gpt-realtime-2",
  "gpt-realtime-2.1",
  "gpt-realtime-2.1-mini",
  "gpt-realtime-mini",
  "gpt-realtime-mini-2025-10-06",
  "gpt-realtime-mini-2025-12-15",
  "gpt-4o-realtime-preview",
  "gpt-4o-realtime-preview-2024-10-01",
  "gpt-4o-realtime-preview-2024-12-17",
  "gpt-4o-realtime-preview-2025-06-03",
  "gpt-4o-mini-realtime-preview",
  "gpt-4o-mini-realtime-preview-2024-12-17",
  "gpt-audio-1.5",
  "gpt-audio-mini",
  "gpt-audio-mini-2025-10-06",
  "gpt-audio-mini-2025-12-15",
];

export const REALTIME_VOICES = [
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar",
];

/** Top-level fields of openai-node `CallAcceptParams`. */
export const ACCEPT_FIELDS = [
  "type",
  "audio",
  "include",
  "instructions",
  "max_output_tokens",
  "model",
  "output_modalities",
  "parallel_tool_calls",
  "prompt",
  "reasoning",
  "tool_choice",
  "tools",
  "tracing",
  "truncation",
];

// ---------------------------------------------------------------------------------------------------------------
// Webhook event builders

export interface SipHeader {
  name: string;
  value: string;
}

export interface RealtimeCallIncomingEvent {
  object: "event";
  id: string;
  type: "realtime.call.incoming";
  created_at: number;
  data: { call_id: string; sip_headers: SipHeader[] };
}

export interface IncomingCallOptions {
  callId?: string;
  eventId?: string;
  /** unix seconds (default now) */
  createdAt?: number;
  /** From header value (default a caller on +15555550100). */
  from?: string;
  /** To header value (default the project's SIP URI). */
  to?: string;
  /** Call-ID header value. */
  sipCallId?: string;
  /** Project id used in the default To (default "proj_test"). */
  projectId?: string;
  /** More SIP headers appended after From, To, Call-ID. */
  extraHeaders?: SipHeader[];
}

/** A `realtime.call.incoming` event body as OpenAI POSTs it to the project webhook. */
export function buildIncomingCallEvent(o: IncomingCallOptions = {}): RealtimeCallIncomingEvent {
  const project = o.projectId ?? "proj_test";
  return {
    object: "event",
    id: o.eventId ?? `evt_${randomHex(12)}`,
    type: "realtime.call.incoming",
    created_at: o.createdAt ?? Math.floor(Date.now() / 1000),
    data: {
      call_id: o.callId ?? `rtc_${randomHex(16)}`,
      sip_headers: [
        { name: "From", value: o.from ?? `"Caller" <sip:+15555550100@pbx.example.com>;tag=${randomHex(4)}` },
        { name: "To", value: o.to ?? `<sip:${project}@sip.api.openai.com;transport=tls>` },
        { name: "Call-ID", value: o.sipCallId ?? `${randomHex(8)}@pbx.example.com` },
        ...(o.extraHeaders ?? []),
      ],
    },
  };
}

/**
 * A ready-to-POST signed delivery of a `realtime.call.incoming` event: `{event, body, headers}` where `body` is
 * the exact JSON string that was signed.
 */
export function buildSignedIncomingCall(
  secret: string,
  o: IncomingCallOptions & { webhookId?: string; timestamp?: number } = {},
): { event: RealtimeCallIncomingEvent; body: string; headers: Record<string, string> } {
  const event = buildIncomingCallEvent(o);
  const body = JSON.stringify(event);
  const headers = webhookHeaders(secret, o.webhookId ?? `wh_${randomHex(16)}`, o.timestamp ?? event.created_at, body);
  return { event, body, headers };
}

// ---------------------------------------------------------------------------------------------------------------
// Server

type OpenAiError = { message: string; type: string; param: string | null; code: string | null };
const oaError = (status: number, e: Partial<OpenAiError> & { message: string }) =>
  json(status, {
    error: {
      message: e.message,
      type: e.type ?? "invalid_request_error",
      param: e.param ?? null,
      code: e.code ?? null,
    },
  });

/** The 429 OpenAI sends when a rate limit is reached: its error body and its rate-limit headers. */
const rateLimited = (retryAfterSeconds: number) =>
  json(
    429,
    {
      error: {
        message: `Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${retryAfterSeconds}s.`,
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      },
    },
    {
      "retry-after": String(retryAfterSeconds),
      "x-ratelimit-limit-requests": "3",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": `${retryAfterSeconds}s`,
      "x-ratelimit-limit-tokens": "40000",
      "x-ratelimit-remaining-tokens": "39990",
      "x-ratelimit-reset-tokens": "15ms",
    },
  );

/** What a browser may send cross-origin to `/v1/realtime/calls` (OpenAI's WebRTC flow runs in the page). */
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type",
  "access-control-expose-headers": "location",
  "access-control-max-age": "600",
};

/**
 * An SDP answer to a WebRTC offer, as OpenAI's `/v1/realtime/calls` gives one: every offered m-line mirrored in
 * order (same mid and BUNDLE group), audio narrowed to the offered Opus payload with the direction answered
 * (sendrecv stays sendrecv, sendonly becomes recvonly), the data channel's SCTP port, one ICE ufrag/pwd, a
 * SHA-256 fingerprint and `a=setup:passive`. Browsers accept it as a remote description; no media ever flows
 * (there is no ICE candidate to reach), so the connection stays "connecting".
 */
export function sdpAnswerFor(offer: string): string {
  const lines = offer.split(/\r?\n/).filter((l) => l !== "");
  const sections: string[][] = [];
  for (const line of lines) {
    if (line.startsWith("m=")) sections.push([line]);
    else sections.at(-1)?.push(line);
  }
  if (sections.length === 0) throw new Error("the offer has no m-line");
  const ufrag = randomHex(4);
  const pwd = randomHex(12);
  const fingerprint = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) =>
    b.toString(16).padStart(2, "0").toUpperCase(),
  ).join(":");
  const mids: string[] = [];
  const media = sections.map((section, i) => {
    const mLine = section[0] as string;
    const attr = (name: string) => section.find((l) => l.startsWith(`a=${name}`));
    const mid = attr("mid:")?.slice(6) ?? String(i);
    mids.push(mid);
    const common = [
      "c=IN IP4 0.0.0.0",
      `a=ice-ufrag:${ufrag}`,
      `a=ice-pwd:${pwd}`,
      `a=fingerprint:sha-256 ${fingerprint}`,
      "a=setup:passive",
      `a=mid:${mid}`,
    ];
    const [kind, , proto] = mLine.slice(2).split(" ");
    if (kind === "application")
      return [
        `m=application 9 ${proto} webrtc-datachannel`,
        ...common,
        "a=sctp-port:5000",
        "a=max-message-size:262144",
      ];
    const opus = section.map((l) => /^a=rtpmap:(\d+) opus\/48000\/2/i.exec(l)?.[1]).find((pt) => pt !== undefined);
    if (kind !== "audio" || !opus)
      return [`m=${kind} 0 ${proto} ${mLine.split(" ")[3] ?? "0"}`, ...common, "a=inactive"];
    const offered = ["sendrecv", "sendonly", "recvonly", "inactive"].find((d) => section.includes(`a=${d}`));
    const direction = { sendrecv: "sendrecv", sendonly: "recvonly", recvonly: "sendonly", inactive: "inactive" }[
      offered ?? "sendrecv"
    ];
    return [
      `m=audio 9 ${proto} ${opus}`,
      ...common,
      "a=rtcp:9 IN IP4 0.0.0.0",
      `a=${direction}`,
      "a=rtcp-mux",
      `a=rtpmap:${opus} opus/48000/2`,
      `a=fmtp:${opus} minptime=10;useinbandfec=1`,
      ...(direction === "sendrecv" || direction === "sendonly"
        ? [
            `a=msid:- ${randomHex(8)}`,
            `a=ssrc:${1 + ((crypto.getRandomValues(new Uint32Array(1))[0] as number) % 4_000_000_000)} cname:openai`,
          ]
        : []),
    ];
  });
  return `${[
    "v=0",
    `o=- ${Date.now()} 2 IN IP4 127.0.0.1`,
    "s=-",
    "t=0 0",
    `a=group:BUNDLE ${mids.join(" ")}`,
    "a=msid-semantic: WMS *",
    ...media.flat(),
  ].join("\r\n")}\r\n`;
}

/** Returns an error message + param for an invalid accept body, or null when it is acceptable. */
function checkSession(body: Record<string, unknown>, rejectUnknown: boolean): Partial<OpenAiError> | null {
  if (body.type === undefined)
    return { message: "Missing required parameter: 'type'.", param: "type", code: "missing_required_parameter" };
  if (body.type !== "realtime")
    return {
      message: `Invalid value: '${String(body.type)}'. Supported values are: 'realtime'.`,
      param: "type",
      code: "invalid_value",
    };
  if (rejectUnknown) {
    for (const key of Object.keys(body)) {
      if (!ACCEPT_FIELDS.includes(key))
        return { message: `Unknown parameter: '${key}'.`, param: key, code: "unknown_parameter" };
    }
  }
  if (body.model !== undefined && typeof body.model !== "string")
    return { message: "Invalid type for 'model': expected a string.", param: "model", code: "invalid_type" };
  if (body.instructions !== undefined && typeof body.instructions !== "string")
    return {
      message: "Invalid type for 'instructions': expected a string.",
      param: "instructions",
      code: "invalid_type",
    };
  const mot = body.max_output_tokens;
  if (mot !== undefined && mot !== "inf" && !(Number.isInteger(mot) && (mot as number) >= 1 && (mot as number) <= 4096))
    return {
      message: "Invalid 'max_output_tokens': expected an integer between 1 and 4096 or 'inf'.",
      param: "max_output_tokens",
      code: "invalid_value",
    };
  const om = body.output_modalities;
  if (om !== undefined && !(Array.isArray(om) && om.length === 1 && (om[0] === "audio" || om[0] === "text")))
    return {
      message: "Invalid 'output_modalities': expected ['audio'] or ['text'].",
      param: "output_modalities",
      code: "invalid_value",
    };
  if (body.audio !== undefined) {
    if (!isObject(body.audio))
      return { message: "Invalid type for 'audio': expected an object.", param: "audio", code: "invalid_type" };
    const output = body.audio.output;
    if (output !== undefined) {
      if (!isObject(output))
        return { message: "Invalid type for 'audio.output'.", param: "audio.output", code: "invalid_type" };
      const voice = output.voice;
      if (
        voice !== undefined &&
        !(typeof voice === "string" && REALTIME_VOICES.includes(voice)) &&
        !(isObject(voice) && typeof voice.id === "string")
      )
        return {
          message: `Invalid value for 'audio.output.voice': ${JSON.stringify(voice)}.`,
          param: "audio.output.voice",
          code: "invalid_value",
        };
      const speed = output.speed;
      if (speed !== undefined && !(typeof speed === "number" && speed >= 0.25 && speed <= 1.5))
        return {
          message: "Invalid 'audio.output.speed': expected a number between 0.25 and 1.5.",
          param: "audio.output.speed",
          code: "invalid_value",
        };
    }
  }
  return null;
}

export interface FakeOpenAi extends FakeServer<OpenAiState> {
  /** The call's sideband (created on first use, so a test can script it before the console connects). */
  sideband(callId: string): FakeSideband;
  openSidebands(): number;
  /** Answers every hung chat completion (a 503). */
  releaseChats(): void;
  /** Text-mode Realtime sessions (`/v1/realtime?model=`, no call_id): test/fakes/openai-text-model.ts. */
  text: FakeTextModels;
}

export async function startFakeOpenAi(options: OpenAiOptions = {}): Promise<FakeOpenAi> {
  const apiKey = options.apiKey ?? OPENAI_DEFAULT_KEY;
  const state: OpenAiState = {
    failNext: null,
    delayMs: options.delayMs ?? 0,
    models: (options.models ?? REALTIME_MODELS).map((id) => ({
      id,
      object: "model",
      created: 1_756_339_200,
      owned_by: "system",
    })),
    realtimeCalls: {},
    rejectUnknownSessionFields: true,
    chatScripts: [],
    chatFallback: { content: JSON.stringify({ sentiment: "neutral", intent: "other", summary: "A call." }) },
    chatInFlight: 0,
    chatMaxInFlight: 0,
    rateLimit: null,
    clientSecrets: [],
    webrtcCalls: [],
  };
  const hung: Array<() => void> = [];

  const chatAnswer = (script: ChatScript, model: string): Response => {
    if ("hang" in script) return oaError(503, { message: "released", type: "server_error" });
    if ("status" in script) return oaError(script.status, { message: script.message, type: "server_error" });
    // A Structured Outputs refusal: no content, the model's refusal text instead.
    const message =
      "refusal" in script
        ? { role: "assistant", content: null, refusal: script.refusal, annotations: [] }
        : { role: "assistant", content: script.content, refusal: null, annotations: [] };
    return json(200, {
      id: `chatcmpl-${randomHex(12)}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message,
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    });
  };

  const callRecord = (callId: string): RealtimeCallRecord => {
    const existing = state.realtimeCalls[callId];
    if (existing) return existing;
    const rec: RealtimeCallRecord = {
      callId,
      status: "incoming",
      session: null,
      rejectStatusCode: null,
      referTargetUri: null,
      history: [],
    };
    state.realtimeCalls[callId] = rec;
    return rec;
  };

  /** Parses an optional JSON object body; a Response on error. */
  const objectBody = (req: FakeRequest): Record<string, unknown> | Response => {
    const parsed = parseJsonBody(req.rawBody);
    if (parsed === undefined) return {};
    if (parsed === INVALID || !isObject(parsed))
      return oaError(400, {
        message:
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
      });
    return parsed;
  };

  /** A referred or hung-up call leaves OpenAI: its sideband closes (1000) just after the answer. */
  const callLeft = (callId: string) => {
    setTimeout(() => sidebands.get(callId)?.hangup(), 10);
  };

  const done = (rec: RealtimeCallRecord, action: RealtimeCallAction, body: unknown) => {
    rec.history.push({ action, body, at: Date.now() });
    return new Response(null, { status: 200 });
  };

  const routes: RouteTable = {
    "/v1/models": { get: () => json(200, { object: "list", data: state.models }) },
    "/v1/models/:model": {
      get: (p) => {
        const m = state.models.find((x) => x.id === p.model);
        return m
          ? json(200, m)
          : oaError(404, {
              message: `The model '${p.model}' does not exist or you do not have access to it.`,
              code: "model_not_found",
              param: "model",
            });
      },
    },
    "/v1/chat/completions": {
      post: async (_p, req) => {
        const body = objectBody(req);
        if (body instanceof Response) return body;
        if (typeof body.model !== "string")
          return oaError(400, { message: "Missing required parameter: 'model'.", param: "model" });
        if (!Array.isArray(body.messages) || body.messages.length === 0)
          return oaError(400, { message: "Missing required parameter: 'messages'.", param: "messages" });
        const rf = body.response_format;
        if (rf !== undefined) {
          const js = isObject(rf) ? rf.json_schema : undefined;
          if (!isObject(rf) || rf.type !== "json_schema" || !isObject(js) || typeof js.name !== "string")
            return oaError(400, {
              message: "Missing required parameter: 'response_format.json_schema.name'.",
              param: "response_format.json_schema.name",
            });
          if (!isObject(js.schema))
            return oaError(400, {
              message: "Invalid 'response_format.json_schema.schema': expected an object.",
              param: "response_format.json_schema.schema",
            });
        }
        const script = state.chatScripts.shift() ?? state.chatFallback;
        state.chatInFlight++;
        state.chatMaxInFlight = Math.max(state.chatMaxInFlight, state.chatInFlight);
        try {
          if ("hang" in script) await new Promise<void>((resolve) => hung.push(resolve));
          return chatAnswer(script, body.model);
        } finally {
          state.chatInFlight--;
        }
      },
    },
    "/v1/realtime/client_secrets": {
      post: (_p, req) => {
        const body = objectBody(req);
        if (body instanceof Response) return body;
        for (const key of Object.keys(body))
          if (key !== "expires_after" && key !== "session")
            return oaError(400, { message: `Unknown parameter: '${key}'.`, param: key, code: "unknown_parameter" });
        const after = body.expires_after;
        if (after !== undefined) {
          if (!isObject(after))
            return oaError(400, {
              message: "Invalid type for 'expires_after': expected an object.",
              param: "expires_after",
              code: "invalid_type",
            });
          if (after.anchor !== undefined && after.anchor !== "created_at")
            return oaError(400, {
              message: `Invalid value: '${String(after.anchor)}'. Supported values are: 'created_at'.`,
              param: "expires_after.anchor",
              code: "invalid_value",
            });
          const sec = after.seconds;
          if (sec !== undefined && !(Number.isInteger(sec) && (sec as number) >= 10 && (sec as number) <= 7200))
            return oaError(400, {
              message: "Invalid 'expires_after.seconds': expected an integer between 10 and 7200.",
              param: "expires_after.seconds",
              code: "invalid_value",
            });
        }
        const session = body.session ?? { type: "realtime" };
        if (!isObject(session))
          return oaError(400, {
            message: "Invalid type for 'session': expected an object.",
            param: "session",
            code: "invalid_type",
          });
        const problem = checkSession(session, state.rejectUnknownSessionFields);
        if (problem)
          return oaError(400, {
            ...problem,
            message: problem.message ?? "Invalid request",
            param: problem.param ? `session.${problem.param}` : "session",
          });
        const seconds = isObject(after) && typeof after.seconds === "number" ? after.seconds : 600;
        const expiresAt = Math.floor(Date.now() / 1000) + seconds;
        const value = `ek_${randomHex(16)}`;
        state.clientSecrets.push({ value, expiresAt, session, expiresAfter: after });
        const answer = {
          value,
          expires_at: expiresAt,
          session: {
            ...(session as Omit<RealtimeSessionCreateResponse, "id" | "object" | "type">),
            id: `sess_${randomHex(12)}`,
            object: "realtime.session",
            type: "realtime",
            expires_at: 0,
          },
        } satisfies ClientSecretCreateResponse;
        return json(200, answer);
      },
    },
    "/v1/realtime/calls/:callId/accept": {
      post: (p, req) => {
        const body = objectBody(req);
        if (body instanceof Response) return body;
        const problem = checkSession(body, state.rejectUnknownSessionFields);
        if (problem) return oaError(400, { message: problem.message ?? "Invalid request", ...problem });
        const rec = callRecord(p.callId as string);
        rec.status = "accepted";
        rec.session = body;
        return done(rec, "accept", body);
      },
    },
    "/v1/realtime/calls/:callId/reject": {
      post: (p, req) => {
        const body = objectBody(req);
        if (body instanceof Response) return body;
        const code = body.status_code;
        // SIP final error responses are 4xx–6xx; the reference only says "SIP code, default 603".
        if (code !== undefined && !(Number.isInteger(code) && (code as number) >= 400 && (code as number) <= 699))
          return oaError(400, {
            message: "Invalid 'status_code': expected a SIP response code between 400 and 699.",
            param: "status_code",
            code: "invalid_value",
          });
        const rec = callRecord(p.callId as string);
        rec.status = "rejected";
        rec.rejectStatusCode = (code as number | undefined) ?? 603;
        return done(rec, "reject", body);
      },
    },
    "/v1/realtime/calls/:callId/refer": {
      post: (p, req) => {
        const body = objectBody(req);
        if (body instanceof Response) return body;
        if (body.target_uri === undefined)
          return oaError(400, {
            message: "Missing required parameter: 'target_uri'.",
            param: "target_uri",
            code: "missing_required_parameter",
          });
        if (typeof body.target_uri !== "string" || !/^(tel|sips?):.+/.test(body.target_uri))
          return oaError(400, {
            message: "Invalid 'target_uri': expected a tel: or sip: URI.",
            param: "target_uri",
            code: "invalid_value",
          });
        const rec = callRecord(p.callId as string);
        rec.status = "referred";
        rec.referTargetUri = body.target_uri;
        callLeft(rec.callId);
        return done(rec, "refer", body);
      },
    },
    "/v1/realtime/calls/:callId/hangup": {
      post: (p, req) => {
        const rec = callRecord(p.callId as string);
        rec.status = "hung_up";
        callLeft(rec.callId);
        return done(rec, "hangup", req.call.body);
      },
    },
  };

  /** Adds the CORS headers a browser needs to read the answer. */
  const withCors = (res: Response) => {
    for (const [k, v] of Object.entries(CORS_HEADERS)) res.headers.set(k, v);
    return res;
  };

  /**
   * `POST /v1/realtime/calls`: the WebRTC call a browser opens with its SDP offer. Bearer: the API key or an
   * unexpired minted client secret (recorded which). Body: the offer as `application/sdp`, or the SDK's
   * multipart form (`sdp` and `session`). Answers 201 with the SDP answer and `Location` of the call.
   */
  async function webrtcCall(req: FakeRequest): Promise<Response> {
    if (req.method === "OPTIONS") return withCors(new Response(null, { status: 204 }));
    if (req.method !== "POST")
      return withCors(oaError(405, { message: `Invalid method for URL (${req.method} ${req.path})` }));
    const key = bearerToken(req.headers);
    let credential: FakeWebRtcCall["credential"];
    let secret: MintedClientSecret | undefined;
    if (key === null)
      return withCors(oaError(401, { message: "You didn't provide an API key.", code: "missing_api_key" }));
    if (key === apiKey) credential = { kind: "api_key" };
    else {
      secret = state.clientSecrets.find((c) => c.value === key);
      if (!secret) return withCors(oaError(401, { message: "Incorrect API key provided.", code: "invalid_api_key" }));
      if (secret.expiresAt * 1000 < Date.now())
        return withCors(oaError(401, { message: "The client secret has expired.", code: "client_secret_expired" }));
      credential = { kind: "client_secret", value: key };
    }
    const type = (req.headers.get("content-type") ?? "").toLowerCase();
    let offer = "";
    let session: Record<string, unknown> | null = secret?.session ?? null;
    if (type.startsWith("application/sdp")) offer = req.rawBody;
    else if (type.startsWith("multipart/form-data")) {
      // The boundary is case-sensitive: the header as sent, not the lower-cased copy.
      const form = await new Response(req.rawBody, {
        headers: { "content-type": req.headers.get("content-type") ?? "" },
      }).formData();
      // The SDK sends each part as a file with its own type (application/sdp, application/json).
      const part = async (name: string) => {
        const v = form.get(name);
        return v === null ? "" : typeof v === "string" ? v : await v.text();
      };
      offer = await part("sdp");
      const given = await part("session");
      if (given) session = JSON.parse(given) as Record<string, unknown>;
    } else
      return withCors(
        oaError(400, { message: "Unsupported content type: expected application/sdp or multipart/form-data." }),
      );
    if (!offer.startsWith("v=0") || !/\r?\nm=/.test(offer))
      return withCors(oaError(400, { message: "Invalid SDP offer.", param: "sdp", code: "invalid_value" }));
    const callId = `rtc_${randomHex(16)}`;
    const answer = sdpAnswerFor(offer);
    state.webrtcCalls.push({ callId, credential, offer, answer, session, origin: req.headers.get("origin") });
    const rec = callRecord(callId);
    rec.status = "accepted";
    rec.session = session;
    return withCors(
      new Response(answer, {
        status: 201,
        headers: { "content-type": "application/sdp", location: `/v1/realtime/calls/${callId}` },
      }),
    );
  }

  function handle(req: FakeRequest): Response | Promise<Response> {
    if (req.path === "/v1/realtime/calls") return webrtcCall(req);
    const key = bearerToken(req.headers);
    if (key === null)
      return oaError(401, {
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      });
    if (key !== apiKey)
      return oaError(401, {
        message: `Incorrect API key provided: ${key.length > 8 ? `${key.slice(0, 3)}***${key.slice(-4)}` : "***"}.`,
        code: "invalid_api_key",
      });
    if (state.rateLimit && state.rateLimit.count > 0) {
      const { retryAfterSeconds } = state.rateLimit;
      state.rateLimit.count--;
      if (state.rateLimit.count === 0) state.rateLimit = null;
      return rateLimited(retryAfterSeconds);
    }
    return dispatch(
      routes,
      req,
      () => oaError(404, { message: `Invalid URL (${req.method} ${req.path})` }),
      () => oaError(405, { message: `Invalid method for URL (${req.method} ${req.path})` }),
    );
  }

  // ---------- sideband ----------
  type WsData = { callId: string } & TextSocketData;
  const text = fakeTextModels((id) => state.models.some((m) => m.id === id));
  const sidebands = new Map<string, FakeSideband & { socket: import("bun").ServerWebSocket<WsData> | null }>();
  const held: Array<() => void> = [];
  const sideband = (callId: string) => {
    const sb = sidebands.get(callId);
    if (sb) return sb;
    const created: FakeSideband & { socket: import("bun").ServerWebSocket<WsData> | null } = {
      callId,
      mode: "open",
      attempts: 0,
      connections: 0,
      received: [],
      lastResponseId: null,
      socket: null,
      get open() {
        return created.socket !== null;
      },
      send(event) {
        if (!created.socket) return false;
        created.socket.send(JSON.stringify({ event_id: `event_${randomHex(8)}`, ...event }));
        return true;
      },
      sendEvent(event) {
        return created.send(event);
      },
      hangup() {
        created.socket?.close(1000, "call ended");
      },
      drop() {
        created.socket?.terminate();
      },
    };
    sidebands.set(callId, created);
    return created;
  };

  const server = startFake<OpenAiState, WsData>(state, "/v1", handle, {
    upgrade(request, srv) {
      const u = new URL(request.url);
      if (u.pathname !== "/v1/realtime") return oaError(404, { message: `Invalid URL (GET ${u.pathname})` });
      const key = bearerToken(request.headers);
      if (key !== apiKey) return oaError(401, { message: "Incorrect API key provided.", code: "invalid_api_key" });
      if (!u.searchParams.has("call_id"))
        return text.upgrade(request, srv as never, u, (status, message, code) => oaError(status, { message, code }));
      const callId = u.searchParams.get("call_id") ?? "";
      const rec = state.realtimeCalls[callId];
      if (rec?.status !== "accepted")
        return oaError(404, { message: `No active call with id '${callId}'.`, code: "call_not_found" });
      const sb = sideband(callId);
      sb.attempts++;
      if (sb.mode === "refuse") return oaError(503, { message: "The server is overloaded.", type: "server_error" });
      if (sb.mode === "hold")
        return new Promise<Response>((resolve) => held.push(() => resolve(new Response(null, { status: 503 }))));
      return srv.upgrade(request, { data: { callId } }) ? undefined : new Response("upgrade failed", { status: 400 });
    },
    handlers: {
      open(ws) {
        if (ws.data.text) return text.handlers.open(ws);
        const sb = sideband(ws.data.callId);
        sb.socket = ws;
        sb.connections++;
        sb.send({ type: "session.created", session: { type: "realtime", id: `sess_${randomHex(8)}` } });
      },
      message(ws, message) {
        if (ws.data.text) return text.handlers.message(ws, message);
        const sb = sideband(ws.data.callId);
        let event: unknown;
        try {
          event = JSON.parse(String(message));
        } catch {
          sb.send({
            type: "error",
            error: { type: "invalid_request_error", code: "invalid_json", message: "Invalid JSON" },
          });
          return;
        }
        if (!isObject(event)) return;
        sb.received.push(event);
        if (event.type === "response.create") {
          sb.lastResponseId = `resp_${randomHex(8)}`;
          sb.send({
            type: "response.created",
            response: { object: "realtime.response", id: sb.lastResponseId, status: "in_progress" },
          });
        }
        if (event.type === "session.update") sb.send({ type: "session.updated", session: event.session });
      },
      close(ws) {
        if (ws.data.text) return text.handlers.close(ws);
        const sb = sideband(ws.data.callId);
        if (sb.socket === ws) sb.socket = null;
      },
    },
  });
  return {
    ...server,
    sideband: (callId: string): FakeSideband => sideband(callId),
    text: text.models,
    /** Sideband connections open right now (over every call). */
    openSidebands: () => [...sidebands.values()].filter((s) => s.socket !== null).length,
    releaseChats: () => {
      for (const release of hung.splice(0)) release();
    },
    stop: async () => {
      for (const release of held.splice(0)) release();
      for (const release of hung.splice(0)) release();
      await server.stop();
    },
  };
}

/** Registers an incoming call in the fake (as if OpenAI had received the INVITE) and returns its event. */
export function incomingCall(state: OpenAiState, o: IncomingCallOptions = {}): RealtimeCallIncomingEvent {
  const event = buildIncomingCallEvent(o);
  state.realtimeCalls[event.data.call_id] = {
    callId: event.data.call_id,
    status: "incoming",
    session: null,
    rejectStatusCode: null,
    referTargetUri: null,
    history: [],
  };
  return event;
}

// ---------------------------------------------------------------------------------------------------------------
// Sideband server events, typed by the SDK (openai-node `RealtimeServerEvent`), for tests to script

/** A server event as the SDK types it, without the `event_id` the fake adds. */
export type FakeServerEvent = RealtimeServerEvent extends infer E
  ? E extends RealtimeServerEvent
    ? Omit<E, "event_id">
    : never
  : never;

/** `response.done` with the usage OpenAI reports for the response (`RealtimeResponseUsage`). */
export const responseDoneEvent = (id: string, usage: RealtimeResponseUsage): FakeServerEvent => ({
  type: "response.done",
  response: { object: "realtime.response", id, status: "completed", output: [], usage },
});

/** The server's voice detection: the caller started (`audioMs` into the call's input audio) or stopped speaking. */
export const speechEvent = (what: "started" | "stopped", itemId: string, audioMs: number): FakeServerEvent =>
  what === "started"
    ? { type: "input_audio_buffer.speech_started", item_id: itemId, audio_start_ms: audioMs }
    : { type: "input_audio_buffer.speech_stopped", item_id: itemId, audio_end_ms: audioMs };

/** A chunk of the assistant's audio (a tiny base64 payload: the console keeps none of it). */
export const audioDeltaEvent = (responseId: string, itemId: string): FakeServerEvent => ({
  type: "response.output_audio.delta",
  response_id: responseId,
  item_id: itemId,
  output_index: 0,
  content_index: 0,
  delta: "AAAA",
});

/** A piece of the transcript of the assistant's audio. */
export const transcriptDeltaEvent = (responseId: string, itemId: string, delta: string): FakeServerEvent => ({
  type: "response.output_audio_transcript.delta",
  response_id: responseId,
  item_id: itemId,
  output_index: 0,
  content_index: 0,
  delta,
});

/** `response.created` for a response the model starts by itself (server voice detection), not asked for. */
export const responseCreatedEvent = (id: string): FakeServerEvent => ({
  type: "response.created",
  response: { object: "realtime.response", id, status: "in_progress", output: [] },
});
