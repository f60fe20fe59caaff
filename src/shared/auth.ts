/** Sign-in, first-run set-up and the session: request schemas and wire types. */
import { z } from "zod";

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

export interface SessionUser {
  id: string;
  username: string;
}

/** GET /api/auth/me */
export type MeResponse =
  | { authenticated: true; user: SessionUser; setupRequired: false }
  | { authenticated: false; user: null; setupRequired: boolean };

/** Sidebar footer and version, from GET /api/info (requires a session). */
export interface ServerInfo {
  version: string;
  serverLabel: string;
  serverAddress: string;
}
