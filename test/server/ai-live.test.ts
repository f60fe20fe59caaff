// The Live AI Calls view's server side (ADR 0044), against the fake OpenAI: the live list
// follows a call opened on the fake sideband and its turns, `ai-live-updated` says when it changed, an
// operator's take-over refers to sip:<ext>@<host> (unknown extension 400, ended call 404, a refused refer an
// error status recorded on the call), the hang-up, the roles, and the audit trail.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { DEFAULT_CLASSIFY_LIMITS } from "../../src/server/ai/classify";
import type { LiveAiCall } from "../../src/shared/ai/live";
import type { WsEvent } from "../../src/shared/ws-events";
import { buildSignedIncomingCall, generateWebhookSecret, startFakeOpenAi } from "../fakes/openai";
import { startAiServer } from "../helpers/ai-server";
import type { TestServer } from "../helpers/server";

const secret = generateWebhookSecret();
const fake = await startFakeOpenAi();
let s: TestServer;
const published: WsEvent[] = [];
const PASSWORD = "live password 123";
const cookies = { admin: "", operator: "", viewer: "" };

beforeAll(async () => {
  s = await startAiServer(fake, secret, published);
  cookies.admin = s.cookie;
  for (const role of ["operator", "viewer"] as const) {
    const res = await s.call("POST", "/api/users", { username: role, password: PASSWORD, role });
    expect(res.status, res.text).toBe(201);
    const keep = s.cookie;
    await s.call("POST", "/api/auth/login", { username: role, password: PASSWORD }, { cookie: "" });
    cookies[role] = s.cookie;
    s.cookie = keep;
  }
  s.app.aiCalls.logger = () => {};
});
afterAll(async () => {
  await s.stop();
  await fake.stop();
});
beforeEach(async () => {
  for (const t of ["ai_call_logs", "ai_messages", "call_transcripts", "ai_assistants", "extensions", "audit_log"])
    s.db.$client.run(`DELETE FROM ${t}`);
  fake.calls.length = 0;
  fake.state.failNext = null;
  await s.call("PUT", "/api/settings/sip", { publicHost: "pbx.example.org", port: 5060 });
  await s.call("POST", "/api/extensions", { extension: "1001", name: "Sales" });
  await s.call("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd. Be brief.",
    voice: "marin",
    extensionId: "2000",
    tools: ["transfer_call", "end_call", "take_message"],
    status: "active",
  });
  published.length = 0;
});
afterEach(async () => {
  // No call leaves an open socket or timer behind.
  await until(() => s.app.aiCalls.counts().sessions === 0 && fake.openSidebands() === 0);
  expect(s.app.aiCalls.counts()).toEqual({ sessions: 0, sockets: 0, timers: 0 });
});

/** Polls a condition the system under test will make true (never a fixed sleep as the assertion). */
async function until(cond: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

async function callIn() {
  const d = buildSignedIncomingCall(secret, {
    to: "<sip:2000@sip.api.openai.com;transport=tls>",
    from: '"Jane Doe" <sip:+15555550123@pbx.example.com>;tag=1',
  });
  const callId = d.event.data.call_id;
  const sb = fake.sideband(callId);
  const res = await s.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });
  expect(res.json.outcome).toBe("accept");
  await until(() => sb.open && sb.received.some((e) => e.type === "session.update"));
  return { callId, sb };
}

const live = async (role: keyof typeof cookies = "viewer") =>
  (await s.call("GET", "/api/ai/calls/live", undefined, { cookie: cookies[role] })).json as LiveAiCall[];
const liveEvents = () => published.filter((e) => e.type === "ai-live-updated").length;
const controls = (callId: string) => fake.state.realtimeCalls[callId]?.history ?? [];
const callLog = (callId: string) =>
  JSON.parse(
    (s.db.$client.query("SELECT events FROM ai_call_logs WHERE call_id = ?").get(callId) as { events: string }).events,
  ).join("\n") as string;
const audit = () =>
  s.db.$client.query("SELECT actor, action, outcome, object_id, detail FROM audit_log ORDER BY id").all() as {
    actor: string;
    action: string;
    outcome: string;
    object_id: string | null;
    detail: string | null;
  }[];
const as = (role: keyof typeof cookies, path: string, body: unknown = {}) =>
  s.call("POST", path, body, { cookie: cookies[role] });

