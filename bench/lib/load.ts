/**
 * The one load client of `npm run bench`: N connections, each sending its next request as soon as the last
 * answer's body is read, for a fixed time after a warm-up. Every path is measured with this same client in
 * the same process, so ratios between paths (and against a Bun hello-world) compare like with like on the
 * same machine. Bodies are read but not decompressed (`decompress: false`), as a browser's network stack
 * would not charge that to the server either.
 */

export interface LoadOptions {
  connections?: number;
  durationMs?: number;
  warmupMs?: number;
  headers?: Record<string, string>;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Answers by status code, e.g. `{ 200: 1234 }`. */
  statuses: Record<number, number>;
  bytes: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number);

async function run(
  url: string,
  opts: Required<LoadOptions>,
  until: number,
  record: boolean,
  out: LoadResult,
  lat: number[],
) {
  const init = { headers: opts.headers, decompress: false } as RequestInit;
  const worker = async () => {
    while (performance.now() < until) {
      const start = performance.now();
      const res = await fetch(url, init);
      const body = await res.arrayBuffer();
      if (!record) continue;
      lat.push(performance.now() - start);
      out.requests++;
      out.bytes += body.byteLength;
      out.statuses[res.status] = (out.statuses[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
}

export async function load(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const opts: Required<LoadOptions> = {
    connections: options.connections ?? 64,
    durationMs: options.durationMs ?? 3000,
    warmupMs: options.warmupMs ?? 1000,
    headers: options.headers ?? {},
  };
  const out: LoadResult = { requests: 0, rps: 0, p50: 0, p99: 0, statuses: {}, bytes: 0 };
  const lat: number[] = [];
  await run(url, opts, performance.now() + opts.warmupMs, false, out, lat);
  const start = performance.now();
  await run(url, opts, start + opts.durationMs, true, out, lat);
  const elapsed = performance.now() - start;
  lat.sort((a, b) => a - b);
  out.rps = (out.requests / elapsed) * 1000;
  out.p50 = percentile(lat, 0.5);
  out.p99 = percentile(lat, 0.99);
  return out;
}
