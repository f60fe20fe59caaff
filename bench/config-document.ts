/**
 * Benchmark (not a test): the configuration document (ADR 0075) of a campus-sized console, 5,000 extensions.
 * Run: node_modules/.bin/bun bench/config-document.ts
 * Prints milliseconds per operation and each beside the reference measured in the same run, the Extensions
 * list API of the same 5,000 rows: on a shared machine the ratio is the figure to compare between runs. The
 * issue's goal is export and plan of 5,000 extensions under 2 s each.
 */
import { extensions } from "../src/db/schema";
import { startTestServer } from "../test/helpers/server";

const COUNT = Number(process.env.BENCH_EXTENSIONS ?? 5000);
const s = await startTestServer();
await s.setup();
s.db.transaction((tx) => {
  for (let i = 0; i < COUNT; i++)
    tx.insert(extensions)
      .values({ extension: String(10000 + i), name: `User ${i}`, secret: s.app.box.seal(`secret-${i}-0000000000`) })
      .run();
});

async function time(label: string, runs: number, fn: () => Promise<{ status: number }>): Promise<number> {
  const first = await fn(); // warm-up
  if (first.status >= 300) throw new Error(`${label}: ${first.status}`);
  const start = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  return (performance.now() - start) / runs;
}

const row = (label: string, ms: number, reference: number) =>
  console.log(
    `${label.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms/op  ${(ms / reference).toFixed(2).padStart(6)}× the list`,
  );

const reference = await time(`GET /api/extensions (${COUNT})`, 10, () => s.call("GET", "/api/extensions"));
row(`GET /api/extensions (${COUNT} rows): reference`, reference, reference);
row("GET /api/config/export (JSON)", await time("export", 5, () => s.call("GET", "/api/config/export")), reference);
row(
  "GET /api/config/export?format=yaml",
  await time("export yaml", 5, () => s.call("GET", "/api/config/export?format=yaml")),
  reference,
);
const doc = (await s.call("GET", "/api/config/export")).json;
row(
  `POST /api/config/plan, export as is (${COUNT} unchanged)`,
  await time("plan same", 5, () => s.call("POST", "/api/config/plan", { document: doc })),
  reference,
);
const renamed = {
  ...doc,
  extensions: doc.extensions.map((e: { name: string }) => ({ ...e, name: `${e.name} (new)` })),
};
row(
  `POST /api/config/plan, every name changed (${COUNT} updates)`,
  await time("plan updates", 3, () => s.call("POST", "/api/config/plan", { document: renamed })),
  reference,
);
const added = {
  version: 1,
  extensions: Array.from({ length: COUNT }, (_, i) => ({ extension: String(30000 + i), name: `New ${i}` })),
};
row(
  `POST /api/config/plan, ${COUNT} new extensions (creates)`,
  await time("plan creates", 3, () => s.call("POST", "/api/config/plan", { document: added })),
  reference,
);
const plan = (await s.call("POST", "/api/config/plan", { document: renamed })).json;
const start = performance.now();
const applied = await s.call("POST", "/api/config/apply", { fingerprint: plan.fingerprint });
if (applied.status !== 200) throw new Error(`apply: ${applied.status} ${applied.text}`);
row(`POST /api/config/apply (${COUNT} updates, once)`, performance.now() - start, reference);
await s.stop();
