// Test calls (ADR 0068): the request schema's strict number and context; the API (create, edit, delete, the
// results window, Run now without AMI); the schedule with an injected runner and clock (intervals, no overlap,
// staggering, Run now joining a run in progress, stop); and the probe's verdicts replayed from manager
// transcripts recorded on the real Asterisk 22 + FreePBX 17 of the testbed (test/fixtures/test-calls/).
import { beforeAll, describe, expect, test } from "bun:test";
import type { AmiMessage } from "../../src/server/clients/ami";
import { Unavailable } from "../../src/server/core/errors";
import { PROBE_CONFIG_FILE, type ProbeAmi, probeTransport } from "../../src/server/probes/endpoint";
import { type ProbeOutcome, parseRtcpAll, placeTestCall } from "../../src/server/probes/run";
import { type ScheduleTimers, TestCallScheduler } from "../../src/server/probes/schedule";
import { createTestCall, listTestCalls } from "../../src/server/probes/test-calls";
import { testCallSchema } from "../../src/shared/test-calls";
import type { WsEvent } from "../../src/shared/ws-events";
import { signedInServer } from "../helpers/server";
import { isEvent, readTestCallTranscript, replayAmi, testCallTranscriptNames } from "../helpers/test-call-transcripts";

const s = signedInServer({ clean: ["alert_rules", "test_call_results", "test_calls"] });

describe("the test call schema", () => {
  const base = { name: "Echo", number: "*43" };
  const fieldError = (input: Record<string, unknown>, field: string) => {
    const r = testCallSchema.safeParse({ ...base, ...input });
    expect(r.success).toBe(false);
    return r.error?.issues.find((i) => i.path[0] === field)?.message;
  };

  test("defaults: from-internal every 15 minutes, 10 s to answer, 5 s listened to", () => {
    expect(testCallSchema.parse(base)).toEqual({
      name: "Echo",
      number: "*43",
      context: "from-internal",
      intervalMinutes: 15,
      answerWithinSeconds: 10,
      listenSeconds: 5,
      enabled: true,
    });
    expect(testCallSchema.parse({ ...base, number: "+4930123#", context: "ivr_3-x" }).number).toBe("+4930123#");
  });

  test("a number is a dial string: digits, * and #, one leading +", () => {
    for (const number of ["43a", "*43&PJSIP/1001", "1001\r\nAction: Originate", "1001,1", "+", "++1", "1+1", "1 2"]) {
      expect(fieldError({ number }, "number")).toBeDefined();
    }
    expect(fieldError({ number: "1".repeat(33) }, "number")).toContain("at most 32");
  });

  test("a context is a dial plan context name, nothing that could end a manager field or a config line", () => {
    for (const context of [
      "from internal",
      "from-internal,1",
      "../etc",
      "a;b",
      "a\nb",
      "-leading",
      "x".repeat(65),
      "",
    ]) {
      expect(fieldError({ context }, "context")).toBeDefined();
    }
  });

  test("times stay within their limits", () => {
    expect(fieldError({ intervalMinutes: 0 }, "intervalMinutes")).toContain("at least 1");
    expect(fieldError({ answerWithinSeconds: 61 }, "answerWithinSeconds")).toContain("at most 60");
    expect(fieldError({ listenSeconds: 1.5 }, "listenSeconds")).toContain("whole number");
  });
});

