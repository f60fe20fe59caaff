// Scripted test conversations of an AI assistant (ADR 0072) against the fake OpenAI's text-mode model: scripts
// checked on save (400 with field paths), a suite that passes, then a prompt change that makes its re-run (queued
// by the change itself) fail naming the expected and the actual transfer target, the history in order, a model
// that fails or never answers (run state error, said why), the session config the runner sends (text only, the
// assistant's tools), and no API key in anything stored.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { closeTestRuns, TEST_RUN_LIMITS, testRunQueue } from "../../src/server/ai/test-runner";
import { aiTestScriptRoutes } from "../../src/server/routes/ai-test-scripts";
import type { TestRun, TestScript } from "../../src/shared/ai/test-scripts";
import type { WsEvent } from "../../src/shared/ws-events";
import { generateWebhookSecret, OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { rulesModel } from "../fakes/openai-text-model";
import { startAiServer } from "../helpers/ai-server";
import { startTestServer, type TestServer } from "../helpers/server";

const fake = await startFakeOpenAi();
const published: WsEvent[] = [];
const limits = { ...TEST_RUN_LIMITS };
let s: TestServer;
let assistantId: number;

const PROMPT = "You are the receptionist of Example Ltd. Billing questions go to extension 2001. Be brief.";
const BILLING = {
  name: "Billing goes to accounts",
  turns: ["Hello", "I have a billing question about my invoice"],
  expect: { tool: { name: "transfer_call", args: { extension: "2001" } }, transferTo: "2001" },
};

beforeAll(async () => {
  s = await startAiServer(fake, generateWebhookSecret(), published);
  fake.text.textOnly = true;
});
afterAll(async () => {
  Object.assign(TEST_RUN_LIMITS, limits);
  await closeTestRuns(s.db);
  await s.stop();
  await fake.stop();
});
beforeEach(async () => {
  s.db.$client.run("DELETE FROM ai_assistants");
  Object.assign(TEST_RUN_LIMITS, limits);
  fake.text.model = rulesModel;
  fake.text.mode = "open";
  fake.text.sessions.length = 0;
  fake.calls.length = 0;
  published.length = 0;
  const res = await s.call("POST", "/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: PROMPT,
    voice: "marin",
    extensionId: "2000",
    tools: ["transfer_call", "end_call"],
  });
  expect(res.status).toBe(201);
  assistantId = res.json.id;
});
afterEach(async () => {
  // Every run ends and leaves no session open at the fake.
  await testRunQueue(s.app).idle();
  await until(() => fake.text.openSessions() === 0);
});

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

const addScript = async (body: unknown = BILLING): Promise<TestScript> => {
  const res = await s.call("POST", `/api/ai/assistants/${assistantId}/test-scripts`, body);
  expect(res.status, res.text).toBe(201);
  return res.json;
};
const history = async (): Promise<TestRun[]> => {
  const res = await s.call("GET", `/api/ai/assistants/${assistantId}/test-runs`);
  expect(res.status).toBe(200);
  return res.json;
};
/** Runs one script and answers its run once it has ended. */
async function runToEnd(scriptId: number): Promise<TestRun> {
  const res = await s.call("POST", `/api/ai/test-scripts/${scriptId}/run`, {});
  expect(res.status, res.text).toBe(202);
  expect(res.json.state).toBe("running");
  await testRunQueue(s.app).idle();
  return (await history()).find((r) => r.id === res.json.id) as TestRun;
}

