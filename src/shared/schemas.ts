/**
 * One zod schema per entity and request (spec sections 3 and 5). The server
 * validates every request body with these; the web forms use the same ones via
 * the zod resolver. Browser-safe: nothing here may import bun:* or src/server.
 */
import { z } from "zod";

const required = (label: string, max: number) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} must be at most ${max} characters`);

const optionalText = (label: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, `${label} must be at most ${max} characters`)
    .optional()
    .nullable()
    .transform((v) => (v ? v : null));

const stringList = (label: string, max: number) =>
  z.array(z.string().trim().min(1).max(max, `Each ${label} must be at most ${max} characters`));

// ---------- auth ----------

export const PASSWORD_MIN = 12;

export const usernameSchema = z
  .string({ error: "Username is required" })
  .trim()
  .min(1, "Username is required")
  .max(64, "Username must be at most 64 characters")
  .regex(/^[A-Za-z0-9._@-]+$/, "Use letters, digits and . _ @ - only");

export const passwordSchema = z
  .string({ error: "Password is required" })
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(512, "Password must be at most 512 characters");

export const loginSchema = z.object({
  username: z.string({ error: "Username is required" }).trim().min(1, "Username is required").max(64),
  password: z.string({ error: "Password is required" }).min(1, "Password is required").max(512),
});

export const setupSchema = z
  .object({
    username: usernameSchema,
    password: passwordSchema,
    confirmPassword: z.string({ error: "Repeat the password" }),
  })
  .refine((v) => v.password === v.confirmPassword, {
    message: "Passwords do not match",
    path: ["confirmPassword"],
  });

export type LoginInput = z.infer<typeof loginSchema>;
export type SetupInput = z.input<typeof setupSchema>;

// ---------- PBX inventory ----------

export const SIP_SECRET_MIN = 12;

export const extensionStatuses = ["available", "unavailable", "busy", "offline"] as const;

export const extensionSchema = z.object({
  extension: required("Extension", 10).regex(/^\d+$/, "Extension must contain digits only"),
  name: required("Name", 100),
  email: z
    .union([z.literal(""), z.email("Enter a valid email address").max(255)])
    .optional()
    .nullable()
    .transform((v) => (v ? v : null)),
  position: optionalText("Position", 100),
  personalPhone: optionalText("Personal phone", 20),
  voicemail: z.boolean().default(false),
  /** Empty → the server generates a strong one. A weak SIP secret is how PBXs get robbed. */
  secret: optionalText("Secret", 255).refine((v) => v === null || v.length >= SIP_SECRET_MIN, {
    message: `Secret must be at least ${SIP_SECRET_MIN} characters (leave it empty to generate one)`,
  }),
  status: z.string().max(20).default("available"),
});

export const trunkTypes = ["sip", "iax", "dahdi"] as const;
export const trunkAuthTypes = ["outbound", "inbound", "both"] as const;

export const trunkSchema = z.object({
  name: required("Name", 50),
  type: z.enum(trunkTypes, { error: "Type must be sip, iax or dahdi" }),
  host: required("Host", 255),
  port: z
    .number()
    .int("Port must be a whole number")
    .min(1, "Port must be between 1 and 65535")
    .max(65535, "Port must be between 1 and 65535")
    .optional()
    .nullable(),
  username: optionalText("Username", 100),
  secret: optionalText("Secret", 255),
  fromDomain: optionalText("From domain", 255),
  fromUser: optionalText("From user", 100),
  contactUser: optionalText("Contact user", 100),
  authType: z.enum(trunkAuthTypes).default("outbound"),
  registrationEnabled: z.boolean().default(false),
  rewriteContact: z.boolean().default(false),
  trustRpid: z.boolean().default(false),
  sendRpid: z.boolean().default(false),
  status: z.string().max(20).default("unregistered"),
});

export const destinationTypes = ["extension", "ivr", "voicemail", "queue"] as const;

export const inboundRouteSchema = z.object({
  description: required("Description", 100),
  didNumber: optionalText("DID number", 20),
  trunkId: z.number().int().positive().optional().nullable(),
  destination: required("Destination", 100),
  destinationType: z.enum(destinationTypes, {
    error: "Destination type must be extension, ivr, voicemail or queue",
  }),
});

/** FreePBX dial-pattern characters (issue 3): 0-9 * # + - . [ ] x X n N z Z. */
export const DIAL_PATTERN_RE = /^[0-9*#+\-.[\]xXnNzZ]+$/;

export const outboundRouteSchema = z.object({
  name: required("Name", 50),
  dialPatterns: z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .max(100)
        .regex(DIAL_PATTERN_RE, "Dial patterns may only contain 0-9 * # + - . [ ] X N Z")
        .transform((p) => p.toUpperCase()),
    )
    .min(1, "Add at least one dial pattern"),
  trunkId: z.number({ error: "Trunk is required" }).int().positive("Trunk is required"),
  routeOrder: z.number().int().min(0).default(0),
});

export const pttGroupSchema = z.object({
  name: required("Name", 50),
  extension: required("Extension", 10).regex(/^\d+$/, "Extension must contain digits only"),
  description: optionalText("Description", 255),
  members: stringList("member", 10).min(1, "Choose at least one member"),
  duplex: z.boolean().default(false),
  autoAnswer: z.boolean().default(true),
});

export const ivrSchema = z.object({
  name: required("Name", 100),
  description: optionalText("Description", 255),
  announcement: optionalText("Announcement", 255),
  timeout: z.number().int().min(0).max(600).default(10),
  invalidRetries: z.number().int().min(0).max(10).default(3),
  timeoutDestination: optionalText("Timeout destination", 100),
  invalidDestination: optionalText("Invalid destination", 100),
  directDial: z.boolean().default(true),
});

export const configBackupSchema = z.object({
  name: required("Name", 100),
  description: optionalText("Description", 1000),
  configData: z.string().min(1, "Configuration data is required"),
});

export const vpsStatusSchema = z.object({
  status: z.string().max(20).nullable(),
  ipAddress: z.string().max(45).nullable(),
  hostname: z.string().max(255).nullable(),
  cpu: z.number().min(0).max(100).nullable(),
  memory: z.number().min(0).max(100).nullable(),
  disk: z.number().min(0).max(100).nullable(),
  networkIn: z.number().min(0).nullable(),
  networkOut: z.number().min(0).nullable(),
  uptime: z.number().int().min(0).nullable(),
});

// ---------- outside services ----------

export const credentialTypes = ["hostinger", "freepbx", "tinymdm"] as const;

export const apiCredentialSchema = z.object({
  name: required("Name", 100),
  type: z.enum(credentialTypes),
  apiKey: optionalText("API key", 1000),
  clientId: optionalText("Client ID", 255),
  clientSecret: optionalText("Client secret", 1000),
  apiUrl: z
    .union([z.literal(""), z.url("Enter a valid URL").max(500)])
    .optional()
    .nullable()
    .transform((v) => (v ? v : null)),
  status: z.string().max(20).default("active"),
});

export const sipAuthLogSchema = z.object({
  deviceId: optionalText("Device id", 100),
  extensionId: optionalText("Extension id", 50),
  username: optionalText("Username", 100),
  ipAddress: optionalText("IP address", 45),
  userAgent: optionalText("User agent", 255),
  authMethod: optionalText("Auth method", 50),
  success: z.boolean().default(false),
  failureReason: optionalText("Failure reason", 255),
});

// ---------- AI voice ----------
// Catalogues (labels, GA voice mapping, tools) and wire types live in ./ai.ts.

/** The spec's model (section 9, the default) first, then newer GA realtime models (services.md §4). */
export const AI_MODELS = ["gpt-4o-realtime-preview", "gpt-realtime", "gpt-realtime-mini"] as const;
export const AI_DEFAULT_MODEL = "gpt-4o-realtime-preview";
/** The spec's six voices (section 9), then the other GA built-in voices (services.md §4). */
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
/** Function tools an assistant may offer the model (definitions in ./ai.ts). */
export const AI_TOOLS = ["transfer_call", "end_call", "take_message"] as const;
export const ROUTING_ACTIONS = [
  "route_to_extension",
  "route_to_ivr",
  "transfer_to_ai",
  "send_voicemail",
  "hangup",
] as const;

/** An extension (1001), a full number (+15551234567) or a feature code: what the SIP user part can be. */
const dialable = (label: string) =>
  optionalText(label, 50).refine((v) => v === null || /^\+?[0-9*#]+$/.test(v), {
    message: `${label} must be digits, optionally starting with +`,
  });

const percent = (label: string, fallback: number) =>
  z
    .number({ error: `${label} must be 0-100` })
    .int(`${label} must be a whole number`)
    .min(0, `${label} must be 0-100`)
    .max(100, `${label} must be 0-100`)
    .default(fallback);

export const aiAssistantSchema = z.object({
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(100, "Name must be at most 100 characters"),
  description: optionalText("Description", 500),
  provider: z.literal("openai", { error: "Provider must be openai" }).default("openai"),
  /** Open like the SDK's enum (services.md §4): the form offers AI_MODELS; any model id is stored. */
  model: z
    .string({ error: "Model is required" })
    .trim()
    .min(1, "Model is required")
    .max(50, "Model must be at most 50 characters")
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "Model must be a model id such as gpt-realtime"),
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
  transcript: z
    .string({ error: "Transcript is required" })
    .trim()
    .min(1, "Transcript is required")
    .max(200_000, "Transcript must be at most 200000 characters"),
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
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(100, "Name must be at most 100 characters"),
  description: optionalText("Description", 500),
  priority: percent("Priority", 0),
  conditions: z
    .string({ error: "Conditions are required" })
    .trim()
    .min(1, "Conditions are required")
    .max(10_000, "Conditions must be at most 10000 characters"),
  action: z
    .string({ error: "Action is required" })
    .trim()
    .min(1, "Action is required")
    .max(50, "Action must be at most 50 characters"),
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
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(100, "Name must be at most 100 characters"),
});

/** A delivery to POST /api/ai/openai/webhook (services.md §4); only `realtime.call.incoming` is acted on. */
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

// ---------- wizard ----------

export const WIZARD_DEFAULTS = {
  extensionCount: 5,
  extensionPrefix: "10",
  trunkProvider: "",
  enableVoicemail: true,
  enableIVR: false,
} as const;

export const HOST_RE =
  /^(?=.{1,255}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$/;

export const wizardDeploySchema = z.object({
  step: z.number().int().optional(),
  extensionCount: z
    .number({ error: "Extension count must be a number" })
    .int("Extension count must be a whole number")
    .min(1, "Create at least 1 extension")
    .max(100, "Create at most 100 extensions"),
  extensionPrefix: z
    .string()
    .trim()
    .min(1, "Prefix is required")
    .max(5, "Prefix must be at most 5 characters")
    .regex(/^\d+$/, "Prefix must contain digits only"),
  trunkProvider: z
    .string()
    .trim()
    .max(255)
    .refine((v) => v === "" || HOST_RE.test(v), "Enter a host name such as sip.example.com")
    .optional()
    .default(""),
  enableVoicemail: z.boolean().default(true),
  enableIVR: z.boolean().default(false),
});

/** Wizard numbering: prefix plus a two-digit index (1001–1005 for the defaults). */
export const wizardExtensionNumbers = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(2, "0")}`);

// ---------- sync ----------

export const importExtensionsSchema = z.object({
  extensions: z.array(z.string().regex(/^\d{1,20}$/, "Extension numbers are digits")).default([]),
  mode: z.enum(["all", "selected"], { error: "Mode must be all or selected" }),
});

export const importTrunksSchema = z.object({
  trunks: z.array(z.string().min(1).max(50)).default([]),
  mode: z.enum(["all", "selected"], { error: "Mode must be all or selected" }),
});
