/**
 * The signed-in user's account on API Settings: change the password (the current one is needed; every
 * other session is signed out), two-factor sign-in (set up with a QR code, confirm with a code, the
 * recovery codes shown once; off with the password), and the list of sessions with "Sign out" per other browser and
 * "Sign out everywhere else".
 */
import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, LogOut, UserRound } from "lucide-react";
import { useId } from "react";
import { useSchemaForm } from "@/components/form-kit";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import { changePasswordFormSchema, type SessionInfo } from "../../../shared/auth";
import { sessionsQuery, useChangePassword, useEndSession, useSignOutOthers } from "./api";
import { describeAgent } from "./format";
import { TwoFactorSection } from "./two-factor-section";

const EMPTY = { currentPassword: "", newPassword: "", confirmPassword: "" };
const date = (iso: string) => formatDateTime(iso);
const others = (n: number) => (n === 1 ? "1 other session was" : `${n} other sessions were`);

function ChangePasswordForm() {
  const { form, formError, showServerError, submit } = useSchemaForm(changePasswordFormSchema, EMPTY);
  const change = useChangePassword({
    onSuccess: ({ signedOut }) => {
      form.reset(EMPTY);
      toast({ title: "Password changed", description: signedOut ? `${others(signedOut)} signed out.` : undefined });
    },
    onError: (err) => {
      const message = showServerError(err, ["currentPassword", "newPassword"]);
      toast({
        variant: "destructive",
        title: "Failed to change the password",
        description: message ?? "Check the highlighted fields.",
      });
    },
  });
  const errors = form.formState.errors;
  return (
    <form
      noValidate
      aria-label="Change password"
      className="grid content-start gap-3"
      onSubmit={submit(({ currentPassword, newPassword }) => change.mutate({ currentPassword, newPassword }))}
    >
      <h3 className="font-medium text-sm">Change password</h3>
      <FormField label="Current password" error={errors.currentPassword?.message}>
        {(control) => (
          <Input {...control} type="password" autoComplete="current-password" {...form.register("currentPassword")} />
        )}
      </FormField>
      <FormField label="New password" error={errors.newPassword?.message}>
        {(control) => (
          <Input {...control} type="password" autoComplete="new-password" {...form.register("newPassword")} />
        )}
      </FormField>
      <FormField label="Repeat new password" error={errors.confirmPassword?.message}>
        {(control) => (
          <Input {...control} type="password" autoComplete="new-password" {...form.register("confirmPassword")} />
        )}
      </FormField>
      <FormError message={formError} />
      <p className="text-muted-foreground text-xs">Changing it signs out every other browser.</p>
      <Button type="submit" className="justify-self-start" disabled={change.isPending}>
        {change.isPending && <LoaderCircle className="animate-spin" />}
        Change Password
      </Button>
    </form>
  );
}

function SessionRow({
  session,
  onSignOut,
  busy,
}: {
  session: SessionInfo;
  onSignOut: (s: SessionInfo) => void;
  busy: boolean;
}) {
  const agent = describeAgent(session.userAgent);
  return (
    <li
      className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border p-3 text-sm"
      data-current={session.current || undefined}
    >
      <span className="font-medium" title={session.userAgent ?? undefined}>
        {agent}
      </span>
      {session.current && <Badge variant="success">This browser</Badge>}
      <span className="text-muted-foreground text-xs">
        {session.clientIp ?? "unknown address"} · signed in {date(session.createdAt)} · last seen{" "}
        {date(session.lastSeenAt)}
      </span>
      {!session.current && (
        <Button
          type="button"
          variant="outline"
          size="sm"
          className="ml-auto text-destructive hover:text-destructive"
          disabled={busy}
          aria-label={`Sign out ${agent} (${session.clientIp ?? "unknown address"})`}
          onClick={() => onSignOut(session)}
        >
          Sign out
        </Button>
      )}
    </li>
  );
}

function SessionsList() {
  const sessions = useQuery(sessionsQuery());
  const end = useEndSession(deleteToasts("Session signed out", "Failed to sign out the session"));
  const rest = useSignOutOthers({
    onSuccess: ({ signedOut }) => toast({ title: signedOut ? `${others(signedOut)} signed out` : "No other sessions" }),
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to sign out the other sessions", description: errorText(err) }),
  });
  const list = sessions.data ?? [];
  const otherCount = list.filter((s) => !s.current).length;
  return (
    <section aria-label="Sessions" className="grid content-start gap-3">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-medium text-sm">Where you are signed in</h3>
        <Button
          type="button"
          variant="outline"
          size="sm"
          className="ml-auto"
          disabled={otherCount === 0 || rest.isPending}
          onClick={() =>
            afterConfirm("Sign out every other browser? They will have to sign in again.", () => rest.mutate())
          }
        >
          {rest.isPending ? <LoaderCircle className="animate-spin" /> : <LogOut />}
          Sign out everywhere else
        </Button>
      </div>
      {sessions.isError && <FormError message={`Could not load the sessions: ${errorText(sessions.error)}`} />}
      {sessions.isPending && <p className="text-muted-foreground text-sm">Loading sessions…</p>}
      {list.length > 0 && (
        <ul className="grid gap-2" aria-label="Sessions list">
          {list.map((s) => (
            <SessionRow
              key={s.id}
              session={s}
              busy={runningFor(end, s.id)}
              onSignOut={(target) =>
                afterConfirm(
                  `Sign out ${describeAgent(target.userAgent)} (${target.clientIp ?? "unknown address"})?`,
                  () => end.mutate(target.id),
                )
              }
            />
          ))}
        </ul>
      )}
    </section>
  );
}

export function AccountCard() {
  const titleId = useId();
  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4">
      <CardHeader>
        <CardTitle id={titleId} className="flex items-center gap-2">
          <UserRound className="size-4 text-muted-foreground" aria-hidden />
          Account
        </CardTitle>
        <CardDescription>
          Your password, two-factor sign-in, and the browsers signed in to this console as you.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6 lg:grid-cols-2">
        <ChangePasswordForm />
        <SessionsList />
        <TwoFactorSection />
      </CardContent>
    </Card>
  );
}
