// Accepted AI calls followed over their sideband WebSocket (ADR 0042), against the fake
// OpenAI: tools run (refer, hangup after the goodbye, stored messages), every tool answered to the model,
// transcripts stored in order at call end, the open deadline, one reconnect, OpenAI errors without secrets,
// and no socket or timer left behind after any test.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { WsEvent } from "../../src/shared/ws-events";
import { buildSignedIncomingCall, generateWebhookSecret, OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { startAiServer } from "../helpers/ai-server";
import { startTestServer, type TestServer } from "../helpers/server";

const secret = generateWebhookSecret();
const fake = await startFakeOpenAi();
let s: TestServer;
const published: WsEvent[] = [];
const logged: string[] = [];

beforeAll(async () => {
  s = await startAiServer(fake, secret, published);
  s.app.aiCalls.logger = (line) => logged.push(line);
  s.app.aiCalls.limits.openTimeoutMs = 300;
  s.app.aiCalls.limits.goodbyeTimeoutMs = 5_000;
});
afterAll(async () => {
  await s.stop();
  await fake.stop();
});
beforeEach(async () => {
  for (const t of ["ai_call_logs", "ai_messages", "call_transcripts", "ai_assistants", "extensions"])
    s.db.$client.run(`DELETE FROM ${t}`);
  fake.calls.length = 0;
  fake.state.failNext = null;
  published.length = 0;
  logged.length = 0;
  await s.call("PUT", "/api/settings/sip", { publicHost: "pbx.example.org", port: 5060 });
  await s.call("POST", "/api/extensions", { extension: "1001", name: "Sales" });
  await s.call("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd. Be brief.",
    voice: "marin",
    extensionId: "2000",
    ivrId: "7000",
    tools: ["transfer_call", "end_call", "take_message"],
    status: "active",
  });
});
afterEach(async () => {
  // No call leaves an open socket or timer behind.
  await until(() => s.app.aiCalls.counts().sessions === 0 && fake.openSidebands() === 0);
  expect(s.app.aiCalls.counts()).toEqual({ sessions: 0, sockets: 0, timers: 0 });
});

/** Polls a condition the system under test will make true (never a fixed sleep as the assertion). */
async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

/** A second console's assistant on extension 2000 (the tests that start their own console). */
async function addNightAssistant(t: TestServer): Promise<void> {
  const res = await t.call("POST", "/api/ai/assistants", {
    name: "Night",
    model: "gpt-realtime",
    systemPrompt: "You answer calls at night. Be brief.",
    extensionId: "2000",
    status: "active",
  });
  expect(res.status).toBe(201);
}

/** An incoming call for the assistant's number, delivered as OpenAI does; resolves once the sideband is open. */
async function callIn(opts: { waitOpen?: boolean } = {}) {
  const d = buildSignedIncomingCall(secret, {
    to: "<sip:2000@sip.api.openai.com;transport=tls>",
    from: '"Jane Doe" <sip:+15555550123@pbx.example.com>;tag=1',
  });
  const callId = d.event.data.call_id;
  const sb = fake.sideband(callId);
  const res = await s.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });
  expect(res.json.outcome).toBe("accept");
  if (opts.waitOpen !== false) await until(() => sb.open && sb.received.some((e) => e.type === "session.update"));
  return { callId, sb };
}

const controls = (callId: string) => fake.state.realtimeCalls[callId]?.history ?? [];
const outputsOf = (sb: ReturnType<typeof fake.sideband>) =>
  sb.received.filter((e) => e.type === "conversation.item.create").map((e) => e.item as Record<string, unknown>);
const answered = (sb: ReturnType<typeof fake.sideband>, toolCallId: string) =>
  outputsOf(sb).some((i) => i.call_id === toolCallId) &&
  sb.received.findIndex((e) => e.type === "response.create") >
    sb.received.findIndex((e) => (e.item as { call_id?: string } | undefined)?.call_id === toolCallId);
const outputFor = (sb: ReturnType<typeof fake.sideband>, toolCallId: string) =>
  JSON.parse(String(outputsOf(sb).find((i) => i.call_id === toolCallId)?.output));
