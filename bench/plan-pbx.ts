/**
 * Benchmark (not a test): plan, then apply (ADR 0025) against the REAL test PBX (test/pbx-host: MariaDB
 * over SSH) holding 5,000 managed extensions.
 * Run: node_modules/.bin/bun bench/plan-pbx.ts   (BENCH_EXTENSIONS, BENCH_CHANGES to change the sizes)
 * Prints milliseconds per operation and the ratio to its target (plan < 2 s, apply of 100
 * changes < 10 s); compare runs on the same machine. The test host has no FreePBX to bootstrap, so the
 * apply's AstDB work is one `asterisk -rx` per key written, against the host's own real Asterisk.
 */
import { extensions, pbxObjects } from "../src/db/schema";
import { buildScript } from "../src/server/pbx/deploy/script";
import { astdbEntries } from "../src/server/pbx/host/astdb";
import { extensionItem } from "../src/server/pbx/objects/entities";
import { startTestServer } from "../test/helpers/server";
import { startPbxHost } from "../test/pbx-host/pbx-host";

const COUNT = Number(process.env.BENCH_EXTENSIONS ?? 5000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const PLAN_TARGET_MS = 2000;
const APPLY_TARGET_MS = 10_000;

const pbx = await startPbxHost();
const s = await startTestServer(pbx.consoleEnv());
await s.setup();

// The console's 5,000 extensions, the same on the PBX (written by the console's own SQL), all managed.
const numbers = Array.from({ length: COUNT }, (_, i) => String(10000 + i));
const now = new Date();
s.db.transaction((tx) => {
  for (const n of numbers) {
    tx.insert(extensions)
      .values({ extension: n, name: `User ${n}`, secret: s.app.box.seal(`secret-${n}-0000000000`) })
      .run();
    tx.insert(pbxObjects)
      .values({ kind: "extension", key: n, pbxId: null, consoleId: null, origin: "deploy", updatedAt: now })
      .run();
  }
});
const rows = s.db.select().from(extensions).all();
const seeded = pbx.runScript(
  buildScript(rows.map((e) => extensionItem({ ...e, secret: `secret-${e.extension}-0000000000` }))).text,
);
if (seeded.code !== 0) throw new Error(`seeding the PBX failed: ${seeded.err}`);
// AstDB: every extension has its entries (the plan checks DEVICE/<n>/dial; the changed ones get all of Core's).
const astdb: Record<string, string> = {};
for (const [i, n] of numbers.entries()) {
  const row = {
    id: n,
    tech: "pjsip",
    dial: `PJSIP/${n}`,
    devicetype: "fixed",
    user: n,
    emergencyCid: "",
    name: `User ${n}`,
    password: "",
    voicemail: "novm",
    ringtimer: "0",
    noanswer: "",
    recording: "",
    outboundcid: "",
    concurrencyLimitDefault: "3",
  };
  const entries = i < CHANGES ? astdbEntries(row) : astdbEntries(row).filter((e) => e.key.endsWith("/dial"));
  for (const e of entries) astdb[`/${e.family}/${e.key}`] = e.value;
}
await pbx.setAstdb(astdb);

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}
const line = (label: string, ms: number, target: number) =>
  console.log(
    `${label.padEnd(52)} ${ms.toFixed(0).padStart(6)} ms  (${(ms / target).toFixed(2)} × the ${target} ms target)`,
  );

const plan = async () => (await s.call("POST", "/api/deploy/plan", { target: "extensions" })).json;
await plan(); // warm-up (SSH session, MariaDB caches)
const planned = await time(plan);
if (planned.value.counts?.unchanged !== COUNT)
  throw new Error(`expected ${COUNT} unchanged: ${JSON.stringify(planned.value.counts)}`);
line(`POST /api/deploy/plan (${COUNT} extensions, all unchanged)`, planned.ms, PLAN_TARGET_MS);

// 100 changes: names changed in the console.
s.db.$client
  .query(`UPDATE extensions SET name = name || ' (new)' WHERE CAST(extension AS INTEGER) < ${10000 + CHANGES}`)
  .run();
const changed = await time(plan);
line(`POST /api/deploy/plan (${CHANGES} updates among ${COUNT})`, changed.ms, PLAN_TARGET_MS);
const applied = await time(async () => {
  const res = await s.call("POST", "/api/deploy/apply", {
    target: "extensions",
    fingerprint: changed.value.fingerprint,
    resolutions: {},
  });
  if (res.status !== 202) throw new Error(`apply: ${res.status} ${res.text}`);
  await s.app.jobs.idle();
  return (await s.call("GET", `/api/jobs/${res.json.jobId}`)).json;
});
if (applied.value.state !== "succeeded") throw new Error(`apply failed: ${JSON.stringify(applied.value.error)}`);
line(`apply ${CHANGES} updates (job: plan, backup, write, AstDB, reload)`, applied.ms, APPLY_TARGET_MS);

await s.stop();
await pbx.stop();
