/**
 * Console sign-in: the first-run set-up of the administrator, sign-in with the
 * failed-attempt throttle, sign-out, who is signed in, the user's sessions and
 * the password change. The session token
 * goes back to the caller; putting it in a cookie is the HTTP layer's job.
 */
import type {
  ChangePasswordInput,
  LoginInput,
  MeResponse,
  SessionInfo,
  SessionUser,
  SignedOutOthers,
} from "../../shared/auth";
import { TOTP_CODE_REQUIRED, TOTP_CODE_WRONG } from "../../shared/auth";
import type { Deps } from "../core/deps";
import { Conflict, NotFound, Unauthenticated } from "../core/errors";
import type { AccountDeps, ClientInfo } from "./account-deps";
import { logAuthFailure } from "./auth-log";
import { confirmPassword, throttled } from "./confirm-password";
import type { SessionClient } from "./sessions";
import { totpSetupRequired } from "./settings";
import type { SetupCode } from "./setup-code";
import { checkSecondFactor } from "./two-factor";
import { checkPassword, hashPassword, insertUser, updatePasswordHash, userCount } from "./users";

export type { AccountDeps, ClientInfo } from "./account-deps";

/** A new session: who it belongs to and its token (for the cookie). */
export interface SignedIn {
  user: SessionUser;
  token: string;
}

const ADMIN_EXISTS = "An administrator already exists; sign in instead";

/** What `GET /api/auth/me` (and a sign-in) answers for this (possibly absent) user. */
export function whoAmI(deps: Pick<Deps, "db"> & { setupCode?: SetupCode }, user: SessionUser | null): MeResponse {
  if (user)
    return { authenticated: true, user, setupRequired: false, totpSetupRequired: totpSetupRequired(deps.db, user.id) };
  const setupRequired = userCount(deps.db) === 0;
  // Named only when set-up needs the code (the console listens beyond loopback).
  return setupRequired && deps.setupCode?.required
    ? { authenticated: false, user: null, setupRequired, setupCodeRequired: true }
    : { authenticated: false, user: null, setupRequired };
}

/**
 * Creates the first administrator and signs them in; `Conflict` once any user exists. When the console
 * listens beyond loopback, `input.setupCode` must be the start-up code (checked before any costly work).
 */
export async function setupFirstAdmin(
  deps: Pick<Deps, "db" | "events"> & Pick<AccountDeps, "sessions"> & { setupCode?: SetupCode },
  input: { username: string; password: string; setupCode?: string },
  client: SessionClient = {},
): Promise<SignedIn> {
  if (userCount(deps.db) > 0) throw new Conflict(ADMIN_EXISTS);
  deps.setupCode?.check(input.setupCode);
  const hash = await hashPassword(input.password);
  // Checked again after the await: the check and the insert below run without
  // yielding, so two racing first-run requests cannot both create a user.
  if (userCount(deps.db) > 0) throw new Conflict(ADMIN_EXISTS);
  const row = insertUser(deps.db, input.username, hash);
  deps.setupCode?.consume();
  deps.events.publish({ type: "accounts-updated", data: { id: row.id, action: "created" } });
  return { user: { id: row.id, username: row.username, role: row.role }, token: deps.sessions.create(row.id, client) };
}

/**
 * Signs in with username and password. The throttle (ADR 0016) reserves the attempt before the
 * password is checked, per account at this address, per address and per account; while any layer
 * asks for a pause the attempt is refused with `RateLimited` unchecked. A wrong password is logged
 * (`auth-failure`, for fail2ban). A user with two-factor sign-in also needs `input.code` (a current
 * authenticator code or an unused recovery code); without one the answer is 401 with the field
 * message `TOTP_CODE_REQUIRED` on `code`, and a wrong one is a failed sign-in.
 */