const toolCall = (callId: string, name: string, args: string) => ({
  type: "response.function_call_arguments.done",
  response_id: "resp_model",
  item_id: `item_${callId}`,
  output_index: 0,
  call_id: callId,
  name,
  arguments: args,
});
const transcripts = () => s.db.$client.query("SELECT * FROM call_transcripts ORDER BY id").all() as any[];
const callLog = (callId: string) =>
  s.db.$client.query("SELECT * FROM ai_call_logs WHERE call_id = ?").get(callId) as { events: string };

describe("the sideband", () => {
  test("opens after accept at /v1/realtime?call_id= with the bearer key and turns input transcription on", async () => {
    const { callId, sb } = await callIn();
    const upgrade = fake.calls.find((c) => c.path === "/v1/realtime");
    expect(upgrade?.query).toEqual({ call_id: callId });
    expect(upgrade?.headers.authorization).toBe(`Bearer ${OPENAI_DEFAULT_KEY}`);
    expect(sb.received[0]).toEqual({
      type: "session.update",
      session: { type: "realtime", audio: { input: { transcription: { model: "gpt-4o-transcribe" } } } },
    });
    sb.hangup();
  });

  test("the fake checks the bearer key: a sideband without it is refused", async () => {
    const { callId, sb } = await callIn();
    const ws = new WebSocket(`${fake.url.replace(/^http/, "ws")}/v1/realtime?call_id=${callId}`);
    const outcome = await new Promise<string>((resolve) => {
      ws.onopen = () => resolve("open");
      ws.onerror = () => resolve("refused");
    });
    ws.close();
    expect(outcome).toBe("refused");
    expect(fake.calls.filter((c) => c.path === "/v1/realtime").map((c) => c.headers.authorization ?? null)).toEqual([
      `Bearer ${OPENAI_DEFAULT_KEY}`,
      null,
    ]);
    sb.hangup();
  });

  test("a sideband that never opens is given up at the deadline and recorded on the call", async () => {
    const d = buildSignedIncomingCall(secret, { to: "<sip:2000@sip.api.openai.com;transport=tls>" });
    fake.sideband(d.event.data.call_id).mode = "hold";
    await s.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });
    await until(() => s.app.aiCalls.counts().sessions === 0);
    expect(JSON.parse(callLog(d.event.data.call_id).events).join("\n")).toContain(
      "sideband did not open: did not open within 300 ms",
    );
    expect(logged.join("\n")).toContain(`ai-call ${d.event.data.call_id} sideband did not open`);
    expect(transcripts()).toEqual([]);
  });
});

