// Sentiment and intent of an AI call while it runs (ADR 0043), against the fake OpenAI: the
// classification request (Chat Completions, strict JSON schema), the routing rules applied mid-call on its
// answer (a negative caller is referred to the rule's extension, once), the end's classification stored on the
// transcript, failed classifications noted without changing anything, one request in flight, the budgets,
// and no socket or timer left behind.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { DEFAULT_CLASSIFY_LIMITS } from "../../src/server/ai/classify";
import { buildSignedIncomingCall, generateWebhookSecret, OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { startAiServer } from "../helpers/ai-server";
import type { TestServer } from "../helpers/server";

const secret = generateWebhookSecret();
const fake = await startFakeOpenAi();
let s: TestServer;
const logged: string[] = [];

const answer = (sentiment: string, intent: string, summary = "The caller called.") => ({
  content: JSON.stringify({ sentiment, intent, summary }),
});

beforeAll(async () => {
  s = await startAiServer(fake, secret);
  s.app.aiCalls.logger = (line) => logged.push(line);
  s.app.aiCalls.limits.openTimeoutMs = 300;
});
afterAll(async () => {
  await s.stop();
  await fake.stop();
});
beforeEach(async () => {
  for (const t of [
    "ai_call_logs",
    "ai_messages",
    "call_transcripts",
    "ai_routing_rules",
    "ai_assistants",
    "extensions",
  ])
    s.db.$client.run(`DELETE FROM ${t}`);
  Object.assign(s.app.aiCalls.classifyLimits, DEFAULT_CLASSIFY_LIMITS);
  fake.calls.length = 0;
  fake.state.failNext = null;
  fake.state.chatScripts = [];
  fake.state.chatFallback = answer("neutral", "other", "A call.");
  fake.state.chatMaxInFlight = 0;
  logged.length = 0;
  await s.call("PUT", "/api/settings/sip", { publicHost: "pbx.example.org", port: 5060 });
  for (const [extension, name] of [
    ["200", "Supervisor"],
    ["1001", "Sales"],
  ])
    await s.call("POST", "/api/extensions", { extension, name });
  await s.call("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd. Be brief.",
    voice: "marin",
    extensionId: "2000",
    tools: ["transfer_call", "end_call", "take_message"],
    status: "active",
  });
});
afterEach(async () => {
  fake.releaseChats();
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

/** The spec's default rule: sentiment negative → route_to_extension 200. */
async function rule(over: Record<string, unknown> = {}) {
  const res = await s.call("POST", "/api/ai/routing-rules", {
    name: "Unhappy callers",
    priority: 10,
    conditions: JSON.stringify({ match: "all", conditions: [{ kind: "sentiment", op: "is", value: "negative" }] }),
    action: "route_to_extension",
    actionParams: JSON.stringify({ extensionId: "200" }),
    enabled: true,
    ...over,
  });
  expect(res.status).toBe(201);
  return res.json as { id: number };
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
  const session = s.app.aiCalls.get(callId);
  if (!session) throw new Error("no session");
  return { callId, sb, session };
}

let item = 0;
/** A caller's words (input transcription) or the assistant's, and waits until the session holds them. */
async function say(
  c: Awaited<ReturnType<typeof callIn>>,
  speaker: "caller" | "assistant",
  text: string,
): Promise<void> {
  const before = c.session.transcriptTurns().length;
  const id = `item_${++item}`;
  if (speaker === "caller")
    c.sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: id, transcript: text });
  else c.sb.send({ type: "response.output_audio_transcript.done", response_id: "r", item_id: id, transcript: text });
  await until(() => c.session.transcriptTurns().length === before + 1);
}

const chats = () => fake.calls.filter((c) => c.path === "/v1/chat/completions");
interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
  response_format: { type: string; json_schema: { name: string; strict: boolean; schema: any } };
}
/** The i-th chat completion request's body. */
function chatBody(i: number): ChatBody {
  const body = chats()[i]?.body;
  if (!body) throw new Error(`no chat completion #${i}`);
  return body as ChatBody;
}
const lastMessage = (b: ChatBody) => b.messages[b.messages.length - 1]?.content;
const controls = (callId: string) => fake.state.realtimeCalls[callId]?.history ?? [];
const transcripts = () => s.db.$client.query("SELECT * FROM call_transcripts ORDER BY id").all() as any[];
const events = (callId: string) =>
  JSON.parse(
    (s.db.$client.query("SELECT events FROM ai_call_logs WHERE call_id = ?").get(callId) as { events: string }).events,
  ) as string[];
const idle = (c: Awaited<ReturnType<typeof callIn>>) => until(() => !c.session.classification.busy);

