/** Client-side sign-in state: the cached GET /api/auth/me answer is the source of truth. */
import type { QueryClient } from "@tanstack/react-query";
import type { MeResponse } from "../../shared/auth";
import { toast } from "../components/ui/use-toast";
import { setUnauthorizedHandler } from "./api";
import { queryKeys } from "./query-keys";

export const ME_KEY = queryKeys.me;

export const SIGNED_OUT: MeResponse = { authenticated: false, user: null, setupRequired: false };

/**
 * Shows the sign-in page. /me is not re-read here: if it disagreed with the 401
 * that got us here, the console would bounce between the two pages.
 */
export function showSignedOut(client: QueryClient): void {
  client.setQueryData<MeResponse>(ME_KEY, SIGNED_OUT);
}

/** Forgets every cached answer except /me (run after the shell has unmounted). */
export function forgetSignedInData(client: QueryClient): void {
  client.removeQueries({ predicate: (q) => q.queryKey[0] !== ME_KEY[0] });
}

/** The session is gone (a 401, or the server closed the socket for it): back to the sign-in page. */
export function sessionEnded(client: QueryClient): void {
  const was = client.getQueryData<MeResponse>(ME_KEY);
  if (!was?.authenticated) return;
  showSignedOut(client);
  toast({ title: "Session expired", description: "Sign in again to continue." });
}

/** A 401 from any session-guarded /api call means the session is gone. */
export function installSessionGuard(client: QueryClient): void {
  setUnauthorizedHandler(() => sessionEnded(client));
}
