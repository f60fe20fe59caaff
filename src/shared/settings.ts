/** Console-wide settings an administrator changes: request schemas and wire types. */
import { z } from "zod";

/** GET/PUT /api/settings/security */
export const securitySettingsSchema = z.object({
  /** Every user must sign in with two-factor sign-in; a user without it may only set it up. */
  requireTotp: z.boolean({ error: "Must be true or false" }),
});

export type SecuritySettings = z.infer<typeof securitySettingsSchema>;

/** The refusal of turning the policy on by an administrator who has not turned on their own two-factor sign-in. */
export const REQUIRE_TOTP_NEEDS_OWN =
  "Turn on your own two-factor sign-in (Account, on API Settings) before requiring it for everyone";

/** The refusal of turning two-factor sign-in off while the console requires it. */
export const TOTP_REQUIRED_CANNOT_DISABLE =
  "Two-factor sign-in is required for everyone on this console; an administrator must lift the requirement first";

/** The answer to a session that must still set up two-factor sign-in, on every route but its own account's. */
export const TOTP_SETUP_REQUIRED = "Two-factor sign-in is required: set it up first";
