import { z } from "zod";
import { lazySchema } from "./lazy-schema";

/**
 * Events published on /ws?type=sync. Every mutation publishes one, so every
 * open console refetches what changed (the web maps each type to query keys
 * in `src/web/lib/query-keys.ts`).
 */
export const wsEventTypes = [
  "extensions-updated",
  "trunks-updated",
  "routes-updated",
  "ptt-groups-updated",
  /** A ring group was created, edited or deleted (or an extension deleted from it); data: `{ id, action }`. */
  "ring-groups-updated",
  /** A queue was created, edited or deleted (or an extension deleted from its agents); data: `{ id, action }`. */
  "queues-updated",
  /** An IVR was created, edited or deleted; data: `{ id, action }`. */
  "ivrs-updated",
  /** An announcement was created, edited or deleted; data: `{ id, action }`. */
  "announcements-updated",
  /** A system recording was uploaded, renamed or deleted on the PBX; data: `{ id, action }`. */
  "recordings-updated",
  /** A time condition's override was forced or set back to automatic on the PBX; data: `{ id, override }`. */
  "time-condition-overrides-updated",
  /** A time group or time condition of the console's was created, edited or deleted; data: `{ id, action }`. */
  "time-conditions-updated",
  /**
   * A one-time softphone provisioning link was issued (replacing the extension's earlier one) or used by a
   * phone; data: `{ extensionId, used }`. No cached read carries the link (it is only in the issuer's answer).
   */
  "provisioning-updated",
  /** A deployment ran or a sync import finished: PBX status and compare views are stale. */
  "sync-status",
  "ai-assistants-updated",
  "ai-rules-updated",
  "ai-transcripts-updated",
  /** An incoming AI call was answered, refused or referred (the call log). */
  "ai-calls-updated",
  /** An AI assistant took a message during a call (GET /api/ai/messages; ADR 0042). */
  "ai-messages-updated",
  /** An AI call in progress started, said something, or ended (GET /api/ai/calls/live; coalesced; ADR 0044). */
  "ai-live-updated",
  /** An assistant's test scripts were created, edited or deleted (ADR 0072); data: `{ assistantId, action }`. */
  "ai-test-scripts-updated",
  /** A test script's run was queued, started or ended (its pass/fail history); data: `{ assistantId, runId, state }`. */
  "ai-test-runs-updated",
  /** The AI price table per model was saved (GET /api/ai/prices; ADR 0070). */
  "ai-prices-updated",
  "api-tokens-updated",
  /** Credentials saved, removed or tested (API Settings badges, connection status). */
  "credentials-updated",
  /** SIP provider connections, generated SIP credentials or number routing changed. */
  "telnyx-updated",
  /** The VPS was started, stopped or restarted. */
  "vps-updated",
  /** Console accounts changed (the first administrator was created; a user was added, changed or removed). */
  "accounts-updated",
  /** A console session started or ended (sign-in, sign-out, password change): the sessions list is stale. */
  "sessions-updated",
  /** A console-wide setting changed (e.g. two-factor sign-in required for everyone): /me may change too. */
  "settings-updated",
  /** Rows were added to the audit trail (published by the transport, coalesced to one per half second). */
  "audit-updated",
  /** A job (deployment, sync import) started, moved on one item, or ended; data: `JobEvent` (src/shared/jobs.ts). */
  "job-updated",
  /**
   * The live PBX (AMI, ADR 0027), each coalesced server-side: registrations, device states or trunk
   * registrations changed (or the AMI connection came or went)…
   */
  "pbx-status-updated",
  /** …a call started, changed state or ended (GET /api/calls/active)… */
  "calls-updated",
  /** …a call ended, so its record is in the call history (published a few seconds later)… */
  "call-history-updated",
  /** …failed SIP sign-ins were seen (GET /api/pbx/security). */
  "pbx-security-updated",
  /** A ban, an unban or a trusted network changed fail2ban's state (GET /api/firewall; ADR 0067). */
  "firewall-updated",
  /** The metrics scrape token made in the UI was created, rotated or revoked (ADR 0066). */
  "metrics-token-updated",
  /** A voicemail box changed (a message left, moved or deleted, a greeting changed); data: `{ mailbox }`. */
  "voicemail-updated",
  /**
   * Off-site backups changed (ADR 0064): a target added, changed, tested or removed, an upload or restore drill
   * queued, progressing or ended, the off-site key made; data: `{ targetId }` or `{ key }`.
   */
  "offsite-backups-updated",
  /** A self-update started, moved on a step (download percent, staged, swapping…) or ended; data: `{ progress }`. */
  "update-updated",
  /**
   * Alert rules changed, or an alert fired, repeated, resolved or had a message delivered (GET /api/alerts/rules,
   * /api/alerts/events); data: `{ what: "rules" | "events" }`.
   */
  "alerts-updated",
  /**
   * A test call was created, edited or deleted, a run of it started, or a run's result was stored (GET
   * /api/test-calls and its results; ADR 0068); data: `{ id, action }`.
   */
  "test-calls-updated",
  /** An alert channel was created, edited or deleted, or a message went (or failed) through it; data: `{ id, action }`. */
  "alert-channels-updated",
  /**
   * The fleet hub's members changed (added, removed, repinned) or one's live state moved (reachable, figures,
   * error; coalesced); data: `{ id?, action }` (ADR 0076).
   */
  "fleet-updated",
  /** A fleet template was created or deleted (GET /api/fleet/templates); data: `{ id, action }`. */
  "fleet-templates-updated",
] as const;

export type WsEventType = (typeof wsEventTypes)[number];

// Pure: a bundle that does not use the schema (the web app's first chunk) leaves zod out (ADR 0030).
export const wsEventSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    type: /* @__PURE__ */ z.enum(wsEventTypes),
    data: /* @__PURE__ */ z.unknown().optional(),
  }),
);

export type WsEvent = z.infer<typeof wsEventSchema>;

/** What `wsEventSchema` accepts, without zod: the web app's sync socket checks messages with it. */
export function isWsEvent(value: unknown): value is WsEvent {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const type = (value as { type?: unknown }).type;
  return typeof type === "string" && (wsEventTypes as readonly string[]).includes(type);
}

/** The close code the server uses when the socket's session ended (sign-out, expiry, password change). */
export const SESSION_ENDED_CLOSE_CODE = 4001;

/** The sync topic every console socket subscribes to. */
export const WS_SYNC_TOPIC = "sync";
