import { expectJson, httpRequest, isObject } from "./http";

const SERVICE = "Hostinger";

export interface HostingerVm {
  id: number;
  hostname: string;
  state: string;
  ipv4: { id: number; address: string; ptr: string | null }[] | null;
  ipv6: { id: number; address: string }[] | null;
  cpus?: number;
  memory?: number;
  disk?: number;
}

type Series = { unit: string; usage: Record<string, number> } | null;
export interface HostingerMetrics {
  cpu_usage: Series;
  ram_usage: Series;
  disk_space: Series;
  outgoing_traffic: Series;
  incoming_traffic: Series;
  uptime: Series;
}

/** Hostinger VPS API: Bearer token, paths under /api/vps/v1. */
export class HostingerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    /** The operation's overall deadline (`deadline()` in ./http): every call of this client stops with it. */
    private readonly signal?: AbortSignal,
  ) {}

  private call(method: string, path: string) {
    return httpRequest({
      service: SERVICE,
      method,
      url: `${this.baseUrl}/api/vps/v1${path}`,
      headers: { Authorization: `Bearer ${this.apiKey}` },
      signal: this.signal,
      secrets: [this.apiKey],
      errorMessage: (b) => (isObject(b) ? String(b.message ?? b.error ?? "") || undefined : undefined),
    });
  }

  async listVms(): Promise<HostingerVm[]> {
    return expectJson(SERVICE, await this.call("GET", "/virtual-machines"), Array.isArray);
  }

  async action(
    vmId: number,
    action: "start" | "stop" | "restart",
  ): Promise<{ id: number; name: string; state: string }> {
    return expectJson(SERVICE, await this.call("POST", `/virtual-machines/${vmId}/${action}`), isObject);
  }

  async metrics(vmId: number, from: Date, to: Date): Promise<HostingerMetrics> {
    const q = `date_from=${encodeURIComponent(from.toISOString())}&date_to=${encodeURIComponent(to.toISOString())}`;
    return expectJson(SERVICE, await this.call("GET", `/virtual-machines/${vmId}/metrics?${q}`), isObject);
  }
}

/** The latest sample of a series (by unix-second key), or null. */
export function latest(series: Series): number | null {
  if (!series) return null;
  const keys = Object.keys(series.usage).sort((a, b) => Number(a) - Number(b));
  const last = keys.at(-1);
  return last === undefined ? null : (series.usage[last] ?? null);
}

/** Average rate in bytes/s over the samples of a traffic series (bytes per interval). */
export function rate(series: Series): number | null {
  if (!series) return null;
  const keys = Object.keys(series.usage)
    .map(Number)
    .sort((a, b) => a - b);
  if (keys.length < 2) return null;
  const span = (keys.at(-1) as number) - (keys[0] as number);
  if (span <= 0) return null;
  const total = keys.slice(1).reduce((sum, k) => sum + (series.usage[String(k)] ?? 0), 0);
  return total / span;
}
