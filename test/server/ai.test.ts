// AI assistants, transcripts (with token intake), routing rules and the routing decision, over real HTTP.
import { describe, expect, test } from "bun:test";
import { signedInServer, startTestServer } from "../helpers/server";

const s = signedInServer({
  env: { OPENAI_PROJECT_ID: "proj_abc123" },
  clean: ["ai_call_logs", "ai_assistants", "call_transcripts", "ai_routing_rules", "api_tokens"],
});

const ASSISTANT = {
  name: "Front desk",
  description: "Answers the main line",
  provider: "openai",
  model: "gpt-4o-realtime-preview",
  systemPrompt: "You are the friendly receptionist of Example Ltd.",
  voice: "alloy",
  temperature: 80,
  extensionId: "1001",
  ivrId: "",
  status: "active",
};
const assistant = (extra: Record<string, unknown> = {}) =>
  s.call("POST", "/api/ai/assistants", { ...ASSISTANT, ...extra });

const RULE = {
  name: "Angry callers",
  description: "",
  priority: 50,
  conditions: '{"sentiment":"negative"}',
  action: "route_to_extension",
  actionParams: '{"extensionId":"200"}',
  enabled: true,
};
const rule = (extra: Record<string, unknown> = {}) => s.call("POST", "/api/ai/routing-rules", { ...RULE, ...extra });
const route = (facts: Record<string, unknown>) => s.call("POST", "/api/ai/route", facts);