describe("classification mid-call", () => {
  test("a negative caller triggers the default sentiment rule: a refer to its extension, recorded", async () => {
    await rule();
    fake.state.chatScripts = [answer("negative", "complaint", "An angry caller."), answer("negative", "complaint")];
    const c = await callIn();
    await say(c, "caller", "My order never arrived.");
    await say(c, "assistant", "I am sorry to hear that.");
    await say(c, "caller", "This is the third time.");
    expect(chats()).toHaveLength(0);
    await say(c, "caller", "I want to speak to a person now!");
    // The third caller turn asks for a classification; its answer makes the rule refer the call.
    await until(() => controls(c.callId).some((h) => h.action === "refer"));
    expect(fake.state.realtimeCalls[c.callId]?.referTargetUri).toBe("sip:200@pbx.example.org");

    // The request: Chat Completions with a strict JSON schema and the conversation so far.
    const body = chatBody(0);
    expect(body.model).toBe("gpt-4o-mini");
    expect(body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "call_classification", strict: true },
    });
    expect(body.response_format.json_schema.schema.properties.sentiment.enum).toEqual([
      "positive",
      "neutral",
      "negative",
    ]);
    expect(lastMessage(body)).toBe(
      "Caller: My order never arrived.\nAssistant: I am sorry to hear that.\nCaller: This is the third time.\nCaller: I want to speak to a person now!",
    );

    // The refer ends the call at OpenAI; the end's classification and the decision are on the transcript.
    await until(() => transcripts().length === 1);
    const t = transcripts()[0];
    expect(t).toMatchObject({ outcome: "transferred to 200", sentiment: "negative", intent: "complaint" });
    expect(t.rule_decision).toMatch(/rule 'Unhappy callers' \(#\d+\) route_to_extension → 200: done$/);
    expect(t.rule_decision.slice(0, 4)).toMatch(/^\d{4}$/);
    expect(events(c.callId).some((e) => /rule 'Unhappy callers' .* → 200: done/.test(e))).toBe(true);
    expect(controls(c.callId).filter((h) => h.action === "refer")).toHaveLength(1);
    expect(chats()).toHaveLength(2);
  });

  test("a refused refer is recorded as a failure, and the rule acts only once per call", async () => {
    await rule();
    s.app.aiCalls.classifyLimits.everyCallerTurns = 1;
    fake.state.chatFallback = answer("negative", "complaint");
    const c = await callIn();
    fake.state.failNext = {
      path: `/v1/realtime/calls/${c.callId}/refer`,
      status: 486,
      body: { error: { message: "Busy Here", type: "invalid_request_error", param: null, code: null } },
    };
    await say(c, "caller", "This is terrible.");
    await until(() => events(c.callId).some((e) => e.includes("→ 200: failed")));
    await idle(c);
    await say(c, "caller", "Still terrible.");
    await until(() => chats().length === 2);
    await idle(c);
    c.sb.hangup();
    await until(() => transcripts().length === 1);
    // One refer was tried (refused); none after the second negative answer.
    expect(fake.calls.filter((x) => x.path.endsWith("/refer"))).toHaveLength(1);
    expect(controls(c.callId).some((h) => h.action === "refer")).toBe(false);
    const t = transcripts()[0];
    expect(t.outcome).toBe("caller hung up");
    expect(t.rule_decision).toMatch(/route_to_extension → 200: failed: The transfer failed: .*486/);
    expect(logged.join("\n")).not.toContain(OPENAI_DEFAULT_KEY);
  });

  test("hangup and route_to_ivr rules act through the call's hang-up and refer; a transfer_to_ai without a target is recorded with why", async () => {
    await rule({ name: "Bye", action: "hangup", actionParams: "{}" });
    await rule({
      name: "Sales",
      priority: 5,
      conditions: JSON.stringify({ match: "all", conditions: [{ kind: "intent", op: "is", values: ["sales"] }] }),
      action: "route_to_ivr",
      actionParams: JSON.stringify({ number: "7000" }),
    });
    await rule({
      name: "Stay",
      priority: 1,
      conditions: JSON.stringify({ match: "all", conditions: [{ kind: "intent", op: "is", values: ["hours"] }] }),
      action: "transfer_to_ai",
      actionParams: "{}",
    });
    s.app.aiCalls.classifyLimits.everyCallerTurns = 1;

    // transfer_to_ai naming no assistant: recorded once with why, no call control; the rules' intents are the schema's choices.
    fake.state.chatScripts = [answer("neutral", "hours"), answer("neutral", "hours")];
    const a = await callIn();
    await say(a, "caller", "When are you open?");
    await until(() => chats().length === 1);
    await idle(a);
    expect(chats()[0]?.body).toMatchObject({
      response_format: {
        json_schema: { schema: { properties: { intent: { enum: ["hours", "sales", "other"] } } } },
      },
    });
    await say(a, "caller", "And on Sunday?");
    await until(() => chats().length === 2);
    await idle(a);
    expect(events(a.callId).filter((e) => e.includes("rule 'Stay'"))).toEqual([
      expect.stringContaining(
        "transfer_to_ai: not acted on: the rule names no assistant (assistantId) and no targetUri",
      ),
    ]);
    expect(controls(a.callId).map((h) => h.action)).toEqual(["accept"]);

    // route_to_ivr: a refer to the IVR number on the PBX host.
    fake.state.chatScripts = [answer("positive", "sales")];
    await say(a, "caller", "I would like to buy something.");
    await until(() => controls(a.callId).some((h) => h.action === "refer"));
    expect(fake.state.realtimeCalls[a.callId]?.referTargetUri).toBe("sip:7000@pbx.example.org");
    await until(() => transcripts().length === 1);
    expect(transcripts()[0].rule_decision).toMatch(/rule 'Sales' .* route_to_ivr → sip:7000@pbx.example.org: done/);

    // hangup: the call's hang-up.
    fake.state.chatScripts = [answer("negative", "other")];
    const b = await callIn();
    await say(b, "caller", "Go away.");
    await until(() => controls(b.callId).some((h) => h.action === "hangup"));
    await until(() => transcripts().length === 2);
    expect(transcripts()[1].rule_decision).toMatch(/rule 'Bye' .* hangup: hanging up/);
  });
});

