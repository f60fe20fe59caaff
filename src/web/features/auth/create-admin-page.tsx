import { LoaderCircle } from "lucide-react";
import { useSchemaForm } from "@/components/form-kit";
import { Button } from "@/components/ui/button";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { PASSWORD_MIN, setupSchema } from "../../../shared/auth";
import { useCreateAdmin } from "./api";
import { AuthLayout } from "./auth-layout";

const FIELDS = ["username", "password", "confirmPassword"] as const;

/** First run: no user exists yet, so the first visitor creates the administrator. */
export function CreateAdminPage() {
  const { form, formError, showServerError, submit } = useSchemaForm(setupSchema, {
    username: "",
    password: "",
    confirmPassword: "",
  });
  const { errors } = form.formState;

  const setup = useCreateAdmin({ onError: (err) => showServerError(err, FIELDS) });

  const onSubmit = submit((input) => setup.mutate(input));

  return (
    <AuthLayout title="Create administrator" description="No administrator exists yet. Choose the sign-in details.">
      <form onSubmit={onSubmit} noValidate className="grid gap-5">
        <FormField label="Username" error={errors.username?.message}>
          {(control) => <Input {...control} autoComplete="username" autoFocus {...form.register("username")} />}
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
