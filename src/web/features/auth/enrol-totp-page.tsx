/**
 * The only screen of a session that must set up two-factor sign-in first (the console requires it for
 * everyone; `MeResponse.totpSetupRequired`): the Account card's two-factor set-up (QR code, code, the
 * recovery codes shown once) and sign-out. Closing the recovery codes lets the console appear; the
 * server already treats the same session as a full one from the moment two-factor sign-in is on.
 */
import { TwoFactorSection } from "@/features/account/two-factor-section";
import { useRefreshMe } from "./api";
import { AuthLayout } from "./auth-layout";
import { SignOutButton } from "./sign-out-button";

export function EnrolTotpPage({ username }: { username: string }) {
  const refreshMe = useRefreshMe();
  return (
    <AuthLayout
      title="Set up two-factor sign-in"
      description="This console requires two-factor sign-in for everyone. Set it up with an authenticator app to continue."
    >
      {/* A flex column: the section's own `lg:col-span-2` (for the Account card's grid) must not add a column here. */}
      <div className="flex flex-col gap-4">
        <TwoFactorSection onFinished={refreshMe} />
        <div className="flex items-center justify-between gap-2 border-t pt-3 text-muted-foreground text-sm">
          <span>
            Signed in as <span className="font-medium text-foreground">{username}</span>
          </span>
          <SignOutButton />
        </div>
      </div>
    </AuthLayout>
  );
}
