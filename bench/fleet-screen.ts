/**
 * Benchmark (not a test): the Fleet screen with 50 members, in Chromium against the built binary (`npm run build`
 * first). 50 fake consoles over TLS on loopback (test/fakes/fleet-member.ts) are added to a hub through its API;
 * measured, from the navigation's start by the page's own clock: the Fleet screen loaded until all 50 members show
 * "Reachable". Reference in the same run: the same screen of a hub with no member, until its heading shows. Median
 * of `BENCH_RUNS` (5) loads each, a fresh context per load. The issue's goal: 50 PBXs' state within 2 s.
 * Run: node_modules/.bin/bun bench/fleet-screen.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCertificate, startFakeMember } from "../test/fakes/fleet-member";
import { launch, signedInContext } from "./lib/browser";
import { type Console, startConsole } from "./lib/console";

const COUNT = Number(process.env.BENCH_MEMBERS ?? 50);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "pbx-bench-fleet-screen-"));
const cert = makeCertificate(dir, "bench-member");
const members = await Promise.all(
  Array.from({ length: COUNT }, (_, i) => startFakeMember({ cert, name: `pbx-${String(i).padStart(2, "0")}` })),
);
const hub = await startConsole();
const empty = await startConsole();
for (const m of members) {
  const res = await hub.api("POST", "/api/fleet/members", { url: m.url, token: m.state.token });
  if (res.status !== 201) throw new Error(`adding ${m.url}: ${res.status} ${await res.text()}`);
}
const browser = await launch();

/**
 * Milliseconds from the navigation's start until `ready` holds in the page, on a fresh context. The predicates are
 * functions: the console's CSP refuses a string evaluated as script.
 */
async function load(c: Console, ready: (count: number) => number | false): Promise<number> {
  const context = await signedInContext(browser, c);
  const page = await context.newPage();
  await page.goto(`${c.base}/fleet`);
  const handle = await page.waitForFunction(ready, COUNT, { timeout: 30_000, polling: "raf" });
  const ms = (await handle.jsonValue()) as number;
  await context.close();
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const allReachable = (count: number) => {
  const shown = [...document.querySelectorAll("main *")].filter(
    (e) => e.childElementCount === 0 && e.textContent === "Reachable",
  ).length;
  return shown >= count ? performance.now() : false;
};
const heading = () =>
  [...document.querySelectorAll("h1")].some((h) => h.textContent === "Fleet") ? performance.now() : false;

const reference: number[] = [];
const screen: number[] = [];
for (let i = 0; i < RUNS; i++) {
  reference.push(await load(empty, heading));
  screen.push(await load(hub, allReachable));
}
const ref = median(reference);
const full = median(screen);
console.log(`Fleet screen, ${COUNT} members over TLS on loopback, median of ${RUNS} loads (the page's own clock)`);
console.log(
  `${"reference: the Fleet screen of a hub with no member, its heading".padEnd(72)} ${ref.toFixed(0).padStart(6)} ms`,
);
console.log(
  `${`the Fleet screen until all ${COUNT} members show Reachable`.padEnd(72)} ${full.toFixed(0).padStart(6)} ms`,
);
console.log(`ratio ${(full / ref).toFixed(2)}; goal: within 2,000 ms`);

await browser.close();
await Promise.all([hub.stop(), empty.stop(), ...members.map((m) => m.stop())]);
rmSync(dir, { recursive: true, force: true });
