/** One line per request: time, method, path (no query string: it may carry tokens), status, duration. */
export function logRequest(req: Request, status: number, start: number): void {
  const path = new URL(req.url).pathname;
  const ms = (performance.now() - start).toFixed(1);
  console.log(`${new Date().toISOString()} ${req.method} ${path} ${status} ${ms}ms`);
}
