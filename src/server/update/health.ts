/**
 * Waiting for the restarted console's `/healthz` to answer `{status: "ok", version}` with the expected version,
 * asked on the address it listens on (a wildcard address through loopback; ../clients/console-health.ts).
 */
import { probeHealth } from "../clients/console-health";
import type { Config } from "../config";

/** How long a restarted console has to answer /healthz before the update is rolled back. */
export const HEALTH_WINDOW_MS = 30_000;

/** The console's own /healthz URL from its configuration. */
export function healthUrl(config: Pick<Config, "host" | "port" | "tls">): string {
  let host = config.host;
  if (host === "0.0.0.0" || host === "") host = "127.0.0.1";
  else if (host === "::" || host === "[::]") host = "[::1]";
  else if (host.includes(":") && !host.startsWith("[")) host = `[${host}]`;
  return `${config.tls ? "https" : "http"}://${host}:${config.port}/healthz`;
}

export type HealthOutcome = { ok: true } | { ok: false; last: string };

/** Polls /healthz until it answers ok with `version`, or `windowMs` passes. */
export async function waitForHealth(
  url: string,
  version: string,
  windowMs: number,
  intervalMs = 250,
): Promise<HealthOutcome> {
  const end = Date.now() + windowMs;
  let last = "/healthz was not asked";
  for (;;) {
    const left = end - Date.now();
    if (left <= 0) return { ok: false, last };
    const problem = await probeHealth(url, version, Math.min(2_000, Math.max(left, 100)));
    if (problem === null) return { ok: true };
    last = problem;
    await Bun.sleep(Math.min(intervalMs, Math.max(0, end - Date.now())));
  }
}