describe("AI assistants", () => {
  test("create answers 201 with the record and its defaults; the list has it", async () => {
    const min = await s.call("POST", "/api/ai/assistants", {
      name: "Minimal",
      model: "gpt-4o-realtime-preview",
      systemPrompt: "Be brief and polite.",
    });
    expect(min.status).toBe(201);
    expect(min.json).toMatchObject({
      name: "Minimal",
      provider: "openai",
      voice: "alloy",
      temperature: 80,
      status: "active",
      description: null,
      extensionId: null,
      ivrId: null,
      tools: [],
    });
    expect(typeof min.json.createdAt).toBe("string");
    const full = await assistant({ voice: "nova", temperature: 35, tools: ["transfer_call", "end_call"] });
    expect(full.status).toBe(201);
    expect(full.json).toMatchObject({ voice: "nova", temperature: 35, extensionId: "1001", ivrId: null });
    const list = await s.call("GET", "/api/ai/assistants");
    expect(list.json.map((a: any) => a.name)).toEqual(["Front desk", "Minimal"]);
  });

  test("each validation message, and nothing stored", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: "" }, "name", "Name is required"],
      [{ name: "   " }, "name", "Name is required"],
      [{ name: undefined }, "name", "Name is required"],
      [{ model: "" }, "model", "Model is required"],
      [{ model: undefined }, "model", "Model is required"],
      [{ systemPrompt: "too short" }, "systemPrompt", "System prompt must be at least 10 characters"],
      [{ systemPrompt: undefined }, "systemPrompt", "System prompt must be at least 10 characters"],
      [{ provider: "anthropic" }, "provider", "Provider must be openai"],
      [{ temperature: 101 }, "temperature", "Temperature must be 0-100"],
      [{ temperature: -1 }, "temperature", "Temperature must be 0-100"],
      [{ temperature: "hot" }, "temperature", "Temperature must be 0-100"],
      [{ status: "paused" }, "status", "Status must be active or inactive"],
      [{ voice: "robot" }, "voice", "Voice must be one of the listed voices"],
      [{ extensionId: "front desk" }, "extensionId", "Extension must be digits, optionally starting with +"],
    ];
    for (const [patch, field, message] of cases) {
      const err = await s.refused("ai_assistants", () => assistant(patch), 400);
      expect(err.fields?.[field]).toBe(message);
    }
  });

  test("PATCH changes only the given fields and bumps updatedAt; bad input changes nothing", async () => {
    const created = (await assistant()).json;
    s.advance(5000);
    const res = await s.call("PATCH", `/api/ai/assistants/${created.id}`, { status: "inactive", voice: "echo" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      ...ASSISTANT,
      ivrId: null,
      status: "inactive",
      voice: "echo",
      createdAt: created.createdAt,
    });
    expect(Date.parse(res.json.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    const err = await s.refused(
      "ai_assistants",
      () => s.call("PATCH", `/api/ai/assistants/${created.id}`, { systemPrompt: "short", name: "" }),
      400,
    );
    expect(err.fields).toEqual({
      name: "Name is required",
      systemPrompt: "System prompt must be at least 10 characters",
    });
    const cleared = await s.call("PATCH", `/api/ai/assistants/${created.id}`, { extensionId: "" });
    expect(cleared.json.extensionId).toBeNull();
  });

  test("unknown ids are 404 for PATCH and DELETE; DELETE removes", async () => {
    for (const path of ["/api/ai/assistants/999", "/api/ai/assistants/abc", "/api/ai/assistants/0"]) {
      expect((await s.call("PATCH", path, { name: "x" })).status).toBe(404);
      expect((await s.call("DELETE", path)).status).toBe(404);
    }
    const { id } = (await assistant()).json;
    expect((await s.call("DELETE", `/api/ai/assistants/${id}`)).status).toBe(200);
    expect((await s.call("GET", "/api/ai/assistants")).json).toEqual([]);
    expect((await s.call("DELETE", `/api/ai/assistants/${id}`)).status).toBe(404);
  });

  test("the SIP URI comes from the OpenAI project id", async () => {
    const res = await s.call("GET", "/api/ai/sip-uri");
    expect(res.json).toEqual({
      uri: "sip:proj_abc123@sip.api.openai.com;transport=tls",
      webhookPath: "/api/ai/openai/webhook",
      apiKeySet: false,
      webhookSecretSet: false,
    });
  });

  test("every AI endpoint but the intake and the webhook needs a session", async () => {
    const anon = await startTestServer();
    try {
      for (const [method, path] of [
        ["GET", "/api/ai/assistants"],
        ["POST", "/api/ai/assistants"],
        ["PATCH", "/api/ai/assistants/1"],
        ["DELETE", "/api/ai/assistants/1"],
        ["GET", "/api/ai/transcripts"],
        ["DELETE", "/api/ai/transcripts/1"],
        ["GET", "/api/ai/routing-rules"],
        ["POST", "/api/ai/routing-rules"],
        ["PATCH", "/api/ai/routing-rules/1"],
        ["DELETE", "/api/ai/routing-rules/1"],
        ["POST", "/api/ai/route"],
        ["GET", "/api/ai/tokens"],
        ["POST", "/api/ai/tokens"],
        ["DELETE", "/api/ai/tokens/1"],
        ["GET", "/api/ai/sip-uri"],
        ["GET", "/api/ai/calls"],
      ] as const) {
        expect({
          method,
          path,
          status: (await anon.call(method, path, method === "GET" ? undefined : {})).status,
        }).toEqual({
          method,
          path,
          status: 401,
        });
      }
    } finally {
      await anon.stop();
    }
  });
});

