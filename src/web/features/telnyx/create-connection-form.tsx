import { LoaderCircle, Plus } from "lucide-react";
import { useSchemaForm } from "@/components/form-kit";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardFooter } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { SecretInput } from "@/features/settings/secret-input";
import { createConnectionSchema } from "../../../shared/telnyx";
import { failureText, useCreateConnection } from "./api";
import { CreateConnectionHeader } from "./create-connection-header";

const FIELDS = ["connectionName", "username", "password"] as const;

export function CreateConnectionForm() {
  // The card has no line for a form-level message: the toast carries it.
  const { form, showServerError, submit } = useSchemaForm(createConnectionSchema, {
    connectionName: "",
    username: "",
    password: "",
  });
  const { errors } = form.formState;

  const create = useCreateConnection({
    onSuccess: () => {
      form.reset();
      toast({ title: "Success", description: "Telnyx connection created successfully" });
    },
    onError: (err) => {
      showServerError(err, FIELDS);
      toast({ title: "Error", description: failureText(err, "Failed to create connection"), variant: "destructive" });
    },
  });

  return (
    <Card role="region" aria-label="Create SIP Connection">
      <CreateConnectionHeader />
      <form noValidate onSubmit={submit((v) => create.mutate(v))} className="flex flex-1 flex-col gap-6">
        <CardContent className="grid flex-1 content-start gap-4">
          <FormField label="Connection Name" error={errors.connectionName?.message}>
            {(control) => (
              <Input
                {...control}
                placeholder="e.g. Office PBX"
                autoComplete="off"
                {...form.register("connectionName")}
              />
            )}
          </FormField>
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField label="Username (optional)" error={errors.username?.message}>
              {(control) => (
                <Input
                  {...control}
                  placeholder="Auto-generated if blank"
                  autoComplete="off"
                  {...form.register("username")}
                />
              )}
            </FormField>
            <FormField label="Password (optional)" error={errors.password?.message}>
              {(control) => (
                <SecretInput {...control} placeholder="Auto-generated if blank" {...form.register("password")} />
              )}
            </FormField>
          </div>
        </CardContent>
        <CardFooter>
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? <LoaderCircle className="animate-spin" /> : <Plus />}
            Create Connection
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