describe("the API", () => {
  test("create, list, edit, delete; a taken name is 409; bad input 400 with field messages, nothing stored", async () => {
    const made = await s.call("POST", "/api/test-calls", { name: "Echo", number: "*43", enabled: false });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ name: "Echo", context: "from-internal", running: false, lastResult: null });
    const again = await s.refused(
      "test_calls",
      () => s.call("POST", "/api/test-calls", { name: "Echo", number: "*44" }),
      409,
    );
    expect(again.fields?.name).toContain("exists already");
    const bad = await s.refused(
      "test_calls",
      () => s.call("POST", "/api/test-calls", { name: "X", number: "*43;x", context: "a b" }),
      400,
    );
    expect(Object.keys(bad.fields ?? {}).sort()).toEqual(["context", "number"]);
    const edited = await s.call("PATCH", `/api/test-calls/${made.json.id}`, { listenSeconds: 3, context: "ext-local" });
    expect(edited.json).toMatchObject({ listenSeconds: 3, context: "ext-local", number: "*43" });
    expect((await s.call("PATCH", `/api/test-calls/${made.json.id}`, { number: "x" })).status).toBe(400);
    expect((await s.call("GET", "/api/test-calls")).json.map((t: { name: string }) => t.name)).toEqual(["Echo"]);
    expect((await s.call("DELETE", `/api/test-calls/${made.json.id}`)).status).toBe(204);
    expect((await s.call("DELETE", `/api/test-calls/${made.json.id}`)).status).toBe(404);
  });

  test("a test call an alert rule watches by name is not deleted (409 naming the rule)", async () => {
    const made = await s.call("POST", "/api/test-calls", { name: "IVR", number: "7000", enabled: false });
    const rule = await s.call("POST", "/api/alerts/rules", {
      name: "IVR down",
      kind: "test-call-failed",
      params: { testCallId: made.json.id },
    });
    expect(rule.status).toBe(201);
    const refused = await s.refused("test_calls", () => s.call("DELETE", `/api/test-calls/${made.json.id}`), 409);
    expect(refused.message).toContain("IVR down");
  });

  test("Run now without a manager interface is a failed result saying AMI is not connected; results by window", async () => {
    const made = await s.call("POST", "/api/test-calls", { name: "Echo", number: "*43", enabled: false });
    const run = await s.call("POST", `/api/test-calls/${made.json.id}/run`);
    expect(run.status).toBe(200);
    expect(run.json).toMatchObject({ ok: false, answered: false, answerMs: null, rxPackets: null });
    expect(run.json.error).toStartWith("AMI not connected");
    const list = (await s.call("GET", "/api/test-calls")).json;
    expect(list[0].lastResult).toEqual(run.json);
    const results = await s.call("GET", `/api/test-calls/${made.json.id}/results`);
    expect(results.json.items).toEqual([run.json]);
    const before = new Date(Date.parse(run.json.at) - 1000).toISOString();
    const older = await s.call("GET", `/api/test-calls/${made.json.id}/results?to=${encodeURIComponent(before)}`);
    expect(older.json.items).toEqual([]);
    expect((await s.call("GET", `/api/test-calls/${made.json.id}/results?from=yesterday`)).status).toBe(400);
    const wide = await s.call("GET", `/api/test-calls/${made.json.id}/results?from=2020-01-01T00:00:00Z`);
    expect(wide.status).toBe(400);
    expect((await s.call("POST", "/api/test-calls/999/run")).status).toBe(404);
  });
});

/** Timers the test fires by hand, on a clock it moves. */
function manualTimers() {
  let now = 1_000_000;
  const pending: { at: number; fn: () => void; id: number }[] = [];
  let seq = 0;
  const timers: ScheduleTimers = {
    set: (fn, ms) => {
      const id = ++seq;
      pending.push({ at: now + ms, fn, id });
      return id;
    },
    clear: (h) => {
      const i = pending.findIndex((p) => p.id === h);
      if (i !== -1) pending.splice(i, 1);
    },
  };
  return {
    timers,
    now: () => now,
    /** Moves the clock, firing the timers that fall due in order. */
    advance(ms: number) {
      const to = now + ms;
      for (;;) {
        pending.sort((a, b) => a.at - b.at);
        const next = pending[0];
        if (!next || next.at > to) break;
        pending.shift();
        now = next.at;
        next.fn();
      }
      now = to;
    },
  };
}

const passed: ProbeOutcome = {
  ok: true,
  answered: true,
  answerMs: 40,
  durationMs: 5200,
  rxPackets: 250,
  txPackets: 250,
  lossPercent: 0,
  jitterMs: 0,
  error: null,
};

