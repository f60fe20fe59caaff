/**
 * The AI assistants: the model catalogue, the voices (with the GA voice each is sent as), the function tools
 * an assistant may offer, the create/edit request schemas and the assistant as the API returns it.
 * Decisions: docs/decisions/0007-ai-routing-and-webhook.md.
 */
import { z } from "zod";
import { dialable, optionalText, patchOf, percent, required } from "../fields";
import { lazySchema } from "../lazy-schema";
import { type AnalysisConfig, analysisConfigSchema } from "./analysis";

/** The original default model first, then the newer GA realtime models. */
export const AI_MODELS = ["gpt-4o-realtime-preview", "gpt-realtime", "gpt-realtime-mini"] as const;
export const AI_DEFAULT_MODEL = "gpt-4o-realtime-preview";
/** The six original voices, then the other built-in voices of the GA Realtime API. */
export const AI_VOICES = [
  "alloy",
  "echo",
  "fable",
  "onyx",
  "nova",
  "shimmer",
  "ash",
  "ballad",
  "coral",
  "sage",
  "verse",
  "marin",
  "cedar",
] as const;
/** Function tools an assistant may offer the model (definitions in AI_TOOL_DEFS below). */
export const AI_TOOLS = ["transfer_call", "end_call", "take_message"] as const;

export type AiModel = (typeof AI_MODELS)[number];
export type AiVoice = (typeof AI_VOICES)[number];
export type AiTool = (typeof AI_TOOLS)[number];

/** Model labels; the original default model is shown as 'GPT-4O Realtime'. */
export const AI_MODEL_LABELS: Record<AiModel, string> = {
  "gpt-4o-realtime-preview": "GPT-4O Realtime",
  "gpt-realtime": "GPT Realtime",
  "gpt-realtime-mini": "GPT Realtime Mini",
};

/** Voice labels: the six original voices, then the GA-only voices. */
export const AI_VOICE_LABELS: Record<AiVoice, string> = {
  alloy: "Neutral",
  echo: "Professional",
  fable: "Warm",
  onyx: "Deep",
  nova: "Energetic",
  shimmer: "Gentle",
  ash: "Clear",
  ballad: "Melodic",
  coral: "Bright",
  sage: "Calm",
  verse: "Expressive",
  marin: "Natural",
  cedar: "Rich",
};

/**
 * The GA Realtime session only knows alloy, ash, ballad, coral, echo, sage,
 * shimmer, verse, marin and cedar. The original fable, onyx and nova are TTS
 * voices; they are sent as the closest GA voice (docs/decisions/0007).
 */
export const GA_VOICE_FOR: Partial<Record<AiVoice, AiVoice>> = {
  fable: "ballad",
  onyx: "ash",
  nova: "coral",
};

export const gaVoice = (voice: string): string => GA_VOICE_FOR[voice as AiVoice] ?? voice;

/** A function tool as the GA Realtime session takes it (its `tools` list). */
export interface FunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: { type: "object"; properties: Record<string, unknown>; required?: string[] };
}

export const AI_TOOL_DEFS: Record<AiTool, { label: string; tool: FunctionTool }> = {
  transfer_call: {
    label: "Transfer to an extension",
    tool: {
      type: "function",
      name: "transfer_call",
      description: "Transfer the caller to a PBX extension when they ask for a person or department.",
      parameters: {
        type: "object",
        properties: { extension: { type: "string", description: "The extension number to transfer to" } },
        required: ["extension"],
      },
    },
  },
  end_call: {
    label: "End the call",
    tool: {
      type: "function",
      name: "end_call",
      description: "End the call after saying goodbye, when the caller has nothing more to ask.",
      parameters: { type: "object", properties: {} },
    },
  },
  take_message: {
    label: "Take a message",
    tool: {
      type: "function",
      name: "take_message",
      description: "Record a message for someone who cannot take the call.",
      parameters: {
        type: "object",
        properties: {
          recipient: { type: "string", description: "Who the message is for" },
          message: { type: "string", description: "The message, in the caller's words" },
          callback_number: { type: "string", description: "Where to call back, if given" },
        },
        required: ["recipient", "message"],
      },
    },
  },
};

