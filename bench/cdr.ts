/**
 * Benchmark (not a test): the call history (ADR 0027) over FreePBX's `cdr` table holding 1,000,000 rows
 * in the test PBX's real MariaDB (test/pbx-host, a 32 MB InnoDB buffer pool), through the HTTP API of a
 * console started from source in its own process (`bun src/server/index.ts`, as `npm start`), so the
 * memory figures are the server's alone.
 * Run: npm run bench:cdr   (BENCH_CDR_ROWS, BENCH_CDR_SMALL_ROWS, BENCH_CDR_RUNS change the sizes)
 *
 * Measures: the first page (median of N; target < 200 ms), filtered pages, the statistics over
 * 30 days, and the CSV export of the whole range: lines per second and the growth of this process's
 * resident memory while it streams, with 100,000 rows and again with 1,000,000 (target: constant memory,
 * i.e. the growth does not follow the row count).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN } from "../test/helpers/server";
import { generateCallRows } from "../test/pbx-host/cdr-calls";
import { startPbxHost } from "../test/pbx-host/pbx-host";

const ROWS = Number(process.env.BENCH_CDR_ROWS ?? 1_000_000);
const SMALL_ROWS = Number(process.env.BENCH_CDR_SMALL_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_CDR_RUNS ?? 21);
const PAGE_TARGET_MS = 200;
const DAY = 86_400_000;

const now = Date.now();
const span = { start: new Date(now - 30 * DAY), end: new Date(now - 60_000) };

/** Legs per generated call, on average (a sample). */
let sampled = 0;
for (const g of generateCallRows(20_000, { ...span, seed: 99 })) sampled += g.rows.length;
const LEGS_PER_CALL = sampled / 20_000;

/** `count` rows of calls spread over the 30 days in time order (calls have 1–4 legs). */
function* rows(count: number, seed: number, firstId: number) {
  let n = 0;
  const calls = Math.ceil((count / LEGS_PER_CALL) * 1.02);
  for (const { rows: legs } of generateCallRows(calls, { ...span, seed, firstId })) {
    for (const row of legs) {
      if (n++ >= count) return;
      yield row;
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] as number;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 1 });

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });

/** The console's resident memory (VmRSS of /proc/<pid>/status), in bytes. */
const rssOf = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
};

const pbx = await startPbxHost();
const dataDir = mkdtempSync(join(tmpdir(), "bench-cdr-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const consoleProc = Bun.spawn([process.execPath, join(import.meta.dir, "../src/server/index.ts")], {
  env: {
    PATH: process.env.PATH ?? "",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    CDR_DATABASE_URL: pbx.cdr.url,
    FREEPBX_CONF: join(dataDir, "absent-freepbx.conf"),
    ASTERISK_MANAGER_CONF: join(dataDir, "absent-manager.conf"),
  },
  stdout: "ignore",
  stderr: "inherit",
});
for (let i = 0; ; i++) {
  const up = await fetch(`${base}/healthz`)
    .then((r) => r.ok)
    .catch(() => false);
  if (up) break;
  if (i > 200) throw new Error("the console did not start");
  await Bun.sleep(50);
}
const setup = await fetch(`${base}/api/auth/setup`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ ...ADMIN, confirmPassword: ADMIN.password }),
});
if (!setup.ok) throw new Error(`setup → ${setup.status} ${await setup.text()}`);
const cookie = (setup.headers.get("set-cookie") ?? "").split(";")[0] as string;
const s = {
  async call(_method: "GET", path: string) {
    const res = await fetch(`${base}${path}`, { headers: { cookie } });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as unknown };
  },
};
const results: { what: string; figure: string; target?: string }[] = [];

async function timed(path: string, runs = RUNS): Promise<{ median: number; p95: number; body: unknown }> {
  const times: number[] = [];
  let body: unknown;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const res = await s.call("GET", path);
    times.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`${path} → ${res.status} ${res.text}`);
    body = res.json;
  }
  return { median: median(times), p95: p95(times), body };
}

