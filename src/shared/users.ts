/** Console users and their roles: request schemas, wire types and what each role may do. */
import { z } from "zod";
import { passwordSchema, usernameSchema } from "./auth";
import { patchOf } from "./fields";
import { lazySchema } from "./lazy-schema";
import { ROLES, type Role } from "./roles";

export { ROLE_LABELS, ROLES, type Role, roleAllows } from "./roles";

export const roleSchema = lazySchema(() => z.enum(ROLES, { error: "Choose admin, operator or viewer" }));

/** POST /api/users */
export const newUserSchema = lazySchema(() =>
  z.object({
    username: usernameSchema,
    password: passwordSchema,
    role: roleSchema,
  }),
);

/** PATCH /api/users/:id: any of the fields; a new password signs the user out everywhere. */
export const userPatchSchema = lazySchema(() =>
  patchOf(newUserSchema.extend({ disabled: z.boolean({ error: "Must be true or false" }) })),
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
