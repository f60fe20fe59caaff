import { useQuery } from "@tanstack/react-query";
import { LoaderCircle } from "lucide-react";
import { useSchemaForm } from "@/components/form-kit";
import { Button } from "@/components/ui/button";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { PASSWORD_MIN, setupSchema } from "../../../shared/auth";
import { meQuery, useCreateAdmin } from "./api";
import { AuthLayout } from "./auth-layout";

const FIELDS = ["username", "password", "confirmPassword", "setupCode"] as const;

/**
 * First run: no user exists yet, so the first visitor creates the administrator. When the console listens
 * beyond loopback, the visitor must also type the one-time set-up code printed in the console's log.
 */
export function CreateAdminPage() {
  const me = useQuery(meQuery()).data;
  const codeRequired = me?.authenticated === false && me.setupCodeRequired === true;
  const { form, formError, showServerError, submit } = useSchemaForm(setupSchema, {
    username: "",
    password: "",
    confirmPassword: "",
    setupCode: "",
  });
  const { errors } = form.formState;

  const setup = useCreateAdmin({ onError: (err) => showServerError(err, FIELDS) });

  const onSubmit = submit((input) => setup.mutate(input));

  return (
    <AuthLayout title="Create administrator" description="No administrator exists yet. Choose the sign-in details.">
      <form onSubmit={onSubmit} noValidate className="grid gap-5">
        {codeRequired && (
          <div className="grid gap-2">
            <FormField label="Set-up code" error={errors.setupCode?.message}>
              {(control) => (
                <Input
                  {...control}
                  autoComplete="one-time-code"
                  autoCapitalize="characters"
                  spellCheck={false}
                  autoFocus
                  placeholder="XXXXX-XXXXX-XXXXX"
                  {...form.register("setupCode")}
                />
              )}
            </FormField>
            <p className="text-muted-foreground text-sm">
              Printed in the console&apos;s log when it started, e.g.{" "}
              <code className="font-mono">journalctl -u pbx-console | grep &apos;set-up code&apos;</code>
            </p>
          </div>
        )}
        <FormField label="Username" error={errors.username?.message}>
          {(control) => (
            <Input {...control} autoComplete="username" autoFocus={!codeRequired} {...form.register("username")} />
          )}
        </FormField>
        <FormField label="Password" error={errors.password?.message}>
          {(control) => (
            <Input
              {...control}
              type="password"
              autoComplete="new-password"
              placeholder={`At least ${PASSWORD_MIN} characters`}
              {...form.register("password")}
            />
          )}
        </FormField>
        <FormField label="Confirm password" error={errors.confirmPassword?.message}>
          {(control) => (
            <Input {...control} type="password" autoComplete="new-password" {...form.register("confirmPassword")} />
          )}
        </FormField>
        <FormError message={formError} />
        <Button type="submit" className="w-full" disabled={setup.isPending}>
          {setup.isPending && <LoaderCircle className="animate-spin" />}
          Create administrator
        </Button>
      </form>
    </AuthLayout>
  );
}
