import { z } from "zod";
import { lazySchema } from "./lazy-schema";

/** Wire shapes of deployment to the PBX and of the Sync screen (compare and import). */

export type DeployKind =
  | "trunk"
  | "extension"
  | "outboundRoute"
  | "inboundRoute"
  | "pttGroup"
  | "ringGroup"
  | "queue"
  | "ivr"
  | "announcement"
  | "timeGroup"
  | "timeCondition";

export interface DeployItemResult {
  kind: DeployKind;
  /** Extension number, trunk name, route name, DID or group number. */
  name: string;
  label: string;
  /** The same key again, under the name of its kind (API clients read `trunk` / `extension`). */
  trunk?: string;
  extension?: string;
  status: "success" | "failed";
  message: string;
  /** How the item reached the PBX. */
  via: "ssh" | "graphql" | null;
  /** What the plan said of it (ADR 0025): create, update, delete, conflict (adopted or not written), unchanged. */
  action?: "create" | "update" | "delete" | "conflict" | "unchanged";
  /** An extension whose voicemail mailbox this deployment created: how to see its random PIN once (ADR 0050). */
  voicemailPin?: NewMailboxPin;
}

/**
 * The handle of a new mailbox's PIN, never the PIN: `POST /api/deploy/voicemail-pins` answers the PIN once,
 * while the console keeps it in memory (until `expiresAt`, or a restart). ADR 0050.
 */
export interface NewMailboxPin {
  handle: string;
  /** ISO 8601: after this the console no longer has the PIN (FreePBX shows it under the extension's Voicemail tab). */
  expiresAt: string;
}

/** The handles are random base64url strings. */
const PIN_HANDLE_RE = /^[A-Za-z0-9_-]{16,64}$/;
/** The most handles one call may ask for: as many PINs as the console keeps at once. */
export const VOICEMAIL_PINS_MAX = 2000;

/**
 * `GET /api/config/generate`'s query: `script=0` leaves `deployment.script` out (the Generator screen downloads
 * the script from GET /api/config/script.sql, so the SQL comes once).
 */
export const generateQuerySchema = lazySchema(() =>
  z.object({
    script: z.enum(["0", "1"], { error: "script must be 0 or 1" }).optional(),
  }),
);

/** `POST /api/deploy/voicemail-pins`: the PINs behind these handles, each answered once. */
export const voicemailPinsRequestSchema = lazySchema(() =>
  z.object({
    handles: z
      .array(z.string().regex(PIN_HANDLE_RE, "Not a voicemail PIN handle"))
      .min(1, "Give at least one handle")
      .max(VOICEMAIL_PINS_MAX, `At most ${VOICEMAIL_PINS_MAX} handles`),
  }),
);
export type VoicemailPinsRequest = z.output<typeof voicemailPinsRequestSchema>;

export interface VoicemailPinsAnswer {
  /** The PINs still kept, now forgotten by the console. */
  pins: { handle: string; extension: string; context: string; pin: string }[];
  /** Handles already shown, expired or from before a restart. */
  gone: string[];
}

export interface ReloadResult {
  ok: boolean;
  via: "ssh" | "graphql";
  exitCode: number | null;
  /** The reload's output (its last 4,000 characters), kept with the job. */
  output: string;
  /** Why it failed, read from the output (`fwconsole reload`'s error block or "Reload failed because …"); null when it worked. */
  reason?: string | null;
}

export interface DeployGroupResult {
  deployed: number;
  failed: number;
  results: DeployItemResult[];
}

export interface DeployResponse extends DeployGroupResult {
  reload: ReloadResult | null;
}

export interface DeployAllResponse {
  trunks: DeployGroupResult;
  extensions: DeployGroupResult;
  outboundRoutes: DeployGroupResult;
  inboundRoutes: DeployGroupResult;
  ringGroups: DeployGroupResult;
  queues: DeployGroupResult;
  ivrs: DeployGroupResult;
  announcements: DeployGroupResult;
  timeGroups: DeployGroupResult;
  timeConditions: DeployGroupResult;
  reload: ReloadResult | null;
}

/** GET /api/deploy/status: which paths are configured and FreePBX's "reload needed" flag. */
/**
 * Whether a way to the PBX works, not only whether it is configured: `connected` (SSH: this status was
 * read over it; the FreePBX API: its last Test Connection succeeded), `failed` (with the reason),
 * `untested` (configured, never tested since it was saved) or `not-configured`.
 */
export interface PbxPathState {
  state: "connected" | "failed" | "untested" | "not-configured";
  message: string | null;
}

export interface PbxStatus {
  /** SSH is configured. */
  ssh: boolean;
  /** The FreePBX API is configured. */
  graphql: boolean;
  paths: { ssh: PbxPathState; graphql: PbxPathState };
  needReload: boolean | null;
  message: string | null;
}

export interface ExtensionComparison {
  extension: string;
  inDashboard: boolean;
  needsSync: boolean;
  freepbx: { name: string | null };
  dashboard: { name: string | null };
}
export interface TrunkComparison {
  name: string;
  inDashboard: boolean;
  needsSync: boolean;
  freepbx: { host: string | null };
  dashboard: { host: string | null };
}
/** A ring group or queue on the PBX next to the console's of the same number. */
export interface CallGroupComparison {
  number: string;
  inDashboard: boolean;
  /** Both sides hold it and any field the import writes differs. */
  needsSync: boolean;
  freepbx: { name: string | null };
  dashboard: { name: string | null };
}
export interface CompareResponse<Row> {
  freepbxCount: number;
  dashboardCount: number;
  comparison: Row[];
  /** How the PBX was read. */
  via: "ssh" | "graphql";
}
export interface ImportResult {
  created: number;
  updated: number;
  /** Objects the console already held as the PBX has them (not written; adopted when not yet managed). */
  unchanged?: number;
  failed: number;
  errors?: string[];
}

// ---------- sync import ----------

export const importExtensionsSchema = lazySchema(() =>
  z.object({
    extensions: z.array(z.string().regex(/^\d{1,20}$/, "Extension numbers are digits")).default([]),
    mode: z.enum(["all", "selected"], { error: "Mode must be all or selected" }),
  }),
);
export type ImportExtensionsInput = z.output<typeof importExtensionsSchema>;

export const importTrunksSchema = lazySchema(() =>
  z.object({
    trunks: z.array(z.string().min(1).max(50)).default([]),
    mode: z.enum(["all", "selected"], { error: "Mode must be all or selected" }),
  }),
);
export type ImportTrunksInput = z.output<typeof importTrunksSchema>;

const groupNumbers = (what: string) =>
  z.array(z.string().regex(/^\d{1,10}$/, `${what} numbers are digits`)).default([]);

export const importRingGroupsSchema = lazySchema(() =>
  z.object({
    ringGroups: groupNumbers("Ring group"),
    mode: z.enum(["all", "selected"], { error: "Mode must be all or selected" }),
  }),
);
export type ImportRingGroupsInput = z.output<typeof importRingGroupsSchema>;

export const importQueuesSchema = lazySchema(() =>
  z.object({
    queues: groupNumbers("Queue"),
    mode: z.enum(["all", "selected"], { error: "Mode must be all or selected" }),
  }),
);
export type ImportQueuesInput = z.output<typeof importQueuesSchema>;

/** What any import's selection is. */
export type ImportInput = ImportExtensionsInput | ImportTrunksInput | ImportRingGroupsInput | ImportQueuesInput;
