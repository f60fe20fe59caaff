/**
 * AI voice: labels, the GA voice mapping, tool definitions, wire types and the
 * pure helpers both sides use (rule matching, JSON-text display, durations,
 * transcript search). Browser-safe: no bun:* or src/server imports.
 * Decisions: docs/decisions/0007-ai-routing-and-webhook.md.
 */
import { z } from "zod";
import { dialable, limitParam, optionalText, patchOf, percent, required } from "./fields";
import { dialPatternProblem } from "./inventory";
import { lazySchema } from "./lazy-schema";

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

// ---------- routing rule conditions and action parameters (ADR 0040) ----------

export const SENTIMENTS = ["positive", "neutral", "negative"] as const;
export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const CONDITION_KINDS = ["sentiment", "intent", "keywords", "caller", "time", "fact"] as const;
export type ConditionKind = (typeof CONDITION_KINDS)[number];

const word = (label: string) =>
  z
    .string({ error: `${label} must be text` })
    .trim()
    .min(1, `${label} must not be empty`)
    .max(100, `${label} must be at most 100 characters`);
const words = (label: string, what: string) =>
  z
    .array(word(label), { error: `${label} must be a list` })
    .min(1, `Enter at least one ${what}`)
    .max(50, `At most 50 ${what}s`);
const clock = (label: string) =>
  z
    .string({ error: `${label} is required` })
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, `${label} must be a time such as 09:00`);

/** A caller-number pattern: FreePBX's dial-pattern characters (X N Z, [1-5], a trailing .), or digits. */
export function callerPatternProblem(pattern: string): string | null {
  if (!pattern.trim()) return "Enter a pattern such as NXXNXXXXXX or a prefix such as +44";
  return dialPatternProblem(pattern.trim());
}

/** One condition of a routing rule; each kind reads one fact of the call (see `conditionHolds`). */
export const ruleConditionSchema = lazySchema(() =>
  z.discriminatedUnion(
    "kind",
    [
      z.object({
        kind: z.literal("sentiment"),
        op: z.enum(["is", "is_not"], { error: "Choose is or is not" }).default("is"),
        value: z.enum(SENTIMENTS, { error: "Choose positive, neutral or negative" }),
      }),
      z.object({
        kind: z.literal("intent"),
        op: z.enum(["is", "is_not"], { error: "Choose is or is not" }).default("is"),
        values: words("Intent", "intent"),
      }),
      z.object({ kind: z.literal("keywords"), any: words("Keyword", "keyword") }),
      z.object({
        kind: z.literal("caller"),
        op: z.enum(["matches", "starts_with"], { error: "Choose matches or starts with" }).default("matches"),
        pattern: z
          .string({ error: "Enter a pattern such as NXXNXXXXXX or a prefix such as +44" })
          .trim()
          .superRefine((p, ctx) => {
            const problem = callerPatternProblem(p);
            if (problem) ctx.addIssue({ code: "custom", message: problem });
          })
          .transform((p) => p.toUpperCase()),
      }),
      z
        .object({
          kind: z.literal("time"),
          from: clock("From"),
          to: clock("To"),
          days: z
            .array(z.enum(WEEKDAYS, { error: "Days are mon … sun" }))
            .min(1, "Choose at least one day")
            .default([...WEEKDAYS])
            .transform((d) => WEEKDAYS.filter((w) => d.includes(w))),
        })
        .refine((t) => t.from !== t.to, { message: "From and To must differ", path: ["to"] }),
      z.object({
        kind: z.literal("fact"),
        key: word("Fact name").max(64, "Fact name must be at most 64 characters"),
        values: words("Value", "value"),
      }),
    ],
    { error: "Choose a condition" },
  ),
);
export type RuleCondition = z.output<typeof ruleConditionSchema>;

/** The stored conditions (JSON text) of a rule made with the builder: all or any of a list of conditions. */
export const ruleConditionsSchema = lazySchema(() =>
  z.object({
    match: z.enum(["all", "any"], { error: "Match must be all or any" }).default("all"),
    conditions: z.array(ruleConditionSchema).max(20, "At most 20 conditions"),
  }),
);
export type RuleConditions = z.output<typeof ruleConditionsSchema>;

