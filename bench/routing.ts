/**
 * Benchmark (not a test): the routing simulator and the destination list with a campus-sized PBX (5,000
 * extensions) and a flow of 11 steps (trunk, inbound route, eight ring groups overflowing one into the next,
 * voicemail), in process through the HTTP API. Reference in the same run: `GET /api/ring-groups` (eight rows)
 * through the same stack, the floor of any API call. Run: node_modules/.bin/bun bench/routing.ts
 */
import { extensions, inboundRoutes, ringGroups } from "../src/db/schema";
import { consoleModel } from "../src/server/routing/model";
import { simulate } from "../src/server/routing/simulate";
import { startTestServer } from "../test/helpers/server";

const COUNT = Number(process.env.BENCH_EXTENSIONS ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const GROUPS = 8;
const s = await startTestServer();
await s.setup();
s.db.transaction((tx) => {
  for (let i = 0; i < COUNT; i++)
    tx.insert(extensions)
      .values({ extension: String(10000 + i), name: `User ${i}`, voicemail: i % 2 === 0 })
      .run();
  for (let g = 0; g < GROUPS; g++)
    tx.insert(ringGroups)
      .values({
        number: String(601 + g),
        name: `Tier ${g + 1}`,
        strategy: "ringall",
        ringTime: 20,
        members: [String(10000 + 2 * g), String(10001 + 2 * g)],
        noAnswerKind: g === GROUPS - 1 ? "voicemail" : "ring-group",
        noAnswerTarget: g === GROUPS - 1 ? "10000" : String(602 + g),
      })
      .run();
  tx.insert(inboundRoutes)
    .values({ description: "Main", didNumber: "15550100", destinationType: "ring-group", destination: "601" })
    .run();
});

async function median(fn: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < 10; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
}

const body = { did: "15550100", callerId: "4930123", unanswered: true };
const check = await s.call("POST", "/api/routing/simulate", body);
if (check.json.steps.length !== GROUPS + 3) throw new Error(`expected ${GROUPS + 3} steps: ${check.text}`);
const model = consoleModel(s.db);
const rows: [string, number][] = [
  ["reference: GET /api/ring-groups (8 rows)", await median(() => s.call("GET", "/api/ring-groups"))],
  [
    `POST /api/routing/simulate, ${GROUPS + 3} steps, ${COUNT} extensions`,
    await median(() => s.call("POST", "/api/routing/simulate", body)),
  ],
  ["  of which reading the model from the database", await median(() => consoleModel(s.db))],
  ["  of which the walk", await median(() => simulate(model, { ...body, digits: "" }))],
  [
    `GET /api/destinations (${COUNT * 1.5 + GROUPS + 1} items, no ETag)`,
    await median(() => s.call("GET", "/api/destinations")),
  ],
];
for (const [label, ms] of rows) console.log(`${label.padEnd(60)} ${ms.toFixed(2)} ms (median of ${RUNS})`);
await s.stop();