describe("tools", () => {
  test("transfer_call refers the call to sip:<extension>@<public SIP host>, answers the model, outcome stored", async () => {
    const { callId, sb } = await callIn();
    sb.send({
      type: "conversation.item.input_audio_transcription.completed",
      item_id: "u1",
      content_index: 0,
      transcript: "Sales please",
    });
    sb.send(toolCall("fc_1", "transfer_call", '{"extension":"1001"}'));
    await until(() => answered(sb, "fc_1"));
    expect(controls(callId).map((h) => [h.action, h.body])).toEqual([
      ["accept", expect.any(Object)],
      ["refer", { target_uri: "sip:1001@pbx.example.org" }],
    ]);
    expect(outputFor(sb, "fc_1")).toEqual({ ok: true, transferred_to: "1001" });
    // The call leaves OpenAI: the fake closes the sideband; the transcript is stored with the outcome.
    await until(() => transcripts().length === 1);
    expect(transcripts()[0]).toMatchObject({
      outcome: "transferred to 1001",
      partial: 0,
      phone_number: "+15555550123",
    });
  });

  test("the assistant's IVR number is a transfer target too", async () => {
    const { callId, sb } = await callIn();
    sb.send(toolCall("fc_ivr", "transfer_call", '{"extension":"7000"}'));
    await until(() => answered(sb, "fc_ivr"));
    expect(fake.state.realtimeCalls[callId]?.referTargetUri).toBe("sip:7000@pbx.example.org");
  });

  test("an unknown extension is an error output and a response.create, and no refer", async () => {
    const { callId, sb } = await callIn();
    sb.send(toolCall("fc_2", "transfer_call", '{"extension":"4242"}'));
    await until(() => answered(sb, "fc_2"));
    expect(outputFor(sb, "fc_2")).toEqual({ ok: false, error: "Extension 4242 does not exist" });
    expect(controls(callId).map((h) => h.action)).toEqual(["accept"]);
    sb.hangup();
  });

  test("malformed JSON arguments are an error output the model can recover from", async () => {
    const { sb } = await callIn();
    sb.send(toolCall("fc_3", "transfer_call", '{"extension":'));
    await until(() => answered(sb, "fc_3"));
    expect(outputFor(sb, "fc_3")).toEqual({
      ok: false,
      error: "The arguments were not a JSON object; call the tool again",
    });
    sb.hangup();
  });

  test("a refer the carrier refuses is an error output, logged and recorded on the call without the key", async () => {
    const { callId, sb } = await callIn();
    fake.state.failNext = {
      status: 403,
      path: `/v1/realtime/calls/${callId}/refer`,
      body: {
        error: {
          message: `SIP 403 Forbidden from the carrier (key ${OPENAI_DEFAULT_KEY})`,
          type: "invalid_request_error",
        },
      },
    };
    sb.send(toolCall("fc_4", "transfer_call", '{"extension":"1001"}'));
    await until(() => answered(sb, "fc_4"));
    const out = outputFor(sb, "fc_4");
    expect(out.ok).toBe(false);
    expect(out.error).toContain("The transfer failed");
    const events = JSON.parse(callLog(callId).events).join("\n");
    expect(events).toContain("transfer to sip:1001@pbx.example.org refused");
    expect(logged.join("\n")).toContain("refused");
    for (const text of [JSON.stringify(out), events, logged.join("\n")]) expect(text).not.toContain(OPENAI_DEFAULT_KEY);
    sb.hangup();
  });

  test("end_call hangs up only after the goodbye's response.done", async () => {
    const { callId, sb } = await callIn();
    sb.send(toolCall("fc_5", "end_call", "{}"));
    await until(() => answered(sb, "fc_5") && sb.lastResponseId !== null);
    const goodbye = sb.lastResponseId as string;
    sb.send({
      type: "response.output_audio_transcript.done",
      response_id: goodbye,
      item_id: "a9",
      transcript: "Goodbye!",
    });
    // The goodbye's words are in, its response is not done: no hangup yet.
    await until(() => s.app.aiCalls.get(callId)?.transcriptTurns().length === 1);
    expect(controls(callId).map((h) => h.action)).toEqual(["accept"]);
    sb.send({ type: "response.done", response: { id: goodbye, status: "completed", output: [] } });
    await until(() => controls(callId).some((h) => h.action === "hangup"));
    await until(() => transcripts().length === 1);
    expect(transcripts()[0]).toMatchObject({ outcome: "ended by assistant", transcript: "Assistant: Goodbye!" });
  });

  test("take_message stores the message with the caller and announces it", async () => {
    const { callId, sb } = await callIn();
    sb.send(
      toolCall(
        "fc_6",
        "take_message",
        JSON.stringify({
          recipient: "Bob in sales",
          message: "Call me about the order",
          callback_number: "+15555550999",
        }),
      ),
    );
    await until(() => answered(sb, "fc_6"));
    const list = (await s.call("GET", "/api/ai/messages")).json;
    expect(list).toMatchObject([
      {
        callId,
        callerNumber: "+15555550123",
        callerName: "Jane Doe",
        recipient: "Bob in sales",
        message: "Call me about the order",
        callbackNumber: "+15555550999",
      },
    ]);
    expect(published).toContainEqual({ type: "ai-messages-updated", data: { id: list[0].id, action: "created" } });
    expect(outputFor(sb, "fc_6")).toEqual({ ok: true, message_id: list[0].id });
    sb.send({
      type: "conversation.item.input_audio_transcription.completed",
      item_id: "u1",
      transcript: "Thanks, bye",
    });
    await until(() => s.app.aiCalls.get(callId)?.transcriptTurns().length === 1);
    sb.hangup();
    await until(() => transcripts().length === 1);
    expect(transcripts()[0].outcome).toBe("message taken; caller hung up");
  });

  test("the messages list has an ETag and answers 304 until a message is stored", async () => {
    const first = await s.call("GET", "/api/ai/messages");
    const etag = first.headers.get("etag") as string;
    expect(etag).toBeTruthy();
    expect((await s.call("GET", "/api/ai/messages", undefined, { "if-none-match": etag })).status).toBe(304);
    const { sb } = await callIn();
    sb.send(toolCall("fc_7", "take_message", '{"recipient":"Ann","message":"Hi"}'));
    await until(() => answered(sb, "fc_7"));
    expect((await s.call("GET", "/api/ai/messages", undefined, { "if-none-match": etag })).status).toBe(200);
    sb.hangup();
  });
});

