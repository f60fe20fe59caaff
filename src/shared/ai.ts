/**
 * AI voice: labels, the GA voice mapping, tool definitions, wire types and the
 * pure helpers both sides use (rule matching, JSON-text display, durations,
 * transcript search). Browser-safe: no bun:* or src/server imports.
 * Decisions: docs/decisions/0007-ai-routing-and-webhook.md.
 */
import { z } from "zod";
import { dialable, optionalText, percent, required } from "./fields";

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
export const ROUTING_ACTIONS = [
  "route_to_extension",
  "route_to_ivr",
  "transfer_to_ai",
  "send_voicemail",
  "hangup",
] as const;

export const aiAssistantSchema = z.object({
  name: required("Name", 100),
  description: optionalText("Description", 500),
  provider: z.literal("openai", { error: "Provider must be openai" }).default("openai"),
  /** Open like the OpenAI SDK's model enum: the form offers AI_MODELS; any model id is stored. */
  model: required("Model", 50).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "Model must be a model id such as gpt-realtime"),
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
});

export const callTranscriptSchema = z.object({
  callId: optionalText("Call id", 255),
  extensionId: optionalText("Extension", 50),
  phoneNumber: optionalText("Phone number", 50),
  direction: optionalText("Direction", 10),
  transcript: required("Transcript", 200_000),
  summary: optionalText("Summary", 5000),
  sentiment: optionalText("Sentiment", 20),
  keywords: z
    .array(
      z
        .string({ error: "Keywords must be text" })
        .trim()
        .min(1, "Keywords must not be empty")
        .max(100, "Each keyword must be at most 100 characters"),
      {
        error: "Keywords must be a list of text",
      },
    )
    .max(50, "At most 50 keywords")
    .default([]),
  duration: z
    .number({ error: "Duration must be a number of seconds" })
    .int("Duration must be a whole number of seconds")
    .min(0, "Duration must not be negative")
    .max(7 * 24 * 3600, "Duration is too long")
    .optional()
    .nullable()
    .transform((v) => v ?? null),
  recordingUrl: optionalText("Recording URL", 1000).refine((v) => v === null || /^https?:\/\/\S+$/.test(v), {
    message: "Recording URL must be an http(s) URL",
  }),
});

export const aiRoutingRuleSchema = z.object({
  name: required("Name", 100),
  description: optionalText("Description", 500),
  priority: percent("Priority", 0),
  conditions: z
    .string({ error: "Conditions are required" })
    .trim()
    .min(1, "Conditions are required")
    .max(10_000, "Conditions must be at most 10000 characters"),
  action: required("Action", 50),
  actionParams: z
    .string({ error: "Action parameters are required" })
    .trim()
    .min(1, "Action parameters are required")
    .max(10_000, "Action parameters must be at most 10000 characters"),
  enabled: z.boolean({ error: "Enabled must be true or false" }).default(true),
});

/** POST /api/ai/route: the facts of a call, any keys (sentiment, intent, calledNumber, …). */
export const routeFactsSchema = z
  .record(
    z.string().trim().min(1, "Fact names must not be empty").max(64, "Fact names must be at most 64 characters"),
    z.union([z.string().max(500, "Fact values must be at most 500 characters"), z.number(), z.boolean(), z.null()], {
      error: "Fact values must be text, numbers or booleans",
    }),
  )
  .refine((facts) => Object.keys(facts).length <= 50, { message: "At most 50 facts" });

/** POST /api/ai/tokens */
export const apiTokenSchema = z.object({
  name: required("Name", 100),
});

/** A delivery to POST /api/ai/openai/webhook (an OpenAI project webhook); only `realtime.call.incoming` is acted on. */
export const openAiWebhookEventSchema = z.object({
  type: z.string({ error: "Event type is required" }).max(100),
  id: z.string().max(200).optional(),
  data: z.unknown().optional(),
});

