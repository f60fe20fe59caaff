/**
 * An OpenAI Realtime session in text mode over its WebSocket (`wss://…/v1/realtime?model=<model>`, bearer
 * auth): what the assistants' scripted tests talk to (ADR 0072). It is the sideband's `RealtimeSocket` opened by
 * model rather than by `call_id`, handing every server event on (typed with the SDK's realtime types) in order
 * through `next()`. The conversation logic is src/server/ai/test-runner.ts.
 */
import type { RealtimeClientEvent, RealtimeServerEvent } from "openai/resources/realtime/realtime";
import { RealtimeSocket, realtimeUrl, SidebandOpenError, TimerTrack } from "./openai-sideband";

export interface TextSessionOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** The socket must be open within this time, or the attempt fails. */
  openTimeoutMs: number;
  /** Messages longer than this (characters) end the session, unread. */
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

  private socket: RealtimeSocket | null = null;

  private constructor() {}

  /** Opens the session (`/realtime?model=`); rejects with `TextSessionError` (no secret in it) when it does not open in time. */
  static async open(o: TextSessionOptions): Promise<OpenAiTextSession> {
    const session = new OpenAiTextSession();
    try {
      session.socket = await RealtimeSocket.open<RealtimeServerEvent>(
        { ...o, url: realtimeUrl(o.baseUrl, { model: o.model }), parse: parseEvent },
        {
          event: (e) => session.push(e),
          oversized: (n) => session.end(`a message of ${n} characters was too large`),
          closed: (info) => session.end(`the session closed (${info.code}${info.reason ? `: ${info.reason}` : ""})`),
        },
        session.timers,
      );
    } catch (err) {
      throw new TextSessionError(err instanceof SidebandOpenError ? err.message : "could not open");
    }
    return session;
  }

  /** Sends one client event; false when the session is no longer open. */
  send(event: RealtimeClientEvent): boolean {
    return this.socket?.send(event) ?? false;
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
    this.socket?.close("test finished");
  }

  /** Text with this session's secrets masked (for details built from what the server sent). */
  redact(text: string): string {
    return this.socket?.redact(text) ?? text;
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
