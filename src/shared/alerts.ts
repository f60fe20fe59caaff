/**
 * Alert rules and their history (ADR 0063): what the console watches (a rule's kind and its parameters), how
 * long a condition lasts before it fires, how often it repeats, and which channels hear of it. One schema per
 * request, shared by the server and the rule dialog, and the wire types of `/api/alerts/rules` and
 * `/api/alerts/events`. The channels themselves are `./alert-channels.ts`.
 */
import { z } from "zod";
import { limitParam } from "./fields";
import { lazySchema } from "./lazy-schema";

export const ALERT_KINDS = [
  "trunk-unregistered",
  "extension-offline",
  "ami-unreachable",
  "cdr-unreachable",
  "disk-usage",
  "memory-usage",
  "backup-failed",
  "certificate-expiring",
  "failed-sign-ins",
  "sip-attack",
  "test-call-failed",
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** What each kind watches, in the words the rule dialog and the rules table use. */
export const ALERT_KIND_TEXT: Record<AlertKind, { label: string; description: string }> = {
  "trunk-unregistered": {
    label: "Trunk unregistered",
    description: "A trunk's outbound registration is not registered (one trunk, or every registering trunk).",
  },
  "extension-offline": {
    label: "Extension offline",
    description: "No phone is registered to an extension (one extension, or every extension of the console).",
  },
  "ami-unreachable": {
    label: "Manager interface unreachable",
    description: "The console cannot reach Asterisk's manager interface (AMI), so live views are blind.",
  },
  "cdr-unreachable": {
    label: "Call records unreachable",
    description: "The call records database does not answer.",
  },
  "disk-usage": { label: "Disk usage", description: "The console host's disk is fuller than the threshold." },
  "memory-usage": { label: "Memory usage", description: "The console host uses more memory than the threshold." },
  "backup-failed": {
    label: "Backup failed",
    description: "The scheduled console backup failed, or the last copy to an off-site target failed.",
  },
  "certificate-expiring": {
    label: "Certificate expiring",
    description: "The console's TLS certificate (TLS_CERT) expires within the days given, or has expired.",
  },
  "failed-sign-ins": {
    label: "Failed console sign-ins",
    description: "Failed sign-ins to this console reach a count within the minutes given.",
  },
  "sip-attack": {
    label: "SIP attack",
    description: "Failed SIP sign-ins on the PBX reach a count within the minutes given.",
  },
  "test-call-failed": {
    label: "Test call failed",
    description: "A test call's latest run failed (one test call, or every test call).",
  },
};

/** Bounds of a rule's fields (the dialog shows them; the schema enforces them). */
export const ALERT_LIMITS = {
  name: 100,
  /** How long a condition must last before it fires: up to a day. */
  seconds: { min: 0, max: 86_400 },
  /** Minutes between repeats while it lasts (0: never); up to a week. */
  repeatMinutes: { min: 0, max: 10_080, default: 60 },
  channels: 20,
  percent: { min: 1, max: 100 },
  days: { min: 1, max: 365 },
  count: { min: 1, max: 100_000 },
  /** Console sign-ins are counted over up to a day; SIP failures over up to the hour the live view keeps. */
  signInMinutes: { min: 1, max: 1_440 },
  sipMinutes: { min: 1, max: 60 },
} as const;

/** A duration as the alert messages and the Alerts screen say it: "45 s", "5 min", "2 h 5 min", "3 d 4 h". */
export function durationText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** How long resolved alerts (and the messages sent for them) are kept in the history. */
export const ALERT_HISTORY_DAYS = 90;

const wholeNumber = (label: string, min: number, max: number, fallback: number) =>
  z
    .number({ error: `${label} must be a number from ${min} to ${max}` })
    .int(`${label} must be a whole number`)
    .min(min, `${label} must be at least ${min}`)
    .max(max, `${label} must be at most ${max}`)
    .default(fallback);

const seconds = (fallback: number) =>
  wholeNumber("Seconds", ALERT_LIMITS.seconds.min, ALERT_LIMITS.seconds.max, fallback);
const percent = (fallback: number) =>
  wholeNumber("Percent", ALERT_LIMITS.percent.min, ALERT_LIMITS.percent.max, fallback);

/** One named object, or null for all of them. */
const oneOrAll = (label: string, pattern: RegExp, hint: string) =>
  z
    .string({ error: `${label} must be text` })
    .trim()
    .max(80, `${label} must be at most 80 characters`)
    .refine((v) => v === "" || pattern.test(v), { message: `${label} ${hint}` })
    .nullable()
    .optional()
    .transform((v) => (v ? v : null));

/** A trunk's endpoint name as PJSIP knows it (the console's trunk names are the same). */
const TRUNK_NAME = /^[A-Za-z0-9_.+-]{1,80}$/;
const EXTENSION_NUMBER = /^[0-9]{1,10}$/;

/** Each kind's parameters; every field has a default, so `{}` is a sensible rule. */
const paramsOf = {
  "trunk-unregistered": () =>
    z.object({
      seconds: seconds(120),
      trunk: oneOrAll("Trunk", TRUNK_NAME, "must be a trunk name (letters, digits, . _ + -)"),
    }),
  "extension-offline": () =>
    z.object({
      seconds: seconds(300),
      extension: oneOrAll("Extension", EXTENSION_NUMBER, "must be an extension number"),
    }),
  "ami-unreachable": () => z.object({ seconds: seconds(60) }),
  "cdr-unreachable": () => z.object({ seconds: seconds(300) }),
  "disk-usage": () => z.object({ percent: percent(90), seconds: seconds(0) }),
  "memory-usage": () => z.object({ percent: percent(90), seconds: seconds(300) }),
  "backup-failed": () => z.object({}),
  "certificate-expiring": () =>
    z.object({ days: wholeNumber("Days", ALERT_LIMITS.days.min, ALERT_LIMITS.days.max, 14) }),
  "failed-sign-ins": () =>
    z.object({
      count: wholeNumber("Count", ALERT_LIMITS.count.min, ALERT_LIMITS.count.max, 10),
      minutes: wholeNumber("Minutes", ALERT_LIMITS.signInMinutes.min, ALERT_LIMITS.signInMinutes.max, 15),
    }),
  "sip-attack": () =>
    z.object({
      count: wholeNumber("Count", ALERT_LIMITS.count.min, ALERT_LIMITS.count.max, 30),
      minutes: wholeNumber("Minutes", ALERT_LIMITS.sipMinutes.min, ALERT_LIMITS.sipMinutes.max, 1),
    }),
  "test-call-failed": () =>
    z.object({
      testCallId: z
        .number({ error: "Test call must be one of the test calls" })
        .int("Test call must be one of the test calls")
        .positive("Test call must be one of the test calls")
        .nullable()
        .optional()
        .transform((v) => v ?? null),
    }),
} as const satisfies Record<AlertKind, () => z.ZodObject>;

type ParamsSchemas = { [K in AlertKind]: ReturnType<(typeof paramsOf)[K]> };
export type AlertParams<K extends AlertKind = AlertKind> = z.output<ParamsSchemas[K]>;

/** The fields every rule has besides its kind and parameters. */
const common = () => ({
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(ALERT_LIMITS.name, `Name must be at most ${ALERT_LIMITS.name} characters`),
  channelIds: z
    .array(z.number({ error: "Choose channels from the list" }).int().positive("Choose channels from the list"), {
      error: "Channels must be a list",
    })
    .max(ALERT_LIMITS.channels, `At most ${ALERT_LIMITS.channels} channels`)
    .default([])
    .transform((ids) => [...new Set(ids)]),
  repeatMinutes: wholeNumber(
    "Repeat",
    ALERT_LIMITS.repeatMinutes.min,
    ALERT_LIMITS.repeatMinutes.max,
    ALERT_LIMITS.repeatMinutes.default,
  ),
  enabled: z.boolean({ error: "Enabled must be true or false" }).default(true),
});

const ruleOf = <K extends AlertKind>(kind: K) =>
  z.object({
    ...common(),
    kind: z.literal(kind),
    params: (paramsOf[kind]() as z.ZodObject).prefault({}) as unknown as z.ZodPrefault<ParamsSchemas[K]>,
  });

/** POST /api/alerts/rules and PUT /api/alerts/rules/{id}: the whole rule; `params` follows `kind`. */
export const alertRuleSchema = lazySchema(() =>
  z.discriminatedUnion(
    "kind",
    [
      ruleOf("trunk-unregistered"),
      ruleOf("extension-offline"),
      ruleOf("ami-unreachable"),
      ruleOf("cdr-unreachable"),
      ruleOf("disk-usage"),
      ruleOf("memory-usage"),
      ruleOf("backup-failed"),
      ruleOf("certificate-expiring"),
      ruleOf("failed-sign-ins"),
      ruleOf("sip-attack"),
      ruleOf("test-call-failed"),
    ],
    { error: `Choose what the rule watches (${ALERT_KINDS.join(", ")})` },
  ),
);
export type AlertRuleInput = z.output<typeof alertRuleSchema>;

/**
 * PATCH /api/alerts/rules/{id}: the fields given replace the stored ones, and the result is checked as a whole
 * rule. `params` given replace the stored parameters; a new `kind` without `params` starts from its defaults.
 */
export const alertRulePatchSchema = lazySchema(() =>
  z.object({
    name: z.unknown().optional(),
    kind: z.enum(ALERT_KINDS, { error: `Choose what the rule watches (${ALERT_KINDS.join(", ")})` }).optional(),
    params: z.record(z.string(), z.unknown(), { error: "Parameters must be an object" }).optional(),
    channelIds: z.unknown().optional(),
    repeatMinutes: z.unknown().optional(),
    enabled: z.unknown().optional(),
  }),
);
export type AlertRulePatch = z.output<typeof alertRulePatchSchema>;

/** GET /api/alerts/rules: a rule with how many of its alerts fire now. */
export type AlertRule = AlertRuleInput & {
  id: number;
  firing: number;
  createdAt: string;
  updatedAt: string;
};

export const ALERT_STATES = ["firing", "resolved"] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** One message sent (or tried) to a channel for an alert. */
export interface AlertDelivery {
  channelId: number | null;
  /** The channel's name now; null once the channel is deleted. */
  channelName: string | null;
  what: "firing" | "repeat" | "resolved" | "test";
  at: string;
  ok: boolean;
  error: string | null;
}

/** One alert: a rule's condition on one subject, from firing to resolved. */
export interface AlertEvent {
  id: number;
  /** Null once the rule is deleted (its name and kind stay). */
  ruleId: number | null;
  ruleName: string;
  kind: string;
  /** What it is about: `trunk:telnyx`, `extension:2501`, `disk`. */
  subject: string;
  /** The condition in words, as the last message said it. */
  message: string;
  state: AlertState;
  /** When the condition began. */
  startedAt: string;
  resolvedAt: string | null;
  lastNotifiedAt: string | null;
  /** Messages sent for it so far (firing, repeats, resolved). */
  notifications: number;
  /** Newest first (at most 20). */
  deliveries: AlertDelivery[];
}

/** GET /api/alerts/events */
export interface AlertEventsPage {
  items: AlertEvent[];
  /** Pass as `cursor` for the next (older) page; null on the last one. */
  nextCursor: string | null;
  /** How many alerts fire now, whatever the filter. */
  firing: number;
}

export const ALERT_EVENTS_MAX_LIMIT = 200;

/** GET /api/alerts/events?state=&ruleId=&kind=&cursor=&limit= (newest first). */
export const alertEventsQuerySchema = lazySchema(() =>
  z.object({
    state: z.enum(ALERT_STATES, { error: "State must be firing or resolved" }).optional(),
    ruleId: z.coerce
      .number({ error: "Rule must be a rule's id" })
      .int("Rule must be a rule's id")
      .positive("Rule must be a rule's id")
      .optional(),
    kind: z.enum(ALERT_KINDS, { error: "Kind must be one of the rule kinds" }).optional(),
    cursor: z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/, "The cursor must be one a page gave")
      .optional(),
    limit: limitParam(ALERT_EVENTS_MAX_LIMIT),
  }),
);
export type AlertEventsQuery = z.output<typeof alertEventsQuerySchema>;
