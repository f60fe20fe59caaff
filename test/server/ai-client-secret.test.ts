// The test bench's client secret (ADR 0073) against the fake OpenAI: minted for one assistant's session only,
// for 60 seconds, the SDP exchange URL is the configured one, refusals, and the API key in no answer or record.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { TRANSCRIPTION_MODEL } from "../../src/server/ai/sideband";
import { CLIENT_SECRET_TTL_SECONDS } from "../../src/server/ai/test-bench";
import { OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { startTestServer, type TestServer } from "../helpers/server";

const fake = await startFakeOpenAi();
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ PBX_OPENAI_URL: fake.baseUrl, OPENAI_API_KEY: OPENAI_DEFAULT_KEY });
  await s.setup();
});
afterAll(async () => {
  await s.stop();
  await fake.stop();
});
beforeEach(() => {
  s.clear("ai_assistants", "audit_log");
  fake.calls.length = 0;
  fake.state.clientSecrets = [];
  fake.state.webrtcCalls = [];
  fake.state.rateLimit = null;
  fake.state.failNext = null;
});

const assistant = async (extra: Record<string, unknown> = {}) => {
  const res = await s.call("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist of Example Ltd.",
    voice: "marin",
    extensionId: "1001",
    status: "active",
    ...extra,
  });
  expect(res.status).toBe(201);
  return res.json as { id: number };
};
const mint = (id: number | string) => s.call("POST", `/api/ai/assistants/${id}/client-secret`, {});
const auditRows = () => JSON.stringify(s.db.$client.query("SELECT * FROM audit_log").all());

