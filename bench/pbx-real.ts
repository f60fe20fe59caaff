/**
 * Benchmark (not a test) on the real FreePBX 17 + Asterisk 22 of ../shared/testbed, through the built
 * binary (`npm run build` first), run as root:  node_modules/.bin/bun bench/pbx-real.ts
 *
 * 1. Apply of BENCH_CHANGES (100) changes: the review's plan + the apply job (which ends with a real
 *    `fwconsole reload`) of 100 new extensions, then of renames of all of them (BENCH_ROUNDS rounds, 3),
 *    each round followed by `fwconsole reload` alone over the same kind of SSH login; medians of both.
 *    Goal: the console's own work (apply − reload) ≤ 50 % of the reload.
 * 2. Live state to the browser: a softphone registers; the time from the registrar's answer (its
 *    REGISTER_OK event) to the console's `pbx-status-updated` event on the WebSocket after which
 *    /api/pbx/status shows it registered. Median of 5. Goal: < 1 s.
 * It resets the testbed first and leaves it with the extensions in place (run `reset` after).
 */
import { startPbxConsole } from "../test/pbx/console";
import { Softphone } from "../test/pbx/softphone";
import { reset, sh, until } from "../test/pbx/testbed";

const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

await reset();
const pbx = await startPbxConsole();
try {
  const ids: number[] = [];
  for (let i = 0; i < CHANGES; i++)
    ids.push((await pbx.create("/api/extensions", { extension: String(3000 + i), name: `Bench ${i}` })).id);

  // `fwconsole reload` alone, over the same kind of SSH login the console uses.
  const reloadAlone = async () => {
    const r0 = performance.now();
    await sh(
      [
        "ssh",
        "-i",
        `${pbx.ssh.keyFile}`,
        "-p",
        String(pbx.ssh.port),
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "LogLevel=ERROR",
        "asterisk@127.0.0.1",
        'for i in $(seq 1 60); do out=$(fwconsole reload 2>&1) && exit 0; echo "$out" | grep -q \'already running\' || { echo "$out"; exit 1; }; sleep 1; done; exit 1',
      ],
      { timeoutMs: 300_000 },
    );
    return performance.now() - r0;
  };

  // Rounds of CHANGES changes each (the creates, then renames of all of them), each followed by a reload
  // alone, so a busy moment of the machine weighs on both sides alike; medians of both.
  const applies: number[] = [];
  const reloads: number[] = [];
  let reloadOutput = "";
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0)
      for (let i = 0; i < CHANGES; i++) {
        const res = await pbx.call("PATCH", `/api/extensions/${ids[i]}`, { name: `Bench ${i} r${round}` });
        if (res.status !== 200) throw new Error(res.text);
      }
    const t0 = performance.now();
    const jobId = await pbx.startDeploy("extensions");
    // Polled every 10 ms (the tests' 100 ms would add up to a tenth of a second to the figure).
    let job = (await pbx.call("GET", `/api/jobs/${jobId}`)).json;
    while (job.state === "running") {
      await Bun.sleep(10);
      job = (await pbx.call("GET", `/api/jobs/${jobId}`)).json;
    }
    applies.push(performance.now() - t0);
    if (job.state !== "succeeded") throw new Error(`the apply ${job.state}: ${JSON.stringify(job.summary)}`);
    reloadOutput = JSON.stringify(job.summary?.reload ?? {}).slice(0, 200);
    reloads.push(await reloadAlone());
  }
  const applyMs = median(applies);
  const reloadMs = median(reloads);
  const overhead = (applyMs - reloadMs) / reloadMs;

  // Live registration to the WebSocket.
  const ws = new WebSocket(`ws://127.0.0.1:${pbx.bin.port}/ws?type=sync`, {
    headers: { cookie: pbx.bin.cookie },
  } as never);
  const events: number[] = [];
  ws.onmessage = (m) => {
    if (JSON.parse(String(m.data)).type === "pbx-status-updated") events.push(performance.now());
  };
  await new Promise((done) => {
    ws.onopen = done;
  });
  await until("AMI connected", async () =>
    (await pbx.call("GET", "/api/pbx/status")).json.connected ? true : undefined,
  );
  const live: number[] = [];
  for (let i = 0; i < 5; i++) {
    const ext = String(3000 + i);
    const secret = await pbx.sipSecret(ids[i] as number);
    const phone = await Softphone.start({ user: `idle${i}`, register: false });
    await phone.addAccount(ext, secret);
    const registeredAt = (await phone.waitFor("REGISTER_OK", { ms: 30_000 })).at;
    const shown = await until(`${ext} shown registered`, async () => {
      const s = (await pbx.call("GET", "/api/pbx/status")).json;
      const e = s.extensions.find((x: { extension: string }) => x.extension === ext);
      const after = events.find((t) => t >= registeredAt);
      return e?.registered && after !== undefined ? after : undefined;
    });
    live.push(Math.max(0, shown - registeredAt));
    await phone.stop();
  }
  ws.close();

  const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
  console.log(
    `apply of ${CHANGES} changes (plan + apply + reload; creates, then renames; median of ${ROUNDS}: ${list(applies)}): ${applyMs.toFixed(0)} ms`,
  );
  console.log(`fwconsole reload alone (median of ${ROUNDS}: ${list(reloads)}): ${reloadMs.toFixed(0)} ms`);
  console.log(
    `console overhead: ${(overhead * 100).toFixed(0)} % of the reload (goal ≤ 50 %) ${overhead <= 0.5 ? "met" : "NOT MET"}`,
  );
  console.log(`reload result in the job: ${reloadOutput}`);
  console.log(
    `live registration → WebSocket event (median of 5: ${live.map((l) => l.toFixed(0)).join(", ")}): ${median(live).toFixed(0)} ms (goal < 1000) ${median(live) < 1000 ? "met" : "NOT MET"}`,
  );
} finally {
  await pbx.stop();
}
