/**
 * Console-wide settings an administrator changes (`console_settings`: key → JSON value), and the rules
 * that go with them. One so far, `requireTotp` (ADR 0020, "Requiring it for everyone"):
 *
 * - Turning it on needs the administrator's own two-factor sign-in to be on, so whoever sets it is
 *   never held at the enrolment screen by their own policy.
 * - While it is on, a user without two-factor sign-in still signs in with the password, but the session
 *   reaches only the routes that declare `allowedBeforeTotp` (their own account: set up two-factor
 *   sign-in, change the password, sessions, sign out) until they turn it on: `totpSetupRequired`, checked
 *   once by the transport. Turning it on makes the same session a full one.
 * - While it is on, nobody can turn their own two-factor sign-in off (`disableTotp` asks `securitySettings`).
 *
 * A stored value that does not parse (a hand-edited database) reads as the default.
 */
import { eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../db/client";
import { consoleSettings } from "../../db/schema";
import { tableVersions } from "../../db/table-versions";
import type { SessionUser } from "../../shared/auth";
import { sipHostWarning } from "../../shared/provisioning";
import {
  AUDIO_NOT_ALLOWED,
  type AudioSettings,
  audioSettingsSchema,
  REQUIRE_TOTP_NEEDS_OWN,
  type SecuritySettings,
  type SipSettings,
  type SipSettingsView,
  securitySettingsSchema,
  sipSettingsSchema,
} from "../../shared/settings";
import type { Config } from "../config";
import type { Deps } from "../core/deps";
import { Conflict, Forbidden } from "../core/errors";
import { totpEnabled } from "./totp-state";

const SECURITY_DEFAULTS: SecuritySettings = { requireTotp: false };

/**
 * The read of one setting, prepared once per database: the transport asks for `requireTotp` on every
 * signed-in request, and building the query each time cost more than the rest of a cached list's answer.
 */
const settingReads = new WeakMap<Db, { get(p: { key: string }): { value: unknown } | undefined }>();
function settingRead(db: Db) {
  let read = settingReads.get(db);
  if (!read) {
    read = db
      .select({ value: consoleSettings.value })
      .from(consoleSettings)
      .where(eq(consoleSettings.key, sql.placeholder("key")))
      .prepare();
    settingReads.set(db, read);
  }
  return read;
}

/** One setting's stored value, or `fallback` when it was never set or no longer parses. */
function readSetting<T>(db: Db, key: string, schema: z.ZodType<T>, fallback: T): T {
  const row = settingRead(db).get({ key });
  if (!row) return fallback;
  const parsed = schema.safeParse(row.value);
  return parsed.success ? parsed.data : fallback;
}

function writeSetting(db: Db, key: string, value: unknown, at: Date): void {
  db.insert(consoleSettings)
    .values({ key, value, updatedAt: at })
    .onConflictDoUpdate({ target: consoleSettings.key, set: { value, updatedAt: at } })
    .run();
}

/** The security settings (GET /api/settings/security), defaults for what was never set. */
export function securitySettings(db: Db): SecuritySettings {
  return {
    requireTotp: readSetting(
      db,
      "requireTotp",
      securitySettingsSchema.shape.requireTotp,
      SECURITY_DEFAULTS.requireTotp,
    ),
  };
}

/**
 * Changes the security settings (PUT /api/settings/security, administrators only). Turning `requireTotp`
 * on is a `Conflict` while `admin` has not turned on their own two-factor sign-in. Synchronous: the check
 * and the write cannot interleave with the admin turning theirs off.
 */
export function updateSecuritySettings(
  deps: Pick<Deps, "db" | "events" | "now">,
  admin: SessionUser,
  input: SecuritySettings,
): SecuritySettings {
  if (input.requireTotp && !totpEnabled(deps.db, admin.id)) {
    throw new Conflict(REQUIRE_TOTP_NEEDS_OWN, { requireTotp: REQUIRE_TOTP_NEEDS_OWN });
  }
  writeSetting(deps.db, "requireTotp", input.requireTotp, new Date(deps.now()));
  deps.events.publish({ type: "settings-updated", data: { area: "security" } });
  return securitySettings(deps.db);
}

/**
 * The public SIP host (GET /api/settings/sip): where a softphone dials, for provisioning (ADR 0039). An
 * empty `publicHost` falls back to the environment (SIP_SERVER_HOST, then SERVER_ADDRESS, then HOST).
 */
export function sipSettings(db: Db, config: Pick<Config, "sip">): SipSettingsView {
  const stored = readSetting(db, "sip", sipSettingsSchema, { publicHost: "", port: config.sip.port });
  const host = stored.publicHost || config.sip.host;
  return {
    ...stored,
    effective: {
      host,
      port: stored.port,
      transport: config.sip.transport,
      source: stored.publicHost ? "setting" : "environment",
    },
    warning: sipHostWarning(host),
  };
}

/** Changes the public SIP host (PUT /api/settings/sip, administrators only). */
export function updateSipSettings(
  deps: Pick<Deps, "db" | "events" | "now" | "config">,
  input: SipSettings,
): SipSettingsView {
  writeSetting(deps.db, "sip", input, new Date(deps.now()));
  deps.events.publish({ type: "settings-updated", data: { area: "sip" } });
  return sipSettings(deps.db, deps.config);
}

const AUDIO_DEFAULTS: AudioSettings = { viewersMayListen: false, recordingRetentionDays: null };

/** Who may listen to recordings and voicemail, and the recordings' retention (GET /api/settings/audio). */
export function audioSettings(db: Db): AudioSettings {
  return readSetting(db, "audio", audioSettingsSchema, AUDIO_DEFAULTS);
}

/** Changes them (PUT /api/settings/audio, administrators only). */
export function updateAudioSettings(deps: Pick<Deps, "db" | "events" | "now">, input: AudioSettings): AudioSettings {
  writeSetting(deps.db, "audio", input, new Date(deps.now()));
  deps.events.publish({ type: "settings-updated", data: { area: "audio" } });
  return audioSettings(deps.db);
}

/**
 * Refuses (403) a viewer's play or download of a recording or voicemail unless an administrator allows
 * viewers to listen; operators and administrators always may.
 */
export function assertMayListen(db: Db, user: Pick<SessionUser, "role"> | null): void {
  if (user && user.role !== "viewer") return;
  if (user && audioSettings(db).viewersMayListen) return;
  throw new Forbidden(AUDIO_NOT_ALLOWED);
}

/**
 * Whether this user's session is held to setting up two-factor sign-in: the console requires it and the
 * user has not turned it on. The transport refuses every route without `allowedBeforeTotp` (and the sync
 * socket) for such a session; `GET /api/auth/me` says so, and the web shows only the enrolment screen.
 */
export function totpSetupRequired(db: Db, userId: string): boolean {
  const stamp = tableVersions(db).stamp(TOTP_RULE_TABLES);
  let kept = setupRequiredKept.get(db);
  if (!kept || stamp === null || kept.stamp !== stamp) {
    kept = { stamp, byUser: new Map() };
    setupRequiredKept.set(db, kept);
  }
  let required = kept.byUser.get(userId);
  if (required === undefined) {
    required = securitySettings(db).requireTotp && !totpEnabled(db, userId);
    if (stamp !== null && kept.byUser.size < 1000) kept.byUser.set(userId, required);
  }
  return required;
}

/** What `totpSetupRequired` reads; its answers are kept per user until one of these tables is written (ADR 0035). */
const TOTP_RULE_TABLES = ["console_settings", "user_totp"] as const;
const setupRequiredKept = new WeakMap<Db, { stamp: string | null; byUser: Map<string, boolean> }>();
