// Spend and time caps of AI calls (ADR 0070), against the fake OpenAI: a call past its cost cap or time cap
// is ended politely (the assistant told as a system item and a response, then the hang-up or the refer once
// that goodbye is done), the daily cap counts today's stored costs, and a call that comes in while its
// assistant is over the daily cap is not taken (rejected 486, or referred to the cap's transfer target).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { TRANSFER_INSTRUCTIONS } from "../../src/server/ai/calls";
import { capInstruction } from "../../src/server/ai/caps";
import {
  buildSignedIncomingCall,
  type FakeSideband,
  generateWebhookSecret,
  responseDoneEvent,
  startFakeOpenAi,
} from "../fakes/openai";
import { startAiServer } from "../helpers/ai-server";
import type { TestServer } from "../helpers/server";

const secret = generateWebhookSecret();
const fake = await startFakeOpenAi();
let s: TestServer;

beforeAll(async () => {
  s = await startAiServer(fake, secret);
  s.app.aiCalls.logger = () => {};
  s.app.aiCalls.limits.goodbyeTimeoutMs = 5_000;
});
afterAll(async () => {
  await s.stop();
  await fake.stop();
});
beforeEach(async () => {
  for (const t of ["ai_call_logs", "call_transcripts", "ai_assistants", "ai_prices", "extensions"])
    s.db.$client.run(`DELETE FROM ${t}`);
  await s.call("PUT", "/api/settings/sip", { publicHost: "pbx.example.org", port: 5060 });
  await s.call("POST", "/api/extensions", { extension: "1001", name: "Sales" });
});
afterEach(async () => {
  await until(() => s.app.aiCalls.counts().sessions === 0 && fake.openSidebands() === 0);
  expect(s.app.aiCalls.counts()).toEqual({ sessions: 0, sockets: 0, timers: 0 });
});

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

async function assistant(caps: Record<string, unknown>): Promise<number> {
  const res = await s.call("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd. Be brief.",
    extensionId: "2000",
    status: "active",
    ...caps,
  });
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}

async function deliver() {
  const d = buildSignedIncomingCall(secret, {
    to: "<sip:2000@sip.api.openai.com;transport=tls>",
    from: '"Jane Doe" <sip:+15555550123@pbx.example.com>;tag=1',
  });
  const callId = d.event.data.call_id;
  const sb = fake.sideband(callId);
  const res = await s.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });
  return { callId, sb, res };
}

async function callIn() {
  const c = await deliver();
  expect(c.res.json.outcome).toBe("accept");
  await until(() => c.sb.open && c.sb.received.some((e) => e.type === "session.update"));
  return c;
}

/** 100 000 audio output tokens: 6.4 USD at gpt-realtime's default 64 USD per million. */
const EXPENSIVE = {
  total_tokens: 100_000,
  input_tokens: 0,
  output_tokens: 100_000,
  output_token_details: { text_tokens: 0, audio_tokens: 100_000 },
};

const controls = (callId: string) => fake.state.realtimeCalls[callId]?.history ?? [];
const logRow = (callId: string) =>
  s.db.$client.query("SELECT * FROM ai_call_logs WHERE call_id = ?").get(callId) as {
    end_reason: string | null;
    events: string;
    detail: string;
    cost_usd: number | null;
  };

/** The cap's goodbye was asked for: the system item with the instruction, then a response.create. */
function goodbyeAsked(sb: FakeSideband, transfer: boolean): boolean {
  const i = sb.received.findIndex(
    (e) =>
      e.type === "conversation.item.create" &&
      JSON.stringify(e.item) ===
        JSON.stringify({
          type: "message",
          role: "system",
          content: [{ type: "input_text", text: capInstruction(transfer) }],
        }),
  );
  return i >= 0 && sb.received[i + 1]?.type === "response.create" && sb.lastResponseId !== null;
}

/** The goodbye response finishes: the cap's action follows. */
const goodbyeSaid = (sb: FakeSideband) => sb.sendEvent(responseDoneEvent(sb.lastResponseId as string, {}));

