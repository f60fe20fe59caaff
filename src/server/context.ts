import type { z } from "zod";
import type { Db } from "../db/client";
import type { ApiTokenScope } from "../shared/ai/api-tokens";
import type { SessionUser } from "../shared/auth";
import type { Role } from "../shared/users";
import type { WsEventType } from "../shared/ws-events";
import type { SessionStore } from "./accounts/sessions";
import type { SetupCode } from "./accounts/setup-code";
import type { LoginThrottle } from "./accounts/throttle";
import type { CallSessions } from "./ai/sideband";
import type { AlertEngine } from "./alerts/engine";
import type { CdrSource } from "./cdr/source";
import type { Config } from "./config";
import type { Deps } from "./core/deps";
import { Unauthenticated } from "./core/errors";
import type { CredentialStore } from "./integrations/credentials";
import type { HostMetricsReader } from "./integrations/host-metrics";
import type { JobRunner } from "./jobs/runner";
import type { LiveMonitor } from "./live/monitor";
import type { MetricsRegistry } from "./metrics/registry";
import type { PbxFileSessions } from "./pbx/audio";
import type { TestCallScheduler } from "./probes/schedule";
import type { SecretBox } from "./secret-box";
import type { VersionedTable } from "./transport/list-cache";
import type { Hub } from "./ws";

/** Everything the HTTP layer holds; built once in createApp. Domain functions take the `Deps` part. */
export interface AppContext extends Deps {
  db: Db;
  config: Config;
  /** The WebSocket hub: domain functions publish their events here and every open console receives them. */
  events: Hub;
  sessions: SessionStore;
  throttle: LoginThrottle;
  now: () => number;
  version: string;
  box: SecretBox;
  credentials: CredentialStore;
  hostMetrics: HostMetricsReader;
  /** The first-run set-up code (required when the console listens beyond loopback). */
  setupCode: SetupCode;
  /** Long work (deployments, sync imports) runs here, one job at a time, outside any request (ADR 0024). */
  jobs: JobRunner;
  /** The live PBX: the one AMI connection and what it says (registrations, calls, attacks; ADR 0027). */
  live: LiveMonitor;
  /** The call history: FreePBX's call records, read-only (ADR 0027). */
  cdr: CdrSource;
  /** Accepted AI calls followed over their sideband: tools, transcripts (ADR 0042). */
  aiCalls: CallSessions;
  /** One PBX-host session shared by audio reads (recordings, voicemail), closed when idle. */
  pbxFiles: PbxFileSessions;
  /** The alert rules' engine: a pass every few seconds, firing, repeating and resolving alerts (ADR 0063). */
  alerts: AlertEngine;
  /** GET /metrics: the request counts kept per route template, the scrape throttle, the registry (ADR 0066). */
  metrics: MetricsRegistry;
  /** Test calls: the schedule and the runs in progress (ADR 0068). */
  testCalls: TestCallScheduler;
}

export interface RequestContext<B = unknown, Q = unknown> {
  req: Request;
  url: URL;
  params: Record<string, string>;
  /** The body parsed with the route's `body` schema (undefined when the route has none). */
  body: B;
  /** The query string parsed with the route's `query` schema (undefined when the route has none). */
  query: Q;
  /**
   * The signed-in user; always set on routes that require a session. A REST API token's request (ADR 0074)
   * has the token here: its role, `token:<name>#<id>` as the name, and an id that names no user.
   */
  user: SessionUser | null;
  /** The raw session token from the cookie, if any (never on a token's request). */
  token: string | null;
  /** The API token's id on routes authenticated by an API token (the intake's, or a REST token's). */
  apiTokenId: number | null;
  app: AppContext;
  /** The client's address: the TCP peer, or behind a trusted proxy the address it forwarded (ADR 0069); null when unknown. */
  clientIp: string | null;
}

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Who may call a route: a signed-in console user (the default; a REST API token with a role stands for one,
 * unless the route is `sessionOnly`), anyone (the route authenticates some other way, e.g. a webhook
 * signature, or needs none), or a machine client with an API token of this scope (checked before the body
 * is read).
 */
export type RouteAuth = "session" | "public" | { apiToken: ApiTokenScope };

