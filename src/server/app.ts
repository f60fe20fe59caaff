import type { HTMLBundle, Server } from "bun";
import { z } from "zod";
import type { Db } from "../db/client";
import { API_TOKEN_NOT_HERE } from "../shared/api-tokens";
import { TOTP_SETUP_REQUIRED } from "../shared/settings";
import { forbiddenForRole, roleAllows } from "../shared/users";
import { WS_SYNC_TOPIC } from "../shared/ws-events";
import { authenticateApiToken, bearerApiToken } from "./accounts/api-tokens";
import { pruneAudit } from "./accounts/audit";
import { HOST_SESSION_COOKIE, SESSION_COOKIE, SessionStore } from "./accounts/sessions";
import { totpSetupRequired } from "./accounts/settings";
import { SetupCode } from "./accounts/setup-code";
import { LoginThrottle } from "./accounts/throttle";
import { requireApiToken } from "./accounts/tokens";
import { PostCallAnalyses } from "./ai/analysis";
import { publishLiveAiCalls } from "./ai/live";
import { CallSessions } from "./ai/sideband";
import { closeTestRuns } from "./ai/test-runner";
import { deliverAlert } from "./alerts/channels";
import { AlertEngine } from "./alerts/engine";
import { startBackupSchedule } from "./backup/snapshot";
import { startRetentionSchedule } from "./calls/retention";
import { CdrSource } from "./cdr/source";
import type { Config } from "./config";
import { type AppContext, type RequestContext, requiredRole } from "./context";
import { fleetPoller } from "./fleet/poller";
import {
  checkContentLength,
  errorResponse,
  HttpError,
  limitBody,
  MAX_JSON_BODY,
  parseJsonObject,
  queryObject,
  readBodyText,
  toHttpError,
  validate,
} from "./http";
import { CredentialStore } from "./integrations/credentials";
import { HostMetricsReader } from "./integrations/host-metrics";
import { JobRunner } from "./jobs/runner";
import { LiveMonitor } from "./live/monitor";
import { logRequest } from "./log";
import { MetricsRegistry, scrapeMetrics, UNMATCHED_ROUTE } from "./metrics/registry";
import { startOffsiteBackups } from "./offsite/uploads";
import { PbxFileSessions } from "./pbx/audio";
import { TestCallScheduler } from "./probes/schedule";
import { ApiRouter } from "./router";
import { apiRoutes } from "./routes";
import { SecretBox } from "./secret-box";
import { type AuditDraft, auditAfter, auditBefore, auditSpecOf } from "./transport/audit";
import { clientAddress, trustedProxies } from "./transport/client-address";
import { compressAnswer, compressible } from "./transport/encoding";
import { type HeaderPolicy, setApiHeaders } from "./transport/headers";
import { guardRoutes, HostAllowList, isLoopbackHost } from "./transport/hosts";
import { ListCache } from "./transport/list-cache";
import { pageRoutes } from "./transport/page";
import { firstScreenRenderer } from "./transport/prerender";
import { tlsOptions } from "./transport/tls";
import { Hub, type SocketData } from "./ws";

export interface AppOptions {
  config: Config;
  db: Db;
  version: string;
  /** The web app (an HTML import). Omitted in API-only tests. */
  page?: HTMLBundle;
  now?: () => number;
}

// The server's zod parses without compiling a parser per schema with `new Function` at its first parse
// (milliseconds each, paid at every route's first call; ADR 0048).
z.config({ jitless: true });

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Bun's own ceiling on any request body (routes refuse far less while reading: `MAX_JSON_BODY` or their `maxBody`). */
export const REQUEST_BODY_CEILING = 16 * 1024 * 1024;

/** The session token: the `__Host-` cookie (set under TLS) first, then the plain one (HTTP, or set before the switch). */
function cookieToken(req: Request): string | null {
  const header = req.headers.get("cookie");
  if (!header) return null;
  const cookies = new Bun.CookieMap(header);
  return cookies.get(HOST_SESSION_COOKIE) ?? cookies.get(SESSION_COOKIE);
}

/** Cross-site request protection for state-changing requests (see ARCHITECTURE.md). */
function checkOrigin(req: Request, url: URL): void {
  const origin = req.headers.get("origin");
  if (origin === null) return;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    host = null;
  }
  if (host !== url.host) throw new HttpError(403, "Cross-origin request refused");
}

