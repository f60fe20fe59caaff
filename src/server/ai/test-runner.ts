/**
 * Runs an assistant's test scripts (ADR 0072): each script is one conversation in a Realtime session in text
 * mode against the assistant's own model, instructions and tools. The caller's turns are sent as user messages;
 * the tools the model calls are answered with simulated outputs (nothing is transferred, ended or stored), as the
 * live sideband answers them; a transfer or an end ends the conversation. Then the script's expectations are
 * checked (tool and arguments, transfer target, words in a reply, the post-call analysis' verdict) and the run is
 * stored as passed, failed (with each failure in words) or error (the model could not be asked).
 *
 * Runs go one at a time per console, in the order asked (a queue per database), each with an overall deadline.
 * An assistant whose prompt, tools or model change has all its scripts queued again (`rerunOnPromptChange`).
 */
import { and, eq } from "drizzle-orm";
import type {
  ConversationItem,
  RealtimeServerEvent,
  RealtimeSessionCreateRequest,
} from "openai/resources/realtime/realtime";
import type { Db } from "../../db/client";
import { aiAssistants, aiTestRuns, aiTestScripts } from "../../db/schema";
import { functionToolsOf } from "../../shared/ai/assistants";
import type { TestRunResult, TestRunTrigger, TestScriptExpect } from "../../shared/ai/test-scripts";
import { OpenAiTextSession, TextSessionError } from "../clients/openai-text-session";
import type { Deps } from "../core/deps";
import { Unavailable } from "../core/errors";
import { redact } from "../redact";
import { AnalysisFailed, analyseTranscript } from "./analysis";
import type { AssistantRow } from "./records";
import { findAssistantRow, findScript, runsById, type ScriptRow, scriptsOf } from "./test-scripts";
import { parseArgs } from "./tool-args";

export type RunnerDeps = Pick<Deps, "db" | "events" | "now" | "config" | "credentials">;

export interface TestRunLimits {
  openTimeoutMs: number;
  /** How long one model response may take. */
  responseTimeoutMs: number;
  /** The whole run: open, every turn, the analysis. */
  runTimeoutMs: number;
  maxMessageChars: number;
  /** Responses the model may chain in one caller turn (tool call → output → response …). */
  maxResponsesPerTurn: number;
}

/** Mutable so a test can shorten the deadlines. */
export const TEST_RUN_LIMITS: TestRunLimits = {
  openTimeoutMs: 10_000,
  responseTimeoutMs: 30_000,
  runTimeoutMs: 180_000,
  maxMessageChars: 1_000_000,
  maxResponsesPerTurn: 4,
};

/** Which version of the assistant a run tested: SHA-256 of its model, prompt and tools. */
export function promptHash(a: Pick<AssistantRow, "model" | "systemPrompt" | "tools">): string {
  return new Bun.CryptoHasher("sha256")
    .update(JSON.stringify([a.model, a.systemPrompt, [...a.tools].sort()]))
    .digest("hex");
}

/** The session a test conversation runs in: the assistant's model, instructions and tools, text out, no audio. */
export function textSessionFor(a: AssistantRow): RealtimeSessionCreateRequest {
  const tools = functionToolsOf(a.tools);
  return {
    type: "realtime",
    model: a.model,
    instructions: a.systemPrompt,
    output_modalities: ["text"],
    ...(tools.length ? { tools, tool_choice: "auto" as const } : {}),
  };
}

/** What a simulated tool answers the model (as the live sideband would after doing it). */
function simulatedOutput(name: string, args: Record<string, unknown>): Record<string, unknown> {
  switch (name) {
    case "transfer_call":
      return { ok: true, transferredTo: String(args.extension ?? "") };
    case "end_call":
    case "take_message":
      return { ok: true };
    default:
      return { ok: false, error: `unknown tool ${name}` };
  }
}

class RunError extends Error {}

interface Conversation {
  turns: TestRunResult["turns"];
  toolCalls: TestRunResult["toolCalls"];
}

/** The assistant's words in one finished response's output items (when no text event carried them). */
function textOf(items: ConversationItem[] | undefined): string[] {
  const out: string[] = [];
  for (const item of items ?? []) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    for (const part of item.content ?? []) {
      const text = part.text ?? part.transcript;
      if (text) out.push(text);
    }
  }
  return out;
}

/**
 * The conversation of one script: the session set up, then per caller turn a user message and responses
 * until the model stops calling tools (each call answered with its simulated output), or a transfer or an
 * end closes the conversation.
 */
