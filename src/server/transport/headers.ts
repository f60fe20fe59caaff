/**
 * The security headers of every response (ADR 0014). HTML gets a Content-Security-Policy without inline
 * script, frame and referrer protection; everything gets nosniff, and HSTS when the console serves TLS.
 * API responses are never cached, except a list with an ETag, which the browser keeps and revalidates (ADR 0029).
 */

export interface HeaderPolicy {
  /** The console serves HTTPS: add Strict-Transport-Security. */
  tls: boolean;
  /** Bun's development server injects an inline HMR script: the CSP allows inline script in development only. */
  dev: boolean;
  /**
   * Other origins the page may connect to: the configured OpenAI API's, where the AI test bench posts its
   * WebRTC offer with a client secret (ADR 0073).
   */
  connect?: readonly string[];
}

export const HSTS = "max-age=31536000";

/** The Content-Security-Policy of the web app. `host` is the request's (allow-listed) Host header. */
export function contentSecurityPolicy(policy: HeaderPolicy, host: string | null): string {
  // 'self' covers same-origin WebSockets in current browsers; the explicit ws(s) origin is for older ones.
  const socket = host ? ` ${policy.tls ? "wss" : "ws"}://${host.toLowerCase()}` : "";
  return [
    "default-src 'self'",
    policy.dev ? "script-src 'self' 'unsafe-inline'" : "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${socket}${(policy.connect ?? []).map((o) => ` ${o}`).join("")}`,
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join("; ");
}

/** Headers on every response. */
export function setCommonHeaders(headers: Headers, policy: HeaderPolicy): void {
  headers.set("X-Content-Type-Options", "nosniff");
  if (policy.tls) headers.set("Strict-Transport-Security", HSTS);
}

/** Headers on the web app's HTML. */
export function setPageHeaders(headers: Headers, policy: HeaderPolicy, host: string | null): void {
  setCommonHeaders(headers, policy);
  headers.set("Content-Security-Policy", contentSecurityPolicy(policy, host));
  headers.set("Referrer-Policy", "no-referrer");
  headers.set("X-Frame-Options", "DENY");
  // The page names hashed assets: always revalidate it (its ETag makes that cheap).
  headers.set("Cache-Control", "no-cache");
}

/**
 * Headers on /api and /healthz responses. An answer with an `ETag` (a list without secrets,
 * `RouteDef.etag`) may be kept by this browser only and is revalidated on every use; all others are never stored.
 */
export function setApiHeaders(headers: Headers, policy: HeaderPolicy): void {
  setCommonHeaders(headers, policy);
  headers.set("Cache-Control", headers.has("ETag") ? "no-cache, private" : "no-store");
  headers.set("Referrer-Policy", "no-referrer");
}
