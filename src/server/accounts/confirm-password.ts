/**
 * A signed-in user's current password, checked like a sign-in (ADR 0016): under the sign-in throttle, a
 * wrong one logged as a failed sign-in. Used where a change needs it (password change, turning two-factor off).
 */

import type { Db } from "../../db/client";
import type { SessionUser } from "../../shared/auth";
import { Invalid, RateLimited } from "../core/errors";
import { logAuthFailure } from "./auth-log";
import type { LoginThrottle } from "./throttle";
import { checkPassword } from "./users";

/** The answer to an attempt the throttle refused unchecked (429 with Retry-After). */
export const throttled = (wait: number) => new RateLimited(`Too many failed sign-ins; try again in ${wait} s`, wait);

/** `RateLimited` while the throttle asks for a pause; `Invalid` with `message` on `field` when wrong. */
export async function confirmPassword(
  deps: { db: Db; throttle: LoginThrottle },
  user: SessionUser,
  password: string,
  ip: string | null,
  wrong: { field: string; message: string },
): Promise<void> {
  const attempt = deps.throttle.begin(user.username, ip);
  if (!attempt.ok) throw throttled(attempt.retryAfterSeconds);
  try {
    const checked = await checkPassword(deps.db, user.username, password);
    if (!checked || checked.id !== user.id) {
      logAuthFailure(user.username, ip);
      throw new Invalid(wrong.message, { [wrong.field]: wrong.message });
    }
    deps.throttle.succeed(attempt.ticket);
  } finally {
    // Whatever ends the attempt short of `succeed()` ends it as a failure, paused from now.
    deps.throttle.finish(attempt.ticket);
  }
}