export const realtimeCallIncomingSchema = z.object({
  call_id: z
    .string({ error: "call_id is required" })
    .regex(/^[A-Za-z0-9_-]{1,200}$/, "call_id must be letters, digits, _ or -"),
  sip_headers: z
    .array(z.object({ name: z.string().max(200), value: z.string().max(4000) }), {
      error: "sip_headers must be a list of {name, value}",
    })
    .max(200)
    .default([]),
});

export type AiModel = (typeof AI_MODELS)[number];
export type AiVoice = (typeof AI_VOICES)[number];
export type AiTool = (typeof AI_TOOLS)[number];
export type RoutingAction = (typeof ROUTING_ACTIONS)[number];

/** Model labels; the original default model is shown as 'GPT-4O Realtime'. */
export const AI_MODEL_LABELS: Record<AiModel, string> = {
  "gpt-4o-realtime-preview": "GPT-4O Realtime",
  "gpt-realtime": "GPT Realtime",
  "gpt-realtime-mini": "GPT Realtime Mini",
};

export const modelLabel = (model: string) => AI_MODEL_LABELS[model as AiModel] ?? model;

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

export const voiceLabel = (voice: string) => {
  const label = AI_VOICE_LABELS[voice as AiVoice];
  return label ? `${voice[0]?.toUpperCase()}${voice.slice(1)} (${label})` : voice;
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

// ---------- records as the API returns them (dates as ISO strings) ----------

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
  createdAt: string;
  updatedAt: string;
}

export interface CallTranscript {
  id: number;
  callId: string | null;
  extensionId: string | null;
  phoneNumber: string | null;
  direction: string | null;
  transcript: string;
  summary: string | null;
  sentiment: string | null;
  keywords: string[];
  duration: number | null;
  recordingUrl: string | null;
  createdAt: string;
}

/** The bare list of GET /api/ai/transcripts (no `limit`/`cursor`) stays as before; the console pages. */
export const TRANSCRIPT_PAGE_DEFAULT = 100;
export const TRANSCRIPT_PAGE_MAX = 500;
/** Characters of the transcript a list item carries (the card's two-line preview); the detail has all. */
export const TRANSCRIPT_PREVIEW_CHARS = 300;

/**
 * GET /api/ai/transcripts query: `q` searches (transcript text and summary case-insensitively for
 * ASCII letters, phone number and extension as substrings); `limit` or `cursor` asks for a page
 * (`TranscriptPage`), without either the answer is the whole list (`CallTranscript[]`).
 */
export const transcriptQuerySchema = z.object({
  q: z.string().trim().max(200, "The search is at most 200 characters").optional(),
  limit: z.coerce
    .number({ error: "The limit must be a number" })
    .int("The limit must be a whole number")
    .min(1, "The limit is at least 1")
    .max(TRANSCRIPT_PAGE_MAX, `The limit is at most ${TRANSCRIPT_PAGE_MAX}`)
    .optional(),
  /** The `nextCursor` of the previous page: `<createdAt ms>.<id>` of its last item. */
  cursor: z
    .string()
    .regex(/^[0-9]{1,15}\.[1-9][0-9]{0,15}$/, "The cursor is not one this console gave out")
    .optional(),
});
export type TranscriptQuery = z.infer<typeof transcriptQuerySchema>;

/** One transcript in a page: everything but the text, of which only the start (`preview`). */
export interface TranscriptListItem extends Omit<CallTranscript, "transcript"> {
  preview: string;
}

