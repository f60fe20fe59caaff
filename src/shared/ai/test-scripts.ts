/**
 * Scripted test conversations per assistant (ADR 0072): caller turns and what must happen (a tool called with
 * arguments, a transfer target, a verdict, words in a reply), run in text mode against the assistant's real
 * model, kept as a regression suite that runs again whenever the assistant's prompt, tools or model change.
 */

/** What a script expects; every stated expectation must hold for the run to pass. */
export interface TestScriptExpect {
  /** A function tool the assistant must call, with (at least) these arguments. */
  tool?: { name: string; args?: Record<string, string | number | boolean> };
  /** The extension the assistant must transfer to (its `transfer_call` tool). */
  transferTo?: string;
  /** The post-call analysis verdict the conversation must get (needs the assistant's analysis goal). */
  verdict?: "success" | "failure";
  /** Words the assistant must say somewhere in its replies (case-insensitive). */
  replyContains?: string;
}

export type TestRunState = "running" | "passed" | "failed" | "error";
export type TestRunTrigger = "manual" | "prompt-change";

/** What one run saw: the conversation, the tool calls and every expectation that failed. */
export interface TestRunResult {
  turns: { speaker: "caller" | "assistant"; text: string }[];
  toolCalls: { name: string; args: Record<string, unknown> }[];
  failures: string[];
  verdict: "success" | "failure" | null;
}