describe("routing rules", () => {
  test("create with the defaults; the list is sorted by priority descending, oldest first on ties", async () => {
    const low = await rule({ name: "Low", priority: undefined, enabled: undefined });
    expect(low.status).toBe(201);
    expect(low.json).toMatchObject({ name: "Low", priority: 0, enabled: true, description: null });
    await rule({ name: "High", priority: 90 });
    await rule({ name: "Mid A", priority: 40 });
    await rule({ name: "Mid B", priority: 40 });
    const list = await s.call("GET", "/api/ai/routing-rules");
    expect(list.json.map((r: any) => r.name)).toEqual(["High", "Mid A", "Mid B", "Low"]);
  });

  test("each validation message, and nothing stored", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: "" }, "name", "Name is required"],
      [{ conditions: "" }, "conditions", "Conditions are required"],
      [{ conditions: undefined }, "conditions", "Conditions are required"],
      [{ action: "" }, "action", "Action is required"],
      [{ actionParams: "" }, "actionParams", "Action parameters are required"],
      [{ actionParams: undefined }, "actionParams", "Action parameters are required"],
      [{ priority: 101 }, "priority", "Priority must be 0-100"],
      [{ priority: -5 }, "priority", "Priority must be 0-100"],
    ];
    for (const [patch, field, message] of cases) {
      const err = await s.refused("ai_routing_rules", () => rule(patch), 400);
      expect(err.fields?.[field]).toBe(message);
    }
  });

  test("conditions and parameters that are not JSON objects are refused with field messages (ADR 0040)", async () => {
    const bad = await s.refused("ai_routing_rules", () => rule({ conditions: "sentiment = negative" }), 400);
    expect(bad.fields?.conditions).toBe("Conditions must be a JSON object");
    const params = await s.refused("ai_routing_rules", () => rule({ actionParams: "{oops" }), 400);
    expect(params.fields?.actionParams).toBe("Action parameters must be a JSON object");
  });

  test("PATCH toggles enabled and edits; 404 for unknown ids; DELETE removes", async () => {
    const { id } = (await rule()).json;
    const off = await s.call("PATCH", `/api/ai/routing-rules/${id}`, { enabled: false });
    expect(off.json).toMatchObject({ ...RULE, description: null, enabled: false });
    const err = await s.refused(
      "ai_routing_rules",
      () => s.call("PATCH", `/api/ai/routing-rules/${id}`, { action: "" }),
      400,
    );
    expect(err.fields?.action).toBe("Action is required");
    expect((await s.call("PATCH", "/api/ai/routing-rules/999", { enabled: true })).status).toBe(404);
    expect((await s.call("DELETE", "/api/ai/routing-rules/999")).status).toBe(404);
    expect((await s.call("DELETE", `/api/ai/routing-rules/${id}`)).status).toBe(200);
    expect((await s.call("GET", "/api/ai/routing-rules")).json).toEqual([]);
  });
});

