// Post-call analysis (ADR 0071) against the fake OpenAI: the config checked on save (names, reserved names,
// duplicates, sizes), the strict JSON schema built from it, a good answer stored on the call and shown with its
// transcript, every failure (an OpenAI error, a hang past the deadline, a refusal, an answer of the wrong type)
// leaving the call and its transcript stored with the reason, at most a few analyses at once, the search and
// the exports, and a console that stops with an analysis running.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ANALYSIS_LIMITS } from "../../src/server/ai/analysis";
import { DEFAULT_CLASSIFY_LIMITS } from "../../src/server/ai/classify";
import type { WsEvent } from "../../src/shared/ws-events";
import { buildSignedIncomingCall, generateWebhookSecret, startFakeOpenAi } from "../fakes/openai";
import { startAiServer } from "../helpers/ai-server";
import type { TestServer } from "../helpers/server";

const secret = generateWebhookSecret();
const fake = await startFakeOpenAi();
const published: WsEvent[] = [];
const limits = { ...ANALYSIS_LIMITS };
let s: TestServer;
let assistantId = 0;

const CONFIG = {
  enabled: true,
  goal: "The caller leaves a callback number and the order id",
  fields: [
    { name: "callback_number", type: "string", description: "The number to call the caller back on" },
    { name: "order_id", type: "string", description: "The order the call is about" },
    { name: "items", type: "number", description: "How many items the caller mentions" },
    { name: "urgent", type: "boolean", description: "Whether the caller says it is urgent" },
  ],
  model: "gpt-4o-mini",
};

const good = {
  summary: "The caller's order A-1742 has not arrived; they want a call back.",
  callback_number: "+1 555 0199",
  order_id: "A-1742",
  items: 3,
  urgent: true,
  reason: "The caller gave both the number and the order id.",
  success: true,
};

beforeAll(async () => {
  s = await startAiServer(fake, secret, published);
  s.app.aiCalls.logger = () => {};
  s.app.aiCalls.limits.openTimeoutMs = 300;
});
afterAll(async () => {
  Object.assign(ANALYSIS_LIMITS, limits);
  await s.stop();
  await fake.stop();
});
beforeEach(async () => {
  for (const t of ["ai_call_logs", "call_transcripts", "ai_assistants", "extensions"])
    s.db.$client.run(`DELETE FROM ${t}`);
  Object.assign(ANALYSIS_LIMITS, limits);
  // No classification: every chat completion in these tests is an analysis.
  Object.assign(s.app.aiCalls.classifyLimits, DEFAULT_CLASSIFY_LIMITS, { maxPerCall: 0 });
  fake.calls.length = 0;
  fake.state.chatScripts = [];
  fake.state.chatFallback = { content: JSON.stringify(good) };
  fake.state.chatMaxInFlight = 0;
  published.length = 0;
  const res = await s.call("POST", "/api/ai/assistants", {
    name: "Orders desk",
    model: "gpt-realtime",
    systemPrompt: "You are the order desk of Example Ltd. Be brief.",
    extensionId: "2000",
    tools: ["end_call"],
    analysis: CONFIG,
  });
  expect(res.status).toBe(201);
  assistantId = res.json.id;
});
afterEach(async () => {
  fake.releaseChats();
  await until(() => s.app.aiCalls.counts().sessions === 0 && fake.openSidebands() === 0);
  await until(() => fake.state.chatInFlight === 0);
});

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

const chats = () => fake.calls.filter((c) => c.path === "/v1/chat/completions");
/** The i-th chat completion request's body. */
function chatBody(i: number): any {
  const body = chats()[i]?.body;
  if (!body) throw new Error(`no chat completion #${i}`);
  return body;
}
const callLog = (callId: string) =>
  s.db.$client
    .query("SELECT analysis, analysis_error AS error FROM ai_call_logs WHERE call_id = ? AND outcome = 'accept'")
    .get(callId) as { analysis: string | null; error: string | null };
const settled = (callId: string) => {
  const row = callLog(callId);
  return row.analysis !== null || row.error !== null;
};
const transcriptOf = (callId: string) =>
  s.db.$client.query("SELECT id, transcript FROM call_transcripts WHERE call_id = ?").get(callId) as {
    id: number;
    transcript: string;
  } | null;

/** A real call through the webhook and the sideband: the caller's words, then the caller hangs up. */
async function call(lines: string[]): Promise<string> {
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
  for (const [i, text] of lines.entries())
    sb.send({
      type: "conversation.item.input_audio_transcription.completed",
      item_id: `${callId}_${i}`,
      transcript: text,
    });
  await until(() => session.transcriptTurns().length === lines.length);
  sb.hangup();
  await until(() => transcriptOf(callId) !== null);
  return callId;
}