/** GET /api/ai/transcripts?limit=&cursor=&q= */
export interface TranscriptPage {
  items: TranscriptListItem[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
  /** All stored transcripts. */
  total: number;
  /** Those matching `q` (`total` without one). */
  matched: number;
}

export interface AiRoutingRule {
  id: number;
  name: string;
  description: string | null;
  priority: number;
  /** A JSON object held as text, stored as given: it may be invalid (then it never matches). */
  conditions: string;
  action: string;
  actionParams: string;
  enabled: boolean;
  createdAt: string;
}

export type ApiTokenScope = "transcripts:write";

export interface ApiToken {
  id: number;
  name: string;
  scope: ApiTokenScope;
  /** The first characters of the token, e.g. "pbxt_a1b2". */
  prefix: string;
  last4: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** POST /api/ai/tokens: the only answer that carries the token itself. */
export interface CreatedApiToken extends ApiToken {
  token: string;
}

/** POST /api/ai/route */
export interface RouteDecision {
  matched: boolean;
  rule: { id: number; name: string; priority: number } | null;
  action: string;
  actionParams: Record<string, unknown>;
}

/** The decision when no enabled rule matches: the AI assistant answers. */
export const DEFAULT_ROUTE_ACTION: RoutingAction = "transfer_to_ai";

export type CallOutcome = "accept" | "reject" | "refer" | "error";

export interface AiCallLog {
  id: number;
  callId: string;
  assistantId: number | null;
  ruleId: number | null;
  calledNumber: string | null;
  callerNumber: string | null;
  outcome: CallOutcome;
  detail: string | null;
  createdAt: string;
}

/** GET /api/ai/sip-uri */
export interface SipUriInfo {
  /** `sip:<project id>@sip.api.openai.com;transport=tls`, or null without a project id. */
  uri: string | null;
  webhookPath: string;
  apiKeySet: boolean;
  webhookSecretSet: boolean;
}

export const WEBHOOK_PATH = "/api/ai/openai/webhook";
export const sipUriFor = (projectId: string) => `sip:${projectId}@sip.api.openai.com;transport=tls`;

// ---------- helpers ----------

/** The JSON object in `text`, or null when it is not valid JSON or not an object. */
export function parseJsonObject(text: string | null | undefined): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Display form of a JSON-text field: text that is not a JSON object shows as empty. */
export const jsonEntries = (text: string | null | undefined): [string, string][] =>
  Object.entries(parseJsonObject(text) ?? {}).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]);

const norm = (v: unknown): string | null =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v).trim().toLowerCase() : null;

/**
 * True when every `key = value` of the conditions holds in the facts. Keys and
 * values compare case-insensitively; a list value means "any of"; a missing
 * fact never matches; `{}` matches every call.
 */
export function conditionsMatch(conditions: Record<string, unknown>, facts: Record<string, unknown>): boolean {
  const byKey = new Map<string, string>();
  for (const [k, v] of Object.entries(facts)) {
    const n = norm(v);
    if (n !== null) byKey.set(k.trim().toLowerCase(), n);
  }
  return Object.entries(conditions).every(([key, expected]) => {
    const actual = byKey.get(key.trim().toLowerCase());
    if (actual === undefined) return false;
    const options = Array.isArray(expected) ? expected : [expected];
    return options.some((o) => norm(o) === actual);
  });
}

/** Evaluation order: priority descending, then oldest (lowest id) first. */
export const byRuleOrder = (a: { priority: number; id: number }, b: { priority: number; id: number }) =>
  b.priority - a.priority || a.id - b.id;

/** The first enabled rule, in evaluation order, whose conditions all match; invalid conditions never match. */
export function firstMatchingRule<R extends { priority: number; id: number; enabled: boolean; conditions: string }>(
  rules: readonly R[],
  facts: Record<string, unknown>,
): R | null {
  for (const rule of [...rules].sort(byRuleOrder)) {
    if (!rule.enabled) continue;
    const conditions = parseJsonObject(rule.conditions);
    if (conditions && conditionsMatch(conditions, facts)) return rule;
  }
  return null;
}

/** Seconds as m:ss (e.g. 2:05); 'N/A' when unknown. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return "N/A";
  const s = Math.floor(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** An action name for display: underscores shown as spaces (route_to_ivr → "route to ivr"). */
export const actionLabel = (action: string) => action.replace(/_/g, " ");