export interface RouteDef<B = unknown, Q = unknown> {
  method: Method;
  /** Path under /api with `:name` parameters, e.g. `/api/extensions/:id`. */
  path: string;
  /** One line for the API contract (/api/openapi.json). */
  summary: string;
  /** Defaults to "session": every /api route requires a session unless it says otherwise. */
  auth?: RouteAuth;
  /**
   * The least role a signed-in user needs (session routes only; see `requiredRole` for the default:
   * viewer for GET, operator for writes). `admin` on credentials, users, backups and API tokens;
   * `viewer` on the user's own account (`/api/auth/*`).
   */
  minRole?: Role;
  /**
   * Why a REST API token is never accepted here, whatever its role (ADR 0074): the caller's own account (a
   * token has none), and what decides who gets in (users, tokens, the scrape token, the two-factor policy)
   * or hands out a secret shown once. A token's request is answered 403 (audited as the token). Session
   * routes only; a test lists the routes that must declare it.
   */
  sessionOnly?: string;
  /**
   * Reachable by a session that must still set up two-factor sign-in (the console requires it and the
   * user has not turned it on; src/server/accounts/settings.ts): the user's own account routes needed to
   * enrol and leave. Every other session route answers such a session 403. Public routes are not affected.
   */
  allowedBeforeTotp?: boolean;
  /** The JSON body's shared schema; parsed (400 with field messages) before the handler runs. */
  body?: z.ZodType<B>;
  /** Set when the handler reads the body itself (e.g. to check a signature over the raw bytes): what it expects. */
  rawBody?: string;
  /**
   * The body's media type when it is not JSON (a CSV import: `text/csv`; a recording's upload:
   * `multipart/form-data`). Such a write needs exactly this `Content-Type` (else 415, checked after the session
   * and role, before the body is read). A cross-site form can send `multipart/form-data`, but never with the
   * session: the cookie is `SameSite=Strict`, and an `Origin` that is not the console's is refused (403) first.
   * The handler reads the body itself.
   */
  bodyType?: "text/csv" | "multipart/form-data";
  /**
   * The largest body this route accepts, in bytes (default `MAX_JSON_BODY`, 1 MiB; declare more only for
   * e.g. an import). A larger body is refused with 413 while it is read, before the handler runs.
   */
  maxBody?: number;
  /** The query string's schema (values are strings). */
  query?: z.ZodType<Q>;
  /**
   * The events a successful call publishes on the WebSocket hub. Every route
   * that is not GET declares them; `[]` only with `storesNothing` (a test checks both).
   */
  publishes?: readonly WsEventType[];
  /** Why a non-GET route changes nothing another console shows (e.g. it only computes an answer). */
  storesNothing?: string;
  /**
   * What the audit trail records of a call (src/server/transport/audit.ts). Every route that is not GET
   * declares it (a test checks), either an `AuditSpec` or `{ skip: "why" }`; a GET route may declare one
   * (the backup download).
   */
  audit?: AuditSpec | { skip: string };
  /**
   * A GET list whose answer is made only of these tables (and the caller's role): it carries an `ETag`
   * from their versions, a matching `If-None-Match` is answered 304, and the body is kept per version
   * (src/server/transport/list-cache.ts, ADR 0029). Never on an answer that depends on the user or carries a secret.
   */
  etag?: readonly VersionedTable[];
  handler: (ctx: RequestContext<B, Q>) => Response | Promise<Response>;
}

/** The audit trail's view of a route. */
export interface AuditSpec {
  /** Dotted action name, e.g. `extension.create` (src/shared/audit.ts). */
  action: string;
  /** The object kind (`extension`, `user`…); the object id is the route's first path parameter or the answer's `id`. */
  object?: string;
  /**
   * The object's current state (its API view, secrets absent or masked) by the route's path parameters
   * (after a create: `id` is the answer's) or the parsed body: loaded before and after the call for the
   * field-level changes. Without it the request body's fields are recorded (secrets masked).
   */
  load?: (app: AppContext, params: Record<string, string>, body: unknown) => object | null | undefined;
  /** A one-line summary of a successful answer (e.g. a deployment's counts). */
  detail?: (answer: unknown) => string | undefined;
  /** Don't record the request body's fields (e.g. they are a transcript or a whole import). */
  omitBody?: boolean;
  /**
   * Records only the calls this says yes to (an audio player's seeks are range requests: only the one from the
   * first byte is a play).
   */
  when?: (req: Request, url: URL) => boolean;
  /** The action by the request's URL (`recording.download` with `?download=1`, else `action`). */
  actionOf?: (url: URL) => string;
  /**
   * For a route that acts on several kinds of object (the undo of a delete, ADR 0037): the action and
   * object kind a successful answer names, and the object's state after the call (its `id` is recorded).
   * `action`/`object` above are what a refused call records.
   */
  ofAnswer?: (answer: unknown) => { action: string; object: string; state: object } | undefined;
}

/** `RouteDef.sessionOnly` reasons (ADR 0074). */
export const OWN_ACCOUNT = "The caller's own account: a token has none";
export const WHO_GETS_IN = "Decides who gets in: a token must not mint, widen or keep access";

/** The signed-in user of a session route (the transport has already refused a request without one). */
export function signedInUser(user: SessionUser | null): SessionUser {
  if (!user) throw new Unauthenticated("Sign in required");
  return user;
}

/** An `AuditSpec.load` that finds the object by the `:id` parameter in its area's list (API view). */
export const loadById =
  <T extends { id: string | number }>(list: (app: AppContext) => readonly T[]) =>
  (app: AppContext, params: Record<string, string>): T | null =>
    params.id === undefined ? null : (list(app).find((item) => String(item.id) === params.id) ?? null);

/** Declares a route with its body/query types inferred from its schemas. */
export function route<B = undefined, Q = undefined>(def: RouteDef<B, Q>): RouteDef {
  return def as unknown as RouteDef;
}

/** The least role a session route needs: its own `minRole`, else viewer to read and operator to write. */
export function requiredRole(route: Pick<RouteDef, "method" | "minRole">): Role {
  return route.minRole ?? (route.method === "GET" ? "viewer" : "operator");
}
