import type { Server } from "bun";
import { WS_SYNC_TOPIC, type WsEvent } from "../shared/ws-events";

export interface SocketData {
  userId: string;
}

/**
 * The WebSocket hub: mutations call publish(), every signed-in console
 * subscribed to the sync topic receives `{type, data}` and refetches.
 */
export class Hub {
  private server: Server<SocketData> | null = null;

  attach(server: Server<SocketData>) {
    this.server = server;
  }

  publish(event: WsEvent): void {
    this.server?.publish(WS_SYNC_TOPIC, JSON.stringify(event));
  }

  get subscribers(): number {
    return this.server?.subscriberCount(WS_SYNC_TOPIC) ?? 0;
  }
}