describe("the schedule", () => {
  // The console's own schedule stays out of these: each test drives a scheduler of its own.
  beforeAll(() => s.app.testCalls.stop());
  const setUp = (opts: { staggerMs?: number; maxConcurrent?: number } = {}) => {
    const clock = manualTimers();
    const events: WsEvent[] = [];
    const deps = { db: s.db, events: { publish: (e: WsEvent) => events.push(e) }, now: clock.now };
    /** Each run waits until the test ends it. */
    const runs: { id: number; signal: AbortSignal; end: (o?: ProbeOutcome) => void }[] = [];
    const scheduler = new TestCallScheduler(deps, () => ({}) as never, {
      tickMs: 15_000,
      staggerMs: opts.staggerMs ?? 10_000,
      maxConcurrent: opts.maxConcurrent ?? 2,
      timers: clock.timers,
      // Like the real one, a run ends when it is aborted.
      runner: (call, signal) =>
        new Promise((resolve) => {
          runs.push({ id: call.id, signal, end: (o = passed) => resolve(o) });
          signal.addEventListener("abort", () => resolve({ ...passed, ok: false, error: "stopped" }));
        }),
    });
    return { clock, deps, events, runs, scheduler };
  };
  const settle = () => Bun.sleep(5);

  test("each enabled test call runs when due, staggered; a run in progress is never started again", async () => {
    const { clock, deps, runs, scheduler } = setUp();
    const a = createTestCall(deps, testCallSchema.parse({ name: "A", number: "1", intervalMinutes: 1 }));
    const b = createTestCall(deps, testCallSchema.parse({ name: "B", number: "2", intervalMinutes: 5 }));
    createTestCall(deps, testCallSchema.parse({ name: "Off", number: "3", enabled: false }));
    scheduler.start();
    clock.advance(15_000);
    // Both are due (never ran); they start 10 s apart; the disabled one never.
    expect(runs.map((r) => r.id)).toEqual([a.id]);
    clock.advance(9_999);
    expect(runs.map((r) => r.id)).toEqual([a.id]);
    clock.advance(1);
    expect(runs.map((r) => r.id)).toEqual([a.id, b.id]);
    expect(scheduler.isRunning(a.id) && scheduler.isRunning(b.id)).toBe(true);
    // A's run is still going a minute later: the ticks do not start it again.
    clock.advance(120_000);
    expect(runs.map((r) => r.id)).toEqual([a.id, b.id]);
    runs[0]?.end();
    await settle();
    expect(listTestCalls(deps, scheduler).find((t) => t.id === a.id)?.lastResult?.ok).toBe(true);
    // Its result is from when it started (15 s in): a minute after that it is due again, at the next tick.
    clock.advance(15_000);
    expect(runs.map((r) => r.id)).toEqual([a.id, b.id, a.id]);
    runs[1]?.end({ ...passed, ok: false, error: "Not answered within 10 s" });
    runs[2]?.end();
    await settle();
    // B started 25 s in: due again 5 minutes later (325 s), so at the tick of 330 s, not before.
    clock.advance(140_000);
    expect(runs.filter((r) => r.id === b.id)).toHaveLength(1);
    clock.advance(30_000);
    expect(runs.filter((r) => r.id === b.id)).toHaveLength(2);
    await scheduler.stop();
  });

  test("at most maxConcurrent scheduled runs at once", async () => {
    const { clock, deps, runs, scheduler } = setUp({ staggerMs: 0, maxConcurrent: 2 });
    for (const n of ["1", "2", "3"]) createTestCall(deps, testCallSchema.parse({ name: `T${n}`, number: n }));
    scheduler.tick();
    expect(runs).toHaveLength(2);
    runs[0]?.end();
    await settle();
    expect(runs).toHaveLength(3);
    clock.advance(1);
    await scheduler.stop();
  });

  test("Run now joins a run in progress; stop aborts the runs and records nothing for them", async () => {
    const { deps, events, runs, scheduler } = setUp();
    const a = createTestCall(deps, testCallSchema.parse({ name: "A", number: "1", enabled: false }));
    const first = scheduler.runNow(a.id);
    const second = scheduler.runNow(a.id);
    await settle();
    expect(runs).toHaveLength(1);
    expect(events.map((e) => e.data)).toContainEqual({ id: a.id, action: "running" });
    runs[0]?.end();
    const [r1, r2] = await Promise.all([first, second]);
    expect(r1).toEqual(r2);
    expect(r1.ok).toBe(true);
    expect(events.map((e) => e.data)).toContainEqual({ id: a.id, action: "result" });

    const third = scheduler.runNow(a.id).catch((err: Error) => err);
    await settle();
    expect(runs).toHaveLength(2);
    const stopping = scheduler.stop();
    expect(runs[1]?.signal.aborted).toBe(true);
    runs[1]?.end({ ...passed, ok: false, error: "The run was stopped (the console is shutting down)" });
    await stopping;
    expect(await third).toBeInstanceOf(Error);
    expect(s.db.$client.query("SELECT COUNT(*) AS n FROM test_call_results").get()).toEqual({ n: 1 });
  });
});