async function converse(session: OpenAiTextSession, a: AssistantRow, turns: string[], deadline: number) {
  const limits = TEST_RUN_LIMITS;
  const left = () => Math.min(limits.responseTimeoutMs, deadline - Date.now());
  const fail = (e: RealtimeServerEvent & { type: "error" }) =>
    new RunError(session.redact(`OpenAI refused: ${e.error?.message ?? "unknown error"}`));
  const c: Conversation = { turns: [], toolCalls: [] };

  session.send({ type: "session.update", session: textSessionFor(a) });
  for (;;) {
    const e = await session.next(left(), "session.updated");
    if (e.type === "session.updated") break;
    if (e.type === "error") throw fail(e);
  }

  for (const text of turns) {
    c.turns.push({ speaker: "caller", text });
    session.send({
      type: "conversation.item.create",
      item: { type: "message", role: "user", content: [{ type: "input_text", text }] },
    });
    for (let response = 0; ; response++) {
      if (response >= limits.maxResponsesPerTurn)
        throw new RunError(`the model kept calling tools: ${limits.maxResponsesPerTurn} responses in one turn`);
      session.send({ type: "response.create" });
      const said: string[] = [];
      const calls = new Map<string, { name: string; args: string }>();
      let done: (RealtimeServerEvent & { type: "response.done" }) | null = null;
      while (!done) {
        const e = await session.next(left(), "response");
        if (e.type === "error") throw fail(e);
        if (e.type === "response.output_text.done") said.push(e.text);
        else if (e.type === "response.function_call_arguments.done")
          calls.set(e.call_id, { name: e.name, args: e.arguments });
        else if (e.type === "response.done") done = e;
      }
      const r = done.response;
      if (r.status === "failed" || r.status === "incomplete" || r.status === "cancelled") {
        const why = r.status_details?.error?.message ?? r.status_details?.reason ?? r.status;
        throw new RunError(session.redact(`the model's response ${r.status}: ${why}`));
      }
      // The finished response is the record: its items carry what the events may have left out.
      if (!said.length) said.push(...textOf(r.output));
      for (const item of r.output ?? [])
        if (item.type === "function_call" && item.call_id && !calls.has(item.call_id))
          calls.set(item.call_id, { name: item.name, args: item.arguments });
      for (const words of said) if (words.trim()) c.turns.push({ speaker: "assistant", text: words.trim() });
      if (!calls.size) break;
      let ended = false;
      for (const [callId, call] of calls) {
        const args = parseArgs(call.args || "{}") ?? {};
        c.toolCalls.push({ name: call.name, args });
        session.send({
          type: "conversation.item.create",
          item: {
            type: "function_call_output",
            call_id: callId,
            output: JSON.stringify(simulatedOutput(call.name, args)),
          },
        });
        if (call.name === "transfer_call" || call.name === "end_call") ended = true;
      }
      if (ended) return c;
    }
  }
  return c;
}

const quote = (v: unknown) => JSON.stringify(v);
const sameValue = (want: string | number | boolean, got: unknown) =>
  typeof want === "string" ? String(got ?? "").trim() === want : got === want;

/** Every stated expectation that did not hold, in words naming what was expected and what happened. */
export function checkExpectations(
  expect: TestScriptExpect,
  c: Conversation,
  verdict: "success" | "failure" | null,
): string[] {
  const failures: string[] = [];
  const calledWith = c.toolCalls.map((t) => `${t.name} ${quote(t.args)}`).join(", ");
  if (expect.tool) {
    const { name, args = {} } = expect.tool;
    const hit = c.toolCalls.some(
      (t) => t.name === name && Object.entries(args).every(([k, v]) => sameValue(v, t.args[k])),
    );
    if (!hit) {
      const wanted = Object.keys(args).length ? `${name} with ${quote(args)}` : name;
      failures.push(
        `Expected a call of ${wanted}, but ${calledWith ? `the assistant called ${calledWith}` : "no tool was called"}`,
      );
    }
  }
  if (expect.transferTo) {
    const targets = c.toolCalls.filter((t) => t.name === "transfer_call").map((t) => String(t.args.extension ?? ""));
    if (!targets.includes(expect.transferTo))
      failures.push(
        `Expected a transfer to ${expect.transferTo}, but ${
          targets.length ? `the assistant transferred to ${targets.join(", ")}` : "the assistant did not transfer"
        }`,
      );
  }
  if (expect.replyContains) {
    const want = expect.replyContains.toLowerCase();
    if (!c.turns.some((t) => t.speaker === "assistant" && t.text.toLowerCase().includes(want)))
      failures.push(`Expected a reply containing ${quote(expect.replyContains)}, but no reply did`);
  }
  if (expect.verdict && verdict !== expect.verdict)
    failures.push(
      `Expected the verdict ${expect.verdict}, but the analysis ${verdict ? `said ${verdict}` : "gave no verdict"}`,
    );
  return failures;
}

