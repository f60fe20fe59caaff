/** Console users and their roles: request schemas, wire types and what each role may do. */
import { z } from "zod";
import { passwordSchema, usernameSchema } from "./auth";
import { patchOf } from "./fields";

/**
 * The roles, from most to least allowed. `admin`: everything. `operator`: inventory, deployment, calls and
 * the PBX, but not credentials, users, backups or API tokens. `viewer`: reads only (no secrets).
 */
export const ROLES = ["admin", "operator", "viewer"] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** Whether `role` is at least `needed` (roles are ordered: viewer < operator < admin). */
export const roleAllows = (role: Role, needed: Role) => RANK[role] >= RANK[needed];

export const ROLE_LABELS: Record<Role, string> = { admin: "Administrator", operator: "Operator", viewer: "Viewer" };

export const roleSchema = z.enum(ROLES, { error: "Choose admin, operator or viewer" });

/** POST /api/users */
export const newUserSchema = z.object({
  username: usernameSchema,
  password: passwordSchema,
  role: roleSchema,
});

/** PATCH /api/users/:id: any of the fields; a new password signs the user out everywhere. */
export const userPatchSchema = patchOf(
  newUserSchema.extend({ disabled: z.boolean({ error: "Must be true or false" }) }),
);

export type NewUserInput = z.infer<typeof newUserSchema>;
export type UserPatchInput = z.infer<typeof userPatchSchema>;

/** GET /api/users: one console user (never the password hash). */
export interface ConsoleUser {
  id: string;
  username: string;
  role: Role;
  disabled: boolean;
  createdAt: string;
  /** The user asking. */
  current: boolean;
}

/** The refusal of a route the caller's role may not use. */
export const forbiddenForRole = (role: Role) => `Your role (${role}) cannot do this`;
