/**
 * API tokens for machine clients: the voice bridge posts finished calls to
 * POST /api/ai/transcripts with `Authorization: Bearer <token>`. A token is
 * shown once, right after it is created; the server keeps only its hash.
 */
import { useQuery } from "@tanstack/react-query";
import { KeyRound, LoaderCircle } from "lucide-react";
import { useState } from "react";
import { useSchemaForm } from "@/components/form-kit";
import { ShownOnce } from "@/components/shown-once";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import type { CreatedApiToken } from "../../../shared/ai/api-tokens";
import { apiTokenSchema } from "../../../shared/ai/api-tokens";
import { apiTokensQuery, useCreateApiToken, useRevokeApiToken } from "./api";

const date = (iso: string | null) => (iso ? formatDateTime(iso) : "never");

export function ApiTokensCard() {
  const tokens = useQuery(apiTokensQuery());
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  const { form, formError, showServerError, submit } = useSchemaForm(apiTokenSchema, { name: "" });

  const create = useCreateApiToken({
    onSuccess: (token) => {
      setCreated(token);
      form.reset({ name: "" });
      toast({ title: "API token created" });
    },
    onError: (err) => {
      const message = showServerError(err, ["name"]);
      toast({ variant: "destructive", title: "Failed to create API token", description: message });
    },
  });
  const revoke = useRevokeApiToken(deleteToasts("API token revoked", "Failed to revoke API token"));

  return (
    <Card className="gap-4">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRound className="size-4 text-muted-foreground" aria-hidden />
          API Tokens
        </CardTitle>
        <CardDescription>
          For the voice bridge to store call transcripts (POST /api/ai/transcripts with Authorization: Bearer …).
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form
          noValidate
          className="flex flex-wrap items-end gap-3"
          onSubmit={submit((values) => create.mutate(values))}
        >
          <FormField label="Token name" error={form.formState.errors.name?.message} className="min-w-48 flex-1">
            {(control) => <Input {...control} placeholder="Voice bridge" {...form.register("name")} />}
          </FormField>
          <Button type="submit" disabled={create.isPending}>
            {create.isPending && <LoaderCircle className="animate-spin" />}
            Create Token
          </Button>
        </form>
        <FormError message={formError} />
        {created && (
          <ShownOnce
            message={`Copy the token for “${created.name}” now: it is not shown again.`}
            value={created.token}
            fieldLabel="New API token"
            copyLabel="Copy token"
            onDone={() => setCreated(null)}
          />
        )}
        {tokens.isError && <FormError message={`Could not load the API tokens: ${errorText(tokens.error)}`} />}
        {tokens.data?.length ? (
          <ul className="grid gap-2" aria-label="API tokens">
            {tokens.data.map((t) => (
              <li key={t.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border p-3 text-sm">
                <span className="font-medium">{t.name}</span>
                <code className="text-muted-foreground">
                  {t.prefix}…{t.last4}
                </code>
                <Badge variant={t.revokedAt ? "secondary" : "success"}>{t.revokedAt ? "Revoked" : "Active"}</Badge>
                <span className="text-muted-foreground text-xs">
                  created {date(t.createdAt)} · last used {date(t.lastUsedAt)}
                </span>
                {!t.revokedAt && (
                  <Button
                    type="button"
                    variant="outline"
                    size="sm"
                    className="ml-auto text-destructive hover:text-destructive"
                    disabled={runningFor(revoke, t.id)}
                    onClick={() =>
                      afterConfirm(`Revoke the API token "${t.name}"? Clients using it stop working at once.`, () =>
                        revoke.mutate(t.id),
                      )
                    }
                    aria-label={`Revoke ${t.name}`}
                  >
                    Revoke
                  </Button>
                )}
              </li>
            ))}
          </ul>
        ) : tokens.data ? (
          <p className="text-muted-foreground text-sm">No API tokens yet.</p>
        ) : null}
      </CardContent>
    </Card>
  );
}