const transcriptText = (c: Conversation) =>
  c.turns.map((t) => `${t.speaker === "caller" ? "Caller" : "Assistant"}: ${t.text}`).join("\n");

const publishRun = (deps: Pick<Deps, "events">, assistantId: number, runId: number, state: string) =>
  deps.events.publish({ type: "ai-test-runs-updated", data: { assistantId, runId, state } });

/** One queued run: the script talked through and judged, its row finished. Never throws. */
async function runOne(deps: RunnerDeps, runId: number, signal: AbortSignal): Promise<void> {
  const row = deps.db.select().from(aiTestRuns).where(eq(aiTestRuns.id, runId)).get();
  if (!row) return; // the script (and so its runs) was deleted while queued
  const script = deps.db.select().from(aiTestScripts).where(eq(aiTestScripts.id, row.scriptId)).get();
  const assistant = deps.db.select().from(aiAssistants).where(eq(aiAssistants.id, row.assistantId)).get();
  const apiKey = deps.credentials.values("openai").apiKey ?? "";
  const finish = (values: Partial<typeof aiTestRuns.$inferInsert>) => {
    deps.db
      .update(aiTestRuns)
      .set({ ...values, finishedAt: new Date(deps.now()) })
      .where(and(eq(aiTestRuns.id, runId), eq(aiTestRuns.state, "running")))
      .run();
    publishRun(deps, row.assistantId, runId, values.state ?? "error");
  };
  if (!script || !assistant) return;
  // The version tested is the one at the run's start (a prompt change queues its own runs).
  deps.db
    .update(aiTestRuns)
    .set({ startedAt: new Date(deps.now()), promptHash: promptHash(assistant) })
    .where(eq(aiTestRuns.id, runId))
    .run();
  publishRun(deps, row.assistantId, runId, "running");
  if (!apiKey) return finish({ state: "error", detail: "OpenAI is not set up: add its API key in API Settings" });

  const deadline = Date.now() + TEST_RUN_LIMITS.runTimeoutMs;
  let session: OpenAiTextSession | null = null;
  const abort = () => session?.close();
  signal.addEventListener("abort", abort);
  try {
    session = await OpenAiTextSession.open({
      baseUrl: deps.config.endpoints.openai,
      apiKey,
      model: assistant.model,
      openTimeoutMs: TEST_RUN_LIMITS.openTimeoutMs,
      maxMessageChars: TEST_RUN_LIMITS.maxMessageChars,
    });
    if (signal.aborted) throw new RunError("the console stopped");
    const c = await converse(session, assistant, script.turns, deadline);
    session.close();
    let verdict: TestRunResult["verdict"] = null;
    if (script.expect.verdict && assistant.analysis) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new RunError("the run's deadline passed before the analysis");
      const analysis = await analyseTranscript(deps, assistant.analysis, transcriptText(c), {
        signal: AbortSignal.any([signal, AbortSignal.timeout(remaining)]),
      });
      verdict = analysis.success === null ? null : analysis.success ? "success" : "failure";
    }
    const failures = checkExpectations(script.expect, c, verdict);
    finish({ state: failures.length ? "failed" : "passed", result: { ...c, failures, verdict }, detail: null });
  } catch (err) {
    const why =
      err instanceof RunError || err instanceof TextSessionError
        ? err.message
        : err instanceof AnalysisFailed
          ? `the analysis failed: ${err.message}`
          : "unexpected error";
    finish({ state: "error", detail: redact(signal.aborted ? "the console stopped" : why, [apiKey]) });
  } finally {
    signal.removeEventListener("abort", abort);
    session?.close();
  }
}

