/**
 * Drizzle tables: users and sessions (sign-in), the PBX inventory (extensions,
 * trunks, inbound/outbound routes, PTT groups, IVRs), outside-service
 * credentials and generated SIP-provider credentials, and AI voice (assistants,
 * transcripts, routing rules, API tokens, call logs). Every table is read and
 * written by the console: none is kept "for later" (docs/decisions/0011).
 * Length limits and enum values are enforced by the shared zod schemas
 * (src/shared/*.ts) before anything reaches these tables; SQLite itself does
 * not check `text` lengths.
 */
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { AnalysisConfig, CallAnalysisResult } from "../shared/ai/analysis";
import type { AiCallEnd, ModelPrice, RealtimeUsage, TurnLatency } from "../shared/ai/measures";
import type { TestRunResult, TestScriptExpect } from "../shared/ai/test-scripts";
import { DESTINATION_KINDS, type DestinationKind as DestinationKindValue } from "../shared/destinations";
import { RECORDING_MODES, RECORDING_ON_DEMAND } from "../shared/recording-policy";

const id = () => integer("id").primaryKey({ autoIncrement: true });
const createdAt = (name = "created_at") =>
  integer(name, { mode: "timestamp_ms" }).notNull().default(sql`(cast(unixepoch('subsec') * 1000 as integer))`);
const bool = (name: string, value: boolean) => integer(name, { mode: "boolean" }).notNull().default(value);
/** One transcript turn with the ISO time its words were complete. */
export interface TimedTurn {
  at: string;
  speaker: "caller" | "assistant";
  text: string;
}

const jsonList = (name: string) => text(name, { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`);

/**
 * A call recording mode of FreePBX's (ADR 0061). A new row gets FreePBX's default; rows that existed before the
 * column are NULL (migration 0025): the PBX keeps its own value there until the user sets one.
 */
const recordingMode = (name: string) => text(name, { enum: RECORDING_MODES }).default("dontcare");

/** A destination's kind (src/shared/destinations.ts) in a column. */
const destinationKind = (name: string) => text(name, { enum: DESTINATION_KINDS });

export const users = sqliteTable("users", {
  id: text("id")
    .primaryKey()
    .$defaultFn(() => crypto.randomUUID()),
  username: text("username").notNull().unique(),
  password: text("password").notNull(),
  /** `admin`, `operator` or `viewer` (src/shared/users.ts); the first user, and every user before roles, is an admin. */
  role: text("role", { enum: ["admin", "operator", "viewer"] })
    .notNull()
    .default("admin"),
  /** A disabled user cannot sign in; disabling ends their sessions. */
  disabled: bool("disabled", false),
  createdAt: createdAt(),
});

/**
 * Sign-in sessions. Only the SHA-256 of the token is stored; `id` is the public handle the sessions
 * list and "sign out" use (never the token or its hash).
 */
export const sessions = sqliteTable("sessions", {
  tokenHash: text("token_hash").primaryKey(),
  id: text("id").notNull().unique(),
  userId: text("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  lastSeenAt: integer("last_seen_at", { mode: "timestamp_ms" }).notNull(),
  /** The address and browser that signed in (shown in the sessions list). */
  clientIp: text("client_ip"),
  userAgent: text("user_agent"),
});

/**
 * Two-factor sign-in (TOTP, RFC 6238) of a user: at most one row per user. Secrets are sealed with the
 * secret box; `pendingSecret` is the one being set up (until a code confirms it), `secret` the one in
 * use. `lastStep` is the last accepted time step (a code cannot be replayed inside its window);
 * `recoveryCodes` holds the SHA-256 of the unused single-use recovery codes.
 */
export const userTotp = sqliteTable("user_totp", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  pendingSecret: text("pending_secret"),
  secret: text("secret"),
  enabledAt: integer("enabled_at", { mode: "timestamp_ms" }),
  lastStep: integer("last_step"),
  recoveryCodes: jsonList("recovery_codes"),
});

/**
 * The sign-in throttle's failure counters (docs/decisions/0016): one row per key (account, address,
 * or account at address). In the database so `pbx-console unlock` can clear it while the console runs.
 */
export const signInThrottle = sqliteTable("sign_in_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  lastFailureAt: integer("last_failure_at", { mode: "timestamp_ms" }).notNull(),
});

export const extensions = sqliteTable("extensions", {
  id: id(),
  extension: text("extension").notNull().unique(),
  name: text("name").notNull(),
  email: text("email"),
  position: text("position"),
  personalPhone: text("personal_phone"),
  voicemail: bool("voicemail", false),
  secret: text("secret"),
  status: text("status").notNull().default("available"),
  userId: text("user_id"),
  /** FreePBX's recording policy per direction, its AstDB `AMPUSER/<n>/recording/*` keys (ADR 0061). */
  recordingInExternal: recordingMode("recording_in_external"),
  recordingOutExternal: recordingMode("recording_out_external"),
  recordingInInternal: recordingMode("recording_in_internal"),
  recordingOutInternal: recordingMode("recording_out_internal"),
  recordingOnDemand: text("recording_on_demand", { enum: RECORDING_ON_DEMAND }).default("disabled"),
  createdAt: createdAt(),
});

