import type { HTMLBundle, Server } from "bun";
import type { Db } from "../db/client";
import { WS_SYNC_TOPIC } from "../shared/ws-events";
import { SESSION_COOKIE, SessionStore } from "./accounts/sessions";
import { LoginThrottle } from "./accounts/throttle";
import { requireApiToken } from "./accounts/tokens";
import type { Config } from "./config";
import type { AppContext, RequestContext } from "./context";
import { errorResponse, HttpError, parseJsonObject, queryObject, toHttpError, validate } from "./http";
import { CredentialStore } from "./integrations/credentials";
import { HostMetricsReader } from "./integrations/host-metrics";
import { logRequest } from "./log";
import { ApiRouter } from "./router";
import { apiRoutes } from "./routes";
import { SecretBox } from "./secret-box";
import { Hub, type SocketData } from "./ws";

export interface AppOptions {
  config: Config;
  db: Db;
  version: string;
  /** The web app (an HTML import). Omitted in API-only tests. */
  page?: HTMLBundle;
  now?: () => number;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function cookieToken(req: Request): string | null {
  const header = req.headers.get("cookie");
  if (!header) return null;
  return new Bun.CookieMap(header).get(SESSION_COOKIE);
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

function checkStateChanging(req: Request, url: URL): void {
  if (SAFE_METHODS.has(req.method)) return;
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new HttpError(415, "State-changing requests must be sent with Content-Type: application/json");
  }
  checkOrigin(req, url);
}

export function createApp(opts: AppOptions) {
  const now = opts.now ?? Date.now;
  const hub = new Hub();
  const box = SecretBox.open(opts.config.dataDir);
  const app: AppContext = {
    db: opts.db,
    config: opts.config,
    sessions: new SessionStore(opts.db, now),
    throttle: new LoginThrottle(now),
    now,
    version: opts.version,
    box,
    events: hub,
    credentials: new CredentialStore(opts.db, box, opts.config.env, now),
    hostMetrics: new HostMetricsReader(),
  };
  const router = new ApiRouter(apiRoutes);
  const log = opts.config.logRequests ? logRequest : () => {};

  async function handleApi(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const match = router.match(req.method, url.pathname);
    try {
      if (match.kind === "not-found") throw new HttpError(404, `No API endpoint ${url.pathname}`);
      if (match.kind === "method-not-allowed") {
        throw new HttpError(405, `Method ${req.method} not allowed on ${url.pathname}`, undefined, {
          Allow: match.allow.join(", "),
        });
      }
      checkStateChanging(req, url);
      const { route } = match;
      const auth = route.auth ?? "session";
      const token = cookieToken(req);
      const user = app.sessions.validate(token);
      if (auth === "session" && !user) throw new HttpError(401, "Sign in required");
      // A machine client's token is checked before the body is read: a caller without one learns nothing.
      const apiTokenId = typeof auth === "object" ? requireApiToken(app, req.headers, auth.apiToken) : null;
      const query = route.query ? validate(route.query, queryObject(url)) : undefined;
      const body = route.body ? validate(route.body, parseJsonObject(await req.text())) : undefined;
      const ctx: RequestContext = { req, url, params: match.params, body, query, user, token, apiTokenId, app };
      return await route.handler(ctx);
    } catch (err) {
      const known = toHttpError(err);
      if (known) return errorResponse(known);
      // Unexpected: log the message (never request bodies: they may hold secrets).
      console.error(`error ${req.method} ${url.pathname}: ${err instanceof Error ? err.message : String(err)}`);
      return errorResponse(new HttpError(500, "Internal server error"));
    }
  }

  const withHeaders = (res: Response) => {
    res.headers.set("Cache-Control", "no-store");
    res.headers.set("X-Content-Type-Options", "nosniff");
    return res;
  };

  const server: Server<SocketData> = Bun.serve<SocketData>({
    port: opts.config.port,
    hostname: opts.config.host,
    development: process.env.NODE_ENV === "development",
    tls: opts.config.tls ? { cert: Bun.file(opts.config.tls.cert), key: Bun.file(opts.config.tls.key) } : undefined,
    routes: {
      "/api/*": async (req: Request) => {
        const start = performance.now();
        const res = withHeaders(await handleApi(req));
        log(req, res.status, start);
        return res;
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
          const user = app.sessions.validate(cookieToken(req));
          if (!user) throw new HttpError(401, "Sign in required");
          if (url.searchParams.get("type") !== "sync") throw new HttpError(400, "Unknown socket type");
          if (!srv.upgrade(req, { data: { userId: user.id } })) {
            throw new HttpError(426, "WebSocket upgrade required");
          }
        } catch (err) {
          res = errorResponse(err instanceof HttpError ? err : new HttpError(500, "Internal server error"));
        }
        log(req, res?.status ?? 101, start);
        return res;
      },
      ...(opts.page ? { "/*": opts.page } : {}),
    },
    fetch(req) {
      return errorResponse(new HttpError(404, `Not found: ${new URL(req.url).pathname}`));
    },
    websocket: {
      maxPayloadLength: 64 * 1024,
      idleTimeout: 120,
      open(ws) {
        ws.subscribe(WS_SYNC_TOPIC);
      },
      message() {
        // The sync socket is server → browser only; inbound messages are ignored.
      },
    },
  });
  hub.attach(server);

  const sweeper = setInterval(() => app.sessions.sweep(), 10 * 60 * 1000);
  sweeper.unref?.();

  return {
    server,
    app,
    url: server.url,
    async stop(force = false) {
      clearInterval(sweeper);
      await server.stop(force);
    },
  };
}
