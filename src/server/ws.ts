import type { Server, ServerWebSocket } from "bun";
import { WS_SYNC_TOPIC, type WsEvent } from "../shared/ws-events";
import type { SessionSockets } from "./accounts/sessions";

export interface SocketData {
  userId: string;
  /** The session the socket was opened with (its public id): the socket closes when the session ends. */
  sessionId: string;
}

/** The close code a socket gets when its session ends (sign-out, expiry, password change). */
import { SESSION_ENDED_CLOSE_CODE } from "../shared/ws-events";

export { SESSION_ENDED_CLOSE_CODE };

/**
 * The WebSocket hub: mutations call publish(), every signed-in console
 * subscribed to the sync topic receives `{type, data}` and refetches. It also
 * knows which socket belongs to which session, so ending a session closes them.
 */
export class Hub implements SessionSockets {
  private server: Server<SocketData> | null = null;
  private bySession = new Map<string, Set<ServerWebSocket<SocketData>>>();

  attach(server: Server<SocketData>) {
    this.server = server;
  }

  publish(event: WsEvent): void {
    this.server?.publish(WS_SYNC_TOPIC, JSON.stringify(event));
  }

  get subscribers(): number {
    return this.server?.subscriberCount(WS_SYNC_TOPIC) ?? 0;
  }

  /** A socket opened (from the `open` handler). */
  add(ws: ServerWebSocket<SocketData>): void {
    const set = this.bySession.get(ws.data.sessionId) ?? new Set();
    set.add(ws);
    this.bySession.set(ws.data.sessionId, set);
  }

  /** A socket closed (from the `close` handler). */
  remove(ws: ServerWebSocket<SocketData>): void {
    const set = this.bySession.get(ws.data.sessionId);
    if (!set) return;
    set.delete(ws);
    if (set.size === 0) this.bySession.delete(ws.data.sessionId);
  }

  /** Closes every socket of these sessions (the sessions have ended). */
  closeSessions(ids: readonly string[]): void {
    for (const id of ids) {
      const set = this.bySession.get(id);
      if (!set) continue;
      this.bySession.delete(id);
      for (const ws of set) ws.close(SESSION_ENDED_CLOSE_CODE, "session ended");
    }
  }

  /** The sessions that have an open socket. */
  openSessionIds(): string[] {
    return [...this.bySession.keys()];
  }
}
