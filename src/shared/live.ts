/**
 * The live PBX: what Asterisk's manager interface (AMI) says right now (registrations, device states,
 * trunk registrations, calls in progress, failed sign-ins) and FreePBX's call records (CDR).
 * Wire types of GET /api/pbx/status, /api/calls/active, /api/pbx/security and /api/cdr, shared by
 * server and web. ADR 0027.
 */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";
import type { DeviceState } from "./live-states";

// ---------------------------------------------------------------------------------------------------
// AMI: connection, extensions, trunks
// ---------------------------------------------------------------------------------------------------

/** Where the console is with the manager interface. `unknown` views say why in `reason`. */
export interface AmiConnection {
  /** Logged in and the initial lists were read. */
  connected: boolean;
  /** Why the live views are unknown (not configured, refused, unreachable, login failed…); null when connected. */
  reason: string | null;
  /** Where the settings came from: API Settings / environment, `/etc/asterisk/manager.conf`, or nowhere. */
  source: "settings" | "manager.conf" | "none";
  /** ISO time of the last change of `connected`. */
  since: string;
}

export { DEVICE_STATE_LABELS, DEVICE_STATES, type DeviceState } from "./live-states";

/** A contact (registered phone) of an endpoint: AMI `ContactList` / `ContactStatus`. */
export interface LiveContact {
  uri: string;
  status: "reachable" | "unreachable" | "unqualified" | "unknown";
  /** The phone's address as the PBX sees it (`ViaAddr`), e.g. `203.0.113.5:5060`; null when not given. */
  address: string | null;
  userAgent: string | null;
  /** Qualify round-trip time in milliseconds (from `RoundtripUsec`), null when not measured. */
  roundtripMs: number | null;
  /** ISO time the registration expires (`RegExpire`), null when not given. */
  expiresAt: string | null;
}

export interface ExtensionLive {
  extension: string;
  /** At least one contact is registered. */
  registered: boolean;
  state: DeviceState;
  contacts: LiveContact[];
}

export const TRUNK_REGISTRATIONS = [
  "registered",
  "unregistered",
  "rejected",
  "failed",
  "not-registering",
  "unknown",
] as const;
export type TrunkRegistration = (typeof TRUNK_REGISTRATIONS)[number];

export interface TrunkLive {
  /** The endpoint / registration name (FreePBX names both after the trunk). */
  name: string;
  /** `not-registering`: the endpoint exists but has no outbound registration (IP-authenticated trunk). */
  registration: TrunkRegistration;
  /** A contact of the trunk's AOR answers qualify (OPTIONS); null when it is not qualified. */
  reachable: boolean | null;
}

/** GET /api/pbx/status */
export interface PbxLiveStatus extends AmiConnection {
  extensions: ExtensionLive[];
  trunks: TrunkLive[];
  /** Calls in progress (one per `Linkedid`). */
  activeCalls: number;
}

// ---------------------------------------------------------------------------------------------------
// Active calls
// ---------------------------------------------------------------------------------------------------

export interface CallParty {
  number: string;
  name: string;
}

export interface ActiveChannel {
  /** e.g. `PJSIP/1001-00000004`: what POST /api/calls/hangup takes. */
  channel: string;
  /** Asterisk's state text: `Up`, `Ring`, `Ringing`, `Down`, … */
  state: string;
  callerNumber: string;
  callerName: string;
  connectedNumber: string;
  connectedName: string;
  /** ISO time the channel appeared (from `Duration` or the `Newchannel` event). */
  startedAt: string;
}

/** One call in progress: the channels that share a `Linkedid`. */
export interface ActiveCall {
  /** The `Linkedid`. */
  id: string;
  caller: CallParty;
  callee: CallParty;
  /** The trunk a leg runs over (`PJSIP/<trunk>-…` where `<trunk>` is not an extension), null for internal calls. */
  trunk: string | null;
  direction: "inbound" | "outbound" | "internal";
  /** `up` once any channel is answered, `ringing` while one rings, `dialing` before that. */
  state: "dialing" | "ringing" | "up";
  /** ISO time of the first channel. */
  startedAt: string;
  /** ISO time the call was answered, null before. */
  answeredAt: string | null;
  channels: ActiveChannel[];
}