/** A rule's conditions stored before the builder: `{"fact": value or [values]}`, all must hold. */
const legacyConditionsSchema = lazySchema(() =>
  z.record(
    z.string().trim().min(1, "Fact names must not be empty").max(64, "Fact names must be at most 64 characters"),
    z.union(
      [
        z.union([z.string().max(500), z.number(), z.boolean()]),
        z.array(z.union([z.string().max(500), z.number(), z.boolean()])).max(50),
      ],
      { error: "A condition's value must be text, a number, true/false or a list of them" },
    ),
  ),
);

/** True for the builder's shape (`{"match", "conditions": [...]}`); any other object is the older flat one. */
const isBuilderShape = (o: Record<string, unknown>) =>
  Array.isArray(o.conditions) && ("match" in o || Object.keys(o).length === 1);

export type ParsedConditions =
  | { ok: true; shape: "builder"; value: RuleConditions }
  | { ok: true; shape: "legacy"; value: Record<string, unknown> }
  | { ok: false; message: string };

const CONDITION_NAMES: Record<ConditionKind, string> = {
  sentiment: "sentiment",
  intent: "intent",
  keywords: "transcript keywords",
  caller: "caller number",
  time: "time of day",
  fact: "call fact",
};

/** A rule's stored conditions text, read as either shape, or the first problem (with the condition's number). */
export function parseRuleConditions(text: string | null | undefined): ParsedConditions {
  const obj = parseJsonObject(text);
  if (!obj) return { ok: false, message: "Conditions must be a JSON object" };
  if (isBuilderShape(obj)) {
    const res = ruleConditionsSchema.safeParse(obj);
    if (res.success) return { ok: true, shape: "builder", value: res.data };
    const issue = res.error.issues[0];
    const [top, index] = issue?.path ?? [];
    if (top === "conditions" && typeof index === "number") {
      const raw = (obj.conditions as unknown[])[index] as { kind?: unknown } | undefined;
      const kind = CONDITION_NAMES[raw?.kind as ConditionKind];
      return { ok: false, message: `Condition ${index + 1}${kind ? ` (${kind})` : ""}: ${issue?.message}` };
    }
    return { ok: false, message: issue?.message ?? "Conditions are not valid" };
  }
  const legacy = legacyConditionsSchema.safeParse(obj);
  if (legacy.success) return { ok: true, shape: "legacy", value: legacy.data };
  return { ok: false, message: legacy.error.issues[0]?.message ?? "Conditions are not valid" };
}

/**
 * A rule's conditions as builder rows: the builder's shape as it is; an older flat object as one row
 * per fact (sentiment and intent become their own rows when their values fit), all must match.
 */
export function conditionsForBuilder(text: string | null | undefined): RuleConditions | null {
  const parsed = parseRuleConditions(text);
  if (!parsed.ok) return null;
  if (parsed.shape === "builder") return parsed.value;
  const conditions: RuleCondition[] = Object.entries(parsed.value).map(([key, v]) => {
    const values = (Array.isArray(v) ? v : [v]).map(String);
    const k = key.trim().toLowerCase();
    const sentiment = values[0]?.trim().toLowerCase();
    if (k === "sentiment" && values.length === 1 && (SENTIMENTS as readonly string[]).includes(sentiment ?? ""))
      return { kind: "sentiment", op: "is", value: sentiment as (typeof SENTIMENTS)[number] };
    if (k === "intent") return { kind: "intent", op: "is", values };
    return { kind: "fact", key, values };
  });
  return { match: "all", conditions };
}

/** What each action's parameters hold (other keys, e.g. `targetUri` or `host`, are kept as they are). */
export const ACTION_PARAM_FIELDS: Record<RoutingAction, string | null> = {
  route_to_extension: "extensionId",
  route_to_ivr: "number",
  transfer_to_ai: "assistantId",
  send_voicemail: "extensionId",
  hangup: null,
};

