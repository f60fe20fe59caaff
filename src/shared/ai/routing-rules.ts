/**
 * AI routing rules (ADR 0040): the actions, the builder's conditions and the older flat shape, each action's
 * parameters, the create/edit and route-test request schemas, and the rule and the decision as the API
 * returns them. The server evaluates them (src/server/ai/rule-evaluator.ts).
 * Decisions: docs/decisions/0007-ai-routing-and-webhook.md.
 */
import { z } from "zod";
import { optionalText, patchOf, percent, required } from "../fields";
import { dialPatternProblem } from "../inventory";
import { lazySchema } from "../lazy-schema";

export const ROUTING_ACTIONS = [
  "route_to_extension",
  "route_to_ivr",
  "transfer_to_ai",
  "send_voicemail",
  "hangup",
] as const;
export type RoutingAction = (typeof ROUTING_ACTIONS)[number];

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

/**
 * One condition of a routing rule; each kind reads one fact of the call (see `conditionHolds` in
 * src/server/ai/rule-evaluator.ts).
 */
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
export const isBuilderShape = (o: Record<string, unknown>) =>
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

/** A routing rule as the API returns it (dates as ISO strings). */
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

/** POST /api/ai/route */
export interface RouteDecision {
  matched: boolean;
  rule: { id: number; name: string; priority: number } | null;
  action: string;
  actionParams: Record<string, unknown>;
}

/** The decision when no enabled rule matches: the AI assistant answers. */
export const DEFAULT_ROUTE_ACTION: RoutingAction = "transfer_to_ai";

/** Evaluation order: priority descending, then oldest (lowest id) first. */
export const byRuleOrder = (a: { priority: number; id: number }, b: { priority: number; id: number }) =>
  b.priority - a.priority || a.id - b.id;

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