describe("transcripts", () => {
  test("caller and assistant words are stored in conversation order when the call ends", async () => {
    const { callId, sb } = await callIn();
    sb.send({ type: "input_audio_buffer.committed", item_id: "u1", previous_item_id: null });
    sb.send({ type: "conversation.item.added", item: { id: "a1", type: "message", role: "assistant" } });
    // The assistant's words are done before the caller's transcription completes: order is the conversation's.
    sb.send({
      type: "response.output_audio_transcript.done",
      response_id: "r1",
      item_id: "a1",
      transcript: "Hello, Example Ltd.",
    });
    sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: "Hi there" });
    sb.send({
      type: "conversation.item.input_audio_transcription.completed",
      item_id: "u2",
      transcript: "Opening hours?",
    });
    sb.send({
      type: "response.output_audio_transcript.done",
      response_id: "r2",
      item_id: "a2",
      transcript: "Nine to five.",
    });
    await until(() => s.app.aiCalls.get(callId)?.transcriptTurns().length === 4);
    sb.hangup();
    await until(() => transcripts().length === 1);
    expect(transcripts()[0]).toMatchObject({
      call_id: callId,
      phone_number: "+15555550123",
      extension_id: "2000",
      direction: "inbound",
      outcome: "caller hung up",
      partial: 0,
      transcript: "Caller: Hi there\nAssistant: Hello, Example Ltd.\nCaller: Opening hours?\nAssistant: Nine to five.",
    });
    expect(typeof transcripts()[0].duration).toBe("number");
    expect(published).toContainEqual({
      type: "ai-transcripts-updated",
      data: expect.objectContaining({ action: "created" }),
    });
  });

  test("a drop mid-call reconnects once; a second drop ends the call with a partial transcript", async () => {
    const { callId, sb } = await callIn();
    sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: "Hello?" });
    await until(() => s.app.aiCalls.get(callId)?.transcriptTurns().length === 1);
    sb.drop();
    await until(() => sb.connections === 2 && sb.open);
    sb.send({
      type: "response.output_audio_transcript.done",
      response_id: "r1",
      item_id: "a1",
      transcript: "Still here.",
    });
    await until(() => s.app.aiCalls.get(callId)?.transcriptTurns().length === 2);
    sb.drop();
    await until(() => transcripts().length === 1);
    expect(sb.attempts).toBe(2);
    expect(transcripts()[0]).toMatchObject({
      partial: 1,
      outcome: "connection lost",
      transcript: "Caller: Hello?\nAssistant: Still here.",
    });
    const events = JSON.parse(callLog(callId).events).join("\n");
    expect(events).toContain("reconnecting once");
    expect(events).toContain("the transcript is partial");
  });

  test("OpenAI error events are recorded and logged without the API key", async () => {
    const { callId, sb } = await callIn();
    sb.send({
      type: "error",
      error: { type: "invalid_request_error", code: "bad_thing", message: `Something broke for ${OPENAI_DEFAULT_KEY}` },
    });
    await until(() => logged.length > 0);
    expect(logged.join("\n")).toContain("OpenAI error bad_thing: Something broke");
    const events = JSON.parse(callLog(callId).events).join("\n");
    expect(events).toContain("OpenAI error bad_thing");
    for (const text of [logged.join("\n"), events]) expect(text).not.toContain(OPENAI_DEFAULT_KEY);
    sb.hangup();
  });
});

