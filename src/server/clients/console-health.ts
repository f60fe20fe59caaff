/**
 * The console's own `/healthz`, asked by the updater after a restart (docs/decisions/0065-self-update.md): one
 * GET with a timeout, answering null when the console is up with the expected version, else what it said. Under
 * TLS the certificate is not checked: the updater asks the service on this machine which version answers, on
 * the address it listens on (often a self-signed certificate for another name).
 */

/** One look at /healthz: null when it answers `{status: "ok", version}`, else what it answered. */
export async function probeHealth(url: string, version: string, timeoutMs = 2_000): Promise<string | null> {
  try {
    const res = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
      tls: { rejectUnauthorized: false },
    } as RequestInit);
    const body = (await res.json().catch(() => null)) as { status?: unknown; version?: unknown } | null;
    if (!res.ok || body?.status !== "ok") return `/healthz answered ${res.status}`;
    if (body.version !== version) return `/healthz answered with version ${String(body.version)}`;
    return null;
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    if (e.name === "TimeoutError") return `/healthz did not answer within ${timeoutMs / 1000} s`;
    if (e.code === "ConnectionRefused" || e.code === "ECONNREFUSED") return "/healthz: connection refused";
    return `/healthz: ${e.message ?? "no answer"}`;
  }
}
