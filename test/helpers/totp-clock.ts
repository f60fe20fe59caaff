/** A test's view of the test server's clock for TOTP codes: advance it, and keep codes away from step edges. */
import type { TestServer } from "./server";

export const TOTP_STEP_MS = 30_000;

/** `server()` is read on each call (the server may be started in a hook). */
export function totpClock(server: () => TestServer) {
  let offset = 0;
  /** The server's clock (the helper's `now` is Date.now() plus what the test advanced). */
  const now = () => Date.now() + offset;
  const advance = (ms: number) => {
    offset += ms;
    server().advance(ms);
  };
  /** Moves the clock to the middle of a time step, so a test's codes do not straddle a boundary. */
  const midStep = () => advance((TOTP_STEP_MS + TOTP_STEP_MS / 2 - (now() % TOTP_STEP_MS)) % TOTP_STEP_MS);
  /** Forgets what was advanced (a new server starts at the real clock). */
  const reset = () => {
    offset = 0;
  };
  return { now, advance, midStep, reset };
}