/** The function tools of an assistant's tool names, as a Realtime session takes them (unknown names left out). */
export const functionToolsOf = (names: readonly string[]): FunctionTool[] =>
  names.filter((t): t is AiTool => t in AI_TOOL_DEFS).map((t) => AI_TOOL_DEFS[t].tool);

/** A cap in USD: a positive amount with at most 4 decimals, or null for none. */
const usdCap = (label: string) =>
  z
    .number({ error: `${label} must be an amount in USD` })
    .finite(`${label} must be an amount in USD`)
    .positive(`${label} must be more than 0 (leave it empty for no cap)`)
    .max(100_000, `${label} must be at most 100000 USD`)
    .nullable()
    .default(null);

/** POST /api/ai/assistants: a new assistant. */
export const aiAssistantSchema = lazySchema(() =>
  z
    .object({
      name: required("Name", 100),
      description: optionalText("Description", 500),
      provider: z.literal("openai", { error: "Provider must be openai" }).default("openai"),
      /** Open like the OpenAI SDK's model enum: the form offers AI_MODELS; any model id is stored. */
      model: required("Model", 50).regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
        "Model must be a model id such as gpt-realtime",
      ),
      systemPrompt: z
        .string({ error: "System prompt must be at least 10 characters" })
        .trim()
        .min(10, "System prompt must be at least 10 characters")
        .max(20000, "System prompt must be at most 20000 characters"),
      voice: z.enum(AI_VOICES, { error: "Voice must be one of the listed voices" }).default("alloy"),
      temperature: percent("Temperature", 80),
      tools: z
        .array(z.enum(AI_TOOLS, { error: "Unknown tool" }))
        .max(AI_TOOLS.length)
        .default([])
        .transform((list) => [...new Set(list)]),
      extensionId: dialable("Extension"),
      ivrId: optionalText("IVR", 50),
      status: z.enum(["active", "inactive"], { error: "Status must be active or inactive" }).default("active"),
      /** The post-call analysis (ADR 0071); null = none. */
      analysis: analysisConfigSchema.nullable().default(null),
      /** Caps (ADR 0070): past them the call is ended or transferred politely; null = no cap. */
      callCostCapUsd: usdCap("Cost cap per call"),
      callSecondsCap: z
        .number({ error: "Time cap per call must be a number of seconds" })
        .int("Time cap per call must be whole seconds")
        .min(30, "Time cap per call must be at least 30 seconds")
        .max(4 * 3600, "Time cap per call must be at most 4 hours")
        .nullable()
        .default(null),
      dailySpendCapUsd: usdCap("Daily spend cap"),
      capAction: z
        .enum(["hangup", "transfer"], { error: "At the cap the call is hung up or transferred" })
        .default("hangup"),
      capTransferTo: dialable("Transfer at the cap to"),
    })
    .superRefine((v, ctx) => {
      if (v.capAction === "transfer" && !v.capTransferTo)
        ctx.addIssue({
          code: "custom",
          path: ["capTransferTo"],
          message: "Say which extension a capped call is transferred to",
        });
    }),
);

/** PATCH body: any of an assistant's fields, each checked as on create. */
export const aiAssistantPatchSchema = lazySchema(() => patchOf(aiAssistantSchema));

/** An assistant as the API returns it (dates as ISO strings). */
export interface AiAssistant {
  id: number;
  name: string;
  description: string | null;
  provider: "openai";
  model: string;
  systemPrompt: string;
  voice: string;
  temperature: number;
  tools: string[];
  extensionId: string | null;
  ivrId: string | null;
  status: "active" | "inactive";
  analysis: AnalysisConfig | null;
  callCostCapUsd: number | null;
  callSecondsCap: number | null;
  dailySpendCapUsd: number | null;
  capAction: "hangup" | "transfer";
  capTransferTo: string | null;
  createdAt: string;
  updatedAt: string;
}