describe("the probe's pieces", () => {
  test("RTP statistics from CHANNEL(rtcp,all,audio)", () => {
    expect(
      parseRtcpAll(
        "ssrc=22931749;themssrc=622228233;lp=3;rxjitter=0.002125;rxcount=297;txjitter=0.000125;txcount=300;rlp=0;rtt=0.000000;rxmes=88.087887;txmes=88.087887",
      ),
    ).toEqual({ rx: 297, tx: 300, lost: 3, jitterS: 0.002125 });
    expect(parseRtcpAll("")).toBeNull();
    expect(parseRtcpAll("ssrc=1;lp=0")).toBeNull();
  });

  test("the transport it calls itself on: the first IPv4 UDP one; a wildcard bind is reached on loopback", () => {
    const conf = (lines: Record<string, string>) => ({ response: "Success", ...lines }) as AmiMessage;
    expect(
      probeTransport(
        conf({
          "category-000000": "0.0.0.0-tcp",
          "line-000000-000000": "type=transport",
          "line-000000-000001": "protocol=tcp",
          "line-000000-000002": "bind=0.0.0.0:5060",
          "category-000001": "0.0.0.0-udp",
          "line-000001-000000": "type=transport",
          "line-000001-000001": "protocol=udp",
          "line-000001-000002": "bind=0.0.0.0:5160",
        }),
      ),
    ).toEqual({ name: "0.0.0.0-udp", host: "127.0.0.1", port: 5160 });
    expect(probeTransport(conf({ "category-000000": "global", "line-000000-000000": "type=global" }))).toBeNull();
  });

  const target = { id: 1, number: "*43", context: "from-internal", answerWithinSeconds: 10, listenSeconds: 4 };

  test("with the manager interface down the run fails saying so, and nothing is dialled", async () => {
    const sent: string[] = [];
    const down: ProbeAmi = {
      action: async (name) => {
        sent.push(name);
        throw new Unavailable("The Asterisk manager interface is not connected: Connection refused by 127.0.0.1:5038.");
      },
      list: async (name) => {
        sent.push(name);
        throw new Unavailable("The Asterisk manager interface is not connected: Connection refused by 127.0.0.1:5038.");
      },
      onEvent: () => () => {},
    };
    const outcome = await placeTestCall(down, target, { clock: { now: Date.now, sleep: Bun.sleep } });
    expect(outcome).toMatchObject({ ok: false, answered: false });
    expect(outcome.error).toBe("AMI not connected: Connection refused by 127.0.0.1:5038.");
    expect(sent).not.toContain("Originate");
  });

  test("a run stopped while the PBX does not answer its Originate still hangs the channel up", async () => {
    const sent: { name: string; fields: Record<string, string> }[] = [];
    const stuck: ProbeAmi = {
      action: (name, fields) => {
        sent.push({ name, fields });
        if (name === "Originate") return new Promise(() => {});
        return Promise.resolve({ response: "Success" });
      },
      list: async () => [
        { event: "EndpointDetail", objectname: "pbx-console-probe-from-internal", context: "from-internal" },
      ],
      onEvent: () => () => {},
    };
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const outcome = await placeTestCall(stuck, target, {
      clock: { now: Date.now, sleep: Bun.sleep },
      signal: abort.signal,
      channelId: "pbxconsole-probe-1-stuck",
    });
    expect(outcome.error).toBe("The run was stopped (the console is shutting down)");
    expect(sent.at(-1)).toEqual({ name: "Hangup", fields: { Channel: "pbxconsole-probe-1-stuck", Cause: "16" } });
  });
});