/** Streams the whole-range export, counting lines; samples this process's RSS while it runs. */
async function exportRun(label: string) {
  const from = new Date(now - 30 * DAY - 3600_000).toISOString();
  await Bun.sleep(500);
  const start = rssOf(consoleProc.pid);
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(consoleProc.pid));
  }, 20);
  const t = performance.now();
  const res = await fetch(`${base}/api/cdr/export.csv?from=${encodeURIComponent(from)}`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`export → ${res.status} ${await res.text()}`);
  let lines = 0;
  let bytes = 0;
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    for (const b of value) if (b === 10) lines++;
  }
  const ms = performance.now() - t;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(consoleProc.pid));
  const calls = lines - 1;
  results.push({
    what: `CSV export, whole range, ${label}: ${fmt(calls)} calls, ${mb(bytes)}`,
    figure: `${fmt(ms / 1000)} s, ${fmt(calls / (ms / 1000))} calls/s, console RSS ${mb(start)} → peak +${mb(peak - start)}`,
  });
  return { calls, ms, growth: peak - start };
}

try {
  // 100,000 rows first: the export's memory with a tenth of the data.
  let t = performance.now();
  await pbx.cdr.load(rows(SMALL_ROWS, 1, 1));
  results.push({
    what: `bulk load of ${fmt(SMALL_ROWS)} rows (LOAD DATA)`,
    figure: `${fmt((performance.now() - t) / 1000)} s`,
  });
  const small = await exportRun(`${fmt(SMALL_ROWS)} rows`);

  t = performance.now();
  await pbx.cdr.load(rows(ROWS - SMALL_ROWS, 2, 50_000_000));
  results.push({
    what: `bulk load of ${fmt(ROWS - SMALL_ROWS)} more rows (LOAD DATA)`,
    figure: `${fmt((performance.now() - t) / 1000)} s`,
  });
  const [count] = await pbx.cdr.query("SELECT COUNT(*) AS n FROM cdr");
  console.log(`cdr holds ${fmt(Number(count?.n))} rows over 30 days`);

  const first = await timed("/api/cdr");
  results.push({
    what: "first page (GET /api/cdr, last 7 days, 50 calls)",
    figure: `median ${fmt(first.median)} ms, p95 ${fmt(first.p95)} ms`,
    target: `< ${PAGE_TARGET_MS} ms (${(first.median / PAGE_TARGET_MS).toFixed(2)}×)`,
  });
  const cursor = (first.body as { nextCursor: string }).nextCursor;
  const next = await timed(`/api/cdr?cursor=${encodeURIComponent(cursor)}`);
  results.push({ what: "second page (cursor)", figure: `median ${fmt(next.median)} ms, p95 ${fmt(next.p95)} ms` });
  for (const [label, query] of [
    ["filtered page: inbound, no answer", "direction=inbound&disposition=NO%20ANSWER"],
    ["filtered page: extension 1005", "extension=1005"],
    ["filtered page: search q=5551234 (SQL LIKE)", "q=5551234"],
    ["filtered page: trunk telco-two, busy (sparse)", "trunk=telco-two&disposition=BUSY"],
  ] as const) {
    const r = await timed(`/api/cdr?${query}`);
    const items = (r.body as { items: unknown[] }).items.length;
    results.push({ what: `${label} (${items} calls)`, figure: `median ${fmt(r.median)} ms, p95 ${fmt(r.p95)} ms` });
  }
  const from30 = encodeURIComponent(new Date(now - 30 * DAY - 3600_000).toISOString());
  const stats = await timed(`/api/cdr/stats?from=${from30}`, 5);
  results.push({
    what: `statistics over 30 days by day (${fmt((stats.body as { total: number }).total)} calls)`,
    figure: `median ${fmt(stats.median)} ms`,
  });
  const stats7 = await timed("/api/cdr/stats?bucket=hour", 5);
  results.push({ what: "statistics over 7 days by hour", figure: `median ${fmt(stats7.median)} ms` });

  const big = await exportRun(`${fmt(ROWS)} rows`);
  results.push({
    what: "export memory: growth with all rows / growth with a tenth",
    figure: `${(big.growth / Math.max(small.growth, 1)).toFixed(2)}× for ${(big.calls / small.calls).toFixed(1)}× the calls`,
    target: "constant memory",
  });
} finally {
  consoleProc.kill();
  await consoleProc.exited;
  rmSync(dataDir, { recursive: true, force: true });
  await pbx.stop();
}

const w = Math.max(...results.map((r) => r.what.length));
const f = Math.max(...results.map((r) => r.figure.length));
console.log(`\n${"operation".padEnd(w)}  ${"figure".padEnd(f)}  target`);
for (const r of results) console.log(`${r.what.padEnd(w)}  ${r.figure.padEnd(f)}  ${r.target ?? ""}`);
