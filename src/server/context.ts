import type { Db } from "../db/client";
import type { SessionUser } from "../shared/api";
import type { SessionStore } from "./auth/sessions";
import type { LoginThrottle } from "./auth/throttle";
import type { Config } from "./config";
import type { CredentialStore } from "./credentials/store";
import type { HostMetricsReader } from "./host-metrics";
import type { SecretBox } from "./secret-box";
import type { Hub } from "./ws";

/** Everything a route handler may use; built once in createApp. */
export interface AppContext {
  db: Db;
  config: Config;
  hub: Hub;
  sessions: SessionStore;
  throttle: LoginThrottle;
  now: () => number;
  version: string;
  box: SecretBox;
  credentials: CredentialStore;
  hostMetrics: HostMetricsReader;
}

export interface RequestContext {
  req: Request;
  url: URL;
  params: Record<string, string>;
  /** The signed-in user; always set on routes that require a session. */
  user: SessionUser | null;
  /** The raw session token from the cookie, if any. */
  token: string | null;
  app: AppContext;
}

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteDef {
  method: Method;
  /** Path under /api with `:name` parameters, e.g. `/api/extensions/:id`. */
  path: string;
  /** Defaults to true: every /api route requires a session unless it says otherwise. */
  auth?: boolean;
  handler: (ctx: RequestContext) => Response | Promise<Response>;
}