/** Runs one at a time, in the order queued; closing aborts the running one and marks the queued ones. */
export class TestRunQueue {
  private readonly queued: number[] = [];
  private pumping: Promise<void> | null = null;
  private readonly stop = new AbortController();
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly deps: RunnerDeps) {}

  enqueue(runId: number): void {
    this.queued.push(runId);
    this.pumping ??= this.pump();
  }

  private async pump(): Promise<void> {
    for (let id = this.queued.shift(); id !== undefined; id = this.queued.shift()) {
      if (this.stop.signal.aborted) break;
      try {
        await runOne(this.deps, id, this.stop.signal);
      } catch {
        // Only a database that closed under the run gets here: nothing is left to record it on.
      }
    }
    this.pumping = null;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    return this.pumping ? new Promise((resolve) => this.idleWaiters.push(resolve)) : Promise.resolve();
  }

  async close(): Promise<void> {
    this.queued.length = 0;
    this.stop.abort();
    await this.pumping;
  }
}

const queues = new WeakMap<Db, TestRunQueue>();

/**
 * The queue of this database's console. Made at first use; runs a stored `running` row names then are from a
 * console that stopped before they ended, and are marked so.
 */
export function testRunQueue(deps: RunnerDeps): TestRunQueue {
  let q = queues.get(deps.db);
  if (!q) {
    deps.db
      .update(aiTestRuns)
      .set({ state: "error", detail: "The console stopped before the run ended", finishedAt: new Date(deps.now()) })
      .where(eq(aiTestRuns.state, "running"))
      .run();
    q = new TestRunQueue(deps);
    queues.set(deps.db, q);
  }
  return q;
}

/** Stops this database's runs (the console stops): the running one is aborted, the queued ones end as errors. */
export async function closeTestRuns(db: Db): Promise<void> {
  const q = queues.get(db);
  if (!q) return;
  queues.delete(db);
  await q.close();
  db.update(aiTestRuns)
    .set({ state: "error", detail: "The console stopped before the run ended", finishedAt: new Date() })
    .where(eq(aiTestRuns.state, "running"))
    .run();
}

/** Queues a run of each script (stored at once as `running`, the history's newest rows); answers their rows. */
function queueRuns(deps: RunnerDeps, a: AssistantRow, scripts: ScriptRow[], trigger: TestRunTrigger) {
  const queue = testRunQueue(deps);
  const at = new Date(deps.now());
  const hash = promptHash(a);
  const ids = scripts.map(
    (s) =>
      deps.db
        .insert(aiTestRuns)
        .values({ scriptId: s.id, assistantId: a.id, trigger, promptHash: hash, state: "running", startedAt: at })
        .returning({ id: aiTestRuns.id })
        .get().id,
  );
  for (const id of ids) publishRun(deps, a.id, id, "queued");
  for (const id of ids) queue.enqueue(id);
  return runsById(deps, ids);
}

const requireOpenAi = (deps: Pick<Deps, "credentials">) => {
  if (!deps.credentials.values("openai").apiKey)
    throw new Unavailable("OpenAI is not set up: add its API key in API Settings");
};

/** POST /api/ai/test-scripts/:id/run: one script, queued; answers the run (state running until it ends). */
export function runScript(deps: RunnerDeps, rawId: string | undefined) {
  const script = findScript(deps, rawId);
  requireOpenAi(deps);
  const assistant = findAssistantRow(deps, String(script.assistantId));
  return queueRuns(deps, assistant, [script], "manual")[0];
}

/** POST /api/ai/assistants/:id/test-scripts/run: every script of the assistant, queued in name order. */
export function runAllScripts(deps: RunnerDeps, rawAssistantId: string | undefined) {
  const assistant = findAssistantRow(deps, rawAssistantId);
  requireOpenAi(deps);
  return queueRuns(deps, assistant, scriptsOf(deps, assistant.id), "manual");
}

/**
 * After an assistant's edit: when its prompt, tools or model changed, its scripts run again (trigger
 * `prompt-change`), so a change that breaks what a script checks shows as a failed run. Nothing when they did
 * not change, when it has no scripts, or when OpenAI is not set up (or the caller has no OpenAI at hand).
 */
export function rerunOnPromptChange(
  deps: Pick<Deps, "db" | "events" | "now"> & Partial<Pick<Deps, "config" | "credentials">>,
  before: Pick<AssistantRow, "model" | "systemPrompt" | "tools">,
  after: AssistantRow,
): void {
  const { config, credentials } = deps;
  if (!config || !credentials || promptHash(before) === promptHash(after)) return;
  if (!credentials.values("openai").apiKey) return;
  const scripts = scriptsOf(deps, after.id);
  if (scripts.length) queueRuns({ ...deps, config, credentials }, after, scripts, "prompt-change");
}