const LINES = ["Hi, my order A-1742 never came.", "Call me back on +1 555 0199, it's urgent."];

describe("the analysis config", () => {
  test("is checked on save: field names, reserved names, duplicates, sizes (400 with the field's path)", async () => {
    const bad = async (analysis: unknown) => {
      const res = await s.call("PATCH", `/api/ai/assistants/${assistantId}`, { analysis });
      expect(res.status).toBe(400);
      return res.json.error.fields as Record<string, string>;
    };
    const field = (over: Record<string, unknown>) => ({ name: "order_id", type: "string", description: "x", ...over });
    expect(await bad({ fields: [field({ name: "Order ID" })] })).toEqual({
      "analysis.fields.0.name": expect.stringContaining("lower case letters"),
    });
    expect(await bad({ fields: [field({ name: "success" })] })).toEqual({
      "analysis.fields.0.name": "'success' is reserved",
    });
    expect(await bad({ fields: [field({}), field({})] })).toEqual({
      "analysis.fields.1.name": "Field name is used twice",
    });
    expect(await bad({ fields: [field({ type: "date" })] })).toEqual({
      "analysis.fields.0.type": "Field type must be string, number or boolean",
    });
    expect(await bad({ fields: [field({ description: "d".repeat(301) })] })).toEqual({
      "analysis.fields.0.description": "Description must be at most 300 characters",
    });
    expect(await bad({ goal: "g".repeat(1001) })).toEqual({ "analysis.goal": "Goal must be at most 1000 characters" });
    const many = Array.from({ length: 21 }, (_, i) => field({ name: `f${i}` }));
    expect(await bad({ fields: many })).toEqual({ "analysis.fields": "At most 20 fields" });
    expect(await bad({ model: "gpt 4o; drop" })).toEqual({
      "analysis.model": "Model must be a model id such as gpt-4o-mini",
    });

    // What was refused changed nothing; a good edit is kept as given.
    const kept = await s.call("GET", "/api/ai/assistants");
    expect(kept.json.find((a: { id: number }) => a.id === assistantId).analysis).toEqual(CONFIG);
    const ok = await s.call("PATCH", `/api/ai/assistants/${assistantId}`, {
      analysis: { ...CONFIG, fields: [field({ name: "ticket_no" })] },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.analysis.fields).toEqual([{ name: "ticket_no", type: "string", description: "x" }]);
  });
});

describe("at the end of a call", () => {
  test("the strict schema built from the config is sent and a good answer is stored with the call", async () => {
    const callId = await call(LINES);
    await until(() => settled(callId));

    const sent = chats();
    expect(sent).toHaveLength(1);
    const body = chatBody(0);
    expect(body.model).toBe("gpt-4o-mini");
    expect(body.response_format.type).toBe("json_schema");
    expect(body.response_format.json_schema.name).toBe("call_analysis");
    expect(body.response_format.json_schema.strict).toBe(true);
    const schema = body.response_format.json_schema.schema;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(["summary", "callback_number", "order_id", "items", "urgent", "reason", "success"]);
    expect(schema.properties.callback_number.type).toEqual(["string", "null"]);
    expect(schema.properties.items.type).toEqual(["number", "null"]);
    expect(schema.properties.urgent.type).toEqual(["boolean", "null"]);
    expect(schema.properties.success.type).toEqual(["boolean", "null"]);
    expect(schema.properties.order_id.description).toContain("The order the call is about");
    // The goal is in the instructions; the transcript is the user message.
    expect(body.messages[0].content).toContain(CONFIG.goal);
    expect(body.messages[1].content).toBe(transcriptOf(callId)?.transcript);

    const stored = JSON.parse(callLog(callId).analysis ?? "null");
    expect(stored).toMatchObject({
      summary: good.summary,
      success: true,
      reason: good.reason,
      fields: { callback_number: "+1 555 0199", order_id: "A-1742", items: 3, urgent: true },
      model: "gpt-4o-mini",
    });
    expect(callLog(callId).error).toBeNull();
    expect(published.some((e) => e.type === "ai-calls-updated")).toBe(true);
    expect(published.some((e) => e.type === "ai-transcripts-updated" && (e.data as any).action === "updated")).toBe(
      true,
    );

    // The transcript's list and detail carry it.
    const t = transcriptOf(callId);
    const page = await s.call("GET", "/api/ai/transcripts?limit=10");
    expect(page.json.items[0].analysis).toMatchObject({ success: true, fields: { order_id: "A-1742" } });
    const detail = await s.call("GET", `/api/ai/transcripts/${t?.id}`);
    expect(detail.json.analysis.fields.callback_number).toBe("+1 555 0199");
  });

  test("without a goal the verdict is null whatever the model says; no analysis: no request", async () => {
    await s.call("PATCH", `/api/ai/assistants/${assistantId}`, { analysis: { ...CONFIG, goal: "" } });
    const callId = await call(LINES);
    await until(() => settled(callId));
    const stored = JSON.parse(callLog(callId).analysis ?? "null");
    expect(stored.success).toBeNull();
    expect(stored.reason).toBe("");
    expect(chatBody(0).messages[0].content).toContain("No goal is stated");

    for (const analysis of [null, { ...CONFIG, enabled: false }]) {
      await s.call("PATCH", `/api/ai/assistants/${assistantId}`, { analysis });
      const other = await call(LINES);
      expect(transcriptOf(other)).not.toBeNull();
      expect(callLog(other)).toEqual({ analysis: null, error: null });
    }
    expect(chats()).toHaveLength(1);
  });

  test("a long transcript is cut to the cap, keeping its start and its end", async () => {
    ANALYSIS_LIMITS.maxTranscriptChars = 100;
    const callId = await call([`FIRST ${"a".repeat(300)}`, `${"b".repeat(300)} LAST`]);
    await until(() => settled(callId));
    const sent = chatBody(0).messages[1].content as string;
    expect(sent.startsWith("Caller: FIRST")).toBe(true);
    expect(sent.endsWith("LAST")).toBe(true);
    expect(sent).toContain("characters left out");
    expect(sent.length).toBeLessThan(160);
  });
});

describe("a failing analysis leaves the call stored", () => {
  const failures: [string, () => void, RegExp][] = [
    [
      "an OpenAI error",
      () => {
        fake.state.chatScripts = [{ status: 500, message: "The server had an error" }];
      },
      /The server had an error|500/,
    ],
    [
      "a hang past the deadline",
      () => {
        ANALYSIS_LIMITS.deadlineMs = 300;
        fake.state.chatScripts = [{ hang: true }];
      },
      /did not finish within/,
    ],
    [
      "a refusal",
      () => {
        fake.state.chatScripts = [{ refusal: "I can't help with that." }];
      },
      /refused/,
    ],
    [
      "an answer of the wrong type",
      () => {
        fake.state.chatScripts = [{ content: JSON.stringify({ ...good, items: "three" }) }];
      },
      /did not match the analysis schema \(items\)/,
    ],
    [
      "an answer with a property the schema does not have",
      () => {
        fake.state.chatScripts = [{ content: JSON.stringify({ ...good, extra: 1 }) }];
      },
      /did not match the analysis schema/,
    ],
    [
      "an answer that is not JSON",
      () => {
        fake.state.chatScripts = [{ content: "Sure! Here is the analysis:" }];
      },
      /not JSON/,
    ],
  ];
  for (const [what, arrange, reason] of failures)
    test(what, async () => {
      arrange();
      const callId = await call(LINES);
      await until(() => settled(callId));
      const row = callLog(callId);
      expect(row.analysis).toBeNull();
      expect(row.error).toMatch(reason);
      expect(row.error).not.toContain("sk-test");
      expect(transcriptOf(callId)?.transcript).toContain("A-1742");
      const page = await s.call("GET", "/api/ai/transcripts?limit=10");
      expect(page.json.items).toHaveLength(1);
      expect(page.json.items[0].analysis).toBeNull();
    });
});

describe("many calls ending at once", () => {
  test("at most `concurrency` analyses run; the others wait and all finish", async () => {
    ANALYSIS_LIMITS.concurrency = 2;
    fake.state.chatScripts = Array.from({ length: 5 }, () => ({ hang: true }) as const);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await call([`Order A-${i} please.`]));
    await until(() => fake.state.chatInFlight === 2);
    expect(chats()).toHaveLength(2);
    // Each release answers the hung requests (503s), which lets the waiting ones go, two at a time.
    while (!ids.every(settled)) {
      fake.releaseChats();
      await Bun.sleep(10);
    }
    expect(fake.state.chatMaxInFlight).toBe(2);
    expect(chats()).toHaveLength(5);
    for (const id of ids) expect(callLog(id).error).toContain("released");
  });
});

