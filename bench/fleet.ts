/**
 * Benchmark (not a test): the fleet hub with 50 members (fake consoles over TLS on 50 loopback ports,
 * test/fakes/fleet-member.ts), in process. Measured: from a poller pass starting with nothing known until the
 * hub's GET /api/fleet shows all 50 reachable; the same with one member hanging (the other 49 must not wait for
 * it). Reference in the same run: the same 50 checks one after another (one member's round trip × 50), what a
 * sequential poller would take. Run: node_modules/.bin/bun bench/fleet.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fleetMembers } from "../src/db/schema";
import { memberRequest } from "../src/server/clients/fleet-member";
import { memberStates } from "../src/server/fleet/members";
import { FleetPoller, fleetPoller } from "../src/server/fleet/poller";
import type { FleetList } from "../src/shared/fleet";
import { makeCertificate, startFakeMember } from "../test/fakes/fleet-member";
import { startTestServer } from "../test/helpers/server";

const COUNT = Number(process.env.BENCH_MEMBERS ?? 50);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const LATENCY = Number(process.env.BENCH_LATENCY_MS ?? 20);
const dir = mkdtempSync(join(tmpdir(), "pbx-bench-fleet-"));
const cert = makeCertificate(dir, "bench-member");
const members = await Promise.all(
  Array.from({ length: COUNT }, (_, i) => startFakeMember({ cert, name: `pbx-${String(i).padStart(2, "0")}` })),
);
const s = await startTestServer();
await s.setup();
s.db.transaction((tx) => {
  for (const m of members)
    tx.insert(fleetMembers)
      .values({
        url: m.url,
        name: m.state.self.name,
        pin: cert.fingerprint,
        token: s.app.box.seal(m.state.token),
        createdAt: new Date(),
        updatedAt: new Date(),
      })
      .run();
});
// The app's own poller is stopped, so each measured pass (of a poller of its own) is the only one.
await fleetPoller(s.app).stop();
const poller = new FleetPoller(s.app);

/** Milliseconds from a pass starting with no state known until GET /api/fleet shows `want` members reachable. */
async function untilShown(want: number): Promise<number> {
  memberStates(s.db).clear();
  const t = performance.now();
  void poller.pass();
  for (;;) {
    const list = (await s.call("GET", "/api/fleet")).json as FleetList;
    if (list.items.filter((m) => m.reachable).length >= want) return performance.now() - t;
    await Bun.sleep(2);
  }
}

const targets = members.map((m) => ({ url: m.url, pin: cert.fingerprint, token: m.state.token }));
async function sequential(): Promise<number> {
  const t = performance.now();
  for (const target of targets) await memberRequest(target, { path: "/api/fleet/self" });
  return performance.now() - t;
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
async function measure(fn: () => Promise<number>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await fn());
  return median(times);
}

const seq = await measure(sequential);
const all = await measure(() => untilShown(COUNT));
(members[0] as (typeof members)[number]).state.delayMs = 60_000;
const withSlow = await measure(() => untilShown(COUNT - 1));
(members[0] as (typeof members)[number]).state.delayMs = 0;
// Members a WAN away: each answers after LATENCY ms.
for (const m of members) m.state.delayMs = LATENCY;
const seqFar = await measure(sequential);
const allFar = await measure(() => untilShown(COUNT));

const rows: [string, number][] = [
  [`reference: ${COUNT} checks one after another (one round trip × ${COUNT})`, seq],
  [`a pass until GET /api/fleet shows all ${COUNT} reachable`, all],
  [`the same with one member hanging, until the other ${COUNT - 1} show`, withSlow],
  [`reference, each member answering after ${LATENCY} ms: one after another`, seqFar],
  [`a pass, each member answering after ${LATENCY} ms`, allFar],
];
console.log(`fleet hub, ${COUNT} members over TLS on loopback, median of ${RUNS}`);
for (const [label, ms] of rows) console.log(`${label.padEnd(78)} ${ms.toFixed(1).padStart(8)} ms`);
console.log(
  `ratio pass / sequential: ${(all / seq).toFixed(2)} on loopback (one process does both ends: CPU-bound TLS), ${(withSlow / seq).toFixed(2)} with a hanging member, ${(allFar / seqFar).toFixed(3)} at ${LATENCY} ms per answer`,
);

await poller.stop();
await s.stop();
for (const m of members) await m.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
