// What an AI call cost and how fast it answered (ADR 0070): the accumulator on its own (usage summed from
// every response.done, one latency per caller turn to the first audio, else the transcript), then end to end
// against the fake OpenAI with the sessions' clock held by the test: the exact cost from scripted usage,
// latency p50/p95 from scripted event times, the call's detail route (`usage`, `costUsd`, `latency`,
// `analysis`), the price table (defaults, save, refusals with field paths) and an assistant's stats.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { CallMeasures } from "../../src/server/ai/measures";
import { parseServerEvent, type SidebandServerEvent } from "../../src/server/clients/openai-sideband";
import { DEFAULT_PRICES, type ModelPrice } from "../../src/shared/ai/measures";
import type { WsEvent } from "../../src/shared/ws-events";
import {
  audioDeltaEvent,
  buildSignedIncomingCall,
  generateWebhookSecret,
  responseCreatedEvent,
  responseDoneEvent,
  speechEvent,
  startFakeOpenAi,
  transcriptDeltaEvent,
} from "../fakes/openai";
import { startAiServer } from "../helpers/ai-server";
import type { TestServer } from "../helpers/server";

/** Two responses' usage as OpenAI reports it (`response.done` → `response.usage`). */
const USAGE_1 = {
  total_tokens: 6650,
  input_tokens: 4000,
  output_tokens: 2650,
  input_token_details: {
    text_tokens: 1000,
    audio_tokens: 3000,
    image_tokens: 0,
    cached_tokens: 1200,
    cached_tokens_details: { text_tokens: 200, audio_tokens: 1000, image_tokens: 0 },
  },
  output_token_details: { text_tokens: 150, audio_tokens: 2500 },
};
const USAGE_2 = {
  total_tokens: 2200,
  input_tokens: 1500,
  output_tokens: 700,
  input_token_details: { text_tokens: 500, audio_tokens: 1000, image_tokens: 0, cached_tokens: 0 },
  output_token_details: { text_tokens: 0, audio_tokens: 700 },
};
/**
 * At gpt-realtime's default prices (USD per 1M: text in 4, cached 0.4, out 16; audio in 32, cached 0.4, out 64):
 * text in 1500−200 = 1300 × 4 = 5200; cached text 200 × 0.4 = 80; text out 150 × 16 = 2400;
 * audio in 4000−1000 = 3000 × 32 = 96000; cached audio 1000 × 0.4 = 400; audio out 3200 × 64 = 204800;
 * Σ = 308880 per million → 0.30888 USD.
 */
const COST = 0.30888;

describe("the sideband's events", () => {
  test("response.done keeps its usage; an audio delta keeps no audio; speech events keep their item", () => {
    const done = parseServerEvent(
      JSON.stringify({
        type: "response.done",
        event_id: "e1",
        response: { object: "realtime.response", id: "r1", status: "completed", output: [], usage: USAGE_2 },
      }),
    );
    expect(done).toEqual({
      type: "response.done",
      response: { id: "r1", status: "completed", output: [], usage: USAGE_2 },
    });
    // A count of the wrong type is left out, never read as a number.
    const odd = parseServerEvent(
      JSON.stringify({ type: "response.done", response: { id: "r2", usage: { total_tokens: "12", input_tokens: 3 } } }),
    );
    expect(odd).toEqual({ type: "response.done", response: { id: "r2", usage: { input_tokens: 3 } } });
    for (const type of ["response.output_audio.delta", "response.audio.delta"] as const)
      expect(parseServerEvent(JSON.stringify({ type, response_id: "r1", item_id: "a1", delta: "AAAA" }))).toEqual({
        type,
        response_id: "r1",
      });
    expect(
      parseServerEvent(JSON.stringify({ type: "input_audio_buffer.speech_stopped", item_id: "u1", audio_end_ms: 5 })),
    ).toEqual({ type: "input_audio_buffer.speech_stopped", item_id: "u1" });
    expect(parseServerEvent(JSON.stringify({ type: "input_audio_buffer.speech_started" }))).toBeNull();
  });
});