describe("transfer_to_ai mid-call", () => {
  /** The other assistant, on `number` (none: no number on the PBX). */
  async function other(number: string | null) {
    const res = await s.call("POST", "/api/ai/assistants", {
      name: "Billing",
      model: "gpt-realtime",
      systemPrompt: "You answer billing questions. Be brief.",
      ...(number ? { extensionId: number } : {}),
      status: "active",
    });
    expect(res.status).toBe(201);
    return res.json as { id: number };
  }
  const billingRule = (params: Record<string, unknown>) =>
    rule({
      name: "Billing",
      conditions: JSON.stringify({ match: "all", conditions: [{ kind: "intent", op: "is", values: ["billing"] }] }),
      action: "transfer_to_ai",
      actionParams: JSON.stringify(params),
    });

  test("refers the call to the other assistant's number on the PBX host (its webhook then picks that assistant)", async () => {
    const billing = await other("2100");
    await billingRule({ assistantId: billing.id });
    s.app.aiCalls.classifyLimits.everyCallerTurns = 1;
    fake.state.chatScripts = [answer("neutral", "billing")];
    const c = await callIn();
    await say(c, "caller", "I have a question about my invoice.");
    await until(() => controls(c.callId).some((h) => h.action === "refer"));
    expect(fake.state.realtimeCalls[c.callId]?.referTargetUri).toBe("sip:2100@pbx.example.org");
    await until(() => transcripts().length === 1);
    expect(transcripts()[0].rule_decision).toMatch(
      /rule 'Billing' .* transfer_to_ai → assistant 'Billing' \(#\d+\) \(sip:2100@pbx.example.org\): done/,
    );
    expect(transcripts()[0].outcome).toBe("transferred to sip:2100@pbx.example.org");
  });

  test("an explicit targetUri is used as given", async () => {
    await billingRule({ targetUri: "sip:billing-ai@pbx.example.org" });
    s.app.aiCalls.classifyLimits.everyCallerTurns = 1;
    fake.state.chatScripts = [answer("neutral", "billing")];
    const c = await callIn();
    await say(c, "caller", "Billing please.");
    await until(() => controls(c.callId).some((h) => h.action === "refer"));
    expect(fake.state.realtimeCalls[c.callId]?.referTargetUri).toBe("sip:billing-ai@pbx.example.org");
  });

  test("an assistant without a number: recorded with why, nothing done", async () => {
    const billing = await other(null);
    await billingRule({ assistantId: billing.id });
    s.app.aiCalls.classifyLimits.everyCallerTurns = 1;
    fake.state.chatScripts = [answer("neutral", "billing")];
    const c = await callIn();
    await say(c, "caller", "Billing please.");
    await until(() => chats().length === 1);
    await idle(c);
    expect(events(c.callId).join("\n")).toContain(
      `transfer_to_ai: not acted on: assistant 'Billing' (#${billing.id}) has no number on the PBX to refer the call to`,
    );
    expect(controls(c.callId).map((h) => h.action)).toEqual(["accept"]);
    c.sb.hangup();
  });
});

describe("the end of the call", () => {
  test("the end's classification is stored on the transcript", async () => {
    fake.state.chatScripts = [answer("positive", "Opening Hours", "Asked for the opening hours; answered.")];
    const c = await callIn();
    await say(c, "caller", "When are you open?");
    await say(c, "assistant", "Nine to five.");
    expect(chats()).toHaveLength(0);
    c.sb.hangup();
    await until(() => transcripts().length === 1);
    expect(transcripts()[0]).toMatchObject({
      sentiment: "positive",
      intent: "opening hours",
      summary: "Asked for the opening hours; answered.",
      rule_decision: null,
      outcome: "caller hung up",
    });
    // The transcript API shows them too.
    const res = await s.call("GET", `/api/ai/transcripts/${transcripts()[0].id}`);
    expect(res.json).toMatchObject({ sentiment: "positive", intent: "opening hours", ruleDecision: null });
  });

  test("a call without the caller's words is not classified", async () => {
    const c = await callIn();
    await say(c, "assistant", "Hello?");
    c.sb.hangup();
    await until(() => transcripts().length === 1);
    expect(chats()).toHaveLength(0);
    expect(transcripts()[0].sentiment).toBeNull();
  });
});

describe("failed classifications", () => {
  const cases: [string, () => void, RegExp][] = [
    ["garbage", () => fake.state.chatScripts.push({ content: "I think the caller is upset" }), /not JSON/],
    [
      "a value outside the schema",
      () => fake.state.chatScripts.push(answer("furious", "complaint")),
      /did not match the schema/,
    ],
    ["a 500", () => fake.state.chatScripts.push({ status: 500, message: "The server had an error" }), /answered 500/],
    ["no answer in time", () => fake.state.chatScripts.push({ hang: true }), /did not answer within/],
  ];
  for (const [what, script, why] of cases)
    test(`${what}: a note on the call, nothing changed`, async () => {
      // Would refer any call with "hello" in it, once classified (at the webhook there is no transcript yet).
      await rule({ conditions: JSON.stringify({ match: "all", conditions: [{ kind: "keywords", any: ["hello"] }] }) });
      s.app.aiCalls.classifyLimits.everyCallerTurns = 1;
      s.app.aiCalls.classifyLimits.timeoutMs = 200;
      script();
      const c = await callIn();
      await say(c, "caller", "Hello.");
      await until(() => events(c.callId).some((e) => e.includes("classification failed")));
      await idle(c);
      const note = events(c.callId).find((e) => e.includes("classification failed")) ?? "";
      expect(note).toMatch(why);
      expect(note).not.toContain(OPENAI_DEFAULT_KEY);
      expect(controls(c.callId).map((h) => h.action)).toEqual(["accept"]);
      // The end's classification fails the same way: nothing stored from it.
      script();
      c.sb.hangup();
      await until(() => transcripts().length === 1);
      expect(transcripts()[0]).toMatchObject({ sentiment: null, intent: null, summary: null, rule_decision: null });
      expect(logged.some((l) => l.includes("classification failed"))).toBe(true);
      expect(logged.join("\n")).not.toContain(OPENAI_DEFAULT_KEY);
    });
});

describe("bounds", () => {
  test("at most one classification in flight per call", async () => {
    s.app.aiCalls.classifyLimits.everyCallerTurns = 1;
    fake.state.chatScripts = [{ hang: true }];
    const c = await callIn();
    await say(c, "caller", "One.");
    await until(() => fake.state.chatInFlight === 1);
    for (const w of ["Two.", "Three.", "Four."]) await say(c, "caller", w);
    expect(chats()).toHaveLength(1);
    fake.releaseChats();
    await idle(c);
    // The next caller turn may ask again.
    await say(c, "caller", "Five.");
    await until(() => chats().length === 2);
    await idle(c);
    expect(fake.state.chatMaxInFlight).toBe(1);
    c.sb.hangup();
    await until(() => transcripts().length === 1);
  });

  test("one per N caller turns, at most M per call with one kept for the end", async () => {
    Object.assign(s.app.aiCalls.classifyLimits, { everyCallerTurns: 2, maxPerCall: 3 });
    const c = await callIn();
    const seen: number[] = [];
    for (let i = 1; i <= 8; i++) {
      await say(c, "caller", `Turn ${i}.`);
      await say(c, "assistant", "Yes.");
      await idle(c);
      seen.push(chats().length);
    }
    // Turns 2 and 4 ask; then only the end's is left.
    expect(seen).toEqual([0, 1, 1, 2, 2, 2, 2, 2]);
    c.sb.hangup();
    await until(() => transcripts().length === 1);
    expect(chats()).toHaveLength(3);
  });

  test("the conversation sent is bounded to the last turns and characters", async () => {
    Object.assign(s.app.aiCalls.classifyLimits, { everyCallerTurns: 100, maxTurns: 2, maxChars: 30 });
    const c = await callIn();
    await say(c, "caller", "First words that are dropped.");
    await say(c, "assistant", "Middle words.");
    await say(c, "caller", "Last.");
    c.sb.hangup();
    await until(() => transcripts().length === 1);
    expect(lastMessage(chatBody(0))).toBe("…t: Middle words.\nCaller: Last.");
  });
});