describe("the live list", () => {
  test("shows a call opened on the sideband, its turns in conversation order, and announces each change", async () => {
    expect(await live()).toEqual([]);
    const { callId, sb } = await callIn();
    await until(() => liveEvents() > 0);
    const [call] = await live();
    expect(call).toMatchObject({
      callId,
      callerNumber: "+15555550123",
      callerName: "Jane Doe",
      assistantName: "Front desk",
      connected: true,
      turns: [],
      classification: null,
    });
    expect(Date.parse(call?.startedAt ?? "")).toBeGreaterThan(0);

    published.length = 0;
    sb.send({ type: "input_audio_buffer.committed", item_id: "u1" });
    sb.send({
      type: "response.output_audio_transcript.done",
      item_id: "a1",
      transcript: "Example Ltd, how can I help?",
    });
    sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: "Hello" });
    await until(async () => (await live())[0]?.turns.length === 2);
    expect((await live())[0]?.turns).toEqual([
      { speaker: "caller", text: "Hello" },
      { speaker: "assistant", text: "Example Ltd, how can I help?" },
    ]);
    // The browser refetches on the event: one came for the turns, without polling.
    await until(() => liveEvents() > 0);

    published.length = 0;
    sb.hangup();
    await until(() => s.app.aiCalls.counts().sessions === 0);
    expect(liveEvents()).toBeGreaterThan(0);
    expect(await live()).toEqual([]);
  });

  test("shows the call's latest classification once one succeeded", async () => {
    s.app.aiCalls.classifyLimits.everyCallerTurns = 1;
    fake.state.chatFallback = {
      content: JSON.stringify({ sentiment: "negative", intent: "complaint", summary: "An unhappy caller." }),
    };
    try {
      const { sb } = await callIn();
      expect((await live())[0]?.classification).toBeNull();
      published.length = 0;
      sb.send({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: "u1",
        transcript: "This is bad",
      });
      await until(async () => (await live())[0]?.classification !== null);
      expect((await live())[0]?.classification).toEqual({
        sentiment: "negative",
        intent: "complaint",
        summary: "An unhappy caller.",
      });
      // Announced: the browser refetches without polling.
      await until(() => liveEvents() > 0);
      sb.hangup();
    } finally {
      Object.assign(s.app.aiCalls.classifyLimits, DEFAULT_CLASSIFY_LIMITS);
    }
  });
});