/** The problem with an action's parameters (`field` is the parameter), or null. */
export function actionParamsProblem(
  action: string,
  params: Record<string, unknown>,
): { field: string; message: string } | null {
  const digits = (v: unknown) =>
    (typeof v === "string" || typeof v === "number") && /^\+?[0-9*#]{1,50}$/.test(String(v));
  const hasTarget = typeof params.targetUri === "string" && params.targetUri.trim() !== "";
  switch (action) {
    case "route_to_extension":
    case "send_voicemail":
      if (hasTarget && action === "route_to_extension") return null;
      return digits(params.extensionId) ? null : { field: "extensionId", message: "Choose an extension" };
    case "route_to_ivr":
      if (hasTarget) return null;
      return digits(params.number) ? null : { field: "number", message: "Enter the IVR or queue number" };
    case "transfer_to_ai": {
      const id = params.assistantId;
      if (id === undefined || id === null || id === "") return null;
      return Number.isInteger(Number(id)) && Number(id) > 0
        ? null
        : { field: "assistantId", message: "Choose an assistant" };
    }
    case "hangup": {
      const code = params.statusCode;
      if (code === undefined || code === null || code === "") return null;
      const n = Number(code);
      return Number.isInteger(n) && n >= 400 && n <= 699
        ? null
        : { field: "statusCode", message: "The SIP status must be 400-699" };
    }
    default:
      return { field: "action", message: "Choose one of the listed actions" };
  }
}

export const aiAssistantSchema = lazySchema(() =>
  z.object({
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
  }),
);

/** PATCH body: any of an assistant's fields, each checked as on create. */
export const aiAssistantPatchSchema = lazySchema(() => patchOf(aiAssistantSchema));

export const callTranscriptSchema = lazySchema(() =>
  z.object({
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
  }),
);

/**
 * A routing rule. `conditions` and `actionParams` stay JSON objects held as text (the stored form is
 * unchanged), but both are checked: conditions in the builder's shape (`ruleConditionsSchema`) or the
 * older flat `{"fact": value}`; the parameters as the action needs them (`actionParamsProblem`).
 */
export const aiRoutingRuleSchema = lazySchema(() =>
  z
    .object({
      name: required("Name", 100),
      description: optionalText("Description", 500),
      priority: percent("Priority", 0),
      conditions: z
        .string({ error: "Conditions are required" })
        .trim()
        .min(1, "Conditions are required")
        .max(10_000, "Conditions must be at most 10000 characters")
        .superRefine((text, ctx) => {
          const parsed = parseRuleConditions(text);
          if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.message });
        }),
      action: required("Action", 50).refine((a) => (ROUTING_ACTIONS as readonly string[]).includes(a), {
        message: "Choose one of the listed actions",
      }),
      actionParams: z
        .string({ error: "Action parameters are required" })
        .trim()
        .min(1, "Action parameters are required")
        .max(10_000, "Action parameters must be at most 10000 characters")
        .refine((text) => parseJsonObject(text) !== null, { message: "Action parameters must be a JSON object" }),
      enabled: z.boolean({ error: "Enabled must be true or false" }).default(true),
    })
    .superRefine((rule, ctx) => {
      const params = parseJsonObject(rule.actionParams);
      if (!params || !(ROUTING_ACTIONS as readonly string[]).includes(rule.action)) return;
      const problem = actionParamsProblem(rule.action, params);
      if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: ["actionParams"] });
    }),
);

/** PATCH body: any of a rule's fields, each checked as on create. */
export const aiRoutingRulePatchSchema = lazySchema(() => patchOf(aiRoutingRuleSchema));

/** POST /api/ai/route: the facts of a call, any keys (sentiment, intent, calledNumber, …). */
export const routeFactsSchema = lazySchema(() =>
  z
    .record(
      z.string().trim().min(1, "Fact names must not be empty").max(64, "Fact names must be at most 64 characters"),
      z.union([z.string().max(500, "Fact values must be at most 500 characters"), z.number(), z.boolean(), z.null()], {
        error: "Fact values must be text, numbers or booleans",
      }),
    )
    .refine((facts) => Object.keys(facts).length <= 50, { message: "At most 50 facts" }),
);

/** POST /api/ai/tokens */
export const apiTokenSchema = lazySchema(() =>
  z.object({
    name: required("Name", 100),
  }),
);

/** A delivery to POST /api/ai/openai/webhook (an OpenAI project webhook); only `realtime.call.incoming` is acted on. */
export const openAiWebhookEventSchema = lazySchema(() =>
  z.object({
    type: z.string({ error: "Event type is required" }).max(100),
    id: z.string().max(200).optional(),
    data: z.unknown().optional(),
  }),
);

