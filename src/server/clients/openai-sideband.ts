/**
 * OpenAI Realtime "sideband": the server-side WebSocket to an accepted SIP call's session
 * (`wss://…/v1/realtime?call_id=<id>`, bearer auth; services.md §4). Typed events both ways, an open
 * deadline, a cap on message size, the API key never in an error or log line. The call logic
 * (tools, transcripts, reconnect) is src/server/ai/sideband.ts; ADR 0042.
 */
import { redact } from "../redact";

/** The sideband URL of a call from the configured REST base URL: `https`→`wss`, `http`→`ws`, then `/realtime?call_id=`. */
export function sidebandUrl(baseUrl: string, callId: string): string {
  const url = new URL(baseUrl.replace(/\/+$/, ""));
  if (url.protocol === "https:") url.protocol = "wss:";
  else if (url.protocol === "http:") url.protocol = "ws:";
  else throw new Error(`The OpenAI base URL must be http(s), not ${url.protocol}`);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/realtime`;
  url.search = `?call_id=${encodeURIComponent(callId)}`;
  return url.toString();
}

// ---------- events (GA names; the beta's transcript name is read too) ----------

export type SidebandServerEvent =
  | { type: "session.created" | "session.updated"; event_id?: string }
  | {
      type: "conversation.item.input_audio_transcription.completed";
      item_id: string;
      content_index?: number;
      transcript: string;
    }
  | {
      type: "response.output_audio_transcript.done" | "response.audio_transcript.done";
      response_id: string;
      item_id: string;
      transcript: string;
    }
  | {
      type: "response.function_call_arguments.done";
      response_id: string;
      item_id: string;
      output_index?: number;
      call_id: string;
      name: string;
      arguments: string;
    }
  | { type: "response.created"; response: { id: string } }
  | { type: "response.done"; response: { id: string; status?: string; output?: unknown[] } }
  | { type: "error"; error: { type?: string; code?: string | null; message: string } }
  /** Items entering the conversation: their order is the transcript's order (GA `added`, beta `created`). */
  | {
      type: "conversation.item.added" | "conversation.item.created" | "input_audio_buffer.committed";
      item_id: string;
    };

export type SidebandClientEvent =
  | { type: "session.update"; session: Record<string, unknown> }
  | { type: "conversation.item.create"; item: { type: "function_call_output"; call_id: string; output: string } }
  | { type: "response.create"; response?: Record<string, unknown> };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === "string";

/** One server event the console acts on, or null (an unknown type, or a known one without its fields). */
export function parseServerEvent(text: string): SidebandServerEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObj(v) || !str(v.type)) return null;
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
        ? {
            type: v.type,
            response_id: str(v.response_id) ? v.response_id : "",
            item_id: v.item_id,
            transcript: v.transcript,
          }
        : null;
    case "response.function_call_arguments.done":
      return str(v.call_id) && str(v.name) && str(v.arguments)
        ? {
            type: v.type,
            response_id: str(v.response_id) ? v.response_id : "",
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
      return v.type === "response.created"
        ? { type: v.type, response: { id: r.id } }
        : {
            type: v.type,
            response: {
              id: r.id,
              ...(str(r.status) ? { status: r.status } : {}),
              ...(Array.isArray(r.output) ? { output: r.output } : {}),
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
      return str(v.item_id) ? { type: v.type, item_id: v.item_id } : null;
    default:
      return null;
  }
}

// ---------- the socket ----------

export interface SidebandOpenOptions {
  baseUrl: string;
  apiKey: string;
  callId: string;
  /** The socket must be open within this time, or the attempt fails. */
  openTimeoutMs: number;
  /** Messages longer than this (characters) are dropped, not parsed. */
  maxMessageChars: number;
}

export interface SidebandHandlers {
  /** A server event the console acts on (unknown types and malformed events are skipped). */
  event(e: SidebandServerEvent): void;
  /** A message dropped for its size. */
  oversized?(chars: number): void;
  /** The socket closed after it had opened; `clean` when the server closed it normally (1000: the call ended). */
  closed(info: { code: number; reason: string; clean: boolean }): void;
}

export class SidebandOpenError extends Error {}

/** One open sideband socket. `open()` resolves once it is open, or rejects within the deadline. */
export class SidebandSocket {
  private closedByUs = false;
  private constructor(
    private readonly ws: WebSocket,
    private readonly secrets: string[],
  ) {}

  /**
   * Opens the call's sideband. Rejects with `SidebandOpenError` (no secret in it) when it does not open
   * within the deadline, is refused, or errors; the half-open socket is closed and its timer cleared.
   */
  static open(o: SidebandOpenOptions, handlers: SidebandHandlers, track: TimerTrack): Promise<SidebandSocket> {
    const secrets = [o.apiKey];
    return new Promise((resolve, reject) => {
      let ws: WebSocket;
      try {
        // Bun's WebSocket client takes headers: the bearer key goes in Authorization, never in the URL.
        ws = new WebSocket(sidebandUrl(o.baseUrl, o.callId), {
          headers: { Authorization: `Bearer ${o.apiKey}` },
        } as unknown as string[]);
      } catch (err) {
        reject(new SidebandOpenError(redact(`cannot open: ${(err as Error).message}`, secrets)));
        return;
      }
      let settled = false;
      const socket = new SidebandSocket(ws, secrets);
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
        if (typeof data !== "string") return; // the sideband carries JSON text only
        if (data.length > o.maxMessageChars) {
          handlers.oversized?.(data.length);
          return;
        }
        const event = parseServerEvent(data);
        if (event) handlers.event(event);
      });
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends one client event; false when the socket is no longer open. */
  send(event: SidebandClientEvent): boolean {
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
