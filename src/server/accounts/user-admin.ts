/**
 * Console users as the administrators manage them: list, add, change (username, password, role,
 * enabled) and remove. One rule lives here: at least one active administrator always remains (the
 * last one cannot be removed, demoted or disabled). Disabling a user, resetting their password or
 * removing them ends their sessions at once (and closes their sockets).
 */
import { and, count, eq } from "drizzle-orm";
import { users } from "../../db/schema";
import type { SessionUser } from "../../shared/auth";
import type { ConsoleUser, NewUserInput, UserPatchInput } from "../../shared/users";
import type { Deps } from "../core/deps";
import { Conflict, NotFound } from "../core/errors";
import type { AccountDeps } from "./account-deps";
import { findUser, hashPassword } from "./users";

export const LAST_ADMIN =
  "This is the last active administrator: add or enable another administrator before removing, demoting or disabling it";
const USERNAME_TAKEN = "This username is already taken";

type UserRow = typeof users.$inferSelect;
type AdminDeps = Pick<Deps, "db" | "events"> & Pick<AccountDeps, "sessions">;

const toWire = (row: UserRow, me: SessionUser): ConsoleUser => ({
  id: row.id,
  username: row.username,
  role: row.role,
  disabled: row.disabled,
  createdAt: row.createdAt.toISOString(),
  current: row.id === me.id,
});

function activeAdmins(deps: Pick<Deps, "db">): number {
  return (
    deps.db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, "admin"), eq(users.disabled, false)))
      .get()?.n ?? 0
  );
}

function getUser(deps: Pick<Deps, "db">, id: string): UserRow {
  const row = deps.db.select().from(users).where(eq(users.id, id)).get();
  if (!row) throw new NotFound("User");
  return row;
}

function checkUsernameFree(deps: Pick<Deps, "db">, username: string, exceptId?: string): void {
  const other = findUser(deps.db, username);
  if (other && other.id !== exceptId) throw new Conflict(USERNAME_TAKEN, { username: USERNAME_TAKEN });
}

/** Every console user, oldest first. */
export function listUsers(deps: Pick<Deps, "db">, me: SessionUser): ConsoleUser[] {
  return deps.db
    .select()
    .from(users)
    .all()
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .map((row) => toWire(row, me));
}

/** Adds a user with a role; `Conflict` on a taken username. */
export async function createUser(deps: AdminDeps, me: SessionUser, input: NewUserInput): Promise<ConsoleUser> {
  checkUsernameFree(deps, input.username);
  const hash = await hashPassword(input.password);
  // Checked again after the await (no yield between this check and the insert).
  checkUsernameFree(deps, input.username);
  const row = deps.db
    .insert(users)
    .values({ username: input.username, password: hash, role: input.role })
    .returning()
    .get();
  deps.events.publish({ type: "accounts-updated", data: { id: row.id, action: "created" } });
  return toWire(row, me);
}

/**
 * Changes a user. A new password (set by an administrator) signs that user out everywhere (the asking
 * session stays when it is their own); disabling signs them out. The last active administrator
 * cannot lose the role or be disabled.
 */
export async function updateUser(
  deps: AdminDeps,
  me: SessionUser,
  id: string,
  patch: UserPatchInput,
  /** The asking session's token: it stays signed in when an administrator resets their own password. */
  ownToken: string | null = null,
): Promise<ConsoleUser> {
  getUser(deps, id);
  const hash = patch.password !== undefined ? await hashPassword(patch.password) : undefined;
  // Everything below runs without yielding: the checks hold for the write.
  const row = getUser(deps, id);
  if (patch.username !== undefined) checkUsernameFree(deps, patch.username, id);
  const wasActiveAdmin = row.role === "admin" && !row.disabled;
  const role = patch.role ?? row.role;
  const disabled = patch.disabled ?? row.disabled;
  if (wasActiveAdmin && (role !== "admin" || disabled) && activeAdmins(deps) <= 1) throw new Conflict(LAST_ADMIN);
  const updated = deps.db
    .update(users)
    .set({
      ...(patch.username !== undefined ? { username: patch.username } : {}),
      ...(hash !== undefined ? { password: hash } : {}),
      role,
      disabled,
    })
    .where(eq(users.id, id))
    .returning()
    .get() as UserRow;
  let signedOut = 0;
  if (disabled && !row.disabled) signedOut = deps.sessions.revokeAllFor(id);
  else if (hash !== undefined)
    signedOut = deps.sessions.revokeAllFor(id, id === me.id ? deps.sessions.current(ownToken)?.sessionId : undefined);
  deps.events.publish({ type: "accounts-updated", data: { id, action: "updated" } });
  if (signedOut > 0)
    deps.events.publish({ type: "sessions-updated", data: { action: "signed-out", count: signedOut } });
  return toWire(updated, me);
}

/** Removes a user and ends their sessions; the last active administrator cannot be removed. */
export function deleteUser(deps: AdminDeps, id: string): void {
  const row = getUser(deps, id);
  if (row.role === "admin" && !row.disabled && activeAdmins(deps) <= 1) throw new Conflict(LAST_ADMIN);
  const signedOut = deps.sessions.revokeAllFor(id);
  deps.db.delete(users).where(eq(users.id, id)).run();
  deps.events.publish({ type: "accounts-updated", data: { id, action: "deleted" } });
  if (signedOut > 0)
    deps.events.publish({ type: "sessions-updated", data: { action: "signed-out", count: signedOut } });
}
