/**
 * API Settings: the scrape token Prometheus sends to GET /metrics (ADR 0066). Made here, it is shown once
 * (the server keeps its hash); making another replaces it; METRICS_TOKEN from the environment works beside it.
 */
import { useQuery } from "@tanstack/react-query";
import { Activity, LoaderCircle } from "lucide-react";
import { useId, useState } from "react";
import { ShownOnce } from "@/components/shown-once";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-field";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import { afterConfirm, deleteToasts } from "@/lib/mutations";
import { metricsTokenQuery, useCreateMetricsToken, useRevokeMetricsToken } from "./api";

export function MetricsTokenCard() {
  const titleId = useId();
  const view = useQuery(metricsTokenQuery());
  const [secret, setSecret] = useState<string | null>(null);
  const create = useCreateMetricsToken({
    onSuccess: (made) => {
      setSecret(made.secret);
      toast({ title: "Scrape token created" });
    },
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to create the scrape token", description: errorText(err) }),
  });
  const revoke = useRevokeMetricsToken(deleteToasts("Scrape token revoked", "Failed to revoke the scrape token"));
  const token = view.data?.token ?? null;
  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4">
      <CardHeader>
        <CardTitle id={titleId} className="flex items-center gap-2">
          <Activity className="size-4 text-muted-foreground" aria-hidden />
          Metrics
        </CardTitle>
        <CardDescription>
          Prometheus scrapes <code>/metrics</code> with <code>Authorization: Bearer …</code>: requests, jobs, deploys,
          registrations, calls, alerts and backup age.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {view.isError && <FormError message={`Could not load the scrape token: ${errorText(view.error)}`} />}
        {view.data && (
          <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="metrics-token-state">
            {view.data.fromEnvironment && <Badge variant="secondary">METRICS_TOKEN is set</Badge>}
            {token ? (
              <>
                <Badge variant="success">Token made here</Badge>
                <code className="text-muted-foreground">
                  {token.prefix}…{token.last4}
                </code>
                <span className="text-muted-foreground text-xs">
                  created {formatDateTime(token.createdAt)} by {token.createdBy}
                </span>
              </>
            ) : (
              !view.data.fromEnvironment && (
                <span className="text-muted-foreground">No scrape token: /metrics is off.</span>
              )
            )}
          </div>
        )}
        {secret && (
          <ShownOnce
            message="Copy the scrape token now: it is not shown again."
            value={secret}
            fieldLabel="New scrape token"
            copyLabel="Copy scrape token"
            onDone={() => setSecret(null)}
          />
        )}
        <div className="flex flex-wrap gap-2">
          <Button
            type="button"
            disabled={create.isPending || !view.data}
            onClick={() =>
              token
                ? afterConfirm("Make a new scrape token? The current one stops working at once.", () => create.mutate())
                : create.mutate()
            }
          >
            {create.isPending && <LoaderCircle className="animate-spin" />}
            {token ? "Rotate Token" : "Create Token"}
          </Button>
          {token && (
            <Button
              type="button"
              variant="outline"
              className="text-destructive hover:text-destructive"
              disabled={revoke.isPending}
              onClick={() =>
                afterConfirm("Revoke the scrape token? Scrapes with it are refused at once.", () => revoke.mutate())
              }
            >
              Revoke
            </Button>
          )}
        </div>
      </CardContent>
    </Card>
  );
}
