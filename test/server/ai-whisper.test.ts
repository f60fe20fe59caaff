// Whisper to the assistant of a live AI call (ADR 0070), against the fake OpenAI: the text arrives on the
// sideband as a system item followed by response.create (and the fake answers with a response), it is noted on
// the call and shown on the live card, audited, and refused where it cannot be delivered (not live 404, the
// sideband not open 409, bad text 400, a viewer 403).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { LiveAiCall } from "../../src/shared/ai/live";
import { WHISPER_MAX } from "../../src/shared/ai/measures";
import type { WsEvent } from "../../src/shared/ws-events";
import { buildSignedIncomingCall, generateWebhookSecret, startFakeOpenAi } from "../fakes/openai";
import { startAiServer } from "../helpers/ai-server";
import type { TestServer } from "../helpers/server";

const secret = generateWebhookSecret();
const fake = await startFakeOpenAi();
let s: TestServer;
const published: WsEvent[] = [];
const PASSWORD = "whisper password 123";
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
  // Long enough for the 409 test to whisper while the held sideband is still opening.
  s.app.aiCalls.limits.openTimeoutMs = 1500;
});
afterAll(async () => {
  await s.stop();
  await fake.stop();
});
beforeEach(async () => {
  for (const t of ["ai_call_logs", "call_transcripts", "ai_assistants", "audit_log"])
    s.db.$client.run(`DELETE FROM ${t}`);
  await s.call("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd. Be brief.",
    extensionId: "2000",
    status: "active",
  });
  published.length = 0;
});
afterEach(async () => {
  await until(() => s.app.aiCalls.counts().sessions === 0 && fake.openSidebands() === 0);
  expect(s.app.aiCalls.counts()).toEqual({ sessions: 0, sockets: 0, timers: 0 });
});

async function until(cond: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

async function callIn(mode: "open" | "hold" = "open") {
  const d = buildSignedIncomingCall(secret, { to: "<sip:2000@sip.api.openai.com;transport=tls>" });
  const callId = d.event.data.call_id;
  const sb = fake.sideband(callId);
  sb.mode = mode;
  const res = await s.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });
  expect(res.json.outcome).toBe("accept");
  if (mode === "open") await until(() => sb.open && sb.received.some((e) => e.type === "session.update"));
  else await until(() => sb.attempts === 1);
  return { callId, sb };
}

const whisper = (role: keyof typeof cookies, callId: string, body: unknown) =>
  s.call("POST", `/api/ai/calls/${callId}/whisper`, body, { cookie: cookies[role] });
const events = (callId: string) =>
  JSON.parse(
    (s.db.$client.query("SELECT events FROM ai_call_logs WHERE call_id = ?").get(callId) as { events: string }).events,
  ).join("\n") as string;

describe("whisper", () => {
  test("arrives as a system item followed by response.create; noted, shown live, audited", async () => {
    const { callId, sb } = await callIn();
    const text = "Offer the caller a 10% discount code SPRING before you say goodbye.";
    const res = await whisper("operator", callId, { text: `  ${text} ` });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ callId, delivered: true });
    // After session.update: the system item, then the response the assistant speaks (the fake starts it).
    await until(() => sb.received.length === 3 && sb.lastResponseId !== null);
    expect(sb.received.slice(1)).toEqual([
      {
        type: "conversation.item.create",
        item: { type: "message", role: "system", content: [{ type: "input_text", text }] },
      },
      { type: "response.create" },
    ]);
    expect(sb.lastResponseId).not.toBeNull();
    expect(events(callId)).toContain(`an operator whispered: ${text}`);
    await until(() => published.some((e) => e.type === "ai-live-updated"));
    const live = (await s.call("GET", "/api/ai/calls/live", undefined, { cookie: cookies.viewer }))
      .json as LiveAiCall[];
    expect(live[0]?.whispers).toEqual([{ at: expect.any(String), text }]);
    const audit = () => s.db.$client.query("SELECT actor, action, outcome, object_id FROM audit_log").all();
    await until(() => audit().length > 0);
    expect(audit()).toContainEqual({ actor: "operator", action: "ai.call.whisper", outcome: "ok", object_id: callId });
    sb.hangup();
  });

  test("a long whisper is delivered whole and noted cut short", async () => {
    const { callId, sb } = await callIn();
    const text = "x".repeat(WHISPER_MAX);
    expect((await whisper("admin", callId, { text })).status).toBe(200);
    await until(() => sb.received.length === 3);
    expect(sb.received[1]).toMatchObject({ item: { content: [{ text }] } });
    expect(events(callId)).toContain(`an operator whispered: ${"x".repeat(200)}…`);
    expect(events(callId)).not.toContain("x".repeat(201));
    sb.hangup();
  });

  test("refused: a viewer 403, bad text 400 with the field, a call not live 404, a sideband not open 409", async () => {
    const { callId, sb } = await callIn();
    expect((await whisper("viewer", callId, { text: "Hi" })).status).toBe(403);
    const empty = await whisper("operator", callId, { text: "   " });
    expect(empty.status).toBe(400);
    expect(empty.json.error.fields).toEqual({ text: "Text is required" });
    const long = await whisper("operator", callId, { text: "x".repeat(WHISPER_MAX + 1) });
    expect(long.status).toBe(400);
    expect(long.json.error.fields).toEqual({ text: `Text must be at most ${WHISPER_MAX} characters` });
    // Nothing of those reached the assistant.
    expect(sb.received.map((e) => e.type)).toEqual(["session.update"]);
    sb.hangup();
    await until(() => !s.app.aiCalls.get(callId));
    expect((await whisper("operator", callId, { text: "Hi" })).status).toBe(404);

    const held = await callIn("hold");
    const notOpen = await whisper("operator", held.callId, { text: "Hi" });
    expect(notOpen.status).toBe(409);
    expect(notOpen.json.error.message).toContain("not open");
  });
});
