/**
 * Attack: replay one signed OpenAI webhook (`realtime.call.incoming`) 20 times at once against the built binary.
 * Expected: the call is acted on once (one accept at OpenAI, one call-log row); the copies get the first
 * answer marked `duplicate`. ADR 0018.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildSignedIncomingCall, generateWebhookSecret, OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { type Binary, startBinary } from "./binary";

const secret = generateWebhookSecret();
const openai = await startFakeOpenAi();
let bin: Binary;

beforeAll(async () => {
  bin = await startBinary({
    env: { PBX_OPENAI_URL: openai.baseUrl, OPENAI_API_KEY: OPENAI_DEFAULT_KEY, OPENAI_WEBHOOK_SECRET: secret },
  });
  expect((await bin.setup()).status).toBe(201);
  const assistant = await bin.call("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist.",
    voice: "marin",
    temperature: 70,
    extensionId: "1001",
    status: "active",
  });
  expect(assistant.status).toBe(201);
}, 30_000);
afterAll(async () => {
  await bin?.stop();
  await openai.stop();
});

const accepts = () => openai.calls.filter((c) => c.method === "POST" && c.path.endsWith("/accept"));
const deliver = (d: { body: string; headers: Record<string, string> }) =>
  bin.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });

test("20 parallel copies of one signed delivery: the call is accepted once", async () => {
  openai.state.delayMs = 100; // keep the first accept in flight while the copies arrive
  try {
    const d = buildSignedIncomingCall(secret, { to: "<sip:1001@sip.api.openai.com;transport=tls>" });
    const before = accepts().length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(d)));
    const acted = accepts().length - before;
    const duplicates = answers.filter((a) => a.json?.duplicate === true).length;
    console.log(
      `webhook replay: of 20 parallel identical deliveries, ${acted} accept call(s) reached OpenAI, ${duplicates} answered as duplicate`,
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(acted).toBe(1);
    expect(duplicates).toBe(19);
    const logs = (await bin.call("GET", "/api/ai/calls")).json as { callId: string }[];
    expect(logs.filter((l) => l.callId === d.event.data.call_id)).toHaveLength(1);

    // Sent again later (inside the 5-minute window) it is still a duplicate.
    const later = await deliver(d);
    expect(later.json).toMatchObject({ outcome: "accept", duplicate: true });
    expect(accepts().length - before).toBe(1);
  } finally {
    openai.state.delayMs = 0;
  }
});

test("a replay with the timestamp moved (to dodge the window) no longer verifies", async () => {
  const d = buildSignedIncomingCall(secret, { to: "<sip:1001@sip.api.openai.com;transport=tls>" });
  const moved = { ...d.headers, "webhook-timestamp": String(Number(d.headers["webhook-timestamp"]) + 1) };
  const res = await deliver({ body: d.body, headers: moved });
  expect(res.status).toBe(401);
});