export async function signIn(
  deps: Pick<Deps, "db" | "events" | "box" | "now"> & AccountDeps,
  input: LoginInput,
  client: ClientInfo = { ip: null },
): Promise<SignedIn> {
  // Synchronous up to the await: the check and the reservation cannot interleave with another attempt.
  const attempt = deps.throttle.begin(input.username, client.ip);
  if (!attempt.ok) throw throttled(attempt.retryAfterSeconds);
  let user: Awaited<ReturnType<typeof checkPassword>>;
  // Whatever ends the attempt short of `succeed()` ends it as a failure, paused from now.
  try {
    user = await checkPassword(deps.db, input.username, input.password);
    // A disabled user is refused exactly like a wrong password (and the attempt stays counted).
    if (!user || user.disabled) {
      logAuthFailure(input.username, client.ip);
      throw new Unauthenticated("Wrong username or password");
    }
    // Two-factor sign-in: without a code the attempt stays counted (no way to reset the throttle with the
    // password alone); a wrong or replayed code is a failed sign-in.
    const second = checkSecondFactor(deps, user.id, input.code);
    if (second === "missing") throw new Unauthenticated(TOTP_CODE_REQUIRED, undefined, { code: TOTP_CODE_REQUIRED });
    if (second === "wrong") {
      logAuthFailure(input.username, client.ip);
      throw new Unauthenticated(TOTP_CODE_WRONG, undefined, { code: TOTP_CODE_WRONG });
    }
    deps.throttle.succeed(attempt.ticket);
  } finally {
    deps.throttle.finish(attempt.ticket);
  }
  const token = deps.sessions.create(user.id, client);
  deps.events.publish({ type: "sessions-updated", data: { action: "signed-in" } });
  return { user: { id: user.id, username: user.username, role: user.role }, token };
}

/** Ends the session of this token (nothing happens for an unknown or absent token); its sockets close. */
export function signOut(deps: Pick<Deps, "events"> & Pick<AccountDeps, "sessions">, token: string | null): void {
  if (deps.sessions.revoke(token)) deps.events.publish({ type: "sessions-updated", data: { action: "signed-out" } });
}

/** The signed-in user's sessions, the asking browser's marked `current`. */
export function listSessions(
  deps: Pick<AccountDeps, "sessions">,
  user: SessionUser,
  token: string | null,
): SessionInfo[] {
  const own = deps.sessions.current(token)?.sessionId;
  return deps.sessions.list(user.id).map((s) => ({
    id: s.id,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: s.lastSeenAt.toISOString(),
    clientIp: s.clientIp,
    userAgent: s.userAgent,
    current: s.id === own,
  }));
}

/** Signs out one of the user's own sessions (another browser, or this one); `NotFound` otherwise. */
export function endSession(
  deps: Pick<Deps, "events"> & Pick<AccountDeps, "sessions">,
  user: SessionUser,
  id: string,
): void {
  if (!deps.sessions.revokeById(user.id, id)) throw new NotFound("Session");
  deps.events.publish({ type: "sessions-updated", data: { action: "signed-out" } });
}

/** Signs out every session of the user except the asking one. */
export function signOutOthers(
  deps: Pick<Deps, "events"> & Pick<AccountDeps, "sessions">,
  user: SessionUser,
  token: string | null,
): SignedOutOthers {
  const own = deps.sessions.current(token)?.sessionId;
  if (!own) throw new Unauthenticated("Sign in required");
  const signedOut = deps.sessions.revokeAllFor(user.id, own);
  if (signedOut > 0)
    deps.events.publish({ type: "sessions-updated", data: { action: "signed-out", count: signedOut } });
  return { signedOut };
}

/**
 * Changes the signed-in user's password. The current password must be given (checked under the
 * same throttle as sign-in, and a wrong one is logged like a failed sign-in); every other session
 * of the user is signed out, the asking one stays.
 */
export async function changePassword(
  deps: Pick<Deps, "db" | "events"> & AccountDeps,
  user: SessionUser,
  token: string | null,
  input: ChangePasswordInput,
  client: ClientInfo = { ip: null },
): Promise<SignedOutOthers> {
  const own = deps.sessions.current(token)?.sessionId;
  if (!own) throw new Unauthenticated("Sign in required");
  await confirmPassword(deps, user, input.currentPassword, client.ip, {
    field: "currentPassword",
    message: "The current password is wrong",
  });
  const hash = await hashPassword(input.newPassword);
  updatePasswordHash(deps.db, user.id, hash);
  const signedOut = deps.sessions.revokeAllFor(user.id, own);
  deps.events.publish({ type: "sessions-updated", data: { action: "password-changed", count: signedOut } });
  return { signedOut };
}
