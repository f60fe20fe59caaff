/** Console-wide settings an administrator changes: request schemas and wire types. */
import { z } from "zod";
import { hostProblem } from "./inventory";
import { lazySchema } from "./lazy-schema";

/** GET/PUT /api/settings/security */
export const securitySettingsSchema = lazySchema(() =>
  z.object({
    /** Every user must sign in with two-factor sign-in; a user without it may only set it up. */
    requireTotp: z.boolean({ error: "Must be true or false" }),
  }),
);

export type SecuritySettings = z.infer<typeof securitySettingsSchema>;

/** The refusal of turning the policy on by an administrator who has not turned on their own two-factor sign-in. */
export const REQUIRE_TOTP_NEEDS_OWN =
  "Turn on your own two-factor sign-in (Account, on API Settings) before requiring it for everyone";

/** The refusal of turning two-factor sign-in off while the console requires it. */
export const TOTP_REQUIRED_CANNOT_DISABLE =
  "Two-factor sign-in is required for everyone on this console; an administrator must lift the requirement first";

/** The answer to a session that must still set up two-factor sign-in, on every route but its own account's. */
export const TOTP_SETUP_REQUIRED = "Two-factor sign-in is required: set it up first";

/**
 * GET/PUT /api/settings/sip: where a softphone dials (provisioning links and the SIP details shown for manual
 * entry). An empty host means "not set here": the console falls back to SIP_SERVER_HOST, then SERVER_ADDRESS.
 */
export const sipSettingsSchema = lazySchema(() =>
  z.object({
    publicHost: z
      .string({ error: "Must be text" })
      .trim()
      .max(255, "Host must be at most 255 characters")
      .refine((h) => h === "" || hostProblem(h) === null, "Host must be a host name or an IP address")
      .transform((h) => h.replace(/^\[(.*)\]$/, "$1")),
    port: z
      .number({ error: "Port must be a number" })
      .int("Port must be a whole number")
      .min(1, "Port must be between 1 and 65535")
      .max(65535, "Port must be between 1 and 65535"),
  }),
);

export type SipSettings = z.infer<typeof sipSettingsSchema>;

/** GET /api/settings/sip: the stored setting and what a phone would dial now (setting, else the environment). */
export interface SipSettingsView extends SipSettings {
  effective: { host: string; port: number; transport: string; source: "setting" | "environment" };
  /** Why a phone elsewhere could not reach `effective.host` (loopback, private, unset), or null. */
  warning: string | null;
}

/** The longest a recording retention may be: ten years. */
export const RECORDING_RETENTION_MAX_DAYS = 3650;

/**
 * GET/PUT /api/settings/audio: who may listen to call recordings and voicemail, and how long recordings stay
 * on the PBX. Viewers see a call's detail either way; its audio only when `viewersMayListen` is on.
 */
export const audioSettingsSchema = lazySchema(() =>
  z.object({
    viewersMayListen: z.boolean({ error: "Must be true or false" }),
    /** Recordings older than this many days are deleted from the PBX's monitor directory each night; null keeps them. */
    recordingRetentionDays: z
      .number({ error: "Retention must be a number of days" })
      .int("Retention must be a whole number of days")
      .min(1, `Retention must be from 1 to ${RECORDING_RETENTION_MAX_DAYS} days`)
      .max(RECORDING_RETENTION_MAX_DAYS, `Retention must be from 1 to ${RECORDING_RETENTION_MAX_DAYS} days`)
      .nullable(),
  }),
);

export type AudioSettings = z.infer<typeof audioSettingsSchema>;

/** The refusal of a viewer's play or download while viewers may not listen. */
export const AUDIO_NOT_ALLOWED =
  "Viewers may not listen to recordings or voicemail on this console; an administrator can allow it in Settings";
