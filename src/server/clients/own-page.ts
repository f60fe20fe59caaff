/**
 * The one call the console makes to itself: when it runs from source, Bun bundles the web app on demand
 * (with HMR in development) behind an internal path, and `transport/page.ts` fetches the page from there to
 * add the security headers Bun cannot add (ADR 0014). Loopback only (the server's own address), with a
 * timeout; the compiled binary never calls it.
 */
const TIMEOUT_MS = 30_000;

/** GETs `path` from this same server (`serverUrl` is `server.url`; a wildcard bind is reached on loopback). */
export function fetchOwnPage(serverUrl: URL, path: string): Promise<Response> {
  const url = new URL(path, serverUrl);
  if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
  if (url.hostname === "[::]") url.hostname = "[::1]";
  // Our own certificate: possibly self-signed, and not issued for the loopback name.
  return fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), tls: { rejectUnauthorized: false } });
}
