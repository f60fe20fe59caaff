/** Sign-in, first-run set-up and the session: request schemas and wire types. */
import { z } from "zod";
import { lazySchema } from "./lazy-schema";
import type { Role } from "./roles";

export const PASSWORD_MIN = 12;

export const usernameSchema = lazySchema(() =>
  z
    .string({ error: "Username is required" })
    .trim()
    .min(1, "Username is required")
    .max(64, "Username must be at most 64 characters")
    .regex(/^[A-Za-z0-9._@-]+$/, "Use letters, digits and . _ @ - only"),
);

export const passwordSchema = lazySchema(() =>
  z
    .string({ error: "Password is required" })
    .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
    .max(512, "Password must be at most 512 characters"),
);

export const loginSchema = lazySchema(() =>
  z.object({
    username: z.string({ error: "Username is required" }).trim().min(1, "Username is required").max(64),
    password: z.string({ error: "Password is required" }).min(1, "Password is required").max(512),
    /** The authenticator code (or a recovery code) of a user with two-factor sign-in on. */
    code: z.string().trim().max(64, "The code is at most 64 characters").optional(),
  }),
);

export const setupSchema = lazySchema(() =>
  z
    .object({
      username: usernameSchema,
      password: passwordSchema,
      confirmPassword: z.string({ error: "Repeat the password" }),
      /** Needed when the console listens beyond loopback (`MeResponse.setupCodeRequired`): printed at start-up. */
      setupCode: z.string().trim().max(64, "The set-up code is at most 64 characters").optional(),
    })
    .refine((v) => v.password === v.confirmPassword, {
      message: "Passwords do not match",
      path: ["confirmPassword"],
    }),
);

export type LoginInput = z.infer<typeof loginSchema>;
export type SetupInput = z.input<typeof setupSchema>;

const currentPasswordField = lazySchema(() =>
  z.string({ error: "Current password is required" }).min(1, "Current password is required").max(512),
);

/** POST /api/auth/password: the current password proves it is the owner; other sessions are signed out. */
export const changePasswordSchema = lazySchema(() =>
  z
    .object({
      currentPassword: currentPasswordField,
      newPassword: passwordSchema,
    })
    .refine((v) => v.newPassword !== v.currentPassword, {
      message: "The new password must differ from the current one",
      path: ["newPassword"],
    }),
);

/** The change-password form: the request plus the repeated new password (checked in the browser). */
export const changePasswordFormSchema = lazySchema(() =>
  z
    .object({
      currentPassword: currentPasswordField,
      newPassword: passwordSchema,
      confirmPassword: z.string({ error: "Repeat the new password" }),
    })
    .refine((v) => v.newPassword !== v.currentPassword, {
      message: "The new password must differ from the current one",
      path: ["newPassword"],
    })
    .refine((v) => v.newPassword === v.confirmPassword, {
      message: "Passwords do not match",
      path: ["confirmPassword"],
    }),
);

export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

/** GET /api/auth/sessions: one of the signed-in user's sessions (never its token). */
export interface SessionInfo {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  clientIp: string | null;
  userAgent: string | null;
  /** The session of the browser asking. */
  current: boolean;
}

/** POST /api/auth/password and POST /api/auth/sessions/sign-out-others. */
export interface SignedOutOthers {
  signedOut: number;
}

export interface SessionUser {
  id: string;
  username: string;
  /** What the user may do (src/shared/users.ts). */
  role: Role;
}

/** GET /api/auth/me */
export type MeResponse =
  | {
      authenticated: true;
      user: SessionUser;
      setupRequired: false;
      /**
       * The console requires two-factor sign-in and this user has not turned it on: until they do, the
       * session reaches only their own account (the web shows only the enrolment screen).
       */
      totpSetupRequired: boolean;
    }
  | {
      authenticated: false;
      user: null;
      setupRequired: boolean;
      /** True when set-up needs the one-time code printed at start-up (the console listens beyond loopback). */
      setupCodeRequired?: boolean;
    };

/** Sidebar footer and version, from GET /api/info (requires a session). */
export interface ServerInfo {
  version: string;
  serverLabel: string;
  serverAddress: string;
}

/** The field message of a sign-in that needs the authenticator code: the sign-in page shows the Code input. */
export const TOTP_CODE_REQUIRED = "Enter the 6-digit code from your authenticator app";
export const TOTP_CODE_WRONG = "The code is wrong or has expired";

/** GET /api/auth/totp: the signed-in user's two-factor sign-in. */
export interface TotpStatus {
  enabled: boolean;
  /** A secret has been set up but not yet confirmed with a code. */
  pending: boolean;
  recoveryCodesLeft: number;
}

/** POST /api/auth/totp/setup: the new secret (shown once, also as a QR code of the otpauth link). */
export interface TotpSetup {
  secret: string;
  otpauthUrl: string;
  /** The otpauth link as a PNG data URL. */
  qrDataUrl: string;
}

/** POST /api/auth/totp/enable: the single-use recovery codes, shown only this once. */
export interface TotpEnabled {
  recoveryCodes: string[];
}

/** POST /api/auth/totp/enable: the current code of the authenticator, which proves the secret was saved. */
export const totpEnableSchema = lazySchema(() =>
  z.object({
    code: z
      .string({ error: "Enter the 6-digit code" })
      .trim()
      .regex(/^\d{6}$/, "Enter the 6-digit code"),
  }),
);

/** POST /api/auth/totp/disable: the current password. */
export const totpDisableSchema = lazySchema(() => z.object({ password: currentPasswordField }));

export type TotpEnableInput = z.infer<typeof totpEnableSchema>;
export type TotpDisableInput = z.infer<typeof totpDisableSchema>;
