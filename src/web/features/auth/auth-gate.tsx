import { useQuery, useQueryClient } from "@tanstack/react-query";
import { LoaderCircle, ServerCrash } from "lucide-react";
import { useEffect } from "react";
import { AppShell } from "@/components/layout/app-shell";
import { Button } from "@/components/ui/button";
import { deferred } from "@/lib/deferred";
import { forgetSignedInData } from "@/lib/session";
import { meQuery } from "./api";

// Lazy chunks (ADR 0030): their forms bring zod and react-hook-form, which a signed-in console's first
// screen does not need.
const CreateAdminPage = deferred(() => import("@/pages/group-auth").then((m) => m.CreateAdminPage), Loading);
const EnrolTotpPage = deferred(() => import("@/pages/group-auth").then((m) => m.EnrolTotpPage), Loading);
const SignInPage = deferred(() => import("@/pages/group-auth").then((m) => m.SignInPage), Loading);

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
  const signedIn = me.data?.authenticated === true;

  useEffect(() => {
    if (me.data && !signedIn) forgetSignedInData(client);
  }, [me.data, signedIn, client]);

  if (!me.data) {
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
  if (!me.data.authenticated) return me.data.setupRequired ? <CreateAdminPage /> : <SignInPage />;
  // Two-factor sign-in is required for everyone and this user has not set it up: nothing else until they do.
  if (me.data.totpSetupRequired) return <EnrolTotpPage username={me.data.user.username} />;
  return <AppShell user={me.data.user} />;
}
