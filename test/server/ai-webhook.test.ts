// The OpenAI SIP-connector webhook against the fake OpenAI server: signature checks, assistant lookup,
// routing rules, call control (accept / reject / refer) and the call log.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  buildSignedIncomingCall,
  generateWebhookSecret,
  OPENAI_DEFAULT_KEY,
  startFakeOpenAi,
  webhookHeaders,
} from "../fakes/openai";
import { startTestServer, type TestServer } from "../helpers/server";

const secret = generateWebhookSecret();
const fake = await startFakeOpenAi();
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({
    PBX_OPENAI_URL: fake.baseUrl,
    OPENAI_API_KEY: OPENAI_DEFAULT_KEY,
    OPENAI_WEBHOOK_SECRET: secret,
    OPENAI_PROJECT_ID: "proj_test",
  });
  await s.setup();
});
afterAll(async () => {
  await s.stop();
  await fake.stop();
});
beforeEach(() => {
  for (const t of ["ai_call_logs", "ai_assistants", "ai_routing_rules"]) s.db.$client.run(`DELETE FROM ${t}`);
  fake.calls.length = 0;
  fake.state.realtimeCalls = {};
  fake.state.failNext = null;
});

const PROMPT = "You are the receptionist of Example Ltd. Be brief.";
const assistant = async (extra: Record<string, unknown> = {}) =>
  (
    await s.call("POST", "/api/ai/assistants", {
      name: "Front desk",
      model: "gpt-realtime",
      systemPrompt: PROMPT,
      voice: "marin",
      temperature: 70,
      extensionId: "1001",
      status: "active",
      ...extra,
    })
  ).json;
const rule = async (extra: Record<string, unknown>) =>
  (
    await s.call("POST", "/api/ai/routing-rules", {
      name: "Rule",
      priority: 50,
      conditions: "{}",
      action: "hangup",
      actionParams: "{}",
      enabled: true,
      ...extra,
    })
  ).json;

/** POSTs a delivery the way OpenAI does: JSON, no cookie, no Origin. */
const deliver = (body: string, headers: Record<string, string>) =>
  s.call("POST", "/api/ai/openai/webhook", body, { cookie: "", ...headers });

function incoming(o: Parameters<typeof buildSignedIncomingCall>[1] = {}, key = secret) {
  return buildSignedIncomingCall(key, { to: "<sip:1001@sip.api.openai.com;transport=tls>", ...o });
}

const logs = () => s.db.$client.query("SELECT * FROM ai_call_logs ORDER BY id").all() as any[];
const sessionOf = (callId: string) => fake.state.realtimeCalls[callId]?.session as any;
const controlCalls = () => fake.calls.filter((c) => c.path.startsWith("/v1/realtime/calls/"));

describe("signature checks: refused, nothing stored, no outside call", () => {
  test("a tampered body is 401", async () => {
    await assistant();
    const d = incoming();
    const res = await deliver(d.body.replace("1001", "1002"), d.headers);
    expect(res.status).toBe(401);
    expect(res.json.error.message).toBe("Webhook signature does not match");
    expect(controlCalls()).toEqual([]);
    expect(logs()).toEqual([]);
  });

  test("a signature made with another secret is 401", async () => {
    await assistant();
    const d = incoming({}, generateWebhookSecret());
    expect((await deliver(d.body, d.headers)).status).toBe(401);
    expect(controlCalls()).toEqual([]);
    expect(logs()).toEqual([]);
  });

  test("a timestamp 10 minutes old (or ahead) is 401 even with a valid signature", async () => {
    await assistant();
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 600, now + 600]) {
      const d = incoming({ timestamp, createdAt: timestamp });
      const res = await deliver(d.body, d.headers);
      expect(res.status).toBe(401);
      expect(res.json.error.message).toBe("webhook-timestamp is outside the 5-minute tolerance");
    }
    expect(controlCalls()).toEqual([]);
    expect(logs()).toEqual([]);
  });

  test("missing signature headers are 400; several signatures pass when one is right", async () => {
    await assistant();
    const d = incoming();
    const { "webhook-signature": _sig, ...noSig } = d.headers;
    expect((await deliver(d.body, noSig)).status).toBe(400);
    expect(controlCalls()).toEqual([]);
    const wrong = webhookHeaders(
      generateWebhookSecret(),
      d.headers["webhook-id"] as string,
      d.event.created_at,
      d.body,
    );
    const res = await deliver(d.body, {
      ...d.headers,
      "webhook-signature": `${wrong["webhook-signature"]} ${d.headers["webhook-signature"]}`,
    });
    expect(res.status).toBe(200);
    expect(res.json.outcome).toBe("accept");
  });

  test("without a configured secret the webhook answers 503 and does nothing", async () => {
    const bare = await startTestServer({ PBX_OPENAI_URL: fake.baseUrl, OPENAI_API_KEY: OPENAI_DEFAULT_KEY });
    try {
      const d = incoming();
      const res = await bare.call("POST", "/api/ai/openai/webhook", d.body, d.headers);
      expect(res.status).toBe(503);
      expect(controlCalls()).toEqual([]);
    } finally {
      await bare.stop();
    }
  });
});