describe("take over", () => {
  test("transfer refers the call to sip:<extension>@<public SIP host>, audited, and the card goes", async () => {
    const { callId } = await callIn();
    const res = await as("operator", `/api/ai/calls/${callId}/transfer`, { extension: "1001" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ callId, transferredTo: "1001", targetUri: "sip:1001@pbx.example.org" });
    expect(controls(callId).map((h) => [h.action, h.body])).toEqual([
      ["accept", expect.any(Object)],
      ["refer", { target_uri: "sip:1001@pbx.example.org" }],
    ]);
    await until(async () => (await live()).length === 0);
    expect(callLog(callId)).toContain("an operator is taking the call over: transfer to 1001");
    await until(() => audit().some((a) => a.action === "ai.call.transfer"));
    expect(audit().find((a) => a.action === "ai.call.transfer")).toMatchObject({
      actor: "operator",
      outcome: "ok",
      object_id: callId,
      detail: "Transferred to 1001",
    });
  });

  test("an extension that does not exist is a 400 and no refer", async () => {
    const { callId, sb } = await callIn();
    const res = await as("operator", `/api/ai/calls/${callId}/transfer`, { extension: "4242" });
    expect(res.status).toBe(400);
    expect(res.json.error.fields.extension).toBe("Extension 4242 does not exist");
    expect(controls(callId).map((h) => h.action)).toEqual(["accept"]);
    const bad = await as("operator", `/api/ai/calls/${callId}/transfer`, { extension: "sales" });
    expect(bad.status).toBe(400);
    sb.hangup();
  });

  test("a call that has ended is a 404 for transfer and hang-up", async () => {
    const { callId, sb } = await callIn();
    sb.hangup();
    await until(() => s.app.aiCalls.counts().sessions === 0);
    const t = await as("operator", `/api/ai/calls/${callId}/transfer`, { extension: "1001" });
    expect(t.status).toBe(404);
    expect(t.json.error.message).toContain("not in progress");
    expect((await as("operator", `/api/ai/calls/${callId}/hangup`)).status).toBe(404);
    expect((await as("operator", "/api/ai/calls/rtc_nothing/hangup")).status).toBe(404);
    expect(controls(callId).map((h) => h.action)).toEqual(["accept"]);
  });

  test("a refused refer is a 502 with the reason, recorded on the call, and the call stays live", async () => {
    const { callId, sb } = await callIn();
    fake.state.failNext = {
      status: 409,
      body: { error: { message: "The call cannot be referred now", type: "invalid_request_error" } },
      path: `/v1/realtime/calls/${callId}/refer`,
    };
    const res = await as("operator", `/api/ai/calls/${callId}/transfer`, { extension: "1001" });
    expect(res.status).toBe(502);
    expect(res.json.error.message).toContain("The transfer failed");
    expect(res.json.error.message).toContain("The call cannot be referred now");
    expect(callLog(callId)).toContain("transfer to sip:1001@pbx.example.org refused");
    expect((await live()).map((c) => c.callId)).toEqual([callId]);
    await until(() => audit().some((a) => a.action === "ai.call.transfer"));
    expect(audit().find((a) => a.action === "ai.call.transfer")?.outcome).toBe("failed");
    sb.hangup();
  });

  test("without a public SIP host the take-over is a 503 that says so", async () => {
    const { callId, sb } = await callIn();
    await s.call("PUT", "/api/settings/sip", { publicHost: "", port: 5060 });
    const res = await as("operator", `/api/ai/calls/${callId}/transfer`, { extension: "1001" });
    if (s.app.config.sip.host) {
      // The environment names a host: the take-over works through it.
      expect(res.status).toBe(200);
    } else {
      expect(res.status).toBe(503);
      expect(res.json.error.message).toContain("public SIP host is not set");
      expect(controls(callId).map((h) => h.action)).toEqual(["accept"]);
      sb.hangup();
    }
  });

  test("hang-up ends the call at OpenAI, stores the outcome, audited", async () => {
    const { callId, sb } = await callIn();
    sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: "Hello" });
    await until(async () => (await live())[0]?.turns.length === 1);
    const res = await as("operator", `/api/ai/calls/${callId}/hangup`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ callId, ended: true });
    expect(controls(callId).map((h) => h.action)).toEqual(["accept", "hangup"]);
    expect(await live()).toEqual([]);
    const row = s.db.$client.query("SELECT outcome FROM call_transcripts WHERE call_id = ?").get(callId);
    expect(row).toEqual({ outcome: "ended by an operator" });
    await until(() => audit().some((a) => a.action === "ai.call.hangup"));
    expect(audit().find((a) => a.action === "ai.call.hangup")).toMatchObject({ outcome: "ok", object_id: callId });
  });

  test("a refused hang-up is a 502 and the call is still followed", async () => {
    const { callId, sb } = await callIn();
    fake.state.failNext = {
      status: 500,
      body: { error: { message: "upstream busy" } },
      path: `/v1/realtime/calls/${callId}/hangup`,
    };
    const res = await as("operator", `/api/ai/calls/${callId}/hangup`);
    expect(res.status).toBe(502);
    expect((await live()).map((c) => c.callId)).toEqual([callId]);
    expect(callLog(callId)).toContain("an operator's hang-up was refused");
    sb.hangup();
  });

  test("viewers may watch but not take over or end a call", async () => {
    const { callId, sb } = await callIn();
    expect((await live("viewer")).length).toBe(1);
    expect((await as("viewer", `/api/ai/calls/${callId}/transfer`, { extension: "1001" })).status).toBe(403);
    expect((await as("viewer", `/api/ai/calls/${callId}/hangup`)).status).toBe(403);
    expect(controls(callId).map((h) => h.action)).toEqual(["accept"]);
    await until(() => audit().filter((a) => a.action.startsWith("ai.call.")).length === 2);
    expect(
      new Set(
        audit()
          .filter((a) => a.action.startsWith("ai.call."))
          .map((a) => a.outcome),
      ),
    ).toEqual(new Set(["denied"]));
    sb.hangup();
  });
});

describe("messages", () => {
  test("a message taken on a call links to the call's transcript once the call has ended", async () => {
    // Another call's transcript is not this message's.
    const other = await callIn();
    other.sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "o1", transcript: "Hi" });
    await until(async () => (await live())[0]?.turns.length === 1);
    other.sb.hangup();
    await until(() => s.app.aiCalls.counts().sessions === 0);
    const { callId, sb } = await callIn();
    sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: "For Sam" });
    sb.send({
      type: "response.function_call_arguments.done",
      response_id: "r1",
      item_id: "i1",
      output_index: 0,
      call_id: "fc_m",
      name: "take_message",
      arguments: JSON.stringify({ recipient: "Sam", message: "Call Jane back" }),
    });
    await until(async () => (await s.call("GET", "/api/ai/messages")).json.length === 1);
    expect((await s.call("GET", "/api/ai/messages")).json[0]).toMatchObject({
      callId,
      recipient: "Sam",
      message: "Call Jane back",
      callerName: "Jane Doe",
      transcriptId: null,
    });
    sb.hangup();
    await until(() => s.app.aiCalls.counts().sessions === 0);
    const stored = s.db.$client.query("SELECT id FROM call_transcripts WHERE call_id = ?").get(callId) as {
      id: number;
    };
    expect((await s.call("GET", "/api/ai/messages")).json[0].transcriptId).toBe(stored.id);
  });
});