describe("minting", () => {
  test("the secret opens exactly that assistant's session, for 60 s, at the configured calls URL", async () => {
    const a = await assistant({ tools: ["transfer_call"] });
    await assistant({ name: "Other", extensionId: "1002", systemPrompt: "You sell boats.", voice: "cedar" });
    const before = Date.now();
    const res = await mint(a.id);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["callsUrl", "expiresAt", "value"]);
    expect(res.json.value).toStartWith("ek_");
    expect(res.json.callsUrl).toBe(`${fake.baseUrl}/realtime/calls`);
    const lifetime = Date.parse(res.json.expiresAt) - before;
    expect(lifetime).toBeGreaterThan((CLIENT_SECRET_TTL_SECONDS - 2) * 1000);
    expect(lifetime).toBeLessThanOrEqual((CLIENT_SECRET_TTL_SECONDS + 1) * 1000);
    expect(CLIENT_SECRET_TTL_SECONDS).toBe(60);

    const minted = fake.state.clientSecrets;
    expect(minted).toHaveLength(1);
    expect(minted[0]?.value).toBe(res.json.value);
    expect(minted[0]?.expiresAfter).toEqual({ anchor: "created_at", seconds: 60 });
    // The session a phone call to this assistant runs: same model, prompt, voice and tools, and the caller's
    // words transcribed as the call's sideband turns on.
    expect(minted[0]?.session).toEqual({
      type: "realtime",
      model: "gpt-realtime",
      instructions: "You are the receptionist of Example Ltd.",
      audio: { input: { transcription: { model: TRANSCRIPTION_MODEL } }, output: { voice: "marin" } },
      tools: [
        {
          type: "function",
          name: "transfer_call",
          description: expect.any(String),
          parameters: expect.objectContaining({ type: "object" }),
        },
      ],
    });
    // Minted with the API key, server to server.
    const request = fake.calls.find((c) => c.path === "/v1/realtime/client_secrets");
    expect(request?.headers.authorization).toBe(`Bearer ${OPENAI_DEFAULT_KEY}`);
  });

  test("the minted secret opens a WebRTC call at the calls URL with that session; the key is in no answer or record", async () => {
    const a = await assistant();
    const res = await mint(a.id);
    expect(res.text).not.toContain(OPENAI_DEFAULT_KEY);
    const offer =
      "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:0\r\n";
    const call = await fetch(res.json.callsUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${res.json.value}`, "content-type": "application/sdp" },
      body: offer,
    });
    expect(call.status).toBe(201);
    expect(fake.state.webrtcCalls[0]?.credential).toEqual({ kind: "client_secret", value: res.json.value });
    expect(fake.state.webrtcCalls[0]?.session).toMatchObject({
      instructions: "You are the receptionist of Example Ltd.",
    });
    // The audit trail has the mint, but neither the secret nor the key.
    const audit = auditRows();
    expect(audit).toContain("ai.assistant.test-call");
    expect(audit).not.toContain(res.json.value);
    expect(audit).not.toContain(OPENAI_DEFAULT_KEY);
  });

  test("each mint is a new secret; a second assistant's carries its own session", async () => {
    const a = await assistant();
    const b = await assistant({ name: "Boats", extensionId: "1002", systemPrompt: "You sell boats.", voice: "cedar" });
    const first = (await mint(a.id)).json.value;
    const second = (await mint(b.id)).json.value;
    expect(first).not.toBe(second);
    const byValue = (v: string) => fake.state.clientSecrets.find((c) => c.value === v)?.session;
    expect(byValue(first)).toMatchObject({ instructions: "You are the receptionist of Example Ltd." });
    expect(byValue(second)).toMatchObject({ instructions: "You sell boats.", audio: { output: { voice: "cedar" } } });
  });
});

describe("refusals", () => {
  test("an unknown or malformed assistant id is 404, an inactive one 400; nothing minted", async () => {
    const a = await assistant({ status: "inactive" });
    expect((await mint(a.id + 1000)).status).toBe(404);
    expect((await mint("abc")).status).toBe(404);
    const inactive = await mint(a.id);
    expect(inactive.status).toBe(400);
    expect(inactive.json.error.message).toContain("inactive");
    expect(fake.state.clientSecrets).toEqual([]);
  });

  test("OpenAI refusing is 502 with its reason: rate limit with the wait, wrong key without the key", async () => {
    const a = await assistant();
    fake.state.rateLimit = { count: 1, retryAfterSeconds: 7 };
    const limited = await mint(a.id);
    expect(limited.status).toBe(502);
    expect(limited.json.error.message).toStartWith("OpenAI is rate-limiting requests (429): Rate limit reached");
    expect(limited.json.error.message).toEndWith("retry after 7 s");
    fake.state.failNext = {
      status: 401,
      path: "/v1/realtime/client_secrets",
      body: {
        error: {
          message: `Incorrect API key provided: ${OPENAI_DEFAULT_KEY}.`,
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      },
    };
    const rejected = await mint(a.id);
    expect(rejected.status).toBe(502);
    expect(rejected.json.error.message).toStartWith("OpenAI rejected the credentials (401)");
    expect(rejected.text).not.toContain(OPENAI_DEFAULT_KEY);
    expect(auditRows()).not.toContain(OPENAI_DEFAULT_KEY);
  });

  test("without OpenAI configured it is 400 and nothing is asked of OpenAI", async () => {
    const bare = await startTestServer({ PBX_OPENAI_URL: fake.baseUrl });
    try {
      await bare.setup();
      const created = await bare.call("POST", "/api/ai/assistants", {
        name: "Front desk",
        model: "gpt-realtime",
        systemPrompt: "You are the receptionist.",
        extensionId: "1001",
        status: "active",
      });
      expect(created.status, created.text).toBe(201);
      const res = await bare.call("POST", `/api/ai/assistants/${created.json.id}/client-secret`, {});
      expect(res.status).toBe(400);
      expect(res.json.error.message).toContain("OpenAI is not configured");
      expect(fake.calls).toEqual([]);
    } finally {
      await bare.stop();
    }
  });

  test("a viewer may not mint one", async () => {
    const a = await assistant();
    await s.call("POST", "/api/users", { username: "viewer1", password: "viewer password 1", role: "viewer" });
    const keep = s.cookie;
    try {
      s.cookie = "";
      await s.call("POST", "/api/auth/login", { username: "viewer1", password: "viewer password 1" });
      expect((await mint(a.id)).status).toBe(403);
      expect(fake.state.clientSecrets).toEqual([]);
    } finally {
      s.cookie = keep;
    }
  });
});

describe("the SDK client's failures read like the other clients'", () => {
  test("connection refused, a timeout, the overall deadline; none carries the key", async () => {
    const { OpenAiClient } = await import("../../src/server/clients/openai");
    const { deadline } = await import("../../src/server/clients/http");
    const refused = await new OpenAiClient("http://127.0.0.1:9/v1", OPENAI_DEFAULT_KEY).listModels().catch((e) => e);
    expect(refused.message).toBe("Cannot reach OpenAI at 127.0.0.1:9: connection refused");
    fake.state.delayMs = 2000;
    try {
      const slow = await new OpenAiClient(fake.baseUrl, OPENAI_DEFAULT_KEY)
        .chatJson({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: "hi" }],
          schemaName: "x",
          schema: { type: "object" },
          maxTokens: 10,
          timeoutMs: 200,
        })
        .catch((e) => e);
      expect(slow.message).toBe("OpenAI did not answer within 200 ms");
      const late = await new OpenAiClient(fake.baseUrl, OPENAI_DEFAULT_KEY, deadline("The test", 100))
        .listModels()
        .catch((e) => e);
      expect(late.message).toBe("The test did not finish within 100 ms");
    } finally {
      fake.state.delayMs = 0;
    }
    fake.state.failNext = { status: 500, body: "upstream exploded" };
    const broken = await new OpenAiClient(fake.baseUrl, OPENAI_DEFAULT_KEY).listModels().catch((e) => e);
    expect(broken).toMatchObject({ status: 500, message: "OpenAI answered 500: upstream exploded" });
  });
});