export const realtimeCallIncomingSchema = lazySchema(() =>
  z.object({
    call_id: z
      .string({ error: "call_id is required" })
      .regex(/^[A-Za-z0-9_-]{1,200}$/, "call_id must be letters, digits, _ or -"),
    sip_headers: z
      .array(z.object({ name: z.string().max(200), value: z.string().max(4000) }), {
        error: "sip_headers must be a list of {name, value}",
      })
      .max(200)
      .default([]),
  }),
);

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
  /** How a call the console followed on its sideband ended ("transferred to 1001", …); null from the token intake. */
  outcome: string | null;
  /** The console lost the call's sideband for good: turns may be missing (ADR 0042). */
  partial: boolean;
  /** The caller's intent from the console's end-of-call classification; null otherwise (ADR 0043). */
  intent: string | null;
  /** What a routing rule did during the call ("… rule 'Angry' (#3) route_to_extension → 200: done"), or null (ADR 0043). */
  ruleDecision: string | null;
  createdAt: string;
}

/** The bare list of GET /api/ai/transcripts (no `limit`/`cursor`) stays as before; the console pages. */
export const TRANSCRIPT_PAGE_DEFAULT = 100;
export const TRANSCRIPT_PAGE_MAX = 500;
/** Characters of the transcript a list item carries (the card's two-line preview); the detail has all. */
export const TRANSCRIPT_PREVIEW_CHARS = 300;

const transcriptTime = (label: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), `${label} must be an ISO 8601 time`);

/** The sentiments the voice bridge reports (stored as given; the filter compares case-insensitively). */
export const TRANSCRIPT_SENTIMENTS = ["positive", "neutral", "negative"] as const;

/**
 * The filters of GET /api/ai/transcripts and its exports (query string values; each applied in SQL as a
 * bound parameter, ADR 0041): `q` the search (text and summary case-insensitively in any script, phone
 * number and extension as substrings), `from` (inclusive) and `to` (exclusive) ISO 8601 times,
 * `sentiment` (case-insensitive equality), `assistant` (the AI assistant the call was routed to, by the
 * call log's call id) and `caller` (part of the caller's number).
 */
export const transcriptFilterSchema = lazySchema(() =>
  z.object({
    q: z.string().trim().max(200, "The search is at most 200 characters").optional(),
    from: transcriptTime("From").optional(),
    to: transcriptTime("To").optional(),
    sentiment: z.string().trim().min(1).max(100, "Sentiment is at most 100 characters").optional(),
    assistant: z.coerce
      .number({ error: "The assistant must be an assistant id" })
      .int("The assistant must be an assistant id")
      .positive("The assistant must be an assistant id")
      .optional(),
    caller: z.string().trim().min(1).max(50, "The caller number is at most 50 characters").optional(),
  }),
);
export type TranscriptFilter = z.infer<typeof transcriptFilterSchema>;

/**
 * GET /api/ai/transcripts query: the filters (`transcriptFilterSchema`); `limit` or `cursor` asks for a page
 * (`TranscriptPage`), without either the answer is the whole list (`CallTranscript[]`).
 */
export const transcriptQuerySchema = lazySchema(() =>
  transcriptFilterSchema.extend({
    limit: limitParam(TRANSCRIPT_PAGE_MAX),
    /** The `nextCursor` of the previous page: `<createdAt ms>.<id>` of its last item. */
    cursor: z
      .string()
      .regex(/^[0-9]{1,15}\.[1-9][0-9]{0,15}$/, "The cursor is not one this console gave out")
      .optional(),
  }),
);
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
  /** Those matching the filters (`total` without any). */
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
  /** What happened on an accepted call's sideband: tools run, refusals, drops, OpenAI errors (ADR 0042). */
  events: string[];
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

/**
 * A FreePBX dial pattern as a regular expression over the whole number: X = 0-9, Z = 1-9, N = 2-9,
 * [15-7] a set, a `.` one or more of anything, `-` outside a set ignored; other characters as they are.
 */
