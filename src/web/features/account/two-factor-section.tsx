/** The Account card's two-factor section: set up TOTP (QR code and secret), turn it on with a code, show the recovery codes once, turn it off with the password. */
import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, ShieldCheck } from "lucide-react";
import { useState } from "react";
import { useSchemaForm } from "@/components/form-kit";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { type TotpSetup, totpDisableSchema, totpEnableSchema } from "../../../shared/auth";
import { totpQuery, useTotpDisable, useTotpEnable, useTotpSetup } from "./api";

/** Scan the QR code (or type the secret), then confirm with a current code; answers the recovery codes. */
function EnableTotpForm({ setup, onEnabled }: { setup: TotpSetup; onEnabled: (codes: string[]) => void }) {
  const { form, formError, showServerError, submit } = useSchemaForm(totpEnableSchema, { code: "" });
  const enable = useTotpEnable({
    onSuccess: ({ recoveryCodes }) => {
      toast({ title: "Two-factor sign-in is on" });
      onEnabled(recoveryCodes);
    },
    onError: (err) => showServerError(err, ["code"]),
  });
  return (
    <form
      noValidate
      aria-label="Turn on two-factor sign-in"
      className="grid gap-3"
      onSubmit={submit((body) => enable.mutate(body))}
    >
      <p className="text-muted-foreground text-xs">
        Scan the QR code with an authenticator app, or type the secret, then enter the code it shows.
      </p>
      <img src={setup.qrDataUrl} alt="QR code of the two-factor secret" className="size-40 rounded-md border" />
      <p className="text-sm">
        Secret: <code data-testid="totp-secret">{setup.secret}</code>
      </p>
      <FormField label="Code" error={form.formState.errors.code?.message}>
        {(control) => (
          <Input {...control} inputMode="numeric" autoComplete="one-time-code" {...form.register("code")} />
        )}
      </FormField>
      <FormError message={formError} />
      <Button type="submit" className="justify-self-start" disabled={enable.isPending}>
        {enable.isPending && <LoaderCircle className="animate-spin" />}
        Turn On
      </Button>
    </form>
  );
}

function DisableTotpForm() {
  const { form, formError, showServerError, submit } = useSchemaForm(totpDisableSchema, { password: "" });
  const disable = useTotpDisable({
    onSuccess: () => {
      form.reset({ password: "" });
      toast({ title: "Two-factor sign-in is off" });
    },
    onError: (err) => showServerError(err, ["password"]),
  });
  return (
    <form
      noValidate
      aria-label="Turn off two-factor sign-in"
      className="grid gap-3"
      onSubmit={submit((body) => disable.mutate(body))}
    >
      <FormField label="Password" error={form.formState.errors.password?.message}>
        {(control) => (
          <Input {...control} type="password" autoComplete="current-password" {...form.register("password")} />
        )}
      </FormField>
      <FormError message={formError} />
      <Button type="submit" variant="outline" className="justify-self-start" disabled={disable.isPending}>
        {disable.isPending && <LoaderCircle className="animate-spin" />}
        Turn Off
      </Button>
    </form>
  );
}

/**
 * `onFinished` runs when the user closes the recovery codes after turning it on (the enrolment screen
 * then lets the console appear); the Account card leaves it out.
 */
export function TwoFactorSection({ onFinished }: { onFinished?: () => void } = {}) {
  const status = useQuery(totpQuery());
  const [setup, setSetup] = useState<TotpSetup>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const start = useTotpSetup({
    onSuccess: (data) => {
      setRecoveryCodes(undefined);
      setSetup(data);
    },
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to set up two-factor sign-in", description: errorText(err) }),
  });
  const enabled = status.data?.enabled ?? false;
  return (
    <section aria-label="Two-factor sign-in" className="grid content-start gap-3 lg:col-span-2">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="flex items-center gap-2 font-medium text-sm">
          <ShieldCheck className="size-4 text-muted-foreground" aria-hidden />
          Two-factor sign-in
        </h3>
        {status.data && <Badge variant={enabled ? "success" : "secondary"}>{enabled ? "On" : "Off"}</Badge>}
      </div>
      {status.isError && <FormError message={`Could not load two-factor sign-in: ${errorText(status.error)}`} />}
      {recoveryCodes && (
        <section className="grid gap-2 rounded-md border p-3" aria-label="Recovery codes">
          <p className="text-sm">
            Keep these recovery codes somewhere safe. Each signs in once without the app; they are shown only now.
          </p>
          <ul className="grid grid-cols-2 gap-1 font-mono text-sm">
            {recoveryCodes.map((code) => (
              <li key={code}>{code}</li>
            ))}
          </ul>
          <Button
            type="button"
            variant="outline"
            size="sm"
            className="justify-self-start"
            onClick={() => {
              setRecoveryCodes(undefined);
              onFinished?.();
            }}
          >
            Done
          </Button>
        </section>
      )}
      {enabled && !recoveryCodes && (
        <>
          <p className="text-muted-foreground text-xs">
            Signing in needs a code from your authenticator app ({status.data?.recoveryCodesLeft ?? 0} recovery codes
            left). Enter your password to turn it off.
          </p>
          <DisableTotpForm />
        </>
      )}
      {status.data && !enabled && (
        <>
          {!setup && (
            <>
              <p className="text-muted-foreground text-xs">
                Ask for a code from an authenticator app at every sign-in, in addition to the password.
              </p>
              <Button
                type="button"
                variant="outline"
                className="justify-self-start"
                disabled={start.isPending}
                onClick={() => start.mutate()}
              >
                {start.isPending && <LoaderCircle className="animate-spin" />}
                Set Up
              </Button>
            </>
          )}
          {setup && (
            <EnableTotpForm
              setup={setup}
              onEnabled={(codes) => {
                setSetup(undefined);
                setRecoveryCodes(codes);
              }}
            />
          )}
        </>
      )}
    </section>
  );
}
