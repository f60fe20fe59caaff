/**
 * API Settings: the public SIP host and port softphones dial (ADR 0039). Provisioning links and the SIP
 * details on the Softphone screen use it; empty falls back to SIP_SERVER_HOST / SERVER_ADDRESS. The same
 * loopback/private warning as the provisioning page shows while it is typed.
 */
import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, Phone } from "lucide-react";
import { useEffect, useId } from "react";
import { useSchemaForm } from "@/components/form-kit";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { sipHostWarning } from "../../../shared/provisioning";
import { sipSettingsSchema } from "../../../shared/settings";
import { sipSettingsQuery, useUpdateSipSettings } from "./api";
import { ProvisioningWarnings } from "./link-view";

export function SipHostCard() {
  const titleId = useId();
  const settings = useQuery(sipSettingsQuery());
  const { form, formError, showServerError, submit } = useSchemaForm(sipSettingsSchema, { publicHost: "", port: 5060 });
  const loaded = settings.data;
  useEffect(() => {
    if (loaded) form.reset({ publicHost: loaded.publicHost, port: loaded.port });
  }, [loaded, form]);
  const update = useUpdateSipSettings({
    onSuccess: (view) =>
      toast({
        title: "Public SIP host saved",
        description: `Phones dial ${view.effective.host}:${view.effective.port}`,
      }),
    onError: (err) => {
      const message = showServerError(err, ["publicHost", "port"]);
      toast({
        variant: "destructive",
        title: "Failed to save the public SIP host",
        description: message ?? errorText(err),
      });
    },
  });
  const typed = form.watch("publicHost") ?? "";
  const warning = loaded ? sipHostWarning(typed.trim() || loaded.effective.host) : null;
  const errors = form.formState.errors;
  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4">
      <CardHeader>
        <CardTitle id={titleId} className="flex items-center gap-2">
          <Phone className="size-4 text-muted-foreground" aria-hidden />
          Public SIP host
        </CardTitle>
        <CardDescription>
          The host name or address and port softphones register to: provisioning links and the SIP details on the
          Softphone screen use it. Leave the host empty to use the server's own setting
          {loaded?.effective.source === "environment" ? ` (now ${loaded.effective.host})` : ""}.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {settings.isError && <FormError message={`Could not load the SIP settings: ${errorText(settings.error)}`} />}
        <form
          noValidate
          aria-label="Public SIP host"
          className="grid gap-3"
          onSubmit={submit((values) => update.mutate(values))}
        >
          <div className="grid gap-3 sm:grid-cols-[1fr_8rem]">
            <FormField label="Host" error={errors.publicHost?.message}>
              {(c) => <Input {...c} placeholder="e.g. pbx.example.com" {...form.register("publicHost")} />}
            </FormField>
            <FormField label="Port" error={errors.port?.message}>
              {(c) => (
                <Input {...c} type="number" inputMode="numeric" {...form.register("port", { valueAsNumber: true })} />
              )}
            </FormField>
          </div>
          {warning && <ProvisioningWarnings warnings={[warning]} />}
          <FormError message={formError} />
          <div>
            <Button type="submit" disabled={update.isPending || !loaded}>
              {update.isPending && <LoaderCircle className="animate-spin" />}
              Save SIP Host
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
