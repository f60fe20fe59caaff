/**
 * Benchmark (not a test): the Config Generator at 50,000 extensions (ADR 0032) against the built
 * binary (`npm run build` first) in its own process, so the memory figure is the console's alone.
 * Run: bun bench/generate.ts [--json]   (BENCH_GENERATE_EXTENSIONS changes the size)
 *
 * For each of `GET /api/config/generate` (the streamed JSON) and `GET /api/config/script.sql` (the streamed
 * download): the time to the first byte of the body, the total time, the bytes, and the console's resident
 * memory (VmRSS, sampled every 10 ms) before and at its peak. Goals: first byte < 200 ms, peak < 250 MB.
 * With --json the last line is `{extensions, firstByteMs, totalMs, bytes, peakRssMb}` of the generation
 * (read by bench/run.ts).
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { type Console, rssOf, startConsole } from "./lib/console";

const EXTENSIONS = Number(process.env.BENCH_GENERATE_EXTENSIONS ?? 50_000);
const JSON_OUT = process.argv.includes("--json");
const log = (...a: unknown[]) => console.error("·", ...a);
const mb = (bytes: number) => bytes / 2 ** 20;

interface Figures {
  firstByteMs: number;
  totalMs: number;
  bytes: number;
  rssBeforeMb: number;
  peakRssMb: number;
}

/** One streamed GET, read to its end without keeping it; the console's RSS sampled meanwhile. */
async function measure(c: Console, path: string): Promise<Figures> {
  Bun.gc(true);
  await Bun.sleep(300);
  const before = rssOf(c.proc.pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(c.proc.pid));
  }, 10);
  const t0 = performance.now();
  const res = await c.api("GET", path);
  if (res.status !== 200) throw new Error(`${path} → ${res.status} ${await res.text()}`);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let firstByteMs = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes === 0) firstByteMs = performance.now() - t0;
    bytes += value.byteLength;
  }
  const totalMs = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(c.proc.pid));
  return { firstByteMs, totalMs, bytes, rssBeforeMb: mb(before), peakRssMb: mb(peak) };
}

// The console makes its database and administrator; the extensions are then written straight into it
// with their SIP secrets in clear, which the console seals at its next start (as it does for rows an
// older version stored), so 50,000 need no 50,000 API calls.
let c = await startConsole();
const dataDir = c.dataDir;
await c.stop(true);
const db = new Database(join(dataDir, "pbx-console.db"));
const insert = db.prepare("INSERT INTO extensions (extension, name, secret) VALUES (?, ?, ?)");
db.transaction(() => {
  for (let i = 0; i < EXTENSIONS; i++) insert.run(String(100000 + i), `User ${i}`, `secret-${i}-0000000000`);
})();
db.close();
log(`${EXTENSIONS.toLocaleString("en-US")} extensions written; starting the console (it seals their secrets)`);
c = await startConsole({ dataDir });
try {
  await measure(c, "/api/config/generate"); // warm-up
  const gen = await measure(c, "/api/config/generate");
  const script = await measure(c, "/api/config/script.sql");
  const row = (what: string, f: Figures) =>
    `| ${what} | ${f.firstByteMs.toFixed(0)} ms | ${(f.totalMs / 1000).toFixed(2)} s | ${mb(f.bytes).toFixed(1)} MB | ${f.rssBeforeMb.toFixed(0)} → ${f.peakRssMb.toFixed(0)} MB |`;
  console.log(
    `\nConfig Generator, ${EXTENSIONS.toLocaleString("en-US")} extensions, built binary in its own process\n`,
  );
  console.log("| answer | first byte (goal < 200 ms) | total | body | console RSS before → peak (goal < 250 MB) |");
  console.log("|---|---|---|---|---|");
  console.log(row("`GET /api/config/generate` (streamed JSON)", gen));
  console.log(row("`GET /api/config/script.sql` (streamed download)", script));
  if (JSON_OUT) {
    console.log(
      JSON.stringify({
        extensions: EXTENSIONS,
        firstByteMs: Math.round(gen.firstByteMs),
        totalMs: Math.round(gen.totalMs),
        bytes: gen.bytes,
        peakRssMb: Math.round(gen.peakRssMb),
      }),
    );
  }
} finally {
  await c.stop();
}