describe("caps during a call", () => {
  test("the cost cap: the assistant says goodbye, then the call is hung up; end reason cap-reached", async () => {
    await assistant({ callCostCapUsd: 1 });
    const { callId, sb } = await callIn();
    sb.sendEvent(responseDoneEvent("resp_1", EXPENSIVE));
    await until(() => goodbyeAsked(sb, false));
    // Not hung up before the goodbye is done.
    expect(controls(callId).map((h) => h.action)).toEqual(["accept"]);
    goodbyeSaid(sb);
    await until(() => controls(callId).some((h) => h.action === "hangup"));
    await until(() => logRow(callId).end_reason !== null);
    const row = logRow(callId);
    expect(row.end_reason).toBe("cap-reached");
    expect(row.cost_usd).toBe(6.4);
    expect(JSON.parse(row.events).join("\n")).toContain("cap reached: the cost cap of 1 USD per call (6.4 USD so far)");
  });

  test("capAction transfer: after the goodbye the call is referred to capTransferTo on the PBX host", async () => {
    await assistant({ callCostCapUsd: 1, capAction: "transfer", capTransferTo: "1001" });
    const { callId, sb } = await callIn();
    sb.sendEvent(responseDoneEvent("resp_1", EXPENSIVE));
    await until(() => goodbyeAsked(sb, true));
    goodbyeSaid(sb);
    await until(() => controls(callId).some((h) => h.action === "refer"));
    expect(fake.state.realtimeCalls[callId]?.referTargetUri).toBe("sip:1001@pbx.example.org");
    await until(() => logRow(callId).end_reason !== null);
    expect(logRow(callId).end_reason).toBe("cap-reached");
  });

  test("the time cap (the smaller of it and the longest call) ends the call politely", async () => {
    await assistant({});
    // The API's least time cap is 30 s; the stored row is set lower so the test does not wait that long.
    s.db.$client.run("UPDATE ai_assistants SET call_seconds_cap = 1");
    const { callId, sb } = await callIn();
    await until(() => goodbyeAsked(sb, false), 4000);
    goodbyeSaid(sb);
    await until(() => controls(callId).some((h) => h.action === "hangup"));
    await until(() => logRow(callId).end_reason !== null);
    expect(logRow(callId).end_reason).toBe("cap-reached");
    expect(JSON.parse(logRow(callId).events).join("\n")).toContain("the time cap of 1 s");
  });

  test("the daily cap counts today's stored costs with the call's own", async () => {
    const id = await assistant({ dailySpendCapUsd: 10 });
    s.db.$client.run(
      "INSERT INTO ai_call_logs (call_id, assistant_id, outcome, events, cost_usd, created_at) VALUES ('rtc_earlier', ?, 'accept', '[]', 4, ?)",
      [id, Date.now()],
    );
    const { callId, sb } = await callIn();
    sb.sendEvent(responseDoneEvent("resp_1", EXPENSIVE)); // 4 + 6.4 ≥ 10
    await until(() => goodbyeAsked(sb, false));
    expect(JSON.parse(logRow(callId).events).join("\n")).toContain("the daily spend cap of 10 USD (10.4 USD today)");
    goodbyeSaid(sb);
    await until(() => controls(callId).some((h) => h.action === "hangup"));
  });

  test("under the caps nothing happens", async () => {
    await assistant({ callCostCapUsd: 10, dailySpendCapUsd: 10 });
    const { callId, sb } = await callIn();
    sb.sendEvent(responseDoneEvent("resp_1", EXPENSIVE));
    await until(() => s.app.aiCalls.get(callId)?.runningCost === 6.4);
    expect(sb.received.filter((e) => e.type === "response.create")).toEqual([]);
    sb.hangup();
    await until(() => logRow(callId).end_reason !== null);
    expect(logRow(callId).end_reason).toBe("completed");
  });
});

describe("the daily cap at the webhook", () => {
  const spent = (id: number, usd: number) =>
    s.db.$client.run(
      "INSERT INTO ai_call_logs (call_id, assistant_id, outcome, events, cost_usd, created_at) VALUES (?, ?, 'accept', '[]', ?, ?)",
      [`rtc_spent_${Math.random()}`, id, usd, Date.now()],
    );

  test("an assistant over its daily cap does not take the call: rejected with SIP 486, and the log says why", async () => {
    spent(await assistant({ dailySpendCapUsd: 5 }), 5);
    const { callId, res } = await deliver();
    expect(res.json.outcome).toBe("reject");
    expect(fake.state.realtimeCalls[callId]?.rejectStatusCode).toBe(486);
    expect(logRow(callId).detail).toContain("assistant 'Front desk' (#");
    expect(logRow(callId).detail).toMatch(/over its daily spend cap \(5 USD of 5 USD today\): rejected with SIP 486$/);
    expect(s.app.aiCalls.get(callId)).toBeUndefined();
  });

  test("with capAction transfer it is referred to capTransferTo, answered by the short transfer session", async () => {
    spent(await assistant({ dailySpendCapUsd: 5, capAction: "transfer", capTransferTo: "1001" }), 6);
    const { callId, res } = await deliver();
    expect(res.json.outcome).toBe("refer");
    const rec = fake.state.realtimeCalls[callId];
    expect(rec?.referTargetUri).toBe("sip:1001@pbx.example.com");
    expect(rec?.session).toMatchObject({ instructions: TRANSFER_INSTRUCTIONS });
    expect(logRow(callId).detail).toContain("referred to sip:1001@pbx.example.com");
  });

  test("yesterday's costs do not count", async () => {
    const id = await assistant({ dailySpendCapUsd: 5 });
    s.db.$client.run(
      "INSERT INTO ai_call_logs (call_id, assistant_id, outcome, events, cost_usd, created_at) VALUES ('rtc_old', ?, 'accept', '[]', 50, ?)",
      [id, Date.now() - 2 * 86_400_000],
    );
    const { sb } = await callIn();
    sb.hangup();
  });
});