describe("scripts", () => {
  test("are checked on save: 400 with the field paths, nothing stored", async () => {
    const path = `/api/ai/assistants/${assistantId}/test-scripts`;
    const cases: [unknown, Record<string, string>][] = [
      [
        { name: "", turns: [], expect: {} },
        { name: "Name is required", turns: "Add at least one caller turn" },
      ],
      [
        { name: "x", turns: ["hi", "  "], expect: { transferTo: "sales" } },
        {
          "turns.1": "A caller turn is empty",
          "expect.transferTo": "Transfer target must be digits, optionally starting with +",
        },
      ],
      [
        { name: "x", turns: ["a".repeat(1001)], expect: { tool: { name: "format_disk" } } },
        {
          "turns.0": "A caller turn must be at most 1000 characters",
          "expect.tool.name": "Tool must be one of transfer_call, end_call, take_message",
        },
      ],
      [
        {
          name: "x",
          turns: Array(21).fill("hi"),
          expect: { tool: { name: "transfer_call", args: { extension: { n: 1 } } } },
        },
        {
          turns: "At most 20 caller turns",
          "expect.tool.args.extension": "An argument's value must be text, a number or true/false",
        },
      ],
      [
        { name: "x", turns: ["hi"], expect: {} },
        { expect: "Say what must happen: a tool call, a transfer target, a verdict or words in a reply" },
      ],
      // A verdict is the analysis' answer: without the assistant's goal there is none to expect.
      [
        { name: "x", turns: ["hi"], expect: { verdict: "success" } },
        { "expect.verdict": expect.stringContaining("goal") as unknown as string },
      ],
    ];
    for (const [body, fields] of cases) {
      const err = await s.refused("ai_test_scripts", () => s.call("POST", path, body), 400);
      expect(err.fields).toMatchObject(fields);
    }
    expect((await s.call("POST", "/api/ai/assistants/999/test-scripts", BILLING)).status).toBe(404);
  });

  test("are listed with their last run, edited whole and deleted with their history", async () => {
    const script = await addScript();
    expect(script).toMatchObject({ name: BILLING.name, turns: BILLING.turns, expect: BILLING.expect, lastRun: null });
    expect(published.some((e) => e.type === "ai-test-scripts-updated")).toBe(true);
    const changed = await s.call("PUT", `/api/ai/test-scripts/${script.id}`, {
      ...BILLING,
      name: "Renamed",
      expect: { replyContains: "help" },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.expect).toEqual({ replyContains: "help" });
    const run = await runToEnd(script.id);
    expect(run.state).toBe("passed");
    const list = (await s.call("GET", `/api/ai/assistants/${assistantId}/test-scripts`)).json as TestScript[];
    expect(list.map((x) => [x.name, x.lastRun?.id, x.lastRun?.state])).toEqual([["Renamed", run.id, "passed"]]);
    expect((await s.call("DELETE", `/api/ai/test-scripts/${script.id}`)).status).toBe(204);
    expect(await history()).toEqual([]);
    expect((await s.call("PUT", `/api/ai/test-scripts/${script.id}`, BILLING)).status).toBe(404);
  });
});

describe("the routes", () => {
  test("every write publishes the event it declares (the walk in events.test.ts needs the PBX testbed)", async () => {
    const script = await addScript();
    const other = await addScript({ ...BILLING, name: "Other" });
    const calls: [string, string, unknown][] = [
      ["POST", `/api/ai/assistants/${assistantId}/test-scripts`, { ...BILLING, name: "Third" }],
      ["PUT", `/api/ai/test-scripts/${script.id}`, BILLING],
      ["POST", `/api/ai/test-scripts/${script.id}/run`, {}],
      ["POST", `/api/ai/assistants/${assistantId}/test-scripts/run`, {}],
      ["DELETE", `/api/ai/test-scripts/${other.id}`, undefined],
    ];
    for (const [method, path, body] of calls) {
      const r = aiTestScriptRoutes.find(
        (x) => x.method === method && new RegExp(`^${x.path.replace(/:\w+/g, "\\d+")}$`).test(path),
      );
      published.length = 0;
      const res = await s.call(method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
      expect(
        published.some((e) => r?.publishes?.includes(e.type)),
        `${method} ${path}`,
      ).toBe(true);
      await testRunQueue(s.app).idle();
    }
  });
});

describe("a regression suite", () => {
  test("passes, then fails after a prompt change the script detects: the re-run is queued by the change", async () => {
    const script = await addScript();
    await addScript({ name: "Greets", turns: ["Hello there"], expect: { replyContains: "how can i help" } });
    const all = await s.call("POST", `/api/ai/assistants/${assistantId}/test-scripts/run`, {});
    expect(all.status).toBe(202);
    expect(all.json.map((r: TestRun) => [r.scriptName, r.trigger, r.state])).toEqual([
      ["Billing goes to accounts", "manual", "running"],
      ["Greets", "manual", "running"],
    ]);
    await testRunQueue(s.app).idle();
    let runs = await history();
    expect(runs.map((r) => [r.scriptName, r.state])).toEqual([
      ["Greets", "passed"],
      ["Billing goes to accounts", "passed"],
    ]);
    const passed = runs[1] as TestRun;
    expect(passed.result?.toolCalls).toEqual([{ name: "transfer_call", args: { extension: "2001" } }]);
    expect(passed.result?.turns).toEqual([
      { speaker: "caller", text: "Hello" },
      { speaker: "assistant", text: "How can I help you today?" },
      { speaker: "caller", text: "I have a billing question about my invoice" },
    ]);
    expect(passed.result?.failures).toEqual([]);

    // Runs go one at a time: the two conversations never overlapped at the fake.
    expect(fake.text.sessions).toHaveLength(2);

    // Billing moves to 2002: the edit alone queues every script again, and the billing script fails.
    published.length = 0;
    const edit = await s.call("PATCH", `/api/ai/assistants/${assistantId}`, {
      systemPrompt: PROMPT.replace("2001", "2002"),
    });
    expect(edit.status).toBe(200);
    expect(published.some((e) => e.type === "ai-test-runs-updated")).toBe(true);
    await testRunQueue(s.app).idle();
    runs = await history();
    expect(runs.map((r) => [r.scriptName, r.trigger, r.state])).toEqual([
      ["Greets", "prompt-change", "passed"],
      ["Billing goes to accounts", "prompt-change", "failed"],
      ["Greets", "manual", "passed"],
      ["Billing goes to accounts", "manual", "passed"],
    ]);
    const failed = runs[1] as TestRun;
    expect(failed.result?.failures).toEqual([
      'Expected a call of transfer_call with {"extension":"2001"}, but the assistant called transfer_call {"extension":"2002"}',
      "Expected a transfer to 2001, but the assistant transferred to 2002",
    ]);
    // Each run names the version of the assistant it tested.
    expect(failed.promptHash).not.toBe(passed.promptHash);
    expect(runs[0]?.promptHash).toBe(failed.promptHash);
    const list = (await s.call("GET", `/api/ai/assistants/${assistantId}/test-scripts`)).json as TestScript[];
    expect(list.find((x) => x.id === script.id)?.lastRun?.state).toBe("failed");

    // The history's limit, newest first.
    const two = await s.call("GET", `/api/ai/assistants/${assistantId}/test-runs?limit=2`);
    expect(two.json.map((r: TestRun) => r.id)).toEqual(runs.slice(0, 2).map((r) => r.id));
    expect((await s.call("GET", `/api/ai/assistants/${assistantId}/test-runs?limit=0`)).status).toBe(400);
  });

  test("an edit that changes neither prompt, tools nor model runs nothing; a tools change does", async () => {
    await addScript();
    await s.call("PATCH", `/api/ai/assistants/${assistantId}`, { name: "Reception", voice: "cedar" });
    await testRunQueue(s.app).idle();
    expect(await history()).toEqual([]);
    // Without transfer_call the model cannot transfer: the change is caught too.
    await s.call("PATCH", `/api/ai/assistants/${assistantId}`, { tools: ["end_call"] });
    await testRunQueue(s.app).idle();
    const [run] = await history();
    expect(run?.trigger).toBe("prompt-change");
    expect(run?.state).toBe("failed");
    expect(run?.result?.failures).toContain("Expected a transfer to 2001, but the assistant did not transfer");
  });

  test("the session is text only with the assistant's model, instructions and tools; tool calls get simulated outputs", async () => {
    const script = await addScript({
      name: "Bye",
      turns: ["Bye now"],
      expect: { tool: { name: "end_call" } },
    });
    await s.call("PATCH", `/api/ai/assistants/${assistantId}`, {
      systemPrompt: `${PROMPT} End the call when the caller says goodbye.`,
    });
    await testRunQueue(s.app).idle();
    fake.text.sessions.length = 0;
    const run = await runToEnd(script.id);
    expect(run.state).toBe("passed");
    const upgrade = fake.calls.find((c) => c.path === "/v1/realtime");
    expect(upgrade?.query).toEqual({ model: "gpt-realtime" });
    expect(upgrade?.headers.authorization).toBe(`Bearer ${OPENAI_DEFAULT_KEY}`);
    const [session] = fake.text.sessions;
    const update = session?.received[0] as { type: string; session: Record<string, any> };
    expect(update.type).toBe("session.update");
    expect(update.session).toMatchObject({
      type: "realtime",
      model: "gpt-realtime",
      instructions: expect.stringContaining("End the call when the caller says goodbye."),
      output_modalities: ["text"],
    });
    expect(update.session.audio).toBeUndefined();
    expect(update.session.tools.map((t: { name: string }) => t.name)).toEqual(["transfer_call", "end_call"]);
    // The end_call is answered as the live sideband would, and the conversation ends there.
    const outputs = session?.received.filter((e) => (e.item as { type?: string })?.type === "function_call_output");
    expect(outputs?.map((e) => JSON.parse(String((e.item as { output: string }).output)))).toEqual([{ ok: true }]);
    expect(session?.received.filter((e) => e.type === "response.create")).toHaveLength(1);
  });

  test("the fake refuses a session with audio output; the runner's session passes that check", async () => {
    const script = await addScript();
    {
      const ws = new WebSocket(`${fake.url.replace(/^http/, "ws")}/v1/realtime?model=gpt-realtime`, {
        headers: { Authorization: `Bearer ${OPENAI_DEFAULT_KEY}` },
      } as unknown as string[]);
      const answer = await new Promise<string>((resolve) => {
        ws.onopen = () =>
          ws.send(
            JSON.stringify({ type: "session.update", session: { type: "realtime", output_modalities: ["audio"] } }),
          );
        ws.onmessage = (m) => {
          const e = JSON.parse(String(m.data));
          if (e.type === "error" || e.type === "session.updated") resolve(`${e.type} ${e.error?.param ?? ""}`);
        };
      });
      ws.close();
      expect(answer).toBe("error session.output_modalities");
    }
    // The runner's own config passes the same check.
    expect((await runToEnd(script.id)).state).toBe("passed");
  });
});

describe("a verdict", () => {
  test("is the post-call analysis' answer on the conversation, checked against the expected one", async () => {
    const goal = "The caller reaches the billing team";
    await s.call("PATCH", `/api/ai/assistants/${assistantId}`, {
      analysis: { enabled: true, goal, fields: [], model: "gpt-4o-mini" },
    });
    const script = await addScript({ ...BILLING, expect: { verdict: "success" } });
    const answer = (success: boolean) => ({
      content: JSON.stringify({ summary: "A billing question.", success, reason: "Judged." }),
    });
    fake.state.chatScripts = [answer(true), answer(false)];
    const passed = await runToEnd(script.id);
    expect(passed.state).toBe("passed");
    expect(passed.result?.verdict).toBe("success");
    const chat = fake.calls.filter((c) => c.path === "/v1/chat/completions").at(-1)?.body as any;
    expect(chat.messages[0].content).toContain(goal);
    expect(chat.messages[1].content).toBe(
      "Caller: Hello\nAssistant: How can I help you today?\nCaller: I have a billing question about my invoice",
    );
    const failed = await runToEnd(script.id);
    expect(failed.state).toBe("failed");
    expect(failed.result?.failures).toEqual(["Expected the verdict success, but the analysis said failure"]);
  });
});

describe("a run that cannot be judged", () => {
  test("a model that fails: state error with the model's reason, no result", async () => {
    const script = await addScript();
    fake.text.model = () => ({ fail: "The server had an error while processing your request." });
    const run = await runToEnd(script.id);
    expect(run.state).toBe("error");
    expect(run.detail).toBe("the model's response failed: The server had an error while processing your request.");
    expect(run.result).toBeNull();
    expect(run.finishedAt).not.toBeNull();
  });

  test("a model that never answers: state error at the response deadline", async () => {
    const script = await addScript();
    TEST_RUN_LIMITS.responseTimeoutMs = 300;
    fake.text.model = () => ({ hang: true });
    const run = await runToEnd(script.id);
    expect(run.state).toBe("error");
    expect(run.detail).toBe("no response within 300 ms");
  });

  test("OpenAI down: the run is an error; without an API key a run is refused (503)", async () => {
    const script = await addScript();
    fake.text.mode = "refuse";
    const run = await runToEnd(script.id);
    expect(run.state).toBe("error");
    expect(run.detail).toBe("the connection failed or was refused");

    const bare = await startTestServer();
    try {
      await bare.setup();
      const a = await bare.call("POST", "/api/ai/assistants", {
        name: "Bare",
        model: "gpt-realtime",
        systemPrompt: PROMPT,
        tools: ["transfer_call"],
      });
      const sc = await bare.call("POST", `/api/ai/assistants/${a.json.id}/test-scripts`, BILLING);
      const refused = await bare.call("POST", `/api/ai/test-scripts/${sc.json.id}/run`, {});
      expect(refused.status).toBe(503);
      expect(refused.json.error.message).toContain("OpenAI is not set up");
      // Nor does a prompt change queue anything without OpenAI.
      await bare.call("PATCH", `/api/ai/assistants/${a.json.id}`, { systemPrompt: `${PROMPT} Be kind.` });
      expect((await bare.call("GET", `/api/ai/assistants/${a.json.id}/test-runs`)).json).toEqual([]);
    } finally {
      await closeTestRuns(bare.db);
      await bare.stop();
    }
  });

  test("the API key is never in a stored run, even when OpenAI echoes it", async () => {
    const script = await addScript();
    fake.text.model = () => ({ fail: `Incorrect API key provided: ${OPENAI_DEFAULT_KEY}` });
    const run = await runToEnd(script.id);
    expect(run.state).toBe("error");
    expect(run.detail).not.toContain(OPENAI_DEFAULT_KEY);
    fake.text.model = rulesModel;
    await runToEnd(script.id);
    expect(s.snapshot("ai_test_runs")).not.toContain(OPENAI_DEFAULT_KEY);
    expect(s.snapshot("ai_test_scripts")).not.toContain(OPENAI_DEFAULT_KEY);
  });
});
