// The AI voice domain and API tokens called directly (no HTTP): each mutation publishes its event,
// refusals are domain errors and publish nothing, and PATCH keeps the fields left out.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { createApiToken, listApiTokens, requireApiToken, revokeApiToken } from "../../src/server/accounts/tokens";
import { createAssistant, deleteAssistant, listAssistants, updateAssistant } from "../../src/server/ai/assistants";
import { listCallLogs } from "../../src/server/ai/calls";
import { routeDecision } from "../../src/server/ai/routing";
import { createRule, deleteRule, updateRule } from "../../src/server/ai/rules";
import { deleteTranscript, storeTranscript } from "../../src/server/ai/transcripts";
import { receiveOpenAiWebhook } from "../../src/server/ai/webhook";
import { loadConfig } from "../../src/server/config";
import type { Deps } from "../../src/server/core/deps";
import { Conflict, Invalid, NotFound, Unauthenticated, Unavailable } from "../../src/server/core/errors";
import type { CredentialStore } from "../../src/server/integrations/credentials";
import { aiAssistantSchema } from "../../src/shared/ai/assistants";
import { aiRoutingRuleSchema } from "../../src/shared/ai/routing-rules";
import { callTranscriptSchema } from "../../src/shared/ai/transcripts";
import type { WsEvent } from "../../src/shared/ws-events";
import { buildSignedIncomingCall, generateWebhookSecret, OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";

const dir = mkdtempSync(join(tmpdir(), "pbx-ai-domain-"));
const db = openDatabase(join(dir, "test.db"));
const fake = await startFakeOpenAi();
const secret = generateWebhookSecret();
let openAiValues: Record<string, string> = {};
const published: WsEvent[] = [];
const deps = {
  db,
  events: { publish: (e: WsEvent) => published.push(e) },
  now: () => Date.now(),
  config: loadConfig({ PORT: "0", DATA_DIR: dir, LOG_LEVEL: "silent", PBX_OPENAI_URL: fake.baseUrl }, false),
  credentials: {
    values: () => openAiValues,
    isConfigured: () => Boolean(openAiValues.apiKey),
  } as unknown as CredentialStore,
} satisfies Pick<Deps, "db" | "events" | "now" | "config" | "credentials">;

afterAll(async () => {
  await fake.stop();
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  for (const t of ["ai_call_logs", "ai_assistants", "call_transcripts", "ai_routing_rules", "api_tokens"])
    db.$client.run(`DELETE FROM ${t}`);
  published.length = 0;
  openAiValues = {};
});

const ASSISTANT = aiAssistantSchema.parse({
  name: "Front desk",
  model: "gpt-realtime",
  systemPrompt: "You are the receptionist of Example Ltd.",
  extensionId: "1001",
});
const RULE = aiRoutingRuleSchema.parse({
  name: "Angry callers",
  priority: 50,
  conditions: '{"sentiment":"negative"}',
  action: "hangup",
  actionParams: "{}",
});

/** Runs `fn`, expects it to throw `type`, and returns the error. */
async function refusal<E>(type: new (...args: never[]) => E, fn: () => unknown): Promise<E> {
  let thrown: unknown;
  try {
    await fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(type);
  return thrown as E;
}

describe("assistants", () => {
  test("create, update and delete each publish ai-assistants-updated", () => {
    const a = createAssistant(deps, ASSISTANT);
    updateAssistant(deps, String(a.id), { voice: "echo" });
    deleteAssistant(deps, String(a.id));
    expect(published).toEqual([
      { type: "ai-assistants-updated", data: { id: a.id, action: "created" } },
      { type: "ai-assistants-updated", data: { id: a.id, action: "updated" } },
      { type: "ai-assistants-updated", data: { id: a.id, action: "deleted" } },
    ]);
  });

  test("update keeps the fields left out; the merged record is validated; refusals publish nothing", async () => {
    const a = createAssistant(deps, { ...ASSISTANT, temperature: 35, tools: ["end_call"] });
    published.length = 0;
    const b = updateAssistant(deps, String(a.id), { status: "inactive" });
    expect(b).toMatchObject({ ...ASSISTANT, temperature: 35, tools: ["end_call"], status: "inactive" });
    const bad = await refusal(Invalid, () => updateAssistant(deps, String(a.id), { systemPrompt: "short" }));
    expect(bad.fields).toEqual({ systemPrompt: "System prompt must be at least 10 characters" });
    expect((await refusal(NotFound, () => updateAssistant(deps, "999", {}))).message).toBe("AI assistant not found");
    await refusal(NotFound, () => deleteAssistant(deps, "abc"));
    expect(published).toHaveLength(1);
    expect(listAssistants(deps)[0]?.systemPrompt).toBe(ASSISTANT.systemPrompt);
  });
});

describe("routing rules", () => {
  test("create, update and delete publish ai-rules-updated; the decision publishes nothing", async () => {
    const r = createRule(deps, RULE);
    const off = updateRule(deps, String(r.id), { enabled: false });
    expect(off).toMatchObject({ ...RULE, enabled: false });
    expect(routeDecision(deps, { sentiment: "negative" }).matched).toBe(false);
    const bad = await refusal(Invalid, () => updateRule(deps, String(r.id), { action: "" }));
    expect(bad.fields?.action).toBe("Action is required");
    deleteRule(deps, String(r.id));
    expect((await refusal(NotFound, () => deleteRule(deps, String(r.id)))).message).toBe("Routing rule not found");
    expect(published.map((e) => e.data)).toEqual([
      { id: r.id, action: "created" },
      { id: r.id, action: "updated" },
      { id: r.id, action: "deleted" },
    ]);
    expect(published.every((e) => e.type === "ai-rules-updated")).toBe(true);
  });
});

describe("transcripts", () => {
  test("store and delete publish ai-transcripts-updated; a stored call id is a conflict", async () => {
    const input = callTranscriptSchema.parse({ callId: "rtc_1", transcript: "Hello?" });
    const t = storeTranscript(deps, input);
    const dup = await refusal(Conflict, () => storeTranscript(deps, input));
    expect(dup.message).toBe(`A transcript for call rtc_1 is already stored (#${t.id})`);
    expect(dup.fields).toEqual({ callId: "A transcript for this call is already stored" });
    deleteTranscript(deps, String(t.id));
    await refusal(NotFound, () => deleteTranscript(deps, String(t.id)));
    expect(published).toEqual([
      { type: "ai-transcripts-updated", data: { id: t.id, action: "created" } },
      { type: "ai-transcripts-updated", data: { id: t.id, action: "deleted" } },
    ]);
  });
});

describe("API tokens", () => {
  test("create and revoke publish api-tokens-updated; a revoked token no longer authenticates", async () => {
    const t = createApiToken(deps, { name: "Bridge" });
    expect(t.scope).toBe("transcripts:write");
    const headers = new Headers({ authorization: `Bearer ${t.token}` });
    expect(requireApiToken(deps, headers, "transcripts:write")).toBe(t.id);
    revokeApiToken(deps, String(t.id));
    const err = await refusal(Unauthenticated, () => requireApiToken(deps, headers, "transcripts:write"));
    expect(err.message).toBe("Invalid or revoked API token");
    expect(err.scheme).toBe("Bearer");
    await refusal(NotFound, () => revokeApiToken(deps, "999"));
    expect(JSON.stringify(listApiTokens(deps))).not.toContain(t.token);
    expect(published).toEqual([
      { type: "api-tokens-updated", data: { id: t.id, action: "created" } },
      { type: "api-tokens-updated", data: { id: t.id, action: "revoked" } },
    ]);
  });
});

describe("OpenAI webhook", () => {
  const delivery = () => buildSignedIncomingCall(secret, { to: "<sip:1001@sip.api.openai.com;transport=tls>" });

  test("no secret is Unavailable, a bad signature Unauthenticated; neither stores nor publishes", async () => {
    const d = delivery();
    const missing = await refusal(Unavailable, () => receiveOpenAiWebhook(deps, new Headers(d.headers), d.body));
    expect(missing.message).toBe("The OpenAI webhook signing secret is not configured");
    openAiValues = { apiKey: OPENAI_DEFAULT_KEY, webhookSecret: secret };
    const bad = await refusal(Unauthenticated, () =>
      receiveOpenAiWebhook(deps, new Headers(d.headers), d.body.replace("1001", "1002")),
    );
    expect(bad.message).toBe("Webhook signature does not match");
    expect(listCallLogs(deps)).toEqual([]);
    expect(published).toEqual([]);
  });

  test("an answered call is logged and publishes ai-calls-updated; a redelivery publishes nothing", async () => {
    openAiValues = { apiKey: OPENAI_DEFAULT_KEY, webhookSecret: secret };
    createAssistant(deps, ASSISTANT);
    published.length = 0;
    const d = delivery();
    const answer = await receiveOpenAiWebhook(deps, new Headers(d.headers), d.body);
    expect(answer).toMatchObject({ received: true, outcome: "accept" });
    const [log] = listCallLogs(deps);
    expect(published).toEqual([
      { type: "ai-calls-updated", data: { id: log?.id, action: "created", outcome: "accept" } },
    ]);
    const again = await receiveOpenAiWebhook(deps, new Headers(d.headers), d.body);
    expect(again).toMatchObject({ duplicate: true });
    expect(published).toHaveLength(1);
  });
});