describe("bounds", () => {
  test("a message over the size cap is dropped unread and noted; the call goes on", async () => {
    // The cap is the socket's, fixed when the sideband opens.
    s.app.aiCalls.limits.maxMessageChars = 500;
    let call: Awaited<ReturnType<typeof callIn>>;
    try {
      call = await callIn();
    } finally {
      s.app.aiCalls.limits.maxMessageChars = 2_000_000;
    }
    const { callId, sb } = call;
    sb.send({
      type: "conversation.item.input_audio_transcription.completed",
      item_id: "u1",
      transcript: "x".repeat(1000),
    });
    sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "u2", transcript: "Short" });
    await until(() => s.app.aiCalls.get(callId)?.transcriptTurns().length === 1);
    expect(s.app.aiCalls.get(callId)?.transcriptTurns()[0]?.text).toBe("Short");
    expect(JSON.parse(callLog(callId).events).join("\n")).toMatch(/a sideband message of \d+ characters was dropped/);
    sb.hangup();
  });

  test("a sideband still opening when the console stops fails later without an unhandled error", async () => {
    // Seen in CI: the open failed after the console had closed its database, and logging the failure
    // (secrets masked from the stored credentials) threw from the socket's callback: an unhandled error
    // that bun reported against the next test file, whose tests then never ran.
    const own = await startFakeOpenAi();
    const other = await startAiServer(own, secret);
    const unhandled: unknown[] = [];
    const record = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", record);
    process.on("uncaughtException", record);
    try {
      const lines: string[] = [];
      other.app.aiCalls.logger = (line) => lines.push(line);
      await addNightAssistant(other);
      const d = buildSignedIncomingCall(secret, { to: "<sip:2000@sip.api.openai.com;transport=tls>" });
      const sb = own.sideband(d.event.data.call_id);
      sb.mode = "hold";
      await other.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });
      await until(() => sb.attempts === 1);
      await other.stop(); // ends the call and closes the database while the upgrade is held
      await own.stop(); // the held upgrade fails now
      // The failure reaches the session within milliseconds; give it a second to surface if it throws.
      await until(() => unhandled.length > 0, 1000).catch(() => {});
      expect(unhandled).toEqual([]);
      expect(lines.filter((l) => l.includes("did not open"))).toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
      process.off("uncaughtException", record);
      await own.stop();
    }
  });

  test("one session per call id, and the console stopping ends every call with a partial transcript", async () => {
    const other = await startTestServer({
      PBX_OPENAI_URL: fake.baseUrl,
      OPENAI_API_KEY: OPENAI_DEFAULT_KEY,
      OPENAI_WEBHOOK_SECRET: secret,
    });
    try {
      await other.setup();
      await addNightAssistant(other);
      const d = buildSignedIncomingCall(secret, { to: "<sip:2000@sip.api.openai.com;transport=tls>" });
      const callId = d.event.data.call_id;
      const sb = fake.sideband(callId);
      await other.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });
      await until(() => sb.open);
      const assistant = other.app.aiCalls.get(callId)?.assistant;
      expect(assistant).toBeDefined();
      if (assistant)
        expect(other.app.aiCalls.start({ callId, assistant, callerNumber: null, callerName: null })).toBeNull();
      sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "u1", transcript: "Anyone?" });
      await until(() => other.app.aiCalls.get(callId)?.transcriptTurns().length === 1);
      await other.app.aiCalls.closeAll();
      expect(other.app.aiCalls.counts()).toEqual({ sessions: 0, sockets: 0, timers: 0 });
      expect(other.db.$client.query("SELECT outcome, partial, transcript FROM call_transcripts").all()).toEqual([
        { outcome: "console stopped", partial: 1, transcript: "Caller: Anyone?" },
      ]);
      await until(() => !sb.open);
    } finally {
      await other.stop();
    }
  });
});