describe("search and export", () => {
  async function analysedCalls() {
    fake.state.chatScripts = [
      { content: JSON.stringify(good) },
      {
        content: JSON.stringify({
          ...good,
          summary: "A question about opening hours.",
          callback_number: null,
          order_id: "Z-9",
          items: null,
          urgent: false,
          success: false,
          reason: 'No callback number, "none" given',
        }),
      },
    ];
    const first = await call(LINES);
    await until(() => settled(first));
    const second = await call(["When are you open?"]);
    await until(() => settled(second));
    return { first, second };
  }

  test("the search finds calls by an analysis field value and summary; the field filter by name=value", async () => {
    const { first, second } = await analysedCalls();
    const found = async (query: string) =>
      ((await s.call("GET", `/api/ai/transcripts?limit=10&${query}`)).json.items as { callId: string }[]).map(
        (t) => t.callId,
      );
    // "z-9" is only in the analysis (case-insensitively), as is "opening hours".
    expect(await found("q=z-9")).toEqual([second]);
    expect(await found(`q=${encodeURIComponent("OPENING HOURS")}`)).toEqual([second]);
    expect(await found(`q=${encodeURIComponent("555 0199")}`)).toEqual([first]);
    expect(await found(`field=${encodeURIComponent("order_id=a-1742")}`)).toEqual([first]);
    expect(await found(`field=${encodeURIComponent("urgent=false")}`)).toEqual([second]);
    expect(await found(`field=${encodeURIComponent("items=3")}`)).toEqual([first]);
    expect(await found(`field=${encodeURIComponent("order_id=A-17")}`)).toEqual([]);
    // Each transcript carries its own call's analysis.
    const all = await s.call("GET", "/api/ai/transcripts?limit=10");
    expect(all.json.items.map((t: any) => [t.callId, t.analysis.fields.order_id])).toEqual([
      [second, "Z-9"],
      [first, "A-1742"],
    ]);
    const page = await s.call("GET", `/api/ai/transcripts?limit=10&field=${encodeURIComponent("order_id=Z-9")}`);
    expect(page.json).toMatchObject({ total: 2, matched: 1 });
    const refused = await s.call("GET", `/api/ai/transcripts?limit=10&field=${encodeURIComponent("Order Id")}`);
    expect(refused.status).toBe(400);
    expect(refused.json.error.fields.field).toContain("name=value");
  });

  test("the CSV has the analysis columns and one per field; the JSON export has the analysis", async () => {
    const { first, second } = await analysedCalls();
    const csv = await s.call("GET", "/api/ai/transcripts/export.csv");
    expect(csv.status).toBe(200);
    const lines = csv.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,created_at,call_id,phone_number,extension,direction,duration_seconds,sentiment,summary,keywords,recording_url,transcript,analysis_summary,analysis_success,analysis_reason,analysis_callback_number,analysis_items,analysis_order_id,analysis_urgent",
    );
    expect(lines).toHaveLength(3);
    const secondLine = lines[1] ?? "";
    expect(secondLine).toContain(second);
    expect(secondLine).toEndWith(
      `A question about opening hours.,false,"No callback number, ""none"" given",,,Z-9,false`,
    );
    const firstLine = lines[2] ?? "";
    expect(firstLine).toContain(first);
    // A cell that starts like a formula is prefixed with ' (csvCell).
    expect(firstLine).toEndWith(`true,The caller gave both the number and the order id.,'+1 555 0199,3,A-1742,true`);

    // Filtered: only the columns of the calls exported.
    const filtered = await s.call("GET", `/api/ai/transcripts/export.csv?field=${encodeURIComponent("order_id=z-9")}`);
    expect(filtered.text.split("\r\n")).toHaveLength(3);

    const json = await s.call("GET", "/api/ai/transcripts/export.json");
    expect(json.json.map((t: any) => t.analysis?.fields.order_id)).toEqual(["Z-9", "A-1742"]);
  });
});

