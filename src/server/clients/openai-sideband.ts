/**
 * OpenAI Realtime "sideband": the server-side WebSocket to an accepted SIP call's session
 * (`wss://…/v1/realtime?call_id=<id>`, bearer auth; services.md §4). Typed events both ways, an open
 * deadline, a cap on message size, the API key never in an error or log line. The call logic
 * (tools, transcripts, reconnect) is src/server/ai/sideband.ts; ADR 0042.
 */
import type {
  RealtimeClientEvent,
  RealtimeError,
  RealtimeResponse,
  RealtimeResponseUsage,
  RealtimeServerEvent,
} from "openai/resources/realtime/realtime";
import { redact } from "../redact";

/** A Realtime WebSocket URL from the configured REST base URL: `https`→`wss`, `http`→`ws`, then `/realtime?<query>`. */
export function realtimeUrl(baseUrl: string, query: Record<string, string>): string {
  const url = new URL(baseUrl.replace(/\/+$/, ""));
  if (url.protocol === "https:") url.protocol = "wss:";
  else if (url.protocol === "http:") url.protocol = "ws:";
  else throw new Error(`The OpenAI base URL must be http(s), not ${url.protocol}`);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/realtime`;
  url.search = `?${new URLSearchParams(query)}`;
  return url.toString();
}

/** The sideband URL of a call: `/realtime?call_id=<id>`. */
export const sidebandUrl = (baseUrl: string, callId: string) => realtimeUrl(baseUrl, { call_id: callId });

// ---------- events (GA names, typed by the official SDK; the beta's names are read too) ----------

/** The SDK's type of one server event, by its `type`. */
type Server<T extends RealtimeServerEvent["type"]> = Extract<RealtimeServerEvent, { type: T }>;
/** The fields the console reads of a server event, each typed as the SDK types it (a misread field fails typecheck). */
type Read<T extends RealtimeServerEvent["type"], K extends keyof Server<T>> = Pick<Server<T>, "type" | K>;
/** A beta event: the GA event's fields under the beta's name. */
type Beta<E, Name extends string> = Omit<E, "type"> & { type: Name };

/** `response.done` as the console keeps it: the response's id, status, output items and usage (no audio). */
export type SidebandResponseDone = {
  type: "response.done";
  response: Required<Pick<RealtimeResponse, "id">> &
    Pick<RealtimeResponse, "status" | "usage"> & {
      /** The output items as sent: read tolerantly (only function calls are used). */
      output?: unknown[];
    };
};

/** An assistant output delta the measures time (no payload is kept: audio deltas carry base64 audio). */
type OutputDelta<T extends RealtimeServerEvent["type"]> = Read<T, "response_id" & keyof Server<T>>;
type TranscriptDone = Read<"response.output_audio_transcript.done", "response_id" | "item_id" | "transcript">;

export type SidebandServerEvent =
  | Read<"session.created" | "session.updated", never>
  | Read<"conversation.item.input_audio_transcription.completed", "item_id" | "transcript">
  | TranscriptDone
  | Beta<TranscriptDone, "response.audio_transcript.done">
  | Read<"response.output_text.done", "response_id" | "item_id" | "text">
  | Read<"response.function_call_arguments.done", "response_id" | "item_id" | "call_id" | "name" | "arguments">
  | { type: "response.created"; response: Required<Pick<RealtimeResponse, "id">> }
  | SidebandResponseDone
  | { type: "error"; error: Pick<RealtimeError, "message"> & Partial<Pick<RealtimeError, "type" | "code">> }
  /** Items entering the conversation: their order is the transcript's order (GA `added`, beta `created`). */
  | { type: "conversation.item.added" | "conversation.item.created"; item_id: string }
  | Read<"input_audio_buffer.committed", "item_id">
  /** The caller's speech as the server's voice detection hears it (the measures' turn starts and ends). */
  | Read<"input_audio_buffer.speech_started", "item_id">
  | Read<"input_audio_buffer.speech_stopped", "item_id">
  /** The assistant's first output of a response (the turn's latency ends at the first of these). */
  | OutputDelta<"response.output_audio.delta">
  | Beta<OutputDelta<"response.output_audio.delta">, "response.audio.delta">
  | Read<"output_audio_buffer.started", "response_id">
  | OutputDelta<"response.output_audio_transcript.delta">
  | Beta<OutputDelta<"response.output_audio_transcript.delta">, "response.audio_transcript.delta">
  | OutputDelta<"response.output_text.delta">;

/** The client events the console sends, exactly as the SDK types them. */
export type SidebandClientEvent = Extract<
  RealtimeClientEvent,
  { type: "session.update" | "conversation.item.create" | "response.create" }
>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === "string";
const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** A `response.usage` kept only when its counts are numbers (a count OpenAI left out stays out). */
function usageOf(v: unknown): RealtimeResponseUsage | undefined {
  if (!isObj(v)) return undefined;
  const counts = (o: unknown, keys: string[]) => {
    if (!isObj(o)) return undefined;
    const out: Record<string, number> = {};
    for (const k of keys) if (num(o[k])) out[k] = o[k];
    return out;
  };
  const u: RealtimeResponseUsage = {};
  for (const k of ["total_tokens", "input_tokens", "output_tokens"] as const) if (num(v[k])) u[k] = v[k];
  const inD = counts(v.input_token_details, ["text_tokens", "audio_tokens", "image_tokens", "cached_tokens"]);
  if (inD) {
    const det = isObj(v.input_token_details) ? v.input_token_details : {};
    const cached = counts(det.cached_tokens_details, ["text_tokens", "audio_tokens", "image_tokens"]);
    u.input_token_details = { ...inD, ...(cached ? { cached_tokens_details: cached } : {}) };
  }
  const outD = counts(v.output_token_details, ["text_tokens", "audio_tokens"]);
  if (outD) u.output_token_details = outD;
  return u;
}

/** One server event the console acts on, or null (an unknown type, or a known one without its fields). */
export function parseServerEvent(text: string): SidebandServerEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObj(v) || !str(v.type)) return null;
  const responseId = str(v.response_id) ? v.response_id : "";
  switch (v.type) {
    case "session.created":
    case "session.updated":
      return { type: v.type };
    case "conversation.item.input_audio_transcription.completed":
      return str(v.item_id) && str(v.transcript)
        ? { type: v.type, item_id: v.item_id, transcript: v.transcript }
        : null;
    case "response.output_audio_transcript.done":
    case "response.audio_transcript.done":
      return str(v.item_id) && str(v.transcript)
        ? { type: v.type, response_id: responseId, item_id: v.item_id, transcript: v.transcript }
        : null;
    case "response.output_text.done":
      return str(v.item_id) && str(v.text)
        ? { type: v.type, response_id: responseId, item_id: v.item_id, text: v.text }
        : null;
    case "response.function_call_arguments.done":
      return str(v.call_id) && str(v.name) && str(v.arguments)
        ? {
            type: v.type,
            response_id: responseId,
            item_id: str(v.item_id) ? v.item_id : "",
            call_id: v.call_id,
            name: v.name,
            arguments: v.arguments,
          }
        : null;
    case "response.created":
    case "response.done": {
      const r = v.response;
      if (!isObj(r) || !str(r.id)) return null;
      if (v.type === "response.created") return { type: v.type, response: { id: r.id } };
      const usage = usageOf(r.usage);
      return {
        type: v.type,
        response: {
          id: r.id,
          ...(str(r.status) ? { status: r.status as RealtimeResponse["status"] } : {}),
          ...(Array.isArray(r.output) ? { output: r.output } : {}),
          ...(usage ? { usage } : {}),
        },
      };
    }
    case "error": {
      const e = isObj(v.error) ? v.error : {};
      return {
        type: "error",
        error: {
          message: str(e.message) ? e.message : "unknown error",
          ...(str(e.type) ? { type: e.type } : {}),
          ...(str(e.code) ? { code: e.code } : {}),
        },
      };
    }
    case "conversation.item.added":
    case "conversation.item.created": {
      const item = v.item;
      return isObj(item) && str(item.id) ? { type: v.type, item_id: item.id } : null;
    }
    case "input_audio_buffer.committed":
    case "input_audio_buffer.speech_started":
    case "input_audio_buffer.speech_stopped":
      return str(v.item_id) ? { type: v.type, item_id: v.item_id } : null;
    case "response.output_audio.delta":
    case "response.audio.delta":
    case "output_audio_buffer.started":
    case "response.output_audio_transcript.delta":
    case "response.audio_transcript.delta":
    case "response.output_text.delta":
      // Only the type and the response: an audio delta's payload is never kept.
      return { type: v.type, response_id: responseId };
    default:
      return null;
  }
}

// ---------- the socket ----------

/** How a Realtime socket is opened: its URL, the key (sent as a bearer header), deadlines and the event parser. */
export interface RealtimeSocketOptions<E> {
  url: string;
  apiKey: string;
  /** The socket must be open within this time, or the attempt fails. */
  openTimeoutMs: number;
  /** Messages longer than this (characters) are dropped, not parsed. */
  maxMessageChars: number;
  /** One message's event, or null to skip it. */
  parse(text: string): E | null;
}

export interface RealtimeSocketHandlers<E> {
  /** A server event (what `parse` kept). */
  event(e: E): void;
  /** A message dropped for its size. */
  oversized?(chars: number): void;
  /** The socket closed after it had opened; `clean` when it was closed normally (1000: the call ended). */
  closed(info: { code: number; reason: string; clean: boolean }): void;
}

export class SidebandOpenError extends Error {}

/**
 * One open Realtime socket (a call's sideband, or a text-mode session). `open()` resolves once it is open, or
 * rejects within the deadline; its events go to the handlers. `C`: the client events it may send.
 */
export class RealtimeSocket<C extends RealtimeClientEvent = RealtimeClientEvent> {
  private closedByUs = false;
  private constructor(
    private readonly ws: WebSocket,
    private readonly secrets: string[],
  ) {}

  /**
   * Opens the socket. Rejects with `SidebandOpenError` (no secret in it) when it does not open within the
   * deadline, is refused, or errors; the half-open socket is closed and its timer cleared.
   */
  static open<E, C extends RealtimeClientEvent = RealtimeClientEvent>(
    o: RealtimeSocketOptions<E>,
    handlers: RealtimeSocketHandlers<E>,
    track: TimerTrack,
  ): Promise<RealtimeSocket<C>> {
    const secrets = [o.apiKey];
    return new Promise((resolve, reject) => {
      let ws: WebSocket;
      try {
        // Bun's WebSocket client takes headers: the bearer key goes in Authorization, never in the URL.
        ws = new WebSocket(o.url, {
          headers: { Authorization: `Bearer ${o.apiKey}` },
        } as unknown as string[]);
      } catch (err) {
        reject(new SidebandOpenError(redact(`cannot open: ${(err as Error).message}`, secrets)));
        return;
      }
      let settled = false;
      const socket = new RealtimeSocket<C>(ws, secrets);
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        track.clear(timer);
        try {
          ws.close();
        } catch {}
        reject(new SidebandOpenError(redact(why, secrets)));
      };
      const timer = track.set(() => fail(`did not open within ${o.openTimeoutMs} ms`), o.openTimeoutMs);
      ws.addEventListener("open", () => {
        if (settled) return;
        settled = true;
        track.clear(timer);
        resolve(socket);
      });
      ws.addEventListener("error", () => fail("the connection failed or was refused"));
      ws.addEventListener("close", (ev) => {
        if (!settled) return fail(`closed before it opened (${ev.code})`);
        handlers.closed({
          code: ev.code,
          reason: redact(String(ev.reason ?? "").slice(0, 200), secrets),
          clean: socket.closedByUs || ev.code === 1000,
        });
      });
      ws.addEventListener("message", (ev) => {
        if (!settled) return;
        const data = ev.data;
        if (typeof data !== "string") return; // Realtime sockets carry JSON text only
        if (data.length > o.maxMessageChars) {
          handlers.oversized?.(data.length);
          return;
        }
        const event = o.parse(data);
        if (event) handlers.event(event);
      });
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends one client event; false when the socket is no longer open. */
  send(event: C): boolean {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(event));
    return true;
  }

  /** Closes normally (1000); the `closed` handler then runs with `clean: true`. */
  close(reason = "call ended"): void {
    this.closedByUs = true;
    if (this.ws.readyState === WebSocket.CLOSED) return;
    try {
      this.ws.close(1000, reason);
    } catch {}
  }

  /** Text with this socket's secrets masked (for log lines built from what the server sent). */
  redact(text: string): string {
    return redact(text, this.secrets);
  }
}

export interface SidebandOpenOptions {
  baseUrl: string;
  apiKey: string;
  callId: string;
  openTimeoutMs: number;
  maxMessageChars: number;
}

/** A call's sideband: the events the console acts on, the client events it sends. */
export type SidebandSocket = RealtimeSocket<SidebandClientEvent>;
export type SidebandHandlers = RealtimeSocketHandlers<SidebandServerEvent>;

/** Opens an accepted call's sideband (`/realtime?call_id=`), parsed by `parseServerEvent`. */
export const openSideband = (o: SidebandOpenOptions, handlers: SidebandHandlers, track: TimerTrack) =>
  RealtimeSocket.open<SidebandServerEvent, SidebandClientEvent>(
    { ...o, url: sidebandUrl(o.baseUrl, o.callId), parse: parseServerEvent },
    handlers,
    track,
  );

/** Timers that are counted, so a test can prove none is left behind. */
export class TimerTrack {
  private readonly live = new Set<ReturnType<typeof setTimeout>>();

  set(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
    const t = setTimeout(() => {
      this.live.delete(t);
      fn();
    }, ms);
    this.live.add(t);
    return t;
  }

  clear(t: ReturnType<typeof setTimeout> | null | undefined): void {
    if (!t) return;
    clearTimeout(t);
    this.live.delete(t);
  }

  get size(): number {
    return this.live.size;
  }
}
