import { useQuery, useQueryClient } from "@tanstack/react-query";
import { LoaderCircle, ServerCrash } from "lucide-react";
import { useDeferredValue, useEffect } from "react";
import { AppShell } from "@/components/layout/app-shell";
import { Button } from "@/components/ui/button";
import { deferred } from "@/lib/deferred";
import { ON_SERVER, useRevealWhen } from "@/lib/prerender";
import { forgetSignedInData } from "@/lib/session";
import { meQuery } from "./api";

// Lazy chunks (ADR 0030): their forms bring zod and react-hook-form, which a signed-in console's first
// screen does not need.
const CreateAdminPage = deferred(() => import("./pages-chunk").then((m) => m.CreateAdminPage), Loading);
const EnrolTotpPage = deferred(() => import("./pages-chunk").then((m) => m.EnrolTotpPage), Loading);
const SignInPage = deferred(() => import("./pages-chunk").then((m) => m.SignInPage), Loading);

function Loading() {
  return (
    <div className="flex min-h-svh items-center justify-center text-muted-foreground">
      <LoaderCircle className="size-6 animate-spin" aria-hidden />
      <span className="sr-only">Loading…</span>
    </div>
  );
}

/**
 * The root layout: GET /api/auth/me decides between first-run setup, sign-in, setting up two-factor
 * sign-in (when the console requires it) and the console. The URL is left alone, so signing in lands on
 * the screen asked for.
 */
export function AuthGate() {
  const client = useQueryClient();
  const me = useQuery(meQuery());
  // An answer's render (the first is the whole shell and screen) runs as a transition, in slices the
  // browser can interrupt, instead of one long task (ADR 0030); what it replaces stays until it is done.
  // Also on mount (the initial value): the router mounts this once the screen's chunk is in, often with the
  // answer already cached, in a render React will not slice.
  const data = useDeferredValue(me.data ?? null, ON_SERVER ? undefined : null);
  const signedIn = data?.authenticated === true;
  // Anything but the console (sign-in, set-up, an error) replaces the server's copy of the screen at once.
  useRevealWhen(me.isError || (data !== null && (!signedIn || data.totpSetupRequired === true)));

  useEffect(() => {
    if (data && !signedIn) forgetSignedInData(client);
  }, [data, signedIn, client]);

  if (!data) {
    if (me.isError) {
      return (
        <div className="flex min-h-svh flex-col items-center justify-center gap-4 p-6 text-center">
          <ServerCrash className="size-10 text-muted-foreground" />
          <div>
            <h1 className="font-semibold text-xl">Cannot reach the console</h1>
            <p className="text-muted-foreground text-sm">{me.error.message}</p>
          </div>
          <Button variant="outline" onClick={() => void me.refetch()}>
            Try again
          </Button>
        </div>
      );
    }
    return <Loading />;
  }
  if (!data.authenticated) return data.setupRequired ? <CreateAdminPage /> : <SignInPage />;
  // Two-factor sign-in is required for everyone and this user has not set it up: nothing else until they do.
  if (data.totpSetupRequired) return <EnrolTotpPage username={data.user.username} />;
  return <AppShell user={data.user} />;
}
