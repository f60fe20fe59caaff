import { LoaderCircle } from "lucide-react";
import { useSchemaForm } from "@/components/form-kit";
import { Button } from "@/components/ui/button";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { errorMessage, refusalStatus } from "@/lib/error-text";
import { loginSchema } from "../../../shared/auth";
import { useSignIn } from "./api";
import { AuthLayout } from "./auth-layout";

const FIELDS = ["username", "password"] as const;

export function SignInPage() {
  const { form, formError, setFormError, showServerError, submit } = useSchemaForm(loginSchema, {
    username: "",
    password: "",
  });
  const { errors } = form.formState;

  const login = useSignIn({
    onError: (err) => {
      const status = refusalStatus(err);
      if (status === 401) setFormError("Wrong username or password");
      else if (status === 429) setFormError(errorMessage(err));
      else showServerError(err, FIELDS);
    },
  });

  const onSubmit = submit((input) => login.mutate(input));

  return (
    <AuthLayout title="Sign in" description="Sign in to manage your phone system.">
      <form onSubmit={onSubmit} noValidate className="grid gap-5">
        <FormField label="Username" error={errors.username?.message}>
          {(control) => <Input {...control} autoComplete="username" autoFocus {...form.register("username")} />}
        </FormField>
        <FormField label="Password" error={errors.password?.message}>
          {(control) => (
            <Input {...control} type="password" autoComplete="current-password" {...form.register("password")} />
          )}
        </FormField>
        <FormError message={formError} />
        <Button type="submit" className="w-full" disabled={login.isPending}>
          {login.isPending && <LoaderCircle className="animate-spin" />}
          Sign in
        </Button>
      </form>
    </AuthLayout>
  );
}
