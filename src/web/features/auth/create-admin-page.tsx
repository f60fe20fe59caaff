import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { LoaderCircle } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { ApiError, sendJson } from "@/lib/api";
import { applyServerErrors } from "@/lib/form-errors";
import { ME_KEY } from "@/lib/session";
import type { MeResponse } from "../../../shared/auth";
import { PASSWORD_MIN, type SetupInput, setupSchema } from "../../../shared/auth";
import { AuthLayout } from "./auth-layout";

const FIELDS = ["username", "password", "confirmPassword"] as const;

/** First run: no user exists yet, so the first visitor creates the administrator. */
export function CreateAdminPage() {
  const client = useQueryClient();
  const [formError, setFormError] = useState<string>();
  const form = useForm<SetupInput, unknown, z.output<typeof setupSchema>>({
    resolver: zodResolver(setupSchema),
    defaultValues: { username: "", password: "", confirmPassword: "" },
  });
  const { errors } = form.formState;

  const setup = useMutation({
    mutationFn: (input: z.output<typeof setupSchema>) => sendJson<MeResponse>("POST", "/api/auth/setup", input),
    onSuccess: (me) => client.setQueryData(ME_KEY, me),
    onError: (err) => {
      setFormError(applyServerErrors(err, form.setError, FIELDS));
      // 409: someone else created the administrator meanwhile; /me now says "sign in".
      if (err instanceof ApiError && err.status === 409) void client.invalidateQueries({ queryKey: ME_KEY });
    },
  });

  const onSubmit = form.handleSubmit((input) => {
    setFormError(undefined);
    setup.mutate(input);
  });

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
