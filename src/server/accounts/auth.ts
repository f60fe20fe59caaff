/**
 * Console sign-in: the first-run set-up of the administrator, sign-in with the
 * failed-attempt throttle, sign-out, and who is signed in. The session token
 * goes back to the caller; putting it in a cookie is the HTTP layer's job.
 */
import type { LoginInput, MeResponse, SessionUser } from "../../shared/auth";
import type { Deps } from "../domain/deps";
import { Conflict, RateLimited, Unauthenticated } from "../domain/errors";
import type { SessionStore } from "./sessions";
import type { LoginThrottle } from "./throttle";
import { checkPassword, hashPassword, insertUser, userCount } from "./users";

/** The session store and the failed sign-in throttle (the app holds them; they are not part of `Deps`). */
export interface AccountDeps {
  sessions: SessionStore;
  throttle: LoginThrottle;
}

/** A new session: who it belongs to and its token (for the cookie). */
export interface SignedIn {
  user: SessionUser;
  token: string;
}

const ADMIN_EXISTS = "An administrator already exists; sign in instead";

/** What `GET /api/auth/me` answers for this (possibly absent) user. */
export function whoAmI(deps: Pick<Deps, "db">, user: SessionUser | null): MeResponse {
  return user
    ? { authenticated: true, user, setupRequired: false }
    : { authenticated: false, user: null, setupRequired: userCount(deps.db) === 0 };
}

/** Creates the first administrator and signs them in; `Conflict` once any user exists. */
export async function setupFirstAdmin(
  deps: Pick<Deps, "db" | "events"> & Pick<AccountDeps, "sessions">,
  input: { username: string; password: string },
): Promise<SignedIn> {
  if (userCount(deps.db) > 0) throw new Conflict(ADMIN_EXISTS);
  const hash = await hashPassword(input.password);
  // Checked again after the await: the check and the insert below run without
  // yielding, so two racing first-run requests cannot both create a user.
  if (userCount(deps.db) > 0) throw new Conflict(ADMIN_EXISTS);
  const row = insertUser(deps.db, input.username, hash);
  deps.events.publish({ type: "accounts-updated", data: { id: row.id, action: "created" } });
  return { user: { id: row.id, username: row.username }, token: deps.sessions.create(row.id) };
}

/**
 * Signs in with username and password. Failures count per username; while too
 * many are recent the attempt is refused with `RateLimited` before the password is checked.
 */
export async function signIn(deps: Pick<Deps, "db"> & AccountDeps, input: LoginInput): Promise<SignedIn> {
  const wait = deps.throttle.retryAfter(input.username);
  if (wait > 0) throw new RateLimited(`Too many failed sign-ins; try again in ${wait} s`, wait);
  const user = await checkPassword(deps.db, input.username, input.password);
  if (!user) {
    deps.throttle.fail(input.username);
    throw new Unauthenticated("Wrong username or password");
  }
  deps.throttle.succeed(input.username);
  return { user: { id: user.id, username: user.username }, token: deps.sessions.create(user.id) };
}

/** Ends the session of this token (nothing happens for an unknown or absent token). */
export function signOut(deps: Pick<AccountDeps, "sessions">, token: string | null): void {
  deps.sessions.revoke(token);
}
