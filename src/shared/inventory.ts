/**
 * The PBX inventory: extensions, trunks, inbound and outbound routes, PTT (page) groups.
 * One zod schema per entity (the server validates every body with it, the forms use it
 * through the zod resolver) and the records as the API returns them (dates as ISO strings;
 * lists never carry SIP secrets: `hasSecret` says whether one is stored).
 */
import { z } from "zod";
import { DESTINATION_KIND_MESSAGE, DESTINATION_KINDS, type DestinationKind, destinationProblem } from "./destinations";
import { optionalText, patchOf, required } from "./fields";
import { lazySchema } from "./lazy-schema";
import { RECORDING_MODES, RECORDING_ON_DEMAND, type RecordingMode, type RecordingOnDemand } from "./recording-policy";

const SIP_SECRET_MIN = 12;

/* ─────────────────────────── FreePBX rules: the one validator ───────────────────────────
 * What FreePBX can hold, decided once. The schemas below apply these rules (so a form and the
 * API refuse a value with the very message the deploy would give), and the deploy
 * (src/server/pbx/objects/ownership.ts) applies the same rule lists to the stored rows: a row stored
 * before a rule existed is still listed, and its deploy is refused with that message.
 * Each `…Problem` function answers the message, or null when the value is fine.
 */

/** FreePBX's column limits in characters (reference §2; test/fixtures/freepbx/schema.sql is FreePBX 17's own). */
export const FREEPBX_LIMITS = {
  /** devices.description, users.name */
  extensionName: 50,
  /**
   * The console's trunk names (trunkNameProblem), stricter than FreePBX 17: trunks.name holds 255 characters and
   * trunks.channelid (the name with `_` for spaces) 190.
   */
  trunkName: 50,
  /** outbound_routes.name */
  routeName: 40,
  /** incoming.description */
  inboundDescription: 80,
  /** incoming.destination */
  destination: 50,
  /** paging_config.description */
  pageGroupName: 255,
  /** outbound_route_patterns.match_pattern_pass */
  dialPattern: 60,
  /** ringgroups.description */
  ringGroupName: 35,
  /** ringgroups.grplist: the members joined by `-` */
  ringGroupList: 255,
  /** queues_config.descr */
  queueName: 254,
} as const;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const CONTROL = /[\x00-\x1f\x7f]/;

/** Longer than FreePBX's column (counted in characters, as MariaDB counts them). */
export function lengthProblem(value: string | null | undefined, max: number, what: string): string | null {
  return value && [...value].length > max ? `${what} must be at most ${max} characters` : null;
}

/** Text that ends up in Asterisk config files (callerid, section names): no control characters. */
export function controlProblem(value: string | null | undefined, what: string): string | null {
  return value && CONTROL.test(value) ? `${what} contains a control character (e.g. a newline)` : null;
}

// Characters beyond U+FFFF (4 bytes in UTF-8: emoji, some CJK, musical symbols…).
const BEYOND_BMP = /[\u{10000}-\u{10FFFF}]/u;

/**
 * Text FreePBX 17 can store: its core and paging tables (users, devices, sip, incoming, outbound_routes,
 * paging_config…) are utf8mb3 (test/fixtures/freepbx/schema.sql, recorded from a real FreePBX 17), which
 * holds no character beyond U+FFFF; MariaDB refuses one ("Incorrect string value") and the deploy fails.
 */
export function charsetProblem(value: string | null | undefined, what: string): string | null {
  return value && BEYOND_BMP.test(value)
    ? `${what} contains a character FreePBX cannot store (an emoji or another character beyond U+FFFF)`
    : null;
}

/** Text stored in a FreePBX column: characters it can hold, within its length. */
export const freepbxTextProblem = (value: string | null | undefined, max: number, what: string) =>
  charsetProblem(value, what) ?? lengthProblem(value, max, what);

/** Config text that must also fit its FreePBX column. */
export const configTextProblem = (value: string | null | undefined, max: number, what: string) =>
  controlProblem(value, what) ?? freepbxTextProblem(value, max, what);

