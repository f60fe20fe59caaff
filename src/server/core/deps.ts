/**
 * What domain functions receive. Each function takes only the parts it uses
 * (`Pick<Deps, "db" | "events">`), so a test can hand it a database and a list
 * that records events, without building the whole app.
 */
import type { Db } from "../../db/client";
import type { WsEvent } from "../../shared/ws-events";
import type { Config } from "../config";
import type { CredentialStore } from "../integrations/credentials";
import type { HostMetricsReader } from "../integrations/host-metrics";
import type { SecretBox } from "../secret-box";

/** Where domain functions publish what changed (the WebSocket hub in the app). */
export interface Events {
  publish(event: WsEvent): void;
}

export interface Deps {
  db: Db;
  events: Events;
  /** Milliseconds since the epoch; injectable so expiry and timestamps are testable. */
  now: () => number;
  config: Config;
  credentials: CredentialStore;
  hostMetrics: HostMetricsReader;
  /** Seals and opens secrets stored in the database (AES-256-GCM, key in DATA_DIR). */
  box: SecretBox;
}