/** GET /api/calls/active */
export interface ActiveCallsView extends AmiConnection {
  calls: ActiveCall[];
}

/** A channel name as AMI prints it: technology, slash, name. Never a `/regex/` (AMI Hangup would match many). */
export const CHANNEL_NAME = /^[A-Za-z][A-Za-z0-9_]{0,19}\/[A-Za-z0-9_.@:+;~-]{1,150}$/;

/** POST /api/calls/hangup */
export const hangupRequestSchema = lazySchema(() =>
  z.object({
    channel: z
      .string({ error: "Channel is required" })
      .trim()
      .min(1, "Channel is required")
      .max(200, "Channel is at most 200 characters")
      .regex(CHANNEL_NAME, "Channel must be a channel name such as PJSIP/1001-00000004"),
  }),
);
export type HangupRequest = z.infer<typeof hangupRequestSchema>;

// ---------------------------------------------------------------------------------------------------
// Attacks: failed SIP sign-ins from AMI security events
// ---------------------------------------------------------------------------------------------------

/** A source address with more failures than this within an hour raises the Dashboard warning. */
export const SECURITY_ALERT_THRESHOLD = 20;

export interface SecuritySource {
  /** The remote IP address (from `RemoteAddress: IPV4/UDP/203.0.113.9/5060`). */
  address: string;
  failures: number;
  /** Accounts tried, most tried first (at most 20). */
  accounts: { account: string; failures: number }[];
  /** ISO time of the last failure. */
  lastAt: string;
}

export interface SecurityWindow {
  failures: number;
  /** Sources, most failures first (at most 100). */
  sources: SecuritySource[];
}

/** GET /api/pbx/security */
export interface PbxSecurity extends AmiConnection {
  threshold: number;
  lastHour: SecurityWindow;
  lastDay: SecurityWindow;
  /** Failures per hour over the last 24 hours, oldest first (24 buckets; `start` is an ISO time). */
  perHour: { start: string; failures: number }[];
  /** Sources over the threshold in the last hour: the Dashboard's warning tile. */
  alerts: SecuritySource[];
  /**
   * What the console keeps in memory (bounded: past the limits the source that failed longest ago is
   * dropped, so the windows' totals stay exact and the per-source lists keep the most recent attackers).
   */
  tracked: { sources: number; accounts: number; maxSources: number; maxAccounts: number };
}

// ---------------------------------------------------------------------------------------------------
// Call history (CDR)
// ---------------------------------------------------------------------------------------------------

export const CDR_DISPOSITIONS = ["ANSWERED", "NO ANSWER", "BUSY", "FAILED", "CONGESTION"] as const;
export type CdrDisposition = (typeof CDR_DISPOSITIONS)[number];
export const CALL_DIRECTIONS = ["inbound", "outbound", "internal"] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

/**
 * How the history groups legs into calls: `linkedid` (FreePBX's table as it is today; a row without a
 * `linkedid` is grouped by its `uniqueid`), or `uniqueid` when the table has no `linkedid` column (a
 * table of an older FreePBX cdr module): the legs of one channel are a call (ADR 0049).
 */
export type CdrGrouping = "linkedid" | "uniqueid";

/** One call of the history: the CDR rows (legs) that share a `linkedid` (or a `uniqueid`, see `CdrGrouping`). */
export interface CdrCall {
  /** The `linkedid` (the `uniqueid` of a row without one, or of every row when the table has no `linkedid`). */
  id: string;
  /** ISO time of the first leg (CDR times are the PBX's local time; see ADR 0027). */
  startedAt: string;
  from: CallParty;
  to: CallParty;
  /** The dialled number of an inbound call (`did`), empty otherwise. */
  did: string;
  direction: CallDirection;
  /**
   * The most telling leg's: `ANSWERED` when any leg was answered, else `NO ANSWER`, `BUSY`, `FAILED`,
   * `CONGESTION` in that order (a failover that met congestion, then a busy line, was busy); `UNKNOWN`
   * when every leg's is empty or odd.
   */
  disposition: CdrDisposition | "UNKNOWN";
  /** Seconds from the first leg's start to the end of the last leg. */
  durationSec: number;
  /** Talk time: the longest `billsec` of a leg. */
  talkSec: number;
  /** The trunk a leg ran over, null for internal calls. */
  trunk: string | null;
  /** The extensions that took part (calling, rung or answering), in order of appearance. */
  extensions: string[];
  legs: number;
  recordingFile: string | null;
}