describe("POST /api/ai/route", () => {
  test("no rules, or no match: the default (transfer_to_ai)", async () => {
    const none = await route({ sentiment: "negative" });
    expect(none.status).toBe(200);
    expect(none.json).toEqual({ matched: false, rule: null, action: "transfer_to_ai", actionParams: {} });
    await rule();
    expect((await route({ sentiment: "positive" })).json.matched).toBe(false);
    expect((await route({ intent: "billing" })).json.matched).toBe(false);
  });

  test("a match returns the rule, its action and parsed parameters; values compare case-insensitively", async () => {
    const { id } = (await rule()).json;
    const res = await route({ sentiment: "NEGATIVE", intent: "billing" });
    expect(res.json).toEqual({
      matched: true,
      rule: { id, name: "Angry callers", priority: 50 },
      action: "route_to_extension",
      actionParams: { extensionId: "200" },
    });
    expect((await route({ Sentiment: " negative " })).json.matched).toBe(true);
  });

  test("priority order: the higher priority wins whatever the creation order", async () => {
    await rule({ name: "Low", priority: 10, action: "send_voicemail" });
    await rule({ name: "High", priority: 90, action: "hangup" });
    await rule({ name: "Mid", priority: 50, action: "route_to_ivr" });
    const res = await route({ sentiment: "negative" });
    expect(res.json.rule.name).toBe("High");
    expect(res.json.action).toBe("hangup");
  });

  test("equal priorities: the oldest rule wins", async () => {
    await rule({ name: "First", priority: 30 });
    await rule({ name: "Second", priority: 30 });
    expect((await route({ sentiment: "negative" })).json.rule.name).toBe("First");
  });

  test("disabled rules are skipped", async () => {
    const high = (await rule({ name: "Disabled high", priority: 100, enabled: false })).json;
    await rule({ name: "Enabled low", priority: 1 });
    expect((await route({ sentiment: "negative" })).json.rule.name).toBe("Enabled low");
    await s.call("PATCH", `/api/ai/routing-rules/${high.id}`, { enabled: true });
    expect((await route({ sentiment: "negative" })).json.rule.name).toBe("Disabled high");
  });

  test("several conditions must all match", async () => {
    await rule({
      name: "Angry billing",
      priority: 80,
      conditions: '{"sentiment":"negative","intent":"billing"}',
      action: "route_to_extension",
      actionParams: '{"extensionId":"300"}',
    });
    await rule({ name: "Any billing", priority: 20, conditions: '{"intent":"billing"}', action: "transfer_to_ai" });
    expect((await route({ sentiment: "negative", intent: "billing" })).json.rule.name).toBe("Angry billing");
    expect((await route({ sentiment: "positive", intent: "billing" })).json.rule.name).toBe("Any billing");
    expect((await route({ sentiment: "negative", intent: "sales" })).json.matched).toBe(false);
  });

  test("other keys, numbers, lists (any of), {} as catch-all; invalid JSON never matches and bad params read as {}", async () => {
    // Rows stored before conditions were checked (ADR 0040): written straight to the table.
    const stored = (name: string, priority: number, conditions: string, actionParams = "{}") =>
      s.db.$client.run(
        "INSERT INTO ai_routing_rules (name, priority, conditions, action, action_params, enabled, created_at) VALUES (?, ?, ?, 'route_to_extension', ?, 1, ?)",
        [name, priority, conditions, actionParams, Date.now()],
      );
    stored("Broken", 100, "not json");
    stored("Array", 99, '["sentiment"]');
    stored("VIP", 90, '{"callerNumber":["+15550001","+15550002"],"vip":true}', "{oops");
    await rule({ name: "Catch-all", priority: 0, conditions: "{}", action: "transfer_to_ai", actionParams: "{}" });
    const vip = await route({ callerNumber: "+15550002", vip: "TRUE" });
    expect(vip.json).toMatchObject({ rule: { name: "VIP" }, actionParams: {} });
    expect((await route({ callerNumber: "+15550003", vip: true })).json.rule.name).toBe("Catch-all");
    expect((await route({})).json.rule.name).toBe("Catch-all");
  });

  test("the facts must be an object of simple values", async () => {
    expect((await s.call("POST", "/api/ai/route", [1, 2])).status).toBe(400);
    const nested = await s.call("POST", "/api/ai/route", { sentiment: { a: 1 } });
    expect(nested.status).toBe(400);
    expect(nested.json.error.fields.sentiment).toBe("Fact values must be text, numbers or booleans");
  });
});

