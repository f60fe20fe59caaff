import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { LoaderCircle } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { ApiError, sendJson } from "@/lib/api";
import { applyServerErrors } from "@/lib/form-errors";
import { ME_KEY } from "@/lib/session";
import type { MeResponse } from "../../../shared/auth";
import { type LoginInput, loginSchema } from "../../../shared/auth";
import { AuthLayout } from "./auth-layout";

const FIELDS = ["username", "password"] as const;

export function SignInPage() {
  const client = useQueryClient();
  const [formError, setFormError] = useState<string>();
  const form = useForm<LoginInput>({
    resolver: zodResolver(loginSchema),
    defaultValues: { username: "", password: "" },
  });
  const { errors } = form.formState;

  const login = useMutation({
    mutationFn: (input: LoginInput) => sendJson<MeResponse>("POST", "/api/auth/login", input),
    onSuccess: (me) => client.setQueryData(ME_KEY, me),
    onError: (err) => {
      if (err instanceof ApiError && err.status === 401) setFormError("Wrong username or password");
      else if (err instanceof ApiError && err.status === 429) setFormError(err.serverMessage ?? err.message);
      else setFormError(applyServerErrors(err, form.setError, FIELDS));
    },
  });

  const onSubmit = form.handleSubmit((input) => {
    setFormError(undefined);
    login.mutate(input);
  });

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