/**
 * One-time softphone provisioning links (ADR 0039): at most one per extension (issuing a new one replaces
 * it), only the SHA-256 of the token is kept. A link answers once, before `expiresAt`; `usedAt` says when.
 */
export const provisioningTokens = sqliteTable("provisioning_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  extensionId: integer("extension_id")
    .notNull()
    .unique()
    .references(() => extensions.id, { onDelete: "cascade" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  usedAt: integer("used_at", { mode: "timestamp_ms" }),
});

export const trunks = sqliteTable("trunks", {
  id: id(),
  name: text("name").notNull(),
  type: text("type", { enum: ["sip", "iax", "dahdi"] }).notNull(),
  host: text("host").notNull(),
  port: integer("port"),
  username: text("username"),
  secret: text("secret"),
  fromDomain: text("from_domain"),
  fromUser: text("from_user"),
  contactUser: text("contact_user"),
  authType: text("auth_type", { enum: ["outbound", "inbound", "both"] })
    .notNull()
    .default("outbound"),
  /** `credentials` (username + secret) or `ip` (identified by the provider's addresses); see shared/inventory.ts. */
  authMode: text("auth_mode", { enum: ["credentials", "ip"] })
    .notNull()
    .default("credentials"),
  providerAddresses: jsonList("provider_addresses"),
  registrationEnabled: bool("registration_enabled", false),
  rewriteContact: bool("rewrite_contact", false),
  trustRpid: bool("trust_rpid", false),
  sendRpid: bool("send_rpid", false),
  status: text("status").notNull().default("unregistered"),
  createdAt: createdAt(),
});

export const inboundRoutes = sqliteTable("inbound_routes", {
  id: id(),
  description: text("description").notNull(),
  didNumber: text("did_number"),
  trunkId: integer("trunk_id").references(() => trunks.id, { onDelete: "set null" }),
  destination: text("destination").notNull(),
  /** A destination kind of src/shared/destinations.ts; `destination` is its target ('' for hangup). */
  destinationType: destinationKind("destination_type").notNull(),
  /** The callrecording module's mode for calls to the DID (`callrecording_module`, display `did`; ADR 0061). */
  recording: recordingMode("recording"),
  createdAt: createdAt(),
});

export const outboundRoutes = sqliteTable("outbound_routes", {
  id: id(),
  name: text("name").notNull(),
  dialPatterns: jsonList("dial_patterns"),
  trunkId: integer("trunk_id")
    .notNull()
    .references(() => trunks.id, { onDelete: "restrict" }),
  routeOrder: integer("route_order").notNull().default(0),
  /** The dial order FreePBX tries the routes in (0 first); `POST /api/outbound-routes/order` sets it (ADR 0040). */
  position: integer("position").notNull().default(0),
  /** The callrecording module's mode for calls out the route (`callrecording_module`, display `routing`; ADR 0061). */
  recording: recordingMode("recording"),
  createdAt: createdAt(),
});

export const pttGroups = sqliteTable("ptt_groups", {
  id: id(),
  name: text("name").notNull(),
  extension: text("extension").notNull().unique(),
  description: text("description"),
  members: jsonList("members"),
  duplex: bool("duplex", false),
  autoAnswer: bool("auto_answer", true),
  createdAt: createdAt(),
});

/**
 * Ring groups (FreePBX's ringgroups): a number that rings its members with a strategy for `ring_time`
 * seconds, then sends the call to its no-answer destination. `members` are extension numbers and external
 * numbers written as FreePBX writes them (`5551234#`).
 */
export const ringGroups = sqliteTable("ring_groups", {
  id: id(),
  number: text("number").notNull().unique(),
  name: text("name").notNull(),
  strategy: text("strategy", {
    enum: [
      "ringall",
      "ringall-prim",
      "hunt",
      "hunt-prim",
      "memoryhunt",
      "memoryhunt-prim",
      "firstavailable",
      "firstnotonphone",
      "random",
    ],
  }).notNull(),
  ringTime: integer("ring_time").notNull(),
  members: jsonList("members"),
  /** The no-answer destination (src/shared/destinations.ts), or null: FreePBX then ends the call. */
  noAnswerKind: destinationKind("no_answer_kind"),
  noAnswerTarget: text("no_answer_target"),
  createdAt: createdAt(),
});

/**
 * Queues (FreePBX's queues_config + queues_details): a number whose callers wait for one of its static agents
 * (extension numbers, in ring order), rung by `strategy`; after `max_wait` seconds (0: no limit) a caller goes
 * to the timeout destination.
 */
export const queues = sqliteTable("queues", {
  id: id(),
  number: text("number").notNull().unique(),
  name: text("name").notNull(),
  strategy: text("strategy", {
    enum: ["ringall", "leastrecent", "fewestcalls", "random", "rrmemory", "rrordered", "linear", "wrandom"],
  }).notNull(),
  agents: jsonList("agents"),
  maxWait: integer("max_wait").notNull().default(0),
  /** The timeout destination (src/shared/destinations.ts), or null: FreePBX then ends the call. */
  timeoutKind: destinationKind("timeout_kind"),
  timeoutTarget: text("timeout_target"),
  createdAt: createdAt(),
});

/**
 * IVRs (FreePBX's ivr_details + ivr_entries, ADR 0059): a greeting (a system recording's FreePBX id), the keys a
 * caller presses and where each goes, and where a wrong key or no key goes after `retries` tries. A destination
 * to an IVR names this table's id; the deploy writes FreePBX's.
 */
export const ivrs = sqliteTable("ivrs", {
  id: id(),
  name: text("name").notNull().unique(),
  greeting: integer("greeting"),
  timeout: integer("timeout").notNull().default(10),
  retries: integer("retries").notNull().default(3),
  /** `[{digits, destination: {kind, target}}]`, in the order the administrator listed them. */
  options: text("options", { mode: "json" })
    .$type<{ digits: string; destination: { kind: DestinationKindValue; target: string } }[]>()
    .notNull()
    .default(sql`'[]'`),
  invalidKind: destinationKind("invalid_kind"),
  invalidTarget: text("invalid_target"),
  timeoutKind: destinationKind("timeout_kind"),
  timeoutTarget: text("timeout_target"),
  createdAt: createdAt(),
});

/** Announcements (FreePBX's announcement table, ADR 0059): a recording played, then the call goes on. */
export const announcements = sqliteTable("announcements", {
  id: id(),
  name: text("name").notNull().unique(),
  recording: integer("recording"),
  allowSkip: integer("allow_skip", { mode: "boolean" }).notNull().default(false),
  afterKind: destinationKind("after_kind"),
  afterTarget: text("after_target"),
  createdAt: createdAt(),
});

/**
 * Time groups (FreePBX's timegroups_groups + timegroups_details, ADR 0059): weekly hours and yearly holidays,
 * each one row as FreePBX's own form writes it.
 */
export const timeGroups = sqliteTable("time_groups", {
  id: id(),
  name: text("name").notNull().unique(),
  weekly: text("weekly", { mode: "json" })
    .$type<{ fromDay: string; toDay: string; start: string; end: string }[]>()
    .notNull()
    .default(sql`'[]'`),
  holidays: text("holidays", { mode: "json" })
    .$type<{ month: string; day: number; toDay: number }[]>()
    .notNull()
    .default(sql`'[]'`),
  createdAt: createdAt(),
});

/**
 * Time conditions (FreePBX's timeconditions, ADR 0059): a time group read in a zone (null: the PBX's), and where
 * calls go while it matches and while it does not. The override (force open/closed) is the PBX's state, not here.
 */
export const timeConditions = sqliteTable("time_conditions", {
  id: id(),
  name: text("name").notNull().unique(),
  timeGroupId: integer("time_group_id").notNull(),
  timeZone: text("time_zone"),
  matchKind: destinationKind("match_kind"),
  matchTarget: text("match_target"),
  noMatchKind: destinationKind("no_match_kind"),
  noMatchTarget: text("no_match_target"),
  createdAt: createdAt(),
});

export const apiCredentials = sqliteTable("api_credentials", {
  id: id(),
  name: text("name").notNull(),
  type: text("type").notNull().unique(),
  apiKey: text("api_key"),
  clientId: text("client_id"),
  clientSecret: text("client_secret"),
  apiUrl: text("api_url"),
  createdAt: createdAt(),
  /** Non-secret extra settings of the service (e.g. SSH host and port), JSON. */
  settings: text("settings", { mode: "json" }).$type<Record<string, string>>().notNull().default(sql`'{}'`),
  /** Extra secrets (e.g. SSH password, webhook secret): encrypted JSON, like apiKey and clientSecret. */
  secretExtra: text("secret_extra"),
  /** Outcome of the last Test Connection; reset when the credentials change. */
  lastTestOk: bool("last_test_ok", false),
  lastTestAt: integer("last_test_at", { mode: "timestamp_ms" }),
  lastTestMessage: text("last_test_message"),
});

/** SIP credentials generated at the SIP provider for an extension; the password is encrypted. */
export const sipProviderCredentials = sqliteTable("sip_provider_credentials", {
  id: id(),
  providerId: text("provider_id").notNull().unique(),
  connectionId: text("connection_id").notNull(),
  extensionId: integer("extension_id").references(() => extensions.id, { onDelete: "set null" }),
  name: text("name").notNull(),
  sipUsername: text("sip_username").notNull(),
  sipPassword: text("sip_password").notNull(),
  createdAt: createdAt(),
});

export const aiAssistants = sqliteTable("ai_assistants", {
  id: id(),
  name: text("name").notNull(),
  description: text("description"),
  provider: text("provider", { enum: ["openai"] })
    .notNull()
    .default("openai"),
  model: text("model").notNull().default("gpt-4o-realtime-preview"),
  systemPrompt: text("system_prompt").notNull(),
  voice: text("voice").notNull().default("alloy"),
  temperature: integer("temperature").notNull().default(80),
  tools: jsonList("tools"),
  extensionId: text("extension_id"),
  ivrId: text("ivr_id"),
  status: text("status", { enum: ["active", "inactive"] })
    .notNull()
    .default("active"),
  /** The post-call analysis it runs (ADR 0071); null = none. */
  analysis: text("analysis", { mode: "json" }).$type<AnalysisConfig | null>(),
  /** Caps (ADR 0070): a call ends or is transferred politely past these; null = no cap. */
  callCostCapUsd: real("call_cost_cap_usd"),
  callSecondsCap: integer("call_seconds_cap"),
  dailySpendCapUsd: real("daily_spend_cap_usd"),
  capAction: text("cap_action", { enum: ["hangup", "transfer"] })
    .notNull()
    .default("hangup"),
  /** The extension a capped call is transferred to when `capAction` is `transfer`. */
  capTransferTo: text("cap_transfer_to"),
  createdAt: createdAt(),
  updatedAt: createdAt("updated_at"),
});

export const callTranscripts = sqliteTable(
  "call_transcripts",
  {
    id: id(),
    callId: text("call_id"),
    extensionId: text("extension_id"),
    phoneNumber: text("phone_number"),
    direction: text("direction"),
    transcript: text("transcript").notNull(),
    summary: text("summary"),
    sentiment: text("sentiment"),
    keywords: jsonList("keywords"),
    duration: integer("duration"),
    recordingUrl: text("recording_url"),
    /** How a call the console followed ended (ADR 0042): "transferred to 1001", "ended by assistant", …; null from the token intake. */
    outcome: text("outcome"),
    /** The console lost the call's sideband for good: turns may be missing (ADR 0042). */
    partial: integer("partial", { mode: "boolean" }).notNull().default(false),
    /** The caller's intent as the console's classification saw it at the end of the call (ADR 0043). */
    intent: text("intent"),
    /** What the routing rules did during the call: "rule 'Angry' (#3) route_to_extension → 200: done" (ADR 0043). */
    ruleDecision: text("rule_decision"),
    /** The turns with the time each was heard (`TimedTurn` JSON), for the call's timeline; `[]` for older rows. */
    turns: text("turns", { mode: "json" }).$type<TimedTurn[]>().notNull().default(sql`'[]'`),
    createdAt: createdAt(),
  },
  // The transcripts list pages newest first by (created_at, id) (ADR 0033).
  (t) => [index("call_transcripts_created_idx").on(t.createdAt, t.id)],
);

export const aiRoutingRules = sqliteTable("ai_routing_rules", {
  id: id(),
  name: text("name").notNull(),
  description: text("description"),
  priority: integer("priority").notNull().default(0),
  conditions: text("conditions").notNull(),
  action: text("action").notNull(),
  actionParams: text("action_params").notNull(),
  enabled: bool("enabled", true),
  createdAt: createdAt(),
});

/**
 * API tokens for machine clients (the voice bridge posting transcripts). Only
 * the SHA-256 of the token is stored; `prefix` and `last4` identify it in lists.
 * Revoking sets `revokedAt` (the row stays for the record).
 */
/**
 * Tokens for machine clients, kept as their SHA-256. `transcripts:write` is the voice bridge's intake (one
 * route); `api` is a REST API token that acts with its `role` on every route that accepts tokens (ADR 0074),
 * within `networks` (CIDRs; empty: from anywhere) until `expires_at`. `role` is NULL on intake tokens.
 */
export const apiTokens = sqliteTable("api_tokens", {
  id: id(),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  prefix: text("prefix").notNull(),
  last4: text("last4").notNull(),
  scope: text("scope", { enum: ["transcripts:write", "api"] }).notNull(),
  role: text("role", { enum: ["admin", "operator", "viewer"] }),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
  networks: jsonList("networks"),
  /** The administrator who made it (their name then, and their id). */
  createdBy: text("created_by"),
  createdByUserId: text("created_by_user_id"),
  createdAt: createdAt(),
  lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
  /** The client address of the last accepted request (after TRUSTED_PROXIES). */
  lastUsedFrom: text("last_used_from"),
  revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
});

/** One row per `realtime.call.incoming` handled by the OpenAI webhook: what was done and why. */
export const aiCallLogs = sqliteTable(
  "ai_call_logs",
  {
    id: id(),
    callId: text("call_id").notNull(),
    webhookId: text("webhook_id"),
    assistantId: integer("assistant_id").references(() => aiAssistants.id, { onDelete: "set null" }),
    ruleId: integer("rule_id").references(() => aiRoutingRules.id, { onDelete: "set null" }),
    calledNumber: text("called_number"),
    callerNumber: text("caller_number"),
    outcome: text("outcome", { enum: ["accept", "reject", "refer", "error"] }).notNull(),
    detail: text("detail"),
    /** What happened on an accepted call's sideband (tools run, refusals, drops, OpenAI errors), at most 50 lines (ADR 0042). */
    events: jsonList("events"),
    /** The PBX call's `linkedid` when the INVITE carried it (`X-Linkedid`): ties the AI call to its CDR legs. */
    linkedid: text("linkedid"),
    /** Measures of a followed call (ADR 0070), written when its sideband session ends. */
    endedAt: integer("ended_at", { mode: "timestamp_ms" }),
    usage: text("usage", { mode: "json" }).$type<RealtimeUsage | null>(),
    costUsd: real("cost_usd"),
    /** The price row the cost was computed with, as it was when the call started. */
    price: text("price", { mode: "json" }).$type<ModelPrice | null>(),
    latencyTurns: text("latency_turns", { mode: "json" }).$type<TurnLatency[]>().notNull().default(sql`'[]'`),
    endReason: text("end_reason").$type<AiCallEnd>(),
    /** The post-call analysis (ADR 0071), or why it failed (the call stays stored either way). */
    analysis: text("analysis", { mode: "json" }).$type<CallAnalysisResult | null>(),
    analysisError: text("analysis_error"),
    createdAt: createdAt(),
  },
  (t) => [
    index("ai_call_logs_call_id_idx").on(t.callId),
    index("ai_call_logs_assistant_idx").on(t.assistantId, t.createdAt),
  ],
);

/** The price table per model (USD per million tokens; ADR 0070); empty = the built-in defaults apply. */
export const aiPrices = sqliteTable("ai_prices", {
  model: text("model").primaryKey(),
  inputText: real("input_text").notNull(),
  cachedInputText: real("cached_input_text").notNull(),
  outputText: real("output_text").notNull(),
  inputAudio: real("input_audio").notNull(),
  cachedInputAudio: real("cached_input_audio").notNull(),
  outputAudio: real("output_audio").notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/** Scripted test conversations of an assistant (ADR 0072). */
export const aiTestScripts = sqliteTable(
  "ai_test_scripts",
  {
    id: id(),
    assistantId: integer("assistant_id")
      .notNull()
      .references(() => aiAssistants.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The caller's turns, in order. */
    turns: jsonList("turns"),
    expect: text("expect", { mode: "json" }).$type<TestScriptExpect>().notNull(),
    createdAt: createdAt(),
    updatedAt: createdAt("updated_at"),
  },
  (t) => [index("ai_test_scripts_assistant_idx").on(t.assistantId)],
);

/** One run of a test script: its pass/fail history. */
export const aiTestRuns = sqliteTable(
  "ai_test_runs",
  {
    id: id(),
    scriptId: integer("script_id")
      .notNull()
      .references(() => aiTestScripts.id, { onDelete: "cascade" }),
    assistantId: integer("assistant_id")
      .notNull()
      .references(() => aiAssistants.id, { onDelete: "cascade" }),
    trigger: text("trigger", { enum: ["manual", "prompt-change"] }).notNull(),
    /** SHA-256 of the prompt, tools and model the run used: which version of the assistant it tested. */
    promptHash: text("prompt_hash").notNull(),
    state: text("state", { enum: ["running", "passed", "failed", "error"] }).notNull(),
    result: text("result", { mode: "json" }).$type<TestRunResult | null>(),
    detail: text("detail"),
    startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("ai_test_runs_script_idx").on(t.scriptId, t.id)],
);

/** Messages an AI assistant took for someone during a call (its `take_message` tool; ADR 0042). */
export const aiMessages = sqliteTable(
  "ai_messages",
  {
    id: id(),
    callId: text("call_id"),
    assistantId: integer("assistant_id").references(() => aiAssistants.id, { onDelete: "set null" }),
    callerNumber: text("caller_number"),
    callerName: text("caller_name"),
    /** Who the message is for, as the caller said it. */
    recipient: text("recipient").notNull(),
    message: text("message").notNull(),
    callbackNumber: text("callback_number"),
    createdAt: createdAt(),
  },
  (t) => [index("ai_messages_created_idx").on(t.createdAt, t.id)],
);

/**
 * The audit trail (src/shared/audit.ts): one row per sign-in, sign-out, mutation, deploy, credential,
 * user and backup action. Rows are never changed (a trigger refuses UPDATE) and only the retention
 * sweep deletes them (AUDIT_RETENTION_DAYS). `changes` is the field-level before/after with secrets masked.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: id(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    actor: text("actor").notNull(),
    actorUserId: text("actor_user_id"),
    clientIp: text("client_ip"),
    action: text("action").notNull(),
    outcome: text("outcome", { enum: ["ok", "denied", "failed"] }).notNull(),
    objectType: text("object_type"),
    objectId: text("object_id"),
    objectLabel: text("object_label"),
    changes: text("changes", { mode: "json" })
      .$type<{ field: string; from?: string; to?: string }[]>()
      .notNull()
      .default(sql`'[]'`),
    detail: text("detail"),
  },
  (t) => [index("audit_log_at_idx").on(t.at), index("audit_log_actor_idx").on(t.actor, t.id)],
);

/** Console-wide settings an administrator changes in the UI (key → JSON value), e.g. `requireTotp`. */
export const consoleSettings = sqliteTable("console_settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/**
 * Long work the console runs outside any request (deployments and sync imports; docs/decisions/0024):
 * one row per run with its progress, kept as history. A row still `running` when the console starts
 * is marked `interrupted` (the process ended mid-job).
 */
export const jobs = sqliteTable(
  "jobs",
  {
    id: id(),
    /** `deploy`, `import`, `rollback` or `retention` (src/shared/jobs.ts). */
    kind: text("kind", { enum: ["deploy", "import", "rollback", "retention"] }).notNull(),
    /** What it works on: `trunks`, `extensions`, `ptt-groups`, `all`. */
    target: text("target").notNull(),
    startedBy: text("started_by").notNull(),
    startedByUserId: text("started_by_user_id"),
    startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
    deadlineAt: integer("deadline_at", { mode: "timestamp_ms" }).notNull(),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
    state: text("state", { enum: ["running", "succeeded", "failed", "cancelled", "interrupted"] }).notNull(),
    /** Items in the job; null until known (e.g. while the PBX is being read). */
    total: integer("total"),
    /** The step or object being worked on now. */
    current: text("current"),
    cancelledBy: text("cancelled_by"),
    /** The final answer, shaped as the route used to return it (DeployResponse, DeployAllResponse, ImportResult). */
    summary: text("summary", { mode: "json" }),
    /** Why the job failed or stopped (an error, "deadline exceeded", "cancelled by …", "interrupted"). */
    error: text("error"),
  },
  (t) => [index("jobs_state_idx").on(t.state)],
);

/** Each item's result as it finished, in order (a job's live results list). */
export const jobResults = sqliteTable(
  "job_results",
  {
    id: id(),
    jobId: integer("job_id")
      .notNull()
      .references(() => jobs.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    status: text("status", { enum: ["success", "failed"] }).notNull(),
    message: text("message").notNull(),
  },
  (t) => [index("job_results_job_idx").on(t.jobId, t.id)],
);

/**
 * The PBX objects the console manages: created by a deployment, or adopted by a sync
 * import or a resolved conflict. The console changes or deletes only these on the PBX; an object with
 * the same number or name that is not here is a conflict the administrator resolves (adopt or skip).
 * `key` is the object's identity on the PBX (extension number, trunk name, route name, DID, group
 * number); `pbxId` the id FreePBX gave it where it has one (trunkid, route_id).
 */
export const pbxObjects = sqliteTable(
  "pbx_objects",
  {
    id: id(),
    kind: text("kind", {
      enum: [
        "trunk",
        "extension",
        "outboundRoute",
        "inboundRoute",
        "pttGroup",
        "ringGroup",
        "queue",
        "ivr",
        "announcement",
        "timeGroup",
        "timeCondition",
      ],
    }).notNull(),
    key: text("key").notNull(),
    pbxId: text("pbx_id"),
    /** The console row it mirrors; null once that row was deleted (the object is then planned for deletion). */
    consoleId: integer("console_id"),
    /**
     * A page group's members as the console last wrote them (a JSON array; null: unknown, e.g. written
     * before this column): a member the console removes is removed from FreePBX, one added there is kept.
     */
    deployedMembers: text("deployed_members", { mode: "json" }).$type<string[]>(),
    origin: text("origin", { enum: ["deploy", "import", "adopt"] }).notNull(),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [uniqueIndex("pbx_objects_kind_key_idx").on(t.kind, t.key)],
);

/**
 * Snapshots of every PBX row an apply touched, taken before it wrote: "Roll back"
 * restores them exactly. `rows` holds, per table, the rows as they were (absent rows too, so a created
 * object is removed again); `astdb` the AstDB entries as they were.
 */
export const configBackups = sqliteTable("config_backups", {
  id: id(),
  /** The job that applied the change (and whose history entry offers the roll back). */
  jobId: integer("job_id").references(() => jobs.id, { onDelete: "set null" }),
  createdAt: createdAt(),
  createdBy: text("created_by").notNull(),
  /** What was applied: `trunks`, `extensions`, `ptt-groups`, `all`. */
  target: text("target").notNull(),
  /** The objects covered, one line each ("extension 1001", "trunk carrier"). */
  objects: text("objects", { mode: "json" }).$type<string[]>().notNull(),
  rows: text("rows", { mode: "json" }).notNull(),
  astdb: text("astdb", { mode: "json" }),
  restoredAt: integer("restored_at", { mode: "timestamp_ms" }),
  restoredBy: text("restored_by"),
});

/**
 * A version per table that a list's `ETag` is made of (ADR 0029): SQLite triggers (migration 0012) add
 * one on every insert, update and delete of the table, whoever writes (the console, the CLI, another
 * process on the same file). Only the tables a list route declares in `etag` have a row.
 */
export const tableVersions = sqliteTable("table_versions", {
  name: text("name").primaryKey(),
  version: integer("version").notNull().default(0),
});

// ---- The console watching itself and the PBX (alerts, test calls, off-site backups) ----

const updatedAt = () => integer("updated_at", { mode: "timestamp_ms" }).notNull();

/**
 * Where alerts are sent: e-mail (SMTP), Slack, Telegram or a signed webhook. `settings` holds what is not
 * secret (SMTP host, port, security, user, sender, recipients; a Telegram chat id; a webhook URL); `secret` the
 * sealed part (SMTP password, a Slack incoming-webhook URL, a Telegram bot token, a webhook signing secret),
 * never returned.
 */
export const alertChannels = sqliteTable("alert_channels", {
  id: id(),
  name: text("name").notNull().unique(),
  kind: text("kind", { enum: ["email", "slack", "telegram", "webhook"] }).notNull(),
  settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  secret: text("secret"),
  enabled: bool("enabled", true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** What is watched, how long a condition lasts before it fires, how often it repeats, and where it goes. */
export const alertRules = sqliteTable("alert_rules", {
  id: id(),
  name: text("name").notNull().unique(),
  /** The condition (src/shared/alerts.ts), e.g. `trunk-unregistered`, `disk-usage`, `test-call-failed`. */
  kind: text("kind").notNull(),
  /** The condition's parameters (seconds, percent, days, count…), checked by the kind's schema. */
  params: text("params", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  channelIds: text("channel_ids", { mode: "json" }).$type<number[]>().notNull().default(sql`'[]'`),
  /** Minutes between repeats while the alert lasts; 0 sends it once. */
  repeatMinutes: integer("repeat_minutes").notNull().default(60),
  enabled: bool("enabled", true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** One alert: a rule's condition on one subject (a trunk, an extension, a disk) from firing to resolved. */
export const alertEvents = sqliteTable(
  "alert_events",
  {
    id: id(),
    ruleId: integer("rule_id").references(() => alertRules.id, { onDelete: "set null" }),
    /** The rule's name and kind when it fired (kept when the rule is deleted). */
    ruleName: text("rule_name").notNull(),
    kind: text("kind").notNull(),
    /** What it is about, stable while it lasts: `trunk:telnyx`, `extension:2501`, `disk:/`. */
    subject: text("subject").notNull(),
    message: text("message").notNull(),
    state: text("state", { enum: ["firing", "resolved"] }).notNull(),
    startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
    lastNotifiedAt: integer("last_notified_at", { mode: "timestamp_ms" }),
    notifications: integer("notifications").notNull().default(0),
    resolvedAt: integer("resolved_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("alert_events_rule_idx").on(t.ruleId, t.subject, t.state),
    index("alert_events_started_idx").on(t.startedAt),
  ],
);

/** Each message sent (or tried) to a channel: an alert's firing, repeat and resolved messages, and tests. */
export const alertDeliveries = sqliteTable(
  "alert_deliveries",
  {
    id: id(),
    eventId: integer("event_id").references(() => alertEvents.id, { onDelete: "cascade" }),
    channelId: integer("channel_id").references(() => alertChannels.id, { onDelete: "set null" }),
    what: text("what", { enum: ["firing", "repeat", "resolved", "test"] }).notNull(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    ok: integer("ok", { mode: "boolean" }).notNull(),
    error: text("error"),
  },
  (t) => [index("alert_deliveries_event_idx").on(t.eventId), index("alert_deliveries_at_idx").on(t.at)],
);

/** A test call placed on a schedule through the manager interface: answered in time, audio flowing. */
export const testCalls = sqliteTable("test_calls", {
  id: id(),
  name: text("name").notNull().unique(),
  /** What is dialled (an echo test, an IVR, an AI assistant's number) in `context`. */
  number: text("number").notNull(),
  context: text("context").notNull().default("from-internal"),
  intervalMinutes: integer("interval_minutes").notNull().default(15),
  answerWithinSeconds: integer("answer_within_seconds").notNull().default(10),
  /** How long the answered call is held while its media is measured. */
  listenSeconds: integer("listen_seconds").notNull().default(5),
  enabled: bool("enabled", true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Each run of a test call. */
export const testCallResults = sqliteTable(
  "test_call_results",
  {
    id: id(),
    testCallId: integer("test_call_id")
      .notNull()
      .references(() => testCalls.id, { onDelete: "cascade" }),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    ok: integer("ok", { mode: "boolean" }).notNull(),
    answered: integer("answered", { mode: "boolean" }).notNull(),
    answerMs: integer("answer_ms"),
    durationMs: integer("duration_ms").notNull(),
    rxPackets: integer("rx_packets"),
    txPackets: integer("tx_packets"),
    lossPercent: integer("loss_percent"),
    jitterMs: integer("jitter_ms"),
    error: text("error"),
  },
  (t) => [index("test_call_results_idx").on(t.testCallId, t.at)],
);

/** Where backups are copied off the VPS: an S3-compatible bucket or an SFTP server. */
export const backupTargets = sqliteTable("backup_targets", {
  id: id(),
  name: text("name").notNull().unique(),
  kind: text("kind", { enum: ["s3", "sftp"] }).notNull(),
  /** Endpoint, region, bucket, prefix (S3); host, port, user, directory, host key fingerprint (SFTP). */
  settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  /** The sealed credential (S3 secret access key, SFTP password or private key), never returned. */
  secret: text("secret"),
  /** How many copies of each source are kept there. */
  keep: integer("keep").notNull().default(14),
  /** Whether the PBX backups a deploy takes are copied too. */
  includePbx: bool("include_pbx", true),
  enabled: bool("enabled", true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Each copy sent to a target (and whether it is still there). */
export const backupUploads = sqliteTable(
  "backup_uploads",
  {
    id: id(),
    targetId: integer("target_id")
      .notNull()
      .references(() => backupTargets.id, { onDelete: "cascade" }),
    source: text("source", { enum: ["console", "pbx"] }).notNull(),
    /** The object's name at the target. */
    name: text("name").notNull(),
    bytes: integer("bytes"),
    /** SHA-256 of the encrypted object as uploaded. */
    sha256: text("sha256"),
    /** The id of the off-site key the object is encrypted with (its header says so too; ADR 0064). */
    keyId: text("key_id"),
    state: text("state", { enum: ["running", "ok", "failed", "deleted"] }).notNull(),
    error: text("error"),
    startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("backup_uploads_target_idx").on(t.targetId, t.startedAt)],
);

/**
 * Other consoles this one watches as a fleet hub (ADR 0076): the address, the name it gave, the SHA-256
 * fingerprint of the certificate pinned at first contact, and the REST API token made there, sealed. Their
 * live state is the hub's memory, not stored.
 */
export const fleetMembers = sqliteTable("fleet_members", {
  id: id(),
  url: text("url").notNull().unique(),
  name: text("name").notNull(),
  /** AA:BB:… of the member's certificate; a contact whose certificate differs sends nothing. */
  pin: text("pin").notNull(),
  /** The sealed token, only ever sent to `url` over a connection whose certificate matches `pin`. */
  token: text("token").notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Document fragments the hub plans and applies on chosen members through their own plan/apply API (ADR 0076):
 * a name and the fragment (`{version: 1, outboundRoutes: [...]}`, or its YAML text) as the administrator gave it.
 */
export const fleetTemplates = sqliteTable("fleet_templates", {
  id: id(),
  name: text("name").notNull().unique(),
  document: text("document", { mode: "json" }).$type<Record<string, unknown> | string>().notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