describe("verdicts replayed from the real PBX's transcripts", () => {
  const names = testCallTranscriptNames();
  /** What each recorded run must have measured (the recordings themselves say what the live run did). */
  const EXPECT: Record<string, (o: ProbeOutcome) => void> = {
    "echo-first-run": (o) => expect(o).toMatchObject({ ok: true, answered: true, error: null }),
    echo: (o) => {
      expect(o).toMatchObject({ ok: true, answered: true, error: null, lossPercent: 0 });
      expect(o.rxPackets).toBeGreaterThan(100);
      expect(o.answerMs).toBeGreaterThan(0);
      expect(o.answerMs).toBeLessThan(10_000);
    },
    silent: (o) => {
      expect(o).toMatchObject({ ok: false, answered: true });
      // FreePBX sends silence packets: they are counted, and still are no audio.
      expect(o.rxPackets).toBeGreaterThan(0);
      expect(o.error).toStartWith("No audio: only silence came back in 3 s");
    },
    "no-answer": (o) => expect(o).toMatchObject({ ok: false, answered: false, error: "Not answered within 3 s" }),
    "hangs-up": (o) => {
      expect(o).toMatchObject({ ok: false, answered: true });
      expect(o.error).toStartWith("Hung up after");
    },
    busy: (o) => expect(o).toMatchObject({ ok: false, answered: false, error: "Not answered: busy" }),
  };

  test("every scenario is recorded", () => {
    expect(names).toEqual(Object.keys(EXPECT).sort());
  });

  for (const name of names) {
    test(name, async () => {
      const t = readTestCallTranscript(name);
      const replay = replayAmi(t);
      const outcome = await placeTestCall(replay.ami, t.target, {
        clock: replay.clock,
        channelId: t.channelId,
        secret: () => "<secret>",
      });
      EXPECT[name]?.(outcome);
      // The replay measures what the live run measured.
      // (Times within a few milliseconds: the replay's clock stands still between an answer and the next action.)
      const { durationMs, answerMs, ...rest } = outcome;
      const { durationMs: liveDuration, answerMs: liveAnswer, ...live } = t.outcome;
      expect(rest).toEqual(live);
      expect(answerMs === null).toBe(liveAnswer === null);
      expect(Math.abs((answerMs ?? 0) - (liveAnswer ?? 0))).toBeLessThan(5);
      expect(Math.abs(durationMs - liveDuration)).toBeLessThan(250);
      // The call went out through the probe endpoint as a real SIP leg, and was always hung up (unless it had ended).
      const originate = replay.sent.find((a) => a.name === "Originate");
      expect(originate?.fields).toMatchObject({
        Channel: `PJSIP/${t.target.number}@pbx-console-probe-from-internal`,
        Application: "Milliwatt",
        Timeout: String(t.target.answerWithinSeconds * 1000),
        ChannelId: t.channelId,
        Async: "true",
      });
      const ended = t.entries.some((e) => isEvent(e) && e.event.event === "Hangup");
      const hangup = replay.sent.find((a) => a.name === "Hangup");
      if (!ended || !outcome.ok) expect(ended || hangup !== undefined).toBe(true);
      if (outcome.ok) expect(hangup?.fields).toEqual({ Channel: t.channelId, Cause: "16" });
    });
  }

  test("the first run writes the probe endpoint into pjsip_custom_post.conf and reloads res_pjsip", async () => {
    const t = readTestCallTranscript("echo-first-run");
    const replay = replayAmi(t);
    await placeTestCall(replay.ami, t.target, {
      clock: replay.clock,
      channelId: t.channelId,
      secret: () => "<secret>",
    });
    const update = replay.sent.find((a) => a.name === "UpdateConfig")?.fields ?? {};
    expect(update).toMatchObject({
      SrcFilename: PROBE_CONFIG_FILE,
      DstFilename: PROBE_CONFIG_FILE,
      Reload: "res_pjsip.so",
    });
    const lines = Object.entries(update)
      .filter(([k]) => k.startsWith("Var-"))
      .map(([k, v]) => `${update[`Cat-${k.slice(4)}`]}: ${v}=${update[`Value-${k.slice(4)}`]}`);
    expect(lines).toContain("pbx-console-probe-from-internal: context=from-internal");
    expect(lines).toContain("pbx-console-probe-from-internal: outbound_auth=pbx-console-probe-from-internal-auth");
    expect(lines).toContain("pbx-console-probe-from-internal: deny=0.0.0.0/0.0.0.0");
    expect(lines).toContain("pbx-console-probe-from-internal-auth: password=<secret>");
    // The later run finds it in place and writes nothing.
    const again = replayAmi(readTestCallTranscript("echo"));
    await placeTestCall(again.ami, t.target, {
      clock: again.clock,
      channelId: readTestCallTranscript("echo").channelId,
    });
    expect(again.sent.map((a) => a.name)).not.toContain("UpdateConfig");
  });
});
