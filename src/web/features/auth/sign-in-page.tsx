import { LoaderCircle } from "lucide-react";
import { useState } from "react";
import { useSchemaForm } from "@/components/form-kit";
import { Button } from "@/components/ui/button";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { errorMessage, fieldMessages, refusalStatus } from "@/lib/error-text";
import { loginSchema } from "../../../shared/auth";
import { useSignIn } from "./api";
import { AuthLayout } from "./auth-layout";

const FIELDS = ["username", "password", "code"] as const;

export function SignInPage() {
  const { form, formError, setFormError, showServerError, submit } = useSchemaForm(loginSchema, {
    username: "",
    password: "",
    code: "",
  });
  const { errors } = form.formState;
  // Shown once the server says this account signs in with a second factor.
  const [needsCode, setNeedsCode] = useState(false);

  const login = useSignIn({
    onError: (err) => {
      const status = refusalStatus(err);
      const codeMessage = status === 401 ? fieldMessages(err)?.code : undefined;
      if (codeMessage) {
        setNeedsCode(true);
        form.setError("code", { message: codeMessage });
        form.setFocus("code");
      } else if (status === 401) setFormError("Wrong username or password");
      else if (status === 429) setFormError(errorMessage(err));
      else showServerError(err, FIELDS);
    },
  });

  const onSubmit = submit(({ code, ...input }) => login.mutate(code ? { ...input, code } : input));

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
        {needsCode && (
          <FormField label="Code" error={errors.code?.message}>
            {(control) => (
              <Input
                {...control}
                inputMode="numeric"
                autoComplete="one-time-code"
                placeholder="6-digit code or a recovery code"
                {...form.register("code")}
              />
            )}
          </FormField>
        )}
        <FormError message={formError} />
        <Button type="submit" className="w-full" disabled={login.isPending}>
          {login.isPending && <LoaderCircle className="animate-spin" />}
          Sign in
        </Button>
      </form>
    </AuthLayout>
  );
}
