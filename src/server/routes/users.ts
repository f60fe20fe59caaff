import type { SessionUser } from "../../shared/auth";
import { newUserSchema, userPatchSchema } from "../../shared/users";
import { createUser, deleteUser, listUsers, updateUser } from "../accounts/user-admin";
import { type AppContext, type RouteDef, route, signedInUser, WHO_GETS_IN } from "../context";
import { json, noContent } from "../http";

/** A user as the audit records them (the list's view: never a password). */
const loadUser = (app: AppContext, params: Record<string, string>) =>
  listUsers(app, { id: "", username: "", role: "viewer" } as SessionUser).find((u) => u.id === params.id) ?? null;

/** Console users: administrators only. */
export const userRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/api/users",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary: "The console users with their role and whether they are disabled (never a password)",
    handler: ({ app, user }) => json(listUsers(app, signedInUser(user))),
  }),
  route({
    method: "POST",
    path: "/api/users",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary: "Add a console user with a role",
    body: newUserSchema,
    publishes: ["accounts-updated"],
    audit: { action: "user.create", object: "user", load: loadUser },
    handler: async ({ app, user, body }) => json(await createUser(app, signedInUser(user), body), 201),
  }),
  route({
    method: "PATCH",
    path: "/api/users/:id",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary:
      "Change a user's username, password, role or disabled flag (a new password or disabling signs them out everywhere; the last active administrator stays)",
    body: userPatchSchema,
    publishes: ["accounts-updated", "sessions-updated"],
    audit: { action: "user.update", object: "user", load: loadUser },
    handler: async ({ app, user, params, body, token }) =>
      json(await updateUser(app, signedInUser(user), params.id ?? "", body, token)),
  }),
  route({
    method: "DELETE",
    path: "/api/users/:id",
    sessionOnly: WHO_GETS_IN,
    minRole: "admin",
    summary: "Remove a user and end their sessions (not the last active administrator)",
    publishes: ["accounts-updated", "sessions-updated"],
    audit: { action: "user.delete", object: "user", load: loadUser },
    handler: ({ app, params }) => {
      deleteUser(app, params.id ?? "");
      return noContent();
    },
  }),
];