/** A value written as `key=value` into pjsip.conf: no whitespace, `;` (comment) or brackets. */
export function configTokenProblem(value: string | null | undefined, what: string): string | null {
  if (!value) return null;
  return !/^[\x21-\x7e]+$/.test(value) || /[;[\]]/.test(value)
    ? `${what} may not contain spaces, ';', '[' or ']'`
    : null;
}

const NUMBER_RE = /^\d{1,20}$/;
/** An extension, group, member or destination number: digits (FreePBX's columns hold 20). */
export function numberProblem(value: string, what: string): string | null {
  return NUMBER_RE.test(value) ? null : `${what} must contain digits only`;
}

const TRUNK_NAME_RE = /^[A-Za-z0-9 ._@()+-]{1,50}$/;
/** A trunk name FreePBX can use as a PJSIP section name (spaces are allowed: its channel id has `_` for them). */
export function trunkNameProblem(name: string): string | null {
  return TRUNK_NAME_RE.test(name)
    ? null
    : "Trunk name may only contain letters, digits, spaces and . _ @ ( ) + - (at most 50 characters)";
}

/**
 * FreePBX's channel id of a PJSIP trunk: its name with `_` for each space. Two names with one channel id
 * ("My Trunk", "My_Trunk") would be one PJSIP section in FreePBX, so the console keeps them unique too.
 */
export const trunkChannelId = (name: string): string => name.replace(/ /g, "_");

/**
 * Only SIP (PJSIP) trunks are deployed; an IAX or DAHDI trunk is kept in the console as a record (the
 * product lists the three types) and set up in FreePBX by hand. The deploy refuses it with this message
 * and the trunk form shows the same message as soon as the type is chosen.
 */
export function trunkTypeDeployProblem(type: string): string | null {
  return type === "sip"
    ? null
    : `Only SIP (PJSIP) trunks are deployed; ${type.toUpperCase()} trunks are set up in FreePBX`;
}

/** A DNS host name (labels of letters, digits and hyphens). */
export const HOST_RE =
  /^(?=.{1,255}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$/;
/** What a trunk's SIP server may be: a host name, an IPv4 address, or an IPv6 address (optionally in brackets). */
const SIP_SERVER_RE = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,253}[A-Za-z0-9])?$|^\[?[0-9A-Fa-f:.]+\]?$/;
export function hostProblem(host: string): string | null {
  return (
    lengthProblem(host, 255, "Host") ?? (SIP_SERVER_RE.test(host) ? null : "Host must be a host name or an IP address")
  );
}

const IPV4_NET =
  /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\/(?:3[0-2]|[12]?\d|(?:\d{1,3}\.){3}\d{1,3}))?$/;
const IPV6_NET = /^[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\/(?:12[0-8]|1[01]\d|\d?\d))?$/;
/** The most addresses an IP-authenticated trunk lists. */
export const MAX_PROVIDER_ADDRESSES = 20;
/**
 * One of the addresses an IP-authenticated trunk is identified by (PJSIP `identify` match):
 * an IPv4/IPv6 address or network (203.0.113.0/24), or a host name (resolved when Asterisk loads).
 */
export function providerAddressProblem(address: string): string | null {
  if (IPV4_NET.test(address) || IPV6_NET.test(address)) return null;
  if (HOST_RE.test(address) && /[A-Za-z]/.test(address)) return null;
  return `${JSON.stringify(address)} is not an IP address, a network (203.0.113.0/24) or a host name`;
}

