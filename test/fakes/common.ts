/**
 * Shared plumbing for the fake outside services in this folder: a Bun.serve on 127.0.0.1:0 that records every
 * request, applies an optional delay, and can be told to answer the next request with a forced response.
 * Each service module adds its own routing, auth and data on top.
 */

/** One request as the fake received it. Header names are lower-case. */
export interface RecordedCall {
  method: string;
  /** URL path without the query string, e.g. "/v2/phone_numbers/123". */
  path: string;
  /** Query parameters by literal name ("page[number]"); a repeated name gives an array. */
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  /** Parsed body: JSON value, form fields as an object, other text as a string, or null when empty. */
  body: unknown;
  /** The body exactly as received (needed e.g. to check webhook signatures). */
  rawBody: string;
  /** Date.now() when the request arrived. */
  at: number;
}

/** A response the test forces on the next request (see `CommonState.failNext`). */
export interface ForcedResponse {
  status: number;
  /** Objects and arrays are sent as JSON, strings as they are; omit for an empty body. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Only force it on the next request to exactly this path (others are served normally until it matches). */
  path?: string;
}

/** Fields every fake's `state` has. */
export interface CommonState {
  /**
   * Answer the next request (or the next one to `failNext.path`) with this response instead of the real
   * behaviour, then clear it. The request is still recorded in `calls` and `delayMs` still applies.
   */
  failNext: ForcedResponse | null;
  /** Milliseconds to wait before answering every request (to test client timeouts). Can be changed at any time. */
  delayMs: number;
}

/** Options every start function accepts. */
export interface CommonOptions {
  /** Initial `state.delayMs`. */
  delayMs?: number;
}

/** What every `startFakeX()` returns. */
export interface FakeServer<S> {
  /** Origin of the fake, no trailing slash, e.g. "http://127.0.0.1:43121". */
  url: string;
  /** The same service's base URL as the real API has it (origin + the real prefix, e.g. `${url}/v2` for Telnyx). */
  baseUrl: string;
  state: S;
  calls: RecordedCall[];
  /** Stops the server and closes open connections (pending delayed requests are dropped). */
  stop(): Promise<void>;
}

/** What a service handler gets for one request. */
export interface FakeRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  headers: Headers;
  rawBody: string;
  /** Same object as pushed to `calls`. */
  call: RecordedCall;
  /** Origin of the fake (for building absolute links such as `next`). */
  origin: string;
}

export type Handler = (req: FakeRequest) => Response | Promise<Response>;

