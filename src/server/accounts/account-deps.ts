/** What the account functions take besides `Deps`. */
import type { SessionStore } from "./sessions";
import type { LoginThrottle } from "./throttle";

/** The session store and the failed sign-in throttle (the app holds them; they are not part of `Deps`). */
export interface AccountDeps {
  sessions: SessionStore;
  throttle: LoginThrottle;
}

/** Where a request came from: the TCP peer's address and the browser's user agent. */
export interface ClientInfo {
  ip: string | null;
  userAgent?: string | null;
}
