/**
 * Scripted test conversations per assistant (ADR 0072): caller turns and what must happen (a tool called with
 * arguments, a transfer target, a verdict, words in a reply), run in text mode against the assistant's real
 * model, kept as a regression suite that runs again whenever the assistant's prompt, tools or model change.
 */
import { z } from "zod";
import { dialable, limitParam, optionalText, required } from "../fields";
import { lazySchema } from "../lazy-schema";
import { AI_TOOLS, type AiTool } from "./assistants";

/** What a script expects; every stated expectation must hold for the run to pass. */
export interface TestScriptExpect {
  /** A function tool the assistant must call, with (at least) these arguments. */
  tool?: { name: AiTool; args?: Record<string, string | number | boolean> };
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

/** A stored script as the API returns it, with its newest run. */
export interface TestScript {
  id: number;
  assistantId: number;
  name: string;
  turns: string[];
  expect: TestScriptExpect;
  lastRun: TestRun | null;
  createdAt: string;
  updatedAt: string;
}

/** One run of a script (the history's row). */
export interface TestRun {
  id: number;
  scriptId: number;
  scriptName: string;
  assistantId: number;
  trigger: TestRunTrigger;
  promptHash: string;
  state: TestRunState;
  result: TestRunResult | null;
  /** Why a run could not be judged (`error`): the model failed, timed out, OpenAI is not set up. */
  detail: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export const TEST_SCRIPT_TURNS_MAX = 20;
export const TEST_SCRIPT_TURN_CHARS = 1000;
/** How many runs the history answers at most (`?limit=`, default 50). */
export const TEST_RUNS_LIMIT_MAX = 200;

/** An argument's value: what a tool's arguments hold (a string, a number or a yes/no). */
const argValue = () =>
  z.union([z.string().trim().max(200, "An argument's value must be at most 200 characters"), z.number(), z.boolean()], {
    error: "An argument's value must be text, a number or true/false",
  });

export const testScriptExpectSchema = lazySchema(() =>
  z
    .object({
      tool: z
        .object({
          name: z.enum(AI_TOOLS, { error: `Tool must be one of ${AI_TOOLS.join(", ")}` }),
          args: z
            .record(
              z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,39}$/, "An argument's name must be letters, digits and _"),
              argValue(),
            )
            .refine((v) => Object.keys(v).length <= 10, "At most 10 arguments")
            .optional(),
        })
        .optional(),
      transferTo: dialable("Transfer target").transform((v) => v ?? undefined),
      verdict: z.enum(["success", "failure"], { error: "Verdict must be success or failure" }).optional(),
      replyContains: optionalText("Words in a reply", 200).transform((v) => v ?? undefined),
    })
    .superRefine((v, ctx) => {
      if (!v.tool && !v.transferTo && !v.verdict && !v.replyContains)
        ctx.addIssue({
          code: "custom",
          path: [],
          message: "Say what must happen: a tool call, a transfer target, a verdict or words in a reply",
        });
    }),
);

/** POST /api/ai/assistants/:id/test-scripts and PUT /api/ai/test-scripts/:id: the whole script. */
export const testScriptSchema = lazySchema(() =>
  z.object({
    name: required("Name", 100),
    turns: z
      .array(
        z
          .string({ error: "Each caller turn is text" })
          .trim()
          .min(1, "A caller turn is empty")
          .max(TEST_SCRIPT_TURN_CHARS, `A caller turn must be at most ${TEST_SCRIPT_TURN_CHARS} characters`),
        { error: "Caller turns must be a list" },
      )
      .min(1, "Add at least one caller turn")
      .max(TEST_SCRIPT_TURNS_MAX, `At most ${TEST_SCRIPT_TURNS_MAX} caller turns`),
    expect: testScriptExpectSchema,
  }),
);
export type TestScriptInput = z.output<typeof testScriptSchema>;
/** What a client sends (before the schema's trimming and defaults). */
export type TestScriptRequest = z.input<typeof testScriptSchema>;

/** GET /api/ai/assistants/:id/test-runs?limit= */
export const testRunsQuerySchema = lazySchema(() => z.object({ limit: limitParam(TEST_RUNS_LIMIT_MAX) }));
