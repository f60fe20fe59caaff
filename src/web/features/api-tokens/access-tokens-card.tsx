/**
 * REST API tokens (ADR 0074): an administrator makes one with a role, an optional expiry date and optional
 * source networks; it is shown once (the server keeps its hash), listed with its last use, and revoked with a
 * confirmation. Scripts and other consoles send it as `Authorization: Bearer …`.
 */
import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, Waypoints } from "lucide-react";
import { useId, useState } from "react";
import { ControlledSelect } from "@/components/form-fields";
import { useSchemaForm } from "@/components/form-kit";
import { ShownOnce } from "@/components/shown-once";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import {
  API_TOKEN_MAX_DAYS,
  type ApiAccessToken,
  type ApiTokenForm,
  type ApiTokenState,
  apiTokenFormSchema,
  apiTokenRequest,
  type CreatedApiAccessToken,
} from "../../../shared/api-tokens";
import { ROLE_LABELS, ROLES } from "../../../shared/roles";
import { accessTokensQuery, useCreateAccessToken, useRevokeAccessToken } from "./api";

const ROLE_OPTIONS = ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }));
const DEFAULTS: ApiTokenForm = { name: "", role: "viewer", expiresAt: "", networks: "" };
const STATE: Record<ApiTokenState, { label: string; variant: "success" | "secondary" | "warning" }> = {
  active: { label: "Active", variant: "success" },
  expired: { label: "Expired", variant: "warning" },
  revoked: { label: "Revoked", variant: "secondary" },
};

/** A day as a date input writes it, in the browser's zone. */
const dayOf = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

function TokenRow({ token: t, revoke }: { token: ApiAccessToken; revoke: ReturnType<typeof useRevokeAccessToken> }) {
  const state = STATE[t.state];
  const lastUse = t.lastUsedAt
    ? `last used ${formatDateTime(t.lastUsedAt)}${t.lastUsedFrom ? ` from ${t.lastUsedFrom}` : ""}`
    : "never used";
  return (
    <li className="grid gap-1 rounded-md border p-3 text-sm">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="font-medium">{t.name}</span>
        <code className="text-muted-foreground">
          {t.prefix}…{t.last4}
        </code>
        <Badge variant="outline">{ROLE_LABELS[t.role]}</Badge>
        <Badge variant={state.variant}>{state.label}</Badge>
        {t.state === "active" && (
          <Button
            type="button"
            variant="outline"
            size="sm"
            className="ml-auto text-destructive hover:text-destructive"
            disabled={runningFor(revoke, t.id)}
            onClick={() =>
              afterConfirm(`Revoke the REST API token "${t.name}"? Requests with it are refused at once.`, () =>
                revoke.mutate(t.id),
              )
            }
            aria-label={`Revoke ${t.name}`}
          >
            Revoke
          </Button>
        )}
      </div>
      <p className="text-muted-foreground text-xs">
        {t.expiresAt ? `expires ${formatDateTime(t.expiresAt)}` : "no expiry"} ·{" "}
        {t.networks.length ? `from ${t.networks.join(", ")}` : "from any address"} · created{" "}
        {formatDateTime(t.createdAt)}
        {t.createdBy ? ` by ${t.createdBy}` : ""} · {lastUse}
        {t.revokedAt ? ` · revoked ${formatDateTime(t.revokedAt)}` : ""}
      </p>
    </li>
  );
}

export function AccessTokensCard() {
  const titleId = useId();
  const tokens = useQuery(accessTokensQuery());
  const [created, setCreated] = useState<CreatedApiAccessToken | null>(null);
  const { form, formError, showServerError, submit } = useSchemaForm(apiTokenFormSchema, DEFAULTS);
  const { errors } = form.formState;
  const today = new Date();
  const create = useCreateAccessToken({
    onSuccess: (token) => {
      setCreated(token);
      form.reset(DEFAULTS);
      toast({ title: "REST API token created" });
    },
    onError: (err) => {
      const message = showServerError(err, ["name", "role", "expiresAt", "networks"]);
      toast({ variant: "destructive", title: "Failed to create the REST API token", description: message });
    },
  });
  const revoke = useRevokeAccessToken(deleteToasts("REST API token revoked", "Failed to revoke the REST API token"));

  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4">
      <CardHeader>
        <CardTitle id={titleId} className="flex items-center gap-2">
          <Waypoints className="size-4 text-muted-foreground" aria-hidden />
          REST API Tokens
        </CardTitle>
        <CardDescription>
          For scripts and other consoles: a token acts with its role on this console's REST API, sent as{" "}
          <code>Authorization: Bearer …</code>. It never manages users, tokens or anyone's sign-in.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form
          noValidate
          className="grid gap-3 sm:grid-cols-2"
          onSubmit={submit((values) => create.mutate(apiTokenRequest(values)))}
        >
          <FormField label="Name" error={errors.name?.message}>
            {(control) => <Input {...control} placeholder="Fleet hub" autoComplete="off" {...form.register("name")} />}
          </FormField>
          <ControlledSelect
            control={form.control}
            name="role"
            label="Role"
            error={errors.role?.message}
            options={ROLE_OPTIONS}
          />
          <FormField label="Expires on (optional)" error={errors.expiresAt?.message}>
            {(control) => (
              <Input
                {...control}
                type="date"
                min={dayOf(today)}
                max={dayOf(new Date(today.getTime() + API_TOKEN_MAX_DAYS * 86_400_000))}
                {...form.register("expiresAt")}
              />
            )}
          </FormField>
          <FormField label="Allowed networks (optional)" error={errors.networks?.message}>
            {(control) => (
              <Textarea
                {...control}
                rows={2}
                placeholder={"198.51.100.0/24\n2001:db8::/48"}
                className="font-mono text-sm"
                {...form.register("networks")}
              />
            )}
          </FormField>
          <div className="sm:col-span-2">
            <Button type="submit" disabled={create.isPending}>
              {create.isPending && <LoaderCircle className="animate-spin" />}
              Create REST API Token
            </Button>
          </div>
        </form>
        <FormError message={formError} />
        {created && (
          <ShownOnce
            message={`Copy the token for “${created.name}” now: it is not shown again.`}
            value={created.token}
            fieldLabel="New REST API token"
            copyLabel="Copy REST API token"
            onDone={() => setCreated(null)}
          />
        )}
        {tokens.isError && <FormError message={`Could not load the REST API tokens: ${errorText(tokens.error)}`} />}
        {tokens.data?.length ? (
          <ul className="grid gap-2" aria-label="REST API tokens">
            {tokens.data.map((t) => (
              <TokenRow key={t.id} token={t} revoke={revoke} />
            ))}
          </ul>
        ) : tokens.data ? (
          <p className="text-muted-foreground text-sm">No REST API tokens yet.</p>
        ) : null}
      </CardContent>
    </Card>
  );
}