export function dialPatternRegex(pattern: string): RegExp {
  let out = "";
  const p = pattern.toUpperCase();
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === "X") out += "[0-9]";
    else if (c === "Z") out += "[1-9]";
    else if (c === "N") out += "[2-9]";
    else if (c === ".") out += ".+";
    else if (c === "-") continue;
    else if (c === "[") {
      const end = p.indexOf("]", i);
      const set = end > i ? p.slice(i + 1, end).replace(/[^0-9-]/g, "") : "";
      out += set ? `[${set}]` : "\\[";
      if (end > i) i = end;
    } else out += c.replace(/[.*+?^${}()|[\]\\#]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

const factOf = (facts: Record<string, unknown>, name: string): string | null => {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(facts)) if (k.trim().toLowerCase() === want) return norm(v);
  return null;
};

/** `now`'s weekday and minutes since midnight (the console's local time: the PBX host's), or the facts' `day`/`time`. */
function clockOf(facts: Record<string, unknown>, now: Date): { day: Weekday; minutes: number } {
  const time = factOf(facts, "time");
  const day = factOf(facts, "day");
  const m = time?.match(/^(\d{1,2}):(\d{2})$/);
  const minutes = m ? Number(m[1]) * 60 + Number(m[2]) : now.getHours() * 60 + now.getMinutes();
  const weekday = (WEEKDAYS as readonly string[]).includes(day?.slice(0, 3) ?? "")
    ? (day?.slice(0, 3) as Weekday)
    : (WEEKDAYS[(now.getDay() + 6) % 7] as Weekday);
  return { day: weekday, minutes };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Whether one condition holds for a call's facts at `now`. Facts are read case-insensitively by name:
 * `sentiment`, `intent`, `transcript`, `callerNumber`, and `time` (HH:MM) / `day` (mon…sun) to test a
 * moment other than now. A fact the call does not have never matches ("is not" included).
 */
export function conditionHolds(c: RuleCondition, facts: Record<string, unknown>, now: Date): boolean {
  switch (c.kind) {
    case "sentiment": {
      const v = factOf(facts, "sentiment");
      if (v === null) return false;
      return (v === c.value) === (c.op === "is");
    }
    case "intent": {
      const v = factOf(facts, "intent");
      if (v === null) return false;
      const hit = c.values.some((x) => x.trim().toLowerCase() === v);
      return hit === (c.op === "is");
    }
    case "keywords": {
      const text = factOf(facts, "transcript");
      if (text === null) return false;
      return c.any.some((k) => text.includes(k.trim().toLowerCase()));
    }
    case "caller": {
      const number = factOf(facts, "callerNumber")?.replace(/[\s()-]/g, "") ?? null;
      if (!number) return false;
      const pattern = c.pattern.toUpperCase();
      if (c.op === "starts_with") return number.toUpperCase().startsWith(pattern);
      return dialPatternRegex(pattern).test(number.toUpperCase());
    }
    case "time": {
      const { day, minutes } = clockOf(facts, now);
      if (!c.days.includes(day)) return false;
      const from = minutesOf(c.from);
      const to = minutesOf(c.to);
      // From 22:00 to 06:00 runs over midnight.
      return from < to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
    }
    case "fact": {
      const v = factOf(facts, c.key.trim());
      if (v === null) return false;
      return c.values.some((x) => x.trim().toLowerCase() === v);
    }
  }
}

/** Whether a rule's stored conditions (either shape) match; conditions that do not parse never match. */
export function ruleMatches(conditionsText: string, facts: Record<string, unknown>, now: Date): boolean {
  const parsed = parseRuleConditions(conditionsText);
  if (!parsed.ok) {
    // Rows stored before conditions were checked: a JSON object still matches the old way.
    const obj = parseJsonObject(conditionsText);
    return obj !== null && !isBuilderShape(obj) && conditionsMatch(obj, facts);
  }
  if (parsed.shape === "legacy") return conditionsMatch(parsed.value, facts);
  const { match, conditions } = parsed.value;
  if (conditions.length === 0) return true;
  return match === "all"
    ? conditions.every((c) => conditionHolds(c, facts, now))
    : conditions.some((c) => conditionHolds(c, facts, now));
}

/** Evaluation order: priority descending, then oldest (lowest id) first. */
export const byRuleOrder = (a: { priority: number; id: number }, b: { priority: number; id: number }) =>
  b.priority - a.priority || a.id - b.id;

/** The first enabled rule, in evaluation order, whose conditions all match; invalid conditions never match. */
export function firstMatchingRule<R extends { priority: number; id: number; enabled: boolean; conditions: string }>(
  rules: readonly R[],
  facts: Record<string, unknown>,
  now: Date = new Date(),
): R | null {
  for (const rule of [...rules].sort(byRuleOrder)) {
    if (!rule.enabled) continue;
    if (ruleMatches(rule.conditions, facts, now)) return rule;
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
