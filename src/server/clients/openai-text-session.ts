/**
 * An OpenAI Realtime session in text mode over its WebSocket (`wss://…/v1/realtime?model=<model>`, bearer
 * auth): what the assistants' scripted tests talk to (ADR 0072). It is the sideband's socket without a call:
 * the same open deadline, message cap, counted timers and redaction (`TimerTrack`, `redact`), but opened by
 * model rather than by `call_id`, and it hands every server event on (typed with the SDK's realtime types)
 * instead of the few a call's sideband acts on. The conversation logic is src/server/ai/test-runner.ts.
 */
import type { RealtimeClientEvent, RealtimeServerEvent } from "openai/resources/realtime/realtime";
import { redact } from "../redact";
import { TimerTrack } from "./openai-sideband";

/** The text session's URL from the configured REST base URL: `https`→`wss`, `http`→`ws`, then `/realtime?model=`. */
export function textSessionUrl(baseUrl: string, model: string): string {
  const url = new URL(baseUrl.replace(/\/+$/, ""));
  if (url.protocol === "https:") url.protocol = "wss:";
  else if (url.protocol === "http:") url.protocol = "ws:";
  else throw new Error(`The OpenAI base URL must be http(s), not ${url.protocol}`);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/realtime`;
  url.search = `?model=${encodeURIComponent(model)}`;
  return url.toString();
}

export interface TextSessionOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** The socket must be open within this time, or the attempt fails. */
  openTimeoutMs: number;
  /** Messages longer than this (characters) are dropped, not parsed. */
  maxMessageChars: number;
}

/** The session could not open, closed, or nothing came in time; the message names no secret. */
export class TextSessionError extends Error {}

/** One open text-mode session: send client events, take server events in order as they come. */
export class OpenAiTextSession {
  private readonly queue: RealtimeServerEvent[] = [];
  private waiter: { resolve: (e: RealtimeServerEvent) => void; reject: (err: Error) => void } | null = null;
  private ended: string | null = null;
  readonly timers = new TimerTrack();

  private constructor(
    private readonly ws: WebSocket,
    private readonly secrets: string[],
  ) {}

  /** Opens the session; rejects with `TextSessionError` (no secret in it) when it does not open in time. */
  static open(o: TextSessionOptions): Promise<OpenAiTextSession> {
    const secrets = [o.apiKey];
    return new Promise((resolve, reject) => {
      let ws: WebSocket;
      try {
        // Bun's WebSocket client takes headers: the bearer key goes in Authorization, never in the URL.
        ws = new WebSocket(textSessionUrl(o.baseUrl, o.model), {
          headers: { Authorization: `Bearer ${o.apiKey}` },
        } as unknown as string[]);
      } catch (err) {
        reject(new TextSessionError(redact(`cannot open: ${(err as Error).message}`, secrets)));
        return;
      }
      const session = new OpenAiTextSession(ws, secrets);
      let settled = false;
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        session.timers.clear(timer);
        try {
          ws.close();
        } catch {}
        reject(new TextSessionError(redact(why, secrets)));
      };
      const timer = session.timers.set(() => fail(`did not open within ${o.openTimeoutMs} ms`), o.openTimeoutMs);
      ws.addEventListener("open", () => {
        if (settled) return;
        settled = true;
        session.timers.clear(timer);
        resolve(session);
      });
      ws.addEventListener("error", () => fail("the connection failed or was refused"));
      ws.addEventListener("close", (ev) => {
        if (!settled) return fail(`closed before it opened (${ev.code})`);
        const reason = redact(String(ev.reason ?? "").slice(0, 200), secrets);
        session.end(`the session closed (${ev.code}${reason ? `: ${reason}` : ""})`);
      });
      ws.addEventListener("message", (ev) => {
        if (!settled || typeof ev.data !== "string") return;
        if (ev.data.length > o.maxMessageChars) {
          session.end(`a message of ${ev.data.length} characters was too large`);
          return;
        }
        const event = parseEvent(ev.data);
        if (event) session.push(event);
      });
    });
  }

  /** Sends one client event; false when the session is no longer open. */
  send(event: RealtimeClientEvent): boolean {
    if (this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(event));
    return true;
  }

  /**
   * The next server event, waiting at most `timeoutMs`; rejects with `TextSessionError` when the session ends
   * or nothing arrives in time (`what` names what was awaited in that message).
   */
  next(timeoutMs: number, what: string): Promise<RealtimeServerEvent> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.ended) return Promise.reject(new TextSessionError(this.ended));
    return new Promise((resolve, reject) => {
      const timer = this.timers.set(
        () => {
          this.waiter = null;
          reject(
            new TextSessionError(
              `no ${what} within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`,
            ),
          );
        },
        Math.max(0, timeoutMs),
      );
      this.waiter = {
        resolve: (e) => {
          this.timers.clear(timer);
          resolve(e);
        },
        reject: (err) => {
          this.timers.clear(timer);
          reject(err);
        },
      };
    });
  }

  /** Closes normally (1000). */
  close(): void {
    this.end("the session was closed");
    if (this.ws.readyState === WebSocket.CLOSED) return;
    try {
      this.ws.close(1000, "test finished");
    } catch {}
  }

  /** Text with this session's secrets masked (for details built from what the server sent). */
  redact(text: string): string {
    return redact(text, this.secrets);
  }

  private push(event: RealtimeServerEvent): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w.resolve(event);
    } else this.queue.push(event);
  }

  private end(why: string): void {
    if (this.ended) return;
    this.ended = why;
    const w = this.waiter;
    this.waiter = null;
    w?.reject(new TextSessionError(why));
  }
}

/**
 * A server event as the SDK types it. Only the envelope is checked here (an object with a `type`); readers
 * look at the fields their type promises defensively, since a server may always send less.
 */
function parseEvent(text: string): RealtimeServerEvent | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && typeof (v as { type?: unknown }).type === "string"
      ? (v as RealtimeServerEvent)
      : null;
  } catch {
    return null;
  }
}