export const CDR_PAGE_DEFAULT = 50;
export const CDR_PAGE_MAX = 500;
/** The widest range a query may cover (the CDR table is only indexed by `calldate`). */
export const CDR_MAX_RANGE_DAYS = 366;

const isoTime = (label: string) =>
  z
    .string()
    .trim()
    .refine((v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}/.test(v), `${label} must be an ISO 8601 time`);

/** The filters of GET /api/cdr, /api/cdr/export.csv and /api/cdr/stats (query string values). */
export const cdrFilterSchema = lazySchema(() =>
  z.object({
    /** Start of the range (inclusive), ISO 8601. Default: 7 days before `to`. */
    from: isoTime("From").optional(),
    /** End of the range (exclusive), ISO 8601. Default: now. */
    to: isoTime("To").optional(),
    /** A number or name: caller, callee or DID (contains, case-insensitive, `%` and `_` literal). */
    q: z.string().trim().max(80, "The search text is at most 80 characters").optional(),
    disposition: z.enum([...CDR_DISPOSITIONS], { error: "Unknown disposition" }).optional(),
    direction: z.enum(CALL_DIRECTIONS, { error: "Direction must be inbound, outbound or internal" }).optional(),
    extension: z
      .string()
      .trim()
      .regex(/^\d{1,10}$/, "Extension must be digits")
      .optional(),
    trunk: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_.-]{1,50}$/, "Trunk must be a trunk name")
      .optional(),
  }),
);
export type CdrFilter = z.infer<typeof cdrFilterSchema>;

export const cdrPageQuerySchema = lazySchema(() =>
  cdrFilterSchema.extend({
    limit: z.coerce
      .number({ error: "Limit must be a number" })
      .int("Limit must be a whole number")
      .min(1, `Limit must be from 1 to ${CDR_PAGE_MAX}`)
      .max(CDR_PAGE_MAX, `Limit must be from 1 to ${CDR_PAGE_MAX}`)
      .optional(),
    /** `nextCursor` of the previous page. */
    cursor: z.string().trim().max(200, "Invalid cursor").optional(),
  }),
);
export type CdrPageQuery = z.infer<typeof cdrPageQuerySchema>;

/** What every answer of the history says about how it grouped the legs. */
export interface CdrGroupingNote {
  grouping: CdrGrouping;
  /** A sentence for the screen when the grouping is not the usual one (the table lacks `linkedid`), else null. */
  notice: string | null;
}

/** GET /api/cdr */
export interface CdrPage extends CdrGroupingNote {
  items: CdrCall[];
  /** Pass as `cursor` for the next (older) page; null when the range has no more calls. */
  nextCursor: string | null;
}

export const cdrStatsQuerySchema = lazySchema(() =>
  cdrFilterSchema.extend({
    bucket: z.enum(["hour", "day"], { error: "Bucket must be hour or day" }).optional(),
  }),
);
export type CdrStatsQuery = z.infer<typeof cdrStatsQuerySchema>;

/** GET /api/cdr/stats: the charts of the Call history screen. */
export interface CdrStats extends CdrGroupingNote {
  from: string;
  to: string;
  bucket: "hour" | "day";
  total: number;
  answered: number;
  /** Answer-seizure ratio: answered / total (0–1), null without calls. */
  asr: number | null;
  /** Average talk time of answered calls in seconds, null without answered calls. */
  acdSec: number | null;
  /** Calls per hour or day, oldest first; `start` is an ISO time. */
  series: { start: string; total: number; answered: number; missed: number }[];
  /** Calls per trunk (internal calls under `null`), most first. */
  byTrunk: { trunk: string | null; total: number; answered: number }[];
}

/** Where the CDR database comes from and whether it answers. */
export interface CdrSourceStatus {
  available: boolean;
  reason: string | null;
  source: "settings" | "freepbx.conf" | "none";
}
