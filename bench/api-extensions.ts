/**
 * Benchmark (not a test): the Extensions list API and the wizard with a
 * campus-sized PBX. Run: node_modules/.bin/bun bench/api-extensions.ts
 * Prints milliseconds per operation; compare runs on the same machine.
 */
import { extensions } from "../src/db/schema";
import { startTestServer } from "../test/helpers/server";

const COUNT = Number(process.env.BENCH_EXTENSIONS ?? 5000);
const s = await startTestServer();
await s.setup();
s.db.transaction((tx) => {
  for (let i = 0; i < COUNT; i++) {
    tx.insert(extensions)
      .values({ extension: String(10000 + i), name: `User ${i}`, secret: `secret-${i}-0000000000` })
      .run();
  }
});

async function time(label: string, runs: number, fn: () => Promise<unknown>) {
  await fn(); // warm-up
  const start = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  const per = (performance.now() - start) / runs;
  console.log(`${label.padEnd(44)} ${per.toFixed(2)} ms/op (${runs} runs)`);
}

await time(`GET /api/extensions (${COUNT} rows)`, 30, () => s.call("GET", "/api/extensions"));
await time("GET /api/config/generate", 10, () => s.call("GET", "/api/config/generate"));
await time("POST /api/wizard/deploy (100, all existing)", 10, () =>
  s.call("POST", "/api/wizard/deploy", {
    extensionCount: 100,
    extensionPrefix: "10",
    enableVoicemail: true,
    enableIVR: false,
  }),
);
await s.stop();