function parseBody(contentType: string, raw: string): unknown {
  if (raw === "") return null;
  if (contentType.includes("json")) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  if (contentType.includes("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(raw));
  }
  return raw;
}

function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** Builds a Response from a forced/explicit body: objects as JSON, strings verbatim, undefined as empty. */
export function makeResponse(status: number, body?: unknown, headers: Record<string, string> = {}): Response {
  if (body === undefined || body === null) return new Response(null, { status, headers });
  if (typeof body === "string") return new Response(body, { status, headers });
  return Response.json(body, { status, headers });
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fake that also serves WebSockets: `upgrade` sees each upgrade request (already recorded in `calls`) and
 * answers a refusal Response, or calls `server.upgrade` and answers undefined.
 */
export interface FakeWebSocket<T> {
  upgrade(
    request: Request,
    server: import("bun").Server<T>,
    call: RecordedCall,
  ): Response | undefined | Promise<Response | undefined>;
  handlers: import("bun").WebSocketHandler<T>;
}

/** Starts a fake on 127.0.0.1 with a free port. `prefix` is appended to the origin to form `baseUrl`. */
export function startFake<S extends CommonState, T = unknown>(
  state: S,
  prefix: string,
  handler: Handler,
  ws?: FakeWebSocket<T>,
): FakeServer<S> {
  const calls: RecordedCall[] = [];
  let origin = "";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Long enough for any delayMs a test uses; 0 would disable the idle timeout entirely.
    idleTimeout: 60,
    // Only used when `ws` upgrades a request; other fakes never do.
    websocket: ws?.handlers ?? ({ message() {} } as import("bun").WebSocketHandler<T>),
    async fetch(request, srv) {
      const u = new URL(request.url);
      const rawBody = await request.text();
      const headers: Record<string, string> = {};
      request.headers.forEach((v, k) => {
        headers[k.toLowerCase()] = v;
      });
      const call: RecordedCall = {
        method: request.method,
        path: u.pathname,
        query: queryRecord(u.searchParams),
        headers,
        body: parseBody(headers["content-type"] ?? "", rawBody),
        rawBody,
        at: Date.now(),
      };
      calls.push(call);
      if (ws && request.headers.get("upgrade")?.toLowerCase() === "websocket")
        return (await ws.upgrade(request, srv as never, call)) as Response;
      if (state.delayMs > 0) await sleep(state.delayMs);
      const forced = state.failNext;
      if (forced && (forced.path === undefined || forced.path === u.pathname)) {
        state.failNext = null;
        return makeResponse(forced.status, forced.body, forced.headers);
      }
      try {
        return await handler({
          method: request.method,
          path: u.pathname,
          params: u.searchParams,
          headers: request.headers,
          rawBody,
          call,
          origin,
        });
      } catch (err) {
        // A bug in the fake itself, not an emulated API error.
        const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
        return new Response(`fake server error: ${message}`, {
          status: 500,
          headers: { "content-type": "text/plain" },
        });
      }
    },
  });
  origin = server.url.origin;
  return {
    url: origin,
    baseUrl: origin + prefix,
    state,
    calls,
    stop: () => server.stop(true),
  };
}

/**
 * Matches "/a/:id/b" against a path; returns the params or null. A trailing slash on the path is ignored.
 */
export function route(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split("/");
  const s = path.replace(/\/+$/, "").split("/");
  if (p.length !== s.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const a = p[i] as string;
    const b = s[i] as string;
    if (a.startsWith(":")) {
      if (b === "") return null;
      out[a.slice(1)] = decodeURIComponent(b);
    } else if (a !== b) {
      return null;
    }
  }
  return out;
}

/** The token from "Authorization: Bearer <token>", or null. The scheme is matched case-insensitively. */
export function bearerToken(headers: Headers): string | null {
  const h = headers.get("authorization");
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? (m[1] as string).trim() : null;
}

/** Parses a JSON request body; `undefined` for an empty body, the symbol `INVALID` for malformed JSON. */
export const INVALID = Symbol("invalid-json");
export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return INVALID;
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function randomHex(bytes: number): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

export function base64url(input: string | Uint8Array): string {
  return Buffer.from(input).toString("base64url");
}

/** A syntactically valid, unsigned-looking JWT (header.payload.signature) — the fakes never verify it. */
export function fakeJwt(payload: Record<string, unknown>): string {
  const header = base64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
  return `${header}.${base64url(JSON.stringify(payload))}.${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
}

export type RouteHandler = (params: Record<string, string>, req: FakeRequest) => Response | Promise<Response>;
/** pattern ("/a/:id") → lower-case method ("get", "post", …) → handler. Patterns are tried in insertion order. */
export type RouteTable = Record<string, Record<string, RouteHandler>>;

/**
 * Finds the route for the request: its handler's response, `notFound()` when no pattern matches, or
 * `badMethod(allowed)` when the path matches but the method does not.
 */
export function dispatch(
  table: RouteTable,
  req: FakeRequest,
  notFound: () => Response,
  badMethod: (allowed: string[]) => Response,
): Response | Promise<Response> {
  for (const [pattern, methods] of Object.entries(table)) {
    const params = route(pattern, req.path);
    if (!params) continue;
    const h = methods[req.method.toLowerCase()];
    return h ? h(params, req) : badMethod(Object.keys(methods).map((m) => m.toUpperCase()));
  }
  return notFound();
}