describe("answering calls", () => {
  test("a valid delivery for an assistant's number accepts the call with the assistant's session", async () => {
    const a = await assistant({ tools: ["transfer_call"] });
    const d = incoming();
    const res = await deliver(d.body, d.headers);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ received: true, outcome: "accept" });
    const call = fake.state.realtimeCalls[d.event.data.call_id];
    expect(call?.status).toBe("accepted");
    expect(call?.session).toEqual({
      type: "realtime",
      model: "gpt-realtime",
      instructions: PROMPT,
      audio: { output: { voice: "marin" } },
      tools: [
        {
          type: "function",
          name: "transfer_call",
          description: expect.any(String),
          parameters: expect.objectContaining({ type: "object", required: ["extension"] }),
        },
      ],
    });
    expect(controlCalls().at(-1)?.headers.authorization).toBe(`Bearer ${OPENAI_DEFAULT_KEY}`);
    expect(logs()).toMatchObject([
      {
        call_id: d.event.data.call_id,
        assistant_id: a.id,
        rule_id: null,
        called_number: "1001",
        caller_number: "+15555550100",
        outcome: "accept",
      },
    ]);
    const listed = (await s.call("GET", "/api/ai/calls")).json;
    expect(listed[0]).toMatchObject({ callId: d.event.data.call_id, outcome: "accept", assistantId: a.id });
  });

  test("the legacy voices are sent as GA voices; temperature is never sent", async () => {
    await assistant({ voice: "onyx", model: "gpt-4o-realtime-preview" });
    const d = incoming();
    await deliver(d.body, d.headers);
    const session = sessionOf(d.event.data.call_id);
    expect(session.audio.output.voice).toBe("ash");
    expect(session.model).toBe("gpt-4o-realtime-preview");
    expect(session).not.toHaveProperty("temperature");
    expect(session).not.toHaveProperty("tools");
  });

  test("the called number may come from X-Called-Number when To carries the project id; + is ignored", async () => {
    await assistant({ extensionId: "+15551234567" });
    const d = buildSignedIncomingCall(secret, {
      projectId: "proj_test",
      extraHeaders: [{ name: "X-Called-Number", value: "15551234567" }],
    });
    const res = await deliver(d.body, d.headers);
    expect(res.json.outcome).toBe("accept");
    expect(logs()[0].called_number).toBe("15551234567");
  });

  test("an unknown number is rejected with SIP 603", async () => {
    await assistant();
    const d = incoming({ to: "<sip:2002@sip.api.openai.com>" });
    const res = await deliver(d.body, d.headers);
    expect(res.status).toBe(200);
    expect(res.json.outcome).toBe("reject");
    const call = fake.state.realtimeCalls[d.event.data.call_id];
    expect(call?.status).toBe("rejected");
    expect(call?.rejectStatusCode).toBe(603);
    expect(controlCalls().map((c) => c.path)).toEqual([`/v1/realtime/calls/${d.event.data.call_id}/reject`]);
    expect(logs()).toMatchObject([{ outcome: "reject", assistant_id: null, called_number: "2002" }]);
    expect(logs()[0].detail).toContain("no active assistant for called number 2002");
  });

  test("an inactive assistant does not answer: 603", async () => {
    await assistant({ status: "inactive" });
    const d = incoming();
    await deliver(d.body, d.headers);
    expect(fake.state.realtimeCalls[d.event.data.call_id]?.rejectStatusCode).toBe(603);
  });

  test("a hangup rule rejects the call (its statusCode, else 603)", async () => {
    await assistant();
    const r = await rule({
      name: "Block spam",
      conditions: '{"callerNumber":"+15555550100"}',
      actionParams: '{"statusCode":486}',
    });
    const d = incoming();
    expect((await deliver(d.body, d.headers)).json.outcome).toBe("reject");
    expect(fake.state.realtimeCalls[d.event.data.call_id]?.rejectStatusCode).toBe(486);
    expect(logs()[0]).toMatchObject({ rule_id: r.id, outcome: "reject" });

    await s.call("PATCH", `/api/ai/routing-rules/${r.id}`, { actionParams: "{}" });
    const d2 = incoming();
    await deliver(d2.body, d2.headers);
    expect(fake.state.realtimeCalls[d2.event.data.call_id]?.rejectStatusCode).toBe(603);
  });

  test("a route_to_extension rule accepts then refers the call to the extension on the calling PBX", async () => {
    await assistant();
    const r = await rule({
      name: "Sales line",
      conditions: '{"calledNumber":"1001"}',
      action: "route_to_extension",
      actionParams: '{"extensionId":"200"}',
    });
    const d = incoming();
    const res = await deliver(d.body, d.headers);
    expect(res.json.outcome).toBe("refer");
    const call = fake.state.realtimeCalls[d.event.data.call_id];
    expect(call?.history.map((h) => h.action)).toEqual(["accept", "refer"]);
    expect(call?.referTargetUri).toBe("sip:200@pbx.example.com");
    expect(logs()[0]).toMatchObject({ rule_id: r.id, outcome: "refer" });
  });

  test("a route_to_extension rule refers even without an assistant (short transfer session)", async () => {
    await rule({ action: "route_to_extension", actionParams: '{"targetUri":"tel:+442071234567"}' });
    const d = incoming({ to: "<sip:9999@sip.api.openai.com>" });
    expect((await deliver(d.body, d.headers)).json.outcome).toBe("refer");
    const call = fake.state.realtimeCalls[d.event.data.call_id];
    expect(call?.referTargetUri).toBe("tel:+442071234567");
    expect(call?.session).toMatchObject({ type: "realtime", model: "gpt-realtime" });
  });

  test("disabled and non-matching rules leave the call to the assistant; sentiment rules do not apply to new calls", async () => {
    await assistant();
    await rule({ name: "Off", enabled: false });
    await rule({ name: "Angry", conditions: '{"sentiment":"negative"}' });
    const d = incoming();
    expect((await deliver(d.body, d.headers)).json.outcome).toBe("accept");
  });

  test("a transfer_to_ai rule can pick another active assistant", async () => {
    await assistant();
    const night = await assistant({ name: "Night", extensionId: null, voice: "shimmer" });
    await rule({ action: "transfer_to_ai", actionParams: JSON.stringify({ assistantId: night.id }) });
    const d = incoming();
    await deliver(d.body, d.headers);
    expect(sessionOf(d.event.data.call_id).audio.output.voice).toBe("shimmer");
    expect(logs()[0].assistant_id).toBe(night.id);
  });

  test("a redelivered webhook does not answer the call twice", async () => {
    await assistant();
    const d = incoming();
    await deliver(d.body, d.headers);
    const again = await deliver(d.body, d.headers);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ outcome: "accept", duplicate: true });
    expect(controlCalls()).toHaveLength(1);
    expect(logs()).toHaveLength(1);
  });

  test("20 copies of one delivery sent at once answer the call once (ADR 0018)", async () => {
    await assistant();
    fake.state.delayMs = 50; // the first accept is still in flight while the copies arrive
    try {
      const d = incoming();
      const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(d.body, d.headers)));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      expect(answers.filter((a) => a.json.duplicate === true)).toHaveLength(19);
      expect(answers.every((a) => a.json.outcome === "accept")).toBe(true);
      expect(controlCalls()).toHaveLength(1);
      expect(logs()).toHaveLength(1);
    } finally {
      fake.state.delayMs = 0;
    }
  });

  test("two deliveries of one call under different webhook ids at once answer it once", async () => {
    await assistant();
    fake.state.delayMs = 50;
    try {
      const first = incoming();
      const second = incoming({ callId: first.event.data.call_id, eventId: first.event.id });
      const answers = await Promise.all([deliver(first.body, first.headers), deliver(second.body, second.headers)]);
      expect(answers.map((a) => a.json.outcome)).toEqual(["accept", "accept"]);
      expect(controlCalls()).toHaveLength(1);
      expect(logs()).toHaveLength(1);
    } finally {
      fake.state.delayMs = 0;
    }
  });

  test("a delivery that failed at OpenAI may be sent again and is then retried", async () => {
    await assistant();
    fake.state.failNext = { status: 500, body: { error: { message: "try later", type: "server_error" } } };
    const d = incoming();
    expect((await deliver(d.body, d.headers)).json.outcome).toBe("error");
    const again = await deliver(d.body, d.headers);
    expect(again.json).toMatchObject({ outcome: "accept" });
    expect(again.json.duplicate).toBeUndefined();
    expect(controlCalls()).toHaveLength(2);
  });

  test("an OpenAI failure is logged as an error outcome", async () => {
    await assistant();
    fake.state.failNext = { status: 500, body: { error: { message: "upstream exploded", type: "server_error" } } };
    const d = incoming();
    const res = await deliver(d.body, d.headers);
    expect(res.status).toBe(200);
    expect(res.json.outcome).toBe("error");
    expect(logs()[0].outcome).toBe("error");
    expect(logs()[0].detail).toContain("OpenAI answered 500: upstream exploded");
    expect(logs()[0].detail).not.toContain(OPENAI_DEFAULT_KEY);
  });

  test("other event types are acknowledged and ignored", async () => {
    const body = JSON.stringify({ object: "event", id: "evt_1", type: "response.completed", created_at: 1, data: {} });
    const headers = webhookHeaders(secret, "wh_1", Math.floor(Date.now() / 1000), body);
    const res = await deliver(body, headers);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ received: true, ignored: "response.completed" });
    expect(controlCalls()).toEqual([]);
    expect(logs()).toEqual([]);
  });

  test("a signed but malformed call event is 400", async () => {
    const body = JSON.stringify({ type: "realtime.call.incoming", data: { call_id: "../../etc" } });
    const headers = webhookHeaders(secret, "wh_2", Math.floor(Date.now() / 1000), body);
    const res = await deliver(body, headers);
    expect(res.status).toBe(400);
    expect(controlCalls()).toEqual([]);
  });
});
