/**
 * Test calls on the real FreePBX 17 + Asterisk 22 (ADR 0068), run through the built console's API over its one
 * manager connection. The first run creates the probe endpoint on the PBX (in `pjsip_custom_post.conf`, loaded
 * by res_pjsip); the echo test `*43` (as FreePBX's Info Services writes it: test-call-dialplan.ts) passes with
 * its answer time and the RTP packets that came back; an extension whose registered phone does not answer
 * fails "Not answered within 3 s" and the phone's call is over when the run is; a number that answers and
 * plays nothing fails "No audio" although FreePBX sends it silence packets. No probe channel is left behind.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { TestCallResult } from "../../src/shared/test-calls";
import { consoleForFile } from "./console";
import { ECHO, installTestCallDialplan, SILENT } from "./test-call-dialplan";
import { cli, until } from "./testbed";

const { pbx, phone } = consoleForFile({ cdr: false });

const run = async (body: Record<string, unknown>): Promise<TestCallResult> => {
  const made = await pbx.create("/api/test-calls", { enabled: false, ...body });
  const res = await pbx.call("POST", `/api/test-calls/${made.id}/run`);
  expect(res.status, res.text).toBe(200);
  return res.json as TestCallResult;
};
/** The probe's channels Asterisk still has (none once a run is over). */
const probeChannels = async () =>
  (await cli("core show channels concise")).split("\n").filter((l) => l.includes("pbx-console-probe"));

beforeAll(async () => {
  await installTestCallDialplan();
  await until("the console's manager connection", async () => {
    const status = (await pbx.call("GET", "/api/pbx/status")).json;
    return status?.connected ? true : undefined;
  });
}, 60_000);

describe("test calls through the real PBX", () => {
  test("the echo test passes: answered, its answer time measured, RTP packets back; the probe endpoint is on the PBX", async () => {
    const r = await run({ name: "Echo test", number: ECHO, answerWithinSeconds: 10, listenSeconds: 3 });
    expect(r.error).toBeNull();
    expect(r).toMatchObject({ ok: true, answered: true, lossPercent: 0 });
    expect(r.answerMs).toBeGreaterThan(0);
    expect(r.answerMs).toBeLessThan(10_000);
    // 20 ms packets for about 3 s each way.
    expect(r.rxPackets).toBeGreaterThan(100);
    expect(r.txPackets).toBeGreaterThan(100);
    expect(r.durationMs).toBeGreaterThanOrEqual(3000);
    const endpoint = await cli("pjsip show endpoint pbx-console-probe-from-internal");
    expect(endpoint).toContain("pbx-console-probe-from-internal-auth");
    expect(readFileSync("/etc/asterisk/pjsip_custom_post.conf", "utf8")).toMatch(
      /\[pbx-console-probe-from-internal\][^[]*context = from-internal/,
    );
    expect(await probeChannels()).toEqual([]);
    const list = (await pbx.call("GET", "/api/test-calls")).json;
    expect(list.find((t: { name: string }) => t.name === "Echo test").lastResult).toEqual(r);
  }, 60_000);

  test("a registered phone that does not answer: not answered within 3 s, and its ringing ends with the run", async () => {
    const ext = await pbx.create("/api/extensions", { extension: "2951", name: "Never Answers" });
    await pbx.deploy("all");
    const callee = await phone({ user: "2951", secret: await pbx.sipSecret(ext.id) });
    const since = callee.events.length;
    const r = await run({ name: "Desk phone", number: "2951", answerWithinSeconds: 3, listenSeconds: 2 });
    expect(r).toMatchObject({ ok: false, answered: false, answerMs: null, error: "Not answered within 3 s" });
    // It did ring the phone, and the call was gone by the time the result came.
    await callee.waitFor("CALL_INCOMING", { since, ms: 1000 });
    await callee.waitFor("CALL_CLOSED", { since, ms: 5000 });
    expect(await probeChannels()).toEqual([]);
  }, 300_000);

  test("a number that answers and plays nothing: no audio, though FreePBX sends it silence packets", async () => {
    const r = await run({ name: "Silent", number: SILENT, answerWithinSeconds: 5, listenSeconds: 2 });
    expect(r).toMatchObject({ ok: false, answered: true });
    expect(r.error).toStartWith("No audio: only silence came back in 2 s");
    expect(r.rxPackets).toBeGreaterThan(0);
    expect(await probeChannels()).toEqual([]);
  }, 60_000);
});