/**
 * `bearer`: the request is an API token's (ADR 0074). Its authority is the Authorization header alone (the
 * session cookie is not read), which a cross-site page cannot send with it, so no origin check is needed.
 */
function checkStateChanging(req: Request, url: URL, bodyType: string | undefined, bearer: boolean): void {
  if (SAFE_METHODS.has(req.method)) return;
  const type = req.headers.get("content-type") ?? "";
  // A route with its own body type (a CSV import) has it checked after the session and role (checkBodyType).
  if (bodyType === undefined && !/^application\/json\b/i.test(type)) {
    throw new HttpError(415, "State-changing requests must be sent with Content-Type: application/json");
  }
  if (!bearer) checkOrigin(req, url);
}

/** A write whose body is not JSON (`RouteDef.bodyType`, e.g. text/csv) is sent with exactly that type. */
function checkBodyType(req: Request, bodyType: string | undefined): void {
  if (bodyType === undefined || SAFE_METHODS.has(req.method)) return;
  const type = (req.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== bodyType) throw new HttpError(415, `This request must be sent with Content-Type: ${bodyType}`);
}

export function createApp(opts: AppOptions) {
  const now = opts.now ?? Date.now;
  const hub = new Hub();
  const box = SecretBox.open(opts.config.dataDir);
  const credentials = new CredentialStore(opts.db, box, opts.config.env, now);
  // Opens its small pool on first use, from API Settings / CDR_DATABASE_URL or /etc/freepbx.conf.
  const cdr = new CdrSource({ db: opts.db, config: opts.config, credentials });
  const app: AppContext = {
    db: opts.db,
    config: opts.config,
    // The hub closes a session's sockets whenever the session ends.
    sessions: new SessionStore(opts.db, now, hub),
    throttle: new LoginThrottle(opts.db, now),
    now,
    version: opts.version,
    box,
    events: hub,
    credentials,
    hostMetrics: new HostMetricsReader(),
    setupCode: SetupCode.prepare(opts.config.dataDir, {
      // Reachable beyond this machine: bound beyond loopback, or named publicly (behind a reverse proxy).
      required: !isLoopbackHost(opts.config.host) || opts.config.publicHostnames.length > 0,
      usersExist: opts.db.$client.query("SELECT 1 FROM users LIMIT 1").get() !== null,
    }),
    // Marks a job left `running` by a stopped console as interrupted.
    jobs: new JobRunner({ db: opts.db, events: hub, now }),
    // Connects once started (below), when AMI settings or /etc/asterisk/manager.conf say where.
    // When it says a call ended, the call history's cached statistics are stale.
    live: new LiveMonitor({
      db: opts.db,
      events: {
        publish: (event) => {
          if (event.type === "call-history-updated") cdr.historyChanged();
          hub.publish(event);
        },
      },
      now,
      config: opts.config,
      credentials,
    }),
    cdr,
    // Accepted AI calls' sidebands; all closed when the console stops.
    aiCalls: new CallSessions({ db: opts.db, events: hub, now, config: opts.config, credentials }),
    pbxFiles: new PbxFileSessions({ credentials }),
    // Reads the live monitor, call records and host metrics above when it passes (started below).
    alerts: new AlertEngine(
      {
        db: opts.db,
        events: hub,
        now,
        config: opts.config,
        get live() {
          return app.live;
        },
        get cdr() {
          return app.cdr;
        },
        get hostMetrics() {
          return app.hostMetrics;
        },
      },
      { deliver: (channelId, message, signal) => deliverAlert(app, channelId, message, signal) },
    ),
    metrics: new MetricsRegistry(),
    // Placed over the live monitor's manager connection; started below.
    testCalls: new TestCallScheduler({ db: opts.db, events: hub, now }, () => app.live),
  };
  // The Live AI Calls screen's event, from the call sessions' own events (ADR 0044).
  const stopLiveAi = publishLiveAiCalls(app.aiCalls, hub);
  // Each followed call's post-call analysis once it ends (ADR 0071); stopped before the database closes.
  const analyses = new PostCallAnalyses(
    { db: opts.db, events: hub, now, config: opts.config, credentials },
    app.aiCalls,
    (line) => app.aiCalls.log(line),
  );
  const router = new ApiRouter(apiRoutes);
  // The lists' ETags and kept bodies (ADR 0029).
  const lists = new ListCache(opts.db);
  const log = opts.config.logRequests ? logRequest : () => {};
  const policy: HeaderPolicy = {
    tls: opts.config.tls !== null,
    dev: process.env.NODE_ENV === "development",
    connect: [new URL(opts.config.endpoints.openai).origin],
  };
  const hosts = new HostAllowList(opts.config, now);
  /** 421 for a Host this console does not answer to (DNS rebinding), before any other work. */
  const hostGuard = (req: Request): Response | null => {
    if (hosts.allows(req.headers.get("host"))) return null;
    const start = performance.now();
    const message = "Misdirected request: this console does not answer to that host name (see PUBLIC_HOSTNAMES)";
    const res = new URL(req.url).pathname.startsWith("/api/")
      ? errorResponse(new HttpError(421, message))
      : new Response(`${message}\n`, { status: 421, headers: { "Content-Type": "text/plain;charset=utf-8" } });
    setApiHeaders(res.headers, policy);
    log(req, res.status, start);
    return res;
  };

  /** `start`: a request from outside (not the page's own picture), counted for GET /metrics by its route template. */
  async function handleApi(req: Request, start?: number): Promise<Response> {
    const url = new URL(req.url);
    const match = router.match(req.method, url.pathname);
    // Filled in once the caller is known; recorded with the answer (transport/audit.ts).
    let audit: AuditDraft | null = null;
    const res = await answerApi(req, url, match, (draft) => {
      audit = draft;
    });
    if (audit) await auditAfter(app, audit, res);
    if (start !== undefined) {
      const route = match.kind === "found" ? match.route.path : UNMATCHED_ROUTE;
      app.metrics.requests.record(req.method, route, res.status, performance.now() - start);
    }
    // A large JSON read goes brotli or gzip by Accept-Encoding (ADR 0031); a list's coding is kept by its cache.
    if (match.kind === "found" && !match.route.etag && compressible(match.route)) {
      return compressAnswer(res, req.headers.get("accept-encoding"), req.method === "HEAD");
    }
    return res;
  }

  async function answerApi(
    req: Request,
    url: URL,
    match: ReturnType<ApiRouter["match"]>,
    audited: (draft: AuditDraft) => void,
  ): Promise<Response> {
    try {
      if (match.kind === "not-found") throw new HttpError(404, `No API endpoint ${url.pathname}`);
      if (match.kind === "method-not-allowed") {
        throw new HttpError(405, `Method ${req.method} not allowed on ${url.pathname}`, undefined, {
          Allow: match.allow.join(", "),
        });
      }
      const { route } = match;
      const auth = route.auth ?? "session";
      // A session route called with one of our tokens is the token's (ADR 0074); the cookie is then not read.
      const bearer = auth === "session" ? bearerApiToken(req.headers) : null;
      checkStateChanging(req, url, route.bodyType, bearer !== null);
      // A declared length over the limit is refused before anything else; the body itself is counted as read.
      const maxBody = route.maxBody ?? MAX_JSON_BODY;
      checkContentLength(req, maxBody);
      // The peer's address is a system call (getpeername) each time it is read: read once here when a token needs it.
      const bearerIp = bearer === null ? undefined : clientIpOf(req);
      const principal = bearer === null ? null : authenticateApiToken(app, bearer, bearerIp ?? null);
      const token = principal ? null : cookieToken(req);
      const user = principal ? principal.user : app.sessions.validate(token);
      if (auth === "session" && !user) throw new HttpError(401, "Sign in required");
      // The caller is known (or the route is public, e.g. sign-in): from here on the call is recorded.
      const spec = auditSpecOf(route, req, url);
      const draft: AuditDraft | null = spec
        ? {
            spec,
            method: req.method,
            params: match.params,
            user: principal ? null : user,
            apiTokenId: principal?.tokenId ?? null,
            clientIp: bearerIp === undefined ? clientIpOf(req) : bearerIp,
          }
        : null;
      if (draft) audited(draft);
      // A human's own account and what hands out access never take a token, whatever its role.
      if (principal && route.sessionOnly) throw new HttpError(403, API_TOKEN_NOT_HERE);
      // The role is checked before the body is read: a refused call learns nothing and changes nothing.
      if (auth === "session" && user && !roleAllows(user.role, requiredRole(route))) {
        throw new HttpError(403, forbiddenForRole(user.role));
      }
      // Two-factor sign-in required for everyone and not on for this user: only their own account routes.
      if (!principal && auth === "session" && user && !route.allowedBeforeTotp && totpSetupRequired(app.db, user.id)) {
        throw new HttpError(403, TOTP_SETUP_REQUIRED);
      }
      // A machine client's token is checked before the body is read: a caller without one learns nothing.
      const apiTokenId =
        typeof auth === "object"
          ? requireApiToken(app, req.headers, auth.apiToken, draft ? draft.clientIp : clientIpOf(req))
          : (principal?.tokenId ?? null);
      if (draft) draft.apiTokenId = apiTokenId;
      checkBodyType(req, route.bodyType);
      const query = route.query ? validate(route.query, queryObject(url)) : undefined;
      const body = route.body ? validate(route.body, parseJsonObject(await readBodyText(req, maxBody))) : undefined;
      // The peer's address is a system call (getpeername) each time it is read, a noticeable part
      // of a signed-in request's CPU. Read once, when something asks for it (the audit draft already did).
      let peer: string | null | undefined = draft ? draft.clientIp : bearerIp;
      if (draft) {
        draft.body = body;
        auditBefore(app, draft);
      }
      const ctx: RequestContext = {
        // A handler that reads the body itself (no `body` schema) reads it through the same limit.
        req: route.body ? req : limitBody(req, maxBody),
        url,
        params: match.params,
        body,
        query,
        user,
        token,
        apiTokenId,
        app,
        get clientIp() {
          if (peer === undefined) peer = clientIpOf(req);
          return peer;
        },
      };
      // A list: 304 on a matching If-None-Match, else the body kept for the tables' versions (ADR 0029).
      // Kept per version and coding too (ADR 0031).
      if (route.etag && (req.method === "GET" || req.method === "HEAD")) {
        const key = `${user?.role ?? "-"} ${url.pathname}${url.search}`;
        const list = {
          ifNoneMatch: req.headers.get("if-none-match"),
          acceptEncoding: req.headers.get("accept-encoding"),
          head: req.method === "HEAD",
          compress: compressible(route),
        };
        return await lists.respond(route.etag, key, list, () => route.handler(ctx));
      }
      return await route.handler(ctx);
    } catch (err) {
      const known = toHttpError(err);
      if (known) return errorResponse(known);
      // Unexpected: log the message (never request bodies: they may hold secrets).
      console.error(`error ${req.method} ${url.pathname}: ${err instanceof Error ? err.message : String(err)}`);
      return errorResponse(new HttpError(500, "Internal server error"));
    }
  }

  /**
   * The client's address (the throttle, the failed sign-in log, the audit and firewall actions key on it): the TCP
   * peer, or behind a trusted proxy the address that proxy forwarded (ADR 0069).
   */
  const proxies = trustedProxies(opts.config.trustedProxies);
  const clientIpOf = (req: Request) => clientAddress(server.requestIP(req)?.address ?? null, req.headers, proxies);

  const withHeaders = (res: Response) => {
    setApiHeaders(res.headers, policy);
    return res;
  };

  const server: Server<SocketData> = Bun.serve<SocketData>({
    port: opts.config.port,
    hostname: opts.config.host,
    development: policy.dev,
    tls: opts.config.tls ? tlsOptions(opts.config.tls) : undefined,
    maxRequestBodySize: Math.max(REQUEST_BODY_CEILING, ...apiRoutes.map((r) => r.maxBody ?? 0)),
    // Set deliberately (Bun's default is 10 s): no request does long work any more (deployments and
    // imports are jobs, ADR 0024; the longest request left is a PBX read of at most ~2 min, e.g. the sync
    // compare), so a connection idle this long is a dead one. 255 s is Bun's maximum.
    idleTimeout: 255,
    routes: guardRoutes(hostGuard, policy, {
      "/api/*": async (req: Request) => {
        const start = performance.now();
        const res = withHeaders(await handleApi(req, start));
        log(req, res.status, start);
        return res;
      },
      // Prometheus' scrape (ADR 0066): outside /api, behind its own bearer token, never a session.
      "/metrics": async (req: Request) => {
        const start = performance.now();
        let res: Response;
        try {
          const { text, contentType } = await scrapeMetrics(app, req.headers.get("authorization"), clientIpOf(req));
          res = new Response(text, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
        } catch (err) {
          res = errorResponse(toHttpError(err) ?? new HttpError(500, "Internal server error"));
        }
        log(req, res.status, start);
        return withHeaders(res);
      },
      "/healthz": (req: Request) => {
        const start = performance.now();
        let res: Response;
        try {
          app.db.$client.query("SELECT 1").get();
          res = Response.json({ status: "ok", version: app.version });
        } catch {
          res = Response.json({ status: "error", message: "database unavailable" }, { status: 503 });
        }
        log(req, res.status, start);
        return res;
      },
      "/ws": (req: Request, srv: Server<SocketData>) => {
        const start = performance.now();
        const url = new URL(req.url);
        let res: Response | undefined;
        try {
          checkOrigin(req, url);
          const session = app.sessions.current(cookieToken(req));
          if (!session) throw new HttpError(401, "Sign in required");
          // A session held to setting up two-factor sign-in gets no events (the enrolment screen needs none).
          if (totpSetupRequired(app.db, session.user.id)) throw new HttpError(403, TOTP_SETUP_REQUIRED);
          if (url.searchParams.get("type") !== "sync") throw new HttpError(400, "Unknown socket type");
          if (!srv.upgrade(req, { data: { userId: session.user.id, sessionId: session.sessionId } })) {
            throw new HttpError(426, "WebSocket upgrade required");
          }
        } catch (err) {
          res = errorResponse(err instanceof HttpError ? err : new HttpError(500, "Internal server error"));
        }
        log(req, res?.status ?? 101, start);
        return res;
      },
      // A signed-in screen's page comes with the server's picture of it, read through this same API (ADR 0047).
      ...(opts.page ? pageRoutes(opts.page, policy, firstScreenRenderer(handleApi)) : {}),
    }),
    fetch(req) {
      const refused = hostGuard(req);
      if (refused) return refused;
      const res = errorResponse(new HttpError(404, `Not found: ${new URL(req.url).pathname}`));
      setApiHeaders(res.headers, policy);
      return res;
    },
    websocket: {
      maxPayloadLength: 64 * 1024,
      idleTimeout: 120,
      open(ws) {
        ws.subscribe(WS_SYNC_TOPIC);
        hub.add(ws);
        // Signed out between the upgrade and now: close at once.
        if (!app.sessions.isLive(ws.data.sessionId)) hub.closeSessions([ws.data.sessionId]);
      },
      close(ws) {
        hub.remove(ws);
      },
      message() {
        // The sync socket is server → browser only; inbound messages are ignored.
      },
    },
  });
  hub.attach(server);

  // Also closes the sockets of sessions that expired or were ended by another process (create-admin);
  // and deletes audit rows past their retention (AUDIT_RETENTION_DAYS).
  pruneAudit(app);
  const sweeper = setInterval(() => {
    app.sessions.sweep();
    pruneAudit(app);
  }, 60 * 1000);
  sweeper.unref?.();
  // The daily backup into DATA_DIR/backups (BACKUP_KEEP; the first one a day after start).
  const stopBackups = startBackupSchedule(app);
  // Each backup (the daily one, a deployment's PBX backup) is copied to the off-site targets (ADR 0064).
  const stopOffsite = startOffsiteBackups(app);
  // Old call recordings are deleted once a day while a retention is set.
  const stopRetention = startRetentionSchedule(app);
  // Each enabled test call every its interval, staggered (ADR 0068).
  app.testCalls.start();
  // Alert rules are evaluated every few seconds; messages go out in the background (ADR 0063).
  app.alerts.start();
  app.live.start();
  // The fleet hub's members are checked every few seconds, each on its own (ADR 0076).
  const fleet = fleetPoller(app);
  fleet.start();

  return {
    server,
    app,
    url: server.url,
    async stop(force = false) {
      clearInterval(sweeper);
      stopBackups();
      await stopOffsite();
      stopRetention();
      await app.alerts.stop();
      await fleet.stop();
      app.jobs.close();
      await app.aiCalls.closeAll();
      await analyses.stop();
      await closeTestRuns(opts.db);
      await app.testCalls.stop();
      stopLiveAi();
      await app.live.stop();
      await app.cdr.close();
      app.pbxFiles.close();
      await server.stop(force);
    },
  };
}