describe("the accumulator", () => {
  const at = (m: CallMeasures, clock: { t: number }) => (ms: number, e: SidebandServerEvent) => {
    clock.t += ms;
    m.onEvent(e);
  };

  test("sums every response.done's usage, any missing count as 0, and prices it exactly", () => {
    const m = new CallMeasures(() => 0);
    expect(m.usage()).toBeNull();
    expect(m.cost(DEFAULT_PRICES[0] as ModelPrice)).toBeNull();
    expect(m.onEvent({ type: "response.done", response: { id: "r1", usage: USAGE_1 } })).toBe(true);
    expect(m.onEvent({ type: "response.done", response: { id: "r2", usage: USAGE_2 } })).toBe(true);
    // A response.done without usage adds nothing.
    expect(m.onEvent({ type: "response.done", response: { id: "r3" } })).toBe(false);
    expect(m.usage()).toEqual({
      total_tokens: 8850,
      input_tokens: 5500,
      output_tokens: 3350,
      input_token_details: {
        text_tokens: 1500,
        audio_tokens: 4000,
        image_tokens: 0,
        cached_tokens: 1200,
        cached_tokens_details: { text_tokens: 200, audio_tokens: 1000, image_tokens: 0 },
      },
      output_token_details: { text_tokens: 150, audio_tokens: 3200 },
    });
    const price = DEFAULT_PRICES.find((p) => p.model === "gpt-realtime") as ModelPrice;
    expect(m.cost(price)).toBe(COST);
    expect(m.cost(null)).toBeNull();
  });

  test("one latency per caller turn: stop → first audio of the response that follows, else its transcript", () => {
    const clock = { t: 1_000_000 };
    const m = new CallMeasures(() => clock.t);
    const step = at(m, clock);
    // A response already under way when the caller stops is not the answer: its audio does not end the turn.
    step(0, { type: "response.created", response: { id: "old" } });
    step(0, { type: "input_audio_buffer.speech_stopped", item_id: "u1" });
    step(50, { type: "response.output_audio.delta", response_id: "old" });
    step(0, { type: "response.created", response: { id: "r1" } });
    step(100, { type: "response.output_audio_transcript.delta", response_id: "r1" });
    step(150, { type: "response.output_audio.delta", response_id: "r1" }); // audio at +300 wins over text at +150
    step(40, { type: "response.output_audio.delta", response_id: "r1" });
    step(10, { type: "response.done", response: { id: "r1" } });
    // Text only (no audio event): the transcript's first delta.
    step(0, { type: "input_audio_buffer.speech_stopped", item_id: "u2" });
    step(900, { type: "response.output_text.delta", response_id: "r2" });
    step(0, { type: "response.done", response: { id: "r2" } });
    // The caller speaks again before any answer: timed from the later stop, one turn.
    step(0, { type: "input_audio_buffer.speech_stopped", item_id: "u3" });
    step(500, { type: "input_audio_buffer.speech_started", item_id: "u4" });
    step(700, { type: "input_audio_buffer.speech_stopped", item_id: "u4" });
    step(200, { type: "output_audio_buffer.started", response_id: "r3" });
    // A stop nothing answered is no turn.
    step(0, { type: "input_audio_buffer.speech_stopped", item_id: "u5" });
    m.finish();
    const l = m.latency();
    expect(l.turns.map((t) => t.ms)).toEqual([300, 900, 200]);
    expect(l.turns[0]?.at).toBe(new Date(1_000_000).toISOString());
    // Nearest rank over [200, 300, 900]: p50 the 2nd, p95 the 3rd.
    expect([l.p50Ms, l.p95Ms]).toEqual([300, 900]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

const secret = generateWebhookSecret();
const fake = await startFakeOpenAi();
let s: TestServer;
const published: WsEvent[] = [];
/** The sessions' clock, moved by the tests (the webhook's own clock stays the real one). */
const clock = { t: Date.now() };

beforeAll(async () => {
  s = await startAiServer(fake, secret, published);
  s.app.aiCalls.logger = () => {};
  s.app.aiCalls.deps.now = () => clock.t;
});
afterAll(async () => {
  await s.stop();
  await fake.stop();
});
beforeEach(async () => {
  for (const t of ["ai_call_logs", "call_transcripts", "ai_assistants", "ai_prices", "audit_log"])
    s.db.$client.run(`DELETE FROM ${t}`);
  clock.t = Date.now();
  published.length = 0;
  const res = await s.call("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd. Be brief.",
    extensionId: "2000",
    status: "active",
  });
  expect(res.status).toBe(201);
});
afterEach(async () => {
  await until(() => s.app.aiCalls.counts().sessions === 0 && fake.openSidebands() === 0);
  expect(s.app.aiCalls.counts()).toEqual({ sessions: 0, sockets: 0, timers: 0 });
});

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

async function callIn() {
  const d = buildSignedIncomingCall(secret, { to: "<sip:2000@sip.api.openai.com;transport=tls>" });
  const callId = d.event.data.call_id;
  const sb = fake.sideband(callId);
  const res = await s.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });
  expect(res.json.outcome).toBe("accept");
  await until(() => sb.open && sb.received.some((e) => e.type === "session.update"));
  const session = s.app.aiCalls.get(callId);
  if (!session) throw new Error("no session");
  return { callId, sb, session };
}

type Call = Awaited<ReturnType<typeof callIn>>;

/** One caller turn: the caller stops, `ms` later the response's first output (audio or only transcript). */
async function turn(c: Call, n: number, ms: number, output: "audio" | "transcript", usage: object) {
  c.sb.sendEvent(speechEvent("stopped", `u${n}`, n * 1000));
  await until(() => c.session.measures.waiting);
  clock.t += ms;
  c.sb.sendEvent(responseCreatedEvent(`r${n}`));
  c.sb.sendEvent(
    output === "audio" ? audioDeltaEvent(`r${n}`, `a${n}`) : transcriptDeltaEvent(`r${n}`, `a${n}`, "Sure"),
  );
  c.sb.sendEvent(responseDoneEvent(`r${n}`, usage));
  await until(() => !c.session.measures.waiting && c.session.measures.latency().turns.length === n);
}

const row = (callId: string) =>
  s.db.$client.query("SELECT * FROM ai_call_logs WHERE call_id = ?").get(callId) as Record<string, unknown>;

describe("a call's measures", () => {
  test("the cost is exact from the scripted usage, latency p50/p95 from the scripted times, stored at the end", async () => {
    const c = await callIn();
    await turn(c, 1, 420, "audio", USAGE_1);
    await turn(c, 2, 800, "transcript", USAGE_2);
    await turn(c, 3, 300, "audio", { total_tokens: 0, input_tokens: 0, output_tokens: 0 });

    // Live: the detail shows the measures so far.
    const live = await s.call("GET", `/api/ai/calls/${c.callId}`);
    expect(live.status).toBe(200);
    expect(live.json).toMatchObject({ live: true, costUsd: COST, end: null, endedAt: null });
    expect(live.json.latency.turns.map((t: { ms: number }) => t.ms)).toEqual([420, 800, 300]);

    published.length = 0;
    c.sb.hangup();
    await until(() => row(c.callId).end_reason !== null);
    const stored = row(c.callId);
    expect(stored.cost_usd).toBe(COST);
    expect(JSON.parse(String(stored.latency_turns)).map((t: { ms: number }) => t.ms)).toEqual([420, 800, 300]);
    expect(published).toContainEqual({
      type: "ai-calls-updated",
      data: { id: stored.id, action: "updated", outcome: "accept" },
    });

    const detail = await s.call("GET", `/api/ai/calls/${c.callId}`);
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({
      callId: c.callId,
      outcome: "accept",
      assistantName: "Front desk",
      live: false,
      end: "completed",
      costUsd: COST,
      usage: {
        total_tokens: 8850,
        input_tokens: 5500,
        output_tokens: 3350,
        input_token_details: { text_tokens: 1500, audio_tokens: 4000, cached_tokens: 1200 },
        output_token_details: { text_tokens: 150, audio_tokens: 3200 },
      },
      price: DEFAULT_PRICES.find((p) => p.model === "gpt-realtime"),
      // Nearest rank over [300, 420, 800].
      latency: { p50Ms: 420, p95Ms: 800, turns: [{ ms: 420 }, { ms: 800 }, { ms: 300 }] },
      analysis: null,
      analysisError: null,
      transcriptId: null,
    });
    expect(Date.parse(detail.json.endedAt)).toBe(clock.t);
  });

  test("a model without a price has usage but no cost", async () => {
    s.db.$client.run("UPDATE ai_assistants SET model = 'gpt-realtime-future'");
    const c = await callIn();
    c.sb.sendEvent(responseDoneEvent("r1", USAGE_2));
    await until(() => c.session.measures.usage() !== null);
    c.sb.hangup();
    await until(() => row(c.callId).end_reason !== null);
    const detail = (await s.call("GET", `/api/ai/calls/${c.callId}`)).json;
    expect(detail).toMatchObject({ costUsd: null, price: null, usage: { total_tokens: 2200 } });
  });

  test("the detail route: a bad id is 400, an unknown one 404", async () => {
    const bad = await s.call("GET", "/api/ai/calls/not%20an%20id!");
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields).toHaveProperty("callId");
    expect((await s.call("GET", "/api/ai/calls/rtc_unknown")).status).toBe(404);
    // The live list is not read as a call id.
    expect((await s.call("GET", "/api/ai/calls/live")).json).toEqual([]);
  });
});

describe("the price table", () => {
  const table = (over: Partial<ModelPrice> = {}) => ({
    items: [
      {
        model: "gpt-realtime",
        inputText: 2.5,
        cachedInputText: 0.25,
        outputText: 10,
        inputAudio: 40,
        cachedInputAudio: 2.5,
        outputAudio: 80,
        ...over,
      },
    ],
  });

  test("the defaults until one is saved; a saved table replaces them, is audited and announced", async () => {
    expect((await s.call("GET", "/api/ai/prices")).json).toEqual({ items: DEFAULT_PRICES, updatedAt: null });
    const saved = await s.call("PUT", "/api/ai/prices", table());
    expect(saved.status).toBe(200);
    expect(saved.json.items).toEqual(table().items);
    expect(Date.parse(saved.json.updatedAt)).toBeGreaterThan(0);
    expect((await s.call("GET", "/api/ai/prices")).json).toEqual(saved.json);
    expect(published).toContainEqual({ type: "ai-prices-updated", data: { models: 1 } });
    const audit = () => s.db.$client.query("SELECT action, outcome FROM audit_log").all();
    await until(() => audit().length > 0);
    expect(audit()).toContainEqual({ action: "ai.prices.update", outcome: "ok" });

    // Costed at the saved price: 500 text in × 2.5 + 1000 audio in × 40 + 700 audio out × 80 = 97250 per million.
    const c = await callIn();
    c.sb.sendEvent(responseDoneEvent("r1", USAGE_2));
    await until(() => c.session.measures.usage() !== null);
    c.sb.hangup();
    await until(() => row(c.callId).end_reason !== null);
    expect(row(c.callId).cost_usd).toBe(0.09725);
  });

  test("negative, missing and duplicate prices are refused with field paths, and nothing changes", async () => {
    const negative = await s.refused(
      "ai_prices",
      () => s.call("PUT", "/api/ai/prices", table({ outputAudio: -1 })),
      400,
    );
    expect(negative.fields).toEqual({ "items.0.outputAudio": "Audio output must not be negative" });
    const { cachedInputText: _gone, ...missing } = table().items[0] as ModelPrice;
    const absent = await s.refused("ai_prices", () => s.call("PUT", "/api/ai/prices", { items: [missing] }), 400);
    expect(absent.fields).toEqual({ "items.0.cachedInputText": "Cached text input is required" });
    const twice = { items: [...table().items, ...table({ inputText: 3 }).items] };
    const dup = await s.refused("ai_prices", () => s.call("PUT", "/api/ai/prices", twice), 400);
    expect(dup.fields).toEqual({ "items.1.model": "Model is listed twice" });
    expect((await s.call("GET", "/api/ai/prices")).json.updatedAt).toBeNull();
  });
});

describe("an assistant's stats", () => {
  test("per UTC day: calls, cost, p50/p95 over the day's turns, verdicts; totals and spent today", async () => {
    const a = (await s.call("GET", "/api/ai/assistants")).json[0] as { id: number };
    const now = Date.now();
    const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate());
    const insert = (at: number, cost: number | null, ms: number[], success: boolean | null) =>
      s.db.$client.run(
        `INSERT INTO ai_call_logs (call_id, assistant_id, outcome, events, latency_turns, cost_usd, analysis, created_at)
         VALUES (?, ?, 'accept', '[]', ?, ?, ?, ?)`,
        [
          `rtc_${at}_${Math.random()}`,
          a.id,
          JSON.stringify(ms.map((m) => ({ at: new Date(at).toISOString(), ms: m }))),
          cost,
          success === null
            ? null
            : JSON.stringify({ summary: "", success, reason: "", fields: {}, model: "m", at: "" }),
          at,
        ],
      );
    insert(today - 86_400_000 + 1000, 0.1, [100, 300], true);
    insert(today - 86_400_000 + 2000, 0.2, [200], false);
    insert(today + 1000, 0.05, [400, 500, 600], null);
    // Out of the window (40 days ago) and another outcome: not counted.
    insert(today - 40 * 86_400_000, 9, [1], true);
    s.db.$client.run(
      "INSERT INTO ai_call_logs (call_id, assistant_id, outcome, events, created_at) VALUES ('rtc_rej', ?, 'reject', '[]', ?)",
      [a.id, today + 2000],
    );
    const res = await s.call("GET", `/api/ai/assistants/${a.id}/stats?days=30`);
    expect(res.status).toBe(200);
    const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
    expect(res.json).toEqual({
      assistantId: a.id,
      days: [
        { day: iso(today - 86_400_000), calls: 2, costUsd: 0.3, p50Ms: 200, p95Ms: 300, succeeded: 1, judged: 2 },
        { day: iso(today), calls: 1, costUsd: 0.05, p50Ms: 500, p95Ms: 600, succeeded: 0, judged: 0 },
      ],
      totals: { calls: 3, costUsd: 0.35, p50Ms: 300, p95Ms: 600, succeeded: 1, judged: 2 },
      spentTodayUsd: 0.05,
    });
    expect((await s.call("GET", `/api/ai/assistants/${a.id}/stats?days=0`)).status).toBe(400);
    expect((await s.call("GET", "/api/ai/assistants/999999/stats")).status).toBe(404);
  });
});