describe("API tokens and transcript intake", () => {
  const TRANSCRIPT = {
    callId: "rtc_abc",
    extensionId: "1001",
    phoneNumber: "+15555550100",
    direction: "inbound",
    transcript: "Caller: I want a refund. Agent: I can help with that.",
    summary: "Refund request",
    sentiment: "negative",
    keywords: ["refund", "billing"],
    duration: 125,
    recordingUrl: "https://recordings.example.com/rtc_abc.wav",
  };
  const intake = (token: string | null, body: unknown = TRANSCRIPT, headers: Record<string, string> = {}) =>
    s.call("POST", "/api/ai/transcripts", body, {
      cookie: "",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    });

  test("a token is shown once, stored hashed, listed without the secret", async () => {
    const created = await s.call("POST", "/api/ai/tokens", { name: "Voice bridge" });
    expect(created.status).toBe(201);
    const { token } = created.json;
    expect(token).toMatch(/^pbxt_[A-Za-z0-9_-]{40,}$/);
    expect(created.json).toMatchObject({
      name: "Voice bridge",
      scope: "transcripts:write",
      prefix: token.slice(0, 9),
      last4: token.slice(-4),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(created.json).not.toHaveProperty("tokenHash");
    const stored = s.db.$client.query("SELECT token_hash FROM api_tokens").get() as { token_hash: string };
    expect(stored.token_hash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
    const list = await s.call("GET", "/api/ai/tokens");
    expect(list.json).toHaveLength(1);
    expect(list.text).not.toContain(token);
    expect(list.text).not.toContain(stored.token_hash);
    expect(list.json[0]).not.toHaveProperty("token");
    const bad = await s.refused("api_tokens", () => s.call("POST", "/api/ai/tokens", { name: " " }), 400);
    expect(bad.fields?.name).toBe("Name is required");
  });

  test("a valid token stores the transcript (201) and records its use; the console lists it", async () => {
    const { token, id } = (await s.call("POST", "/api/ai/tokens", { name: "Bridge" })).json;
    const res = await intake(token);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject(TRANSCRIPT);
    const list = await s.call("GET", "/api/ai/transcripts");
    expect(list.json).toHaveLength(1);
    expect(list.json[0]).toMatchObject(TRANSCRIPT);
    const tokens = (await s.call("GET", "/api/ai/tokens")).json;
    expect(tokens.find((t: any) => t.id === id).lastUsedAt).not.toBeNull();
    const dup = await s.refused("call_transcripts", () => intake(token), 409);
    expect(dup.fields?.callId).toBe("A transcript for this call is already stored");
  });

  test("a missing, unknown or revoked token is 401 and nothing is stored", async () => {
    const { token, id } = (await s.call("POST", "/api/ai/tokens", { name: "Bridge" })).json;
    const missing = await s.refused("call_transcripts", () => intake(null), 401);
    expect(missing.message).toContain("API token required");
    const wrong = await s.refused("call_transcripts", () => intake(`${token}x`), 401);
    expect(wrong.message).toBe("Invalid or revoked API token");
    expect((await intake(null, TRANSCRIPT, { authorization: `Basic ${btoa(`a:${token}`)}` })).status).toBe(401);
    // A browser session is not a token.
    const withSession = await s.call("POST", "/api/ai/transcripts", TRANSCRIPT);
    expect(withSession.status).toBe(401);

    expect((await s.call("DELETE", `/api/ai/tokens/${id}`)).status).toBe(204);
    const listed = (await s.call("GET", "/api/ai/tokens")).json[0];
    expect(typeof listed.revokedAt).toBe("string");
    const revoked = await s.refused("call_transcripts", () => intake(token), 401);
    expect(revoked.message).toBe("Invalid or revoked API token");
    expect((await s.call("DELETE", "/api/ai/tokens/999")).status).toBe(404);
  });

  test("the fields of section 3 are validated", async () => {
    const { token } = (await s.call("POST", "/api/ai/tokens", { name: "Bridge" })).json;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ transcript: "" }, "transcript", "Transcript is required"],
      [{ transcript: undefined }, "transcript", "Transcript is required"],
      [{ duration: 12.5 }, "duration", "Duration must be a whole number of seconds"],
      [{ duration: -1 }, "duration", "Duration must not be negative"],
      [{ duration: "long" }, "duration", "Duration must be a number of seconds"],
      [{ direction: "sideways-and-back" }, "direction", "Direction must be at most 10 characters"],
      [{ keywords: "refund" }, "keywords", "Keywords must be a list of text"],
      [{ recordingUrl: "ftp://x" }, "recordingUrl", "Recording URL must be an http(s) URL"],
    ];
    for (const [patch, field, message] of cases) {
      const err = await s.refused("call_transcripts", () => intake(token, { ...TRANSCRIPT, ...patch }), 400);
      expect({ field, message: err.fields?.[field] }).toEqual({ field, message });
    }
    const minimal = await intake(token, { transcript: "Hello?" });
    expect(minimal.status).toBe(201);
    expect(minimal.json).toMatchObject({ callId: null, duration: null, keywords: [], sentiment: null });
  });

  test("DELETE removes a transcript; unknown ids are 404", async () => {
    const { token } = (await s.call("POST", "/api/ai/tokens", { name: "Bridge" })).json;
    const { id } = (await intake(token)).json;
    expect((await s.call("DELETE", "/api/ai/transcripts/999")).status).toBe(404);
    expect((await s.call("DELETE", `/api/ai/transcripts/${id}`)).status).toBe(204);
    expect((await s.call("GET", "/api/ai/transcripts")).json).toEqual([]);
  });
});
