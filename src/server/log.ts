/** One line per request: time, method, path (no query string, no provisioning token: they may carry tokens), status, duration. */
export function logRequest(req: Request, status: number, start: number): void {
  // A one-time provisioning link's path is its credential (ADR 0039): logged without the token.
  const path = new URL(req.url).pathname.replace(/^(\/api\/provisioning\/)[^/]+$/, "$1…");
  const ms = (performance.now() - start).toFixed(1);
  console.log(`${new Date().toISOString()} ${req.method} ${path} ${status} ${ms}ms`);
}