describe("the console stopping", () => {
  test("drops a running analysis without writing after the database closes", async () => {
    const other = await startAiServer(fake, secret);
    other.app.aiCalls.logger = () => {};
    other.app.aiCalls.classifyLimits.maxPerCall = 0;
    try {
      const res = await other.call("POST", "/api/ai/assistants", {
        name: "Orders desk",
        model: "gpt-realtime",
        systemPrompt: "You are the order desk of Example Ltd. Be brief.",
        extensionId: "2000",
        analysis: CONFIG,
      });
      expect(res.status).toBe(201);
      fake.state.chatScripts = [{ hang: true }];
      const d = buildSignedIncomingCall(secret, { to: "<sip:2000@sip.api.openai.com;transport=tls>" });
      const callId = d.event.data.call_id;
      const sb = fake.sideband(callId);
      await other.call("POST", "/api/ai/openai/webhook", d.body, { cookie: "", ...d.headers });
      await until(() => sb.open);
      sb.send({ type: "conversation.item.input_audio_transcription.completed", item_id: "i1", transcript: "Hello." });
      await until(() => other.app.aiCalls.get(callId)?.transcriptTurns().length === 1);
      sb.hangup();
      await until(() => fake.state.chatInFlight === 1);
      expect(chatBody(0).response_format.json_schema.name).toBe("call_analysis");
      const started = Date.now();
      // Stopping aborts the request: it does not wait for the model (the deadline is a minute).
      await other.stop();
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await other.stop().catch(() => {});
    }
  });
});
