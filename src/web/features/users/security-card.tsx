/**
 * The Users screen's Security card (administrators only): require two-factor sign-in for everyone. While
 * it is on, a user without it signs in to an enrolment screen and nothing else until they set it up, and
 * nobody can turn theirs off. Turning it on needs the administrator's own two-factor sign-in (the server
 * answers 409 otherwise, shown in the toast).
 */
import { useQuery } from "@tanstack/react-query";
import { ShieldCheck } from "lucide-react";
import { useId } from "react";
import { SwitchField } from "@/components/form-fields";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-field";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { securitySettingsQuery, useUpdateSecuritySettings } from "./api";

export function SecurityCard() {
  const titleId = useId();
  const settings = useQuery(securitySettingsQuery());
  const update = useUpdateSecuritySettings({
    onSuccess: ({ requireTotp }) =>
      toast({ title: requireTotp ? "Two-factor sign-in is required for everyone" : "Two-factor sign-in is optional" }),
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to change the security settings", description: errorText(err) }),
  });
  const requireTotp = update.isPending
    ? (update.variables?.requireTotp ?? false)
    : (settings.data?.requireTotp ?? false);
  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4">
      <CardHeader>
        <CardTitle id={titleId} className="flex items-center gap-2">
          <ShieldCheck className="size-4 text-muted-foreground" aria-hidden />
          Security
        </CardTitle>
        <CardDescription>How every user of this console signs in.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {settings.isError && (
          <FormError message={`Could not load the security settings: ${errorText(settings.error)}`} />
        )}
        {settings.data && (
          <SwitchField
            label="Require two-factor sign-in for everyone"
            description="A user without it can still sign in with the password, but sees only the screen to set it up until they do; nobody can turn theirs off while this is on. Turn on your own first (Account, on API Settings)."
            checked={requireTotp}
            onCheckedChange={(checked) => {
              if (!update.isPending) update.mutate({ requireTotp: checked });
            }}
          />
        )}
      </CardContent>
    </Card>
  );
}