/** FreePBX keeps only these characters in dial patterns (digits, * # + - . [ ] and the X N Z wildcards). */
export const DIAL_PATTERN_RE = /^[0-9*#+\-.[\]xXnNzZ]+$/;
export function dialPatternProblem(pattern: string): string | null {
  if (!DIAL_PATTERN_RE.test(pattern)) return "Dial patterns may only contain 0-9 * # + - . [ ] X N Z";
  return lengthProblem(pattern, FREEPBX_LIMITS.dialPattern, "A dial pattern");
}

/** A DID: digits with an optional leading +, or none (any DID). */
export function didProblem(did: string | null): string | null {
  return /^\+?\d{0,20}$/.test(did ?? "") ? null : "DID number must be digits, optionally starting with +";
}

/** A rule on one field of an object (it may read the others): the message, or null. */
export interface FieldRule<T> {
  field: keyof T & string;
  problem: (row: T) => string | null;
}

/** The first problem of a row under its rules (what the deploy refuses it with), or null. */
export function pbxProblem<T>(rules: readonly FieldRule<T>[], row: T): string | null {
  for (const rule of rules) {
    const problem = rule.problem(row);
    if (problem) return problem;
  }
  return null;
}

/** The rules as a zod refinement: each message under its field, unless the field already has one. */
export function withRules<S extends z.ZodType>(schema: S, rules: readonly FieldRule<z.output<S>>[]): S {
  return schema.superRefine((row, ctx) => {
    for (const rule of rules) {
      if (ctx.issues.some((i) => i.path?.[0] === rule.field)) continue;
      const problem = rule.problem(row);
      if (problem) ctx.addIssue({ code: "custom", path: [rule.field], message: problem });
    }
  }) as S;
}

/** One array element checked by a rule function (the deploy checks each element with the same function). */
export const checked = <S extends z.ZodType<string>>(schema: S, problem: (v: string) => string | null): S =>
  schema.superRefine((v, ctx) => {
    const p = problem(v);
    if (p) ctx.addIssue({ code: "custom", message: p });
  }) as S;

/** A required text whose limit is a FreePBX rule (not the field's own). */
export const named = (label: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`);

// The recording policy's values and texts are in ./recording-policy.ts (no zod: list screens show them).
const RECORDING_MODE_MESSAGE = "must be force, yes, dontcare, no or never";
/** A recording mode field: FreePBX's five values, null (the PBX's own), or absent (dontcare, FreePBX's default). */
export const recordingMode = (label: string) =>
  z
    .enum(RECORDING_MODES, { error: `${label} ${RECORDING_MODE_MESSAGE}` })
    .nullable()
    .default("dontcare");

/** What the deploy writes of an extension. */
export const extensionRules: readonly FieldRule<{ extension: string; name: string; secret: string | null }>[] = [
  { field: "extension", problem: (e) => numberProblem(e.extension, "Extension") },
  { field: "name", problem: (e) => configTextProblem(e.name, FREEPBX_LIMITS.extensionName, "Name") },
  { field: "secret", problem: (e) => configTokenProblem(e.secret, "Secret") },
];

export const extensionSchema = lazySchema(() =>
  withRules(
    z.object({
      extension: required("Extension", 10),
      name: named("Name"),
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
      recordingInExternal: recordingMode("Inbound external calls"),
      recordingOutExternal: recordingMode("Outbound external calls"),
      recordingInInternal: recordingMode("Inbound internal calls"),
      recordingOutInternal: recordingMode("Outbound internal calls"),
      recordingOnDemand: z
        .enum(RECORDING_ON_DEMAND, { error: "On-demand recording must be disabled, enabled or override" })
        .nullable()
        .default("disabled"),
    }),
    extensionRules,
  ),
);

export const trunkTypes = ["sip", "iax", "dahdi"] as const;
export const trunkAuthTypes = ["outbound", "inbound", "both"] as const;
/**
 * How the provider and the PBX trust each other: `credentials` (a username and secret, with
 * registration when it is on), or `ip` (no credentials, no registration: calls are matched by
 * the provider's addresses, PJSIP authentication=off, identify_by=ip).
 */
export const trunkAuthModes = ["credentials", "ip"] as const;
export type TrunkAuthMode = (typeof trunkAuthModes)[number];

/**
 * The authentication a trunk uses: as chosen; when a request does not say, credentials if it
 * carries a username or a secret, else IP (what a trunk without credentials can only be).
 */
export const trunkAuthModeOf = (t: {
  authMode?: TrunkAuthMode | null;
  username: string | null;
  secret: string | null;
}): TrunkAuthMode => t.authMode ?? (t.username || t.secret ? "credentials" : "ip");

interface TrunkRuleFields {
  name: string;
  host: string;
  authMode?: TrunkAuthMode | null;
  username: string | null;
  secret: string | null;
  fromDomain: string | null;
  fromUser: string | null;
  contactUser: string | null;
}

const needsCredential = (t: TrunkRuleFields, value: string | null, label: string) =>
  trunkAuthModeOf(t) === "credentials" && !value
    ? `${label} is required for authentication with credentials (or choose IP authentication)`
    : null;

/** What the deploy writes of a trunk (its provider addresses are checked one by one with `providerAddressProblem`). */
export const trunkRules: readonly FieldRule<TrunkRuleFields>[] = [
  { field: "name", problem: (t) => trunkNameProblem(t.name) },
  { field: "host", problem: (t) => hostProblem(t.host) },
  {
    field: "username",
    problem: (t) => needsCredential(t, t.username, "Username") ?? configTokenProblem(t.username, "Username"),
  },
  { field: "secret", problem: (t) => needsCredential(t, t.secret, "Secret") ?? configTokenProblem(t.secret, "Secret") },
  { field: "fromDomain", problem: (t) => configTokenProblem(t.fromDomain, "From domain") },
  { field: "fromUser", problem: (t) => configTokenProblem(t.fromUser, "From user") },
  { field: "contactUser", problem: (t) => configTokenProblem(t.contactUser, "Contact user") },
];

export const trunkSchema = lazySchema(() =>
  withRules(
    z.object({
      name: named("Name"),
      type: z.enum(trunkTypes, { error: "Type must be sip, iax or dahdi" }),
      host: named("Host"),
      port: z
        .number()
        .int("Port must be a whole number")
        .min(1, "Port must be between 1 and 65535")
        .max(65535, "Port must be between 1 and 65535")
        .optional()
        .nullable(),
      /** Left out: `trunkAuthModeOf` decides (credentials when a username or secret is given, else IP). */
      authMode: z.enum(trunkAuthModes, { error: "Authentication must be credentials or ip" }).optional(),
      username: optionalText("Username", 100),
      secret: optionalText("Secret", 255),
      /** IP authentication: the provider's addresses (empty: the host's). */
      providerAddresses: z
        .array(checked(z.string().trim().min(1, "Enter an address"), providerAddressProblem))
        .max(MAX_PROVIDER_ADDRESSES, `List at most ${MAX_PROVIDER_ADDRESSES} addresses`)
        .default([]),
      fromDomain: optionalText("From domain", 255),
      fromUser: optionalText("From user", 100),
      contactUser: optionalText("Contact user", 100),
      authType: z.enum(trunkAuthTypes).default("outbound"),
      registrationEnabled: z.boolean().default(false),
      rewriteContact: z.boolean().default(false),
      trustRpid: z.boolean().default(false),
      sendRpid: z.boolean().default(false),
      status: z.string().max(20).default("unregistered"),
    }),
    trunkRules,
  ),
);

/** What the deploy writes of an inbound route. */
export const inboundRules: readonly FieldRule<{
  description: string;
  didNumber: string | null;
  destination: string;
  destinationType: DestinationKind;
}>[] = [
  { field: "didNumber", problem: (r) => didProblem(r.didNumber) },
  {
    field: "description",
    problem: (r) => freepbxTextProblem(r.description, FREEPBX_LIMITS.inboundDescription, "Description"),
  },
  { field: "destination", problem: (r) => destinationProblem(r.destinationType, r.destination) },
];

export const inboundRouteSchema = lazySchema(() =>
  withRules(
    z.object({
      description: named("Description"),
      didNumber: optionalText("DID number", 20),
      // No trunk: FreePBX matches an inbound route by its DID only, never by the trunk a call came in on
      // (ADR 0037). A `trunkId` sent by an older client is ignored like any unknown field.
      // The target of `destinationType` (src/shared/destinations.ts): empty for hangup, else required there.
      destination: z.string({ error: "Destination must be text" }).trim().default(""),
      destinationType: z.enum(DESTINATION_KINDS, { error: DESTINATION_KIND_MESSAGE }),
      /** The callrecording module's mode for calls to this DID. */
      recording: recordingMode("Call recording"),
    }),
    inboundRules,
  ),
);

/** What the deploy writes of an outbound route (its dial patterns are checked one by one with `dialPatternProblem`). */
export const outboundRules: readonly FieldRule<{ name: string }>[] = [
  { field: "name", problem: (r) => configTextProblem(r.name, FREEPBX_LIMITS.routeName, "Name") },
];

export const outboundRouteSchema = lazySchema(() =>
  withRules(
    z.object({
      name: named("Name"),
      dialPatterns: z
        .array(
          checked(z.string().trim().min(1, "Enter a dial pattern"), dialPatternProblem).transform((p) =>
            p.toUpperCase(),
          ),
        )
        .min(1, "Add at least one dial pattern"),
      trunkId: z.number({ error: "Trunk is required" }).int().positive("Trunk is required"),
      routeOrder: z.number().int().min(0).default(0),
      /** The callrecording module's mode for calls out this route. */
      recording: recordingMode("Call recording"),
    }),
    outboundRules,
  ),
);

/** POST /api/outbound-routes/order: every outbound route's id, once each, in the new dial order (ADR 0040). */
export const outboundRouteOrderSchema = lazySchema(() =>
  z.object({
    ids: z
      .array(z.number({ error: "Route ids must be numbers" }).int("Route ids must be whole numbers").positive(), {
        error: "ids must be the list of route ids",
      })
      .max(10_000, "At most 10000 routes"),
  }),
);

/** What the deploy writes of a PTT (page) group (its members are checked one by one with `numberProblem`). */
export const pttRules: readonly FieldRule<{ name: string; extension: string }>[] = [
  { field: "extension", problem: (g) => numberProblem(g.extension, "Extension") },
  { field: "name", problem: (g) => configTextProblem(g.name, FREEPBX_LIMITS.pageGroupName, "Name") },
];
export const memberProblem = (member: string) => numberProblem(member, "Member");

export const pttGroupSchema = lazySchema(() =>
  withRules(
    z.object({
      name: required("Name", 50),
      extension: required("Extension", 10),
      description: optionalText("Description", 255),
      members: z
        .array(checked(z.string().trim().min(1).max(10, "Each member must be at most 10 characters"), memberProblem))
        .min(1, "Choose at least one member"),
      duplex: z.boolean().default(false),
      // No auto-answer switch: every FreePBX page leg is auto-answered, with the headers its `paging_autoanswer`
      // recipes pick by the phone's User-Agent; there is no per-group setting to map it to (ADR 0037).
    }),
    pttRules,
  ),
);

/**
 * FreePBX's ring strategies, as its ring group form lists them (ringgroups views/form.php): ring all, hunt
 * (one after another), memory hunt (1, then 1+2, then 1+2+3…), the `-prim` variants (nothing rings while the
 * first member is busy), the first available, the first not on the phone, and random.
 */
export const RING_STRATEGIES = [
  "ringall",
  "ringall-prim",
  "hunt",
  "hunt-prim",
  "memoryhunt",
  "memoryhunt-prim",
  "firstavailable",
  "firstnotonphone",
  "random",
] as const;
export type RingStrategy = (typeof RING_STRATEGIES)[number];

/** FreePBX's ring time range in seconds (its form refuses outside 1-300) and its form's default. */
export const RING_TIME = { min: 1, max: 300, default: 20 } as const;

/**
 * A ring group member: an extension number, or an external number ending in `#` (how FreePBX's ring group
 * form and `grplist` write a number dialled out through the outbound routes).
 */
export const RING_MEMBER_RE = /^\d{1,20}#?$/;
export const isExternalMember = (member: string) => member.endsWith("#");
export function ringMemberProblem(member: string): string | null {
  return RING_MEMBER_RE.test(member)
    ? null
    : "Each member must be an extension number, or an external number ending in # (5551234#)";
}

/** FreePBX's `grplist`: the members joined by `-`. */
export const ringGroupList = (members: readonly string[]) => members.join("-");

/** A destination (src/shared/destinations.ts) in a body: the kind, and its target (none for hangup). */
export const destinationSchema = lazySchema(() =>
  z
    .object(
      {
        kind: z.enum(DESTINATION_KINDS, { error: DESTINATION_KIND_MESSAGE }),
        target: z.string({ error: "Destination must be text" }).trim().default(""),
      },
      { error: "Choose where the call goes: a destination type and its number" },
    )
    .superRefine((d, ctx) => {
      const problem = destinationProblem(d.kind, d.target);
      if (problem) ctx.addIssue({ code: "custom", path: ["target"], message: problem });
    }),
);

interface RingRuleFields {
  number: string;
  name: string;
  strategy: string;
  ringTime: number;
  members: string[];
  noAnswer: { kind: DestinationKind; target: string } | null;
}

const STRATEGY_MESSAGE = `Strategy must be one of ${RING_STRATEGIES.join(", ")}`;
const RING_TIME_MESSAGE = `Ring time must be ${RING_TIME.min}-${RING_TIME.max} seconds`;

/** What the deploy writes of a ring group: the request schema and the deploy check the same rules. */
export const ringGroupRules: readonly FieldRule<RingRuleFields>[] = [
  { field: "number", problem: (g) => numberProblem(g.number, "Number") },
  { field: "name", problem: (g) => configTextProblem(g.name, FREEPBX_LIMITS.ringGroupName, "Name") },
  {
    field: "strategy",
    problem: (g) => ((RING_STRATEGIES as readonly string[]).includes(g.strategy) ? null : STRATEGY_MESSAGE),
  },
  {
    field: "ringTime",
    problem: (g) =>
      Number.isInteger(g.ringTime) && g.ringTime >= RING_TIME.min && g.ringTime <= RING_TIME.max
        ? null
        : RING_TIME_MESSAGE,
  },
  {
    field: "members",
    problem: (g) => {
      if (g.members.length === 0) return "Choose at least one member";
      for (const m of g.members) {
        const problem = ringMemberProblem(m);
        if (problem) return problem;
      }
      return [...ringGroupList(g.members)].length > FREEPBX_LIMITS.ringGroupList
        ? `The members must fit FreePBX's list of ${FREEPBX_LIMITS.ringGroupList} characters (numbers joined by -)`
        : null;
    },
  },
  {
    field: "noAnswer",
    problem: (g) => (g.noAnswer ? destinationProblem(g.noAnswer.kind, g.noAnswer.target) : null),
  },
];

export const ringGroupSchema = lazySchema(() =>
  withRules(
    z.object({
      number: required("Number", 10),
      name: named("Name"),
      strategy: z.enum(RING_STRATEGIES, { error: STRATEGY_MESSAGE }).default("ringall"),
      ringTime: z
        .number({ error: "Ring time must be a number of seconds" })
        .int("Ring time must be a whole number of seconds")
        .min(RING_TIME.min, RING_TIME_MESSAGE)
        .max(RING_TIME.max, RING_TIME_MESSAGE)
        .default(RING_TIME.default),
      members: z
        .array(
          checked(
            z.string().trim().min(1, "Enter a member").max(21, "Each member must be at most 21 characters"),
            ringMemberProblem,
          ),
          { error: "Members must be a list of numbers" },
        )
        .min(1, "Choose at least one member"),
      /** Where an unanswered call goes; null or absent: FreePBX ends the call. */
      noAnswer: destinationSchema
        .nullable()
        .optional()
        .transform((v) => v ?? null),
    }),
    ringGroupRules,
  ),
);

/**
 * The queue strategies FreePBX's queue form offers (queues views/form.php), Asterisk's own names: ring all,
 * least recently called, fewest calls, random, round robin with memory, round robin in the configured order,
 * linear (in the configured order), and random weighted by penalty.
 */
export const QUEUE_STRATEGIES = [
  "ringall",
  "leastrecent",
  "fewestcalls",
  "random",
  "rrmemory",
  "rrordered",
  "linear",
  "wrandom",
] as const;
export type QueueStrategy = (typeof QUEUE_STRATEGIES)[number];

/**
 * The max wait times FreePBX's queue form offers, in seconds (queues views/form.php): 0 (its "Unlimited", an
 * empty `maxwait`), 1-29, then 30-55 by 5, 60-280 by 20, 300-1140 by 60 and 1200-7200 by 300.
 */
export const QUEUE_MAX_WAITS: readonly number[] = (() => {
  const out = [0];
  const run = (from: number, to: number, step: number) => {
    for (let s = from; s <= to; s += step) out.push(s);
  };
  run(1, 29, 1);
  run(30, 55, 5);
  run(60, 280, 20);
  run(300, 1140, 60);
  run(1200, 7200, 300);
  return out;
})();
export const QUEUE_MAX_WAIT_MESSAGE =
  "Max wait must be a time FreePBX offers: 0 (no limit), 1-29 s, 30-55 s by 5, 60-280 s by 20, 300-1140 s by 60 or 1200-7200 s by 300";

/** A queue agent: a console extension's number (FreePBX's static member `Local/<n>@from-queue/n`). */
export function queueAgentProblem(agent: string): string | null {
  if (isExternalMember(agent)) return `${agent} is an external number: a queue's agents are extensions`;
  return NUMBER_RE.test(agent) ? null : "Each agent must be an extension number";
}

interface QueueRuleFields {
  number: string;
  name: string;
  strategy: string;
  agents: string[];
  maxWait: number;
  timeoutDestination: { kind: DestinationKind; target: string } | null;
}

const QUEUE_STRATEGY_MESSAGE = `Strategy must be one of ${QUEUE_STRATEGIES.join(", ")}`;

/** What the deploy writes of a queue: the request schema and the deploy check the same rules. */
export const queueRules: readonly FieldRule<QueueRuleFields>[] = [
  { field: "number", problem: (q) => numberProblem(q.number, "Number") },
  { field: "name", problem: (q) => configTextProblem(q.name, FREEPBX_LIMITS.queueName, "Name") },
  {
    field: "strategy",
    problem: (q) => ((QUEUE_STRATEGIES as readonly string[]).includes(q.strategy) ? null : QUEUE_STRATEGY_MESSAGE),
  },
  {
    field: "agents",
    problem: (q) => {
      if (q.agents.length === 0) return "Choose at least one agent";
      for (const a of q.agents) {
        const problem = queueAgentProblem(a);
        if (problem) return problem;
      }
      return null;
    },
  },
  { field: "maxWait", problem: (q) => (QUEUE_MAX_WAITS.includes(q.maxWait) ? null : QUEUE_MAX_WAIT_MESSAGE) },
  {
    field: "timeoutDestination",
    problem: (q) =>
      q.timeoutDestination ? destinationProblem(q.timeoutDestination.kind, q.timeoutDestination.target) : null,
  },
];

export const queueSchema = lazySchema(() =>
  withRules(
    z.object({
      number: required("Number", 10),
      name: named("Name"),
      strategy: z.enum(QUEUE_STRATEGIES, { error: QUEUE_STRATEGY_MESSAGE }).default("ringall"),
      agents: z
        .array(
          checked(
            z.string().trim().min(1, "Enter an agent").max(21, "Each agent must be at most 21 characters"),
            queueAgentProblem,
          ),
          { error: "Agents must be a list of extension numbers" },
        )
        .min(1, "Choose at least one agent"),
      maxWait: z
        .number({ error: "Max wait must be a number of seconds" })
        .int("Max wait must be a whole number of seconds")
        .default(0),
      /** Where a caller goes after the max wait; null or absent: FreePBX ends the call. */
      timeoutDestination: destinationSchema
        .nullable()
        .optional()
        .transform((v) => v ?? null),
    }),
    queueRules,
  ),
);

/*
 * PATCH bodies (edit dialogs): any of the fields, each checked like in the create schema; the server
 * then validates the stored record merged with them by the full schema, so an edit obeys every create
 * rule. A blank secret keeps the stored one.
 */
export const extensionPatchSchema = lazySchema(() => patchOf(extensionSchema));
export const trunkPatchSchema = lazySchema(() => patchOf(trunkSchema));
export const inboundRoutePatchSchema = lazySchema(() => patchOf(inboundRouteSchema));
export const outboundRoutePatchSchema = lazySchema(() => patchOf(outboundRouteSchema));
export const pttGroupPatchSchema = lazySchema(() => patchOf(pttGroupSchema));
export const ringGroupPatchSchema = lazySchema(() => patchOf(ringGroupSchema));
export const queuePatchSchema = lazySchema(() => patchOf(queueSchema));

export interface Extension {
  id: number;
  extension: string;
  name: string;
  email: string | null;
  position: string | null;
  personalPhone: string | null;
  voicemail: boolean;
  hasSecret: boolean;
  status: string;
  userId: string | null;
  /** FreePBX's recording policy per direction (ADR 0061); null: the PBX's own, not the console's. */
  recordingInExternal: RecordingMode | null;
  recordingOutExternal: RecordingMode | null;
  recordingInInternal: RecordingMode | null;
  recordingOutInternal: RecordingMode | null;
  recordingOnDemand: RecordingOnDemand | null;
  createdAt: string;
}

export interface Trunk {
  id: number;
  name: string;
  type: (typeof trunkTypes)[number];
  host: string;
  port: number | null;
  authMode: TrunkAuthMode;
  username: string | null;
  hasSecret: boolean;
  /** IP authentication: the provider's addresses calls are matched by (empty: the host's). */
  providerAddresses: string[];
  fromDomain: string | null;
  fromUser: string | null;
  contactUser: string | null;
  authType: (typeof trunkAuthTypes)[number];
  registrationEnabled: boolean;
  rewriteContact: boolean;
  trustRpid: boolean;
  sendRpid: boolean;
  status: string;
  createdAt: string;
}

export interface InboundRoute {
  id: number;
  description: string;
  didNumber: string | null;
  destination: string;
  destinationType: DestinationKind;
  /** The callrecording module's mode for calls to this DID (ADR 0061); null: the PBX's own. */
  recording: RecordingMode | null;
  createdAt: string;
}

export interface OutboundRoute {
  id: number;
  name: string;
  dialPatterns: string[];
  trunkId: number;
  routeOrder: number;
  /** The dial order: FreePBX tries the routes in ascending position (0 first); ADR 0040. */
  position: number;
  /** The callrecording module's mode for calls out this route (ADR 0061); null: the PBX's own. */
  recording: RecordingMode | null;
  createdAt: string;
}

export interface PttGroup {
  id: number;
  name: string;
  extension: string;
  description: string | null;
  members: string[];
  duplex: boolean;
  createdAt: string;
}

export interface RingGroup {
  id: number;
  number: string;
  name: string;
  strategy: RingStrategy;
  ringTime: number;
  /** Extension numbers, and external numbers ending in `#`, in ring order. */
  members: string[];
  noAnswer: { kind: DestinationKind; target: string } | null;
  createdAt: string;
}

export interface Queue {
  id: number;
  number: string;
  name: string;
  strategy: QueueStrategy;
  /** Extension numbers (static agents), in ring order. */
  agents: string[];
  /** Seconds a caller waits for an agent before the timeout destination; 0: no limit. */
  maxWait: number;
  timeoutDestination: { kind: DestinationKind; target: string } | null;
  createdAt: string;
}

/** What a softphone reads to configure itself: SIP server and credentials, and its PTT groups. */
export interface ProvisioningConfig {
  sip_server: string;
  sip_port: number;
  transport: string;
  username: string;
  password: string;
  display_name: string;
  ptt_enabled: boolean;
  ptt_groups: { id: number; name: string; number: string; mode: "duplex" | "simplex" }[];
}

/** GET /api/extensions/:id/provisioning: the SIP details for manual entry (the link is issued by a POST: ADR 0039). */
export interface ProvisioningResponse {
  config: ProvisioningConfig;
  /** Why a phone elsewhere might not reach the SIP host (loopback, private, unset); empty when none. */
  warnings: string[];
}
