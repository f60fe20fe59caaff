/** Client-side sign-in state: the cached GET /api/auth/me answer is the source of truth. */
import type { FetchQueryOptions, QueryClient } from "@tanstack/react-query";
import type { MeResponse } from "../../shared/auth";
import { toast } from "../components/ui/use-toast";
import { setUnauthorizedHandler } from "./api";
import { ON_SERVER } from "./prerender";
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

/** A screen's query as its feature's `queryOptions` factory makes it. */
// biome-ignore lint/suspicious/noExplicitAny: any query's options; only the key and function are used.
export type ScreenQuery = FetchQueryOptions<any, any, any, any>;

/**
 * A screen route's loader: starts the screen's main queries at once, before and in parallel with
 * GET /api/auth/me, and never waits for them (the screen shows its own loading state). Nothing is asked
 * once /me says the console is not open to this browser (signed out, first-run set-up, two-factor
 * enrolment). A request that fails leaves nothing in the cache (unless the screen already shows it), so the
 * screen fetches (and reports) it itself when it mounts, as without the prefetch; a 401 before /me has
 * answered goes unnoticed (`sessionEnded` only acts on a known session), after it the session guard acts
 * as for any query. ADR 0030.
 */
export function prefetchScreen(client: QueryClient, queries: readonly ScreenQuery[]): void {
  if (ON_SERVER) return; // the server's render (ADR 0047) is given its answers
  const me = client.getQueryData<MeResponse>(ME_KEY);
  if (me && (!me.authenticated || me.totpSetupRequired)) return;
  for (const options of queries) {
    void client.prefetchQuery(options).then(() => {
      // Once the screen observes the query, its error is the screen's own answer: left alone.
      const query = client.getQueryCache().find({ queryKey: options.queryKey, exact: true });
      if (query?.state.status === "error" && query.getObserversCount() === 0) client.getQueryCache().remove(query);
    });
  }
}
