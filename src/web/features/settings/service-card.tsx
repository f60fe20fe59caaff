/**
 * One outside service's credentials card, driven by SERVICE_FIELDS: every
 * service on the API Settings screen is this component with its own metadata.
 */
import { LoaderCircle, PlugZap, Save, Trash2 } from "lucide-react";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/use-toast";
import { fieldMessages, serverMessage } from "@/lib/error-text";
import { formatDateTime } from "@/lib/format";
import type { CredentialView } from "../../../shared/credentials";
import { useForgetHostKey, useRemoveCredentials, useSaveCredentials, useTestCredentials } from "./api";
import { CredentialInput, PinnedValue } from "./credential-field";
import { RemoveCredentialsDialog } from "./remove-credentials-dialog";
import type { ServiceMeta } from "./services";
import { CredentialStatusBadge } from "./status-badge";
import { cardFields, defaultsFrom, useServiceForm } from "./use-service-form";

/** The server's own words, or a sentence when it could not be reached; undefined: use the card's fallback. */
function messageOf(err: unknown): string | undefined {
  if (err instanceof TypeError) return "Could not reach the server. Check the connection and try again.";
  return serverMessage(err);
}

const failed = (description: string) => toast({ title: "Error", description, variant: "destructive" });

export function ServiceCard({
  meta,
  view,
  status,
}: {
  meta: ServiceMeta;
  view: CredentialView | undefined;
  status: { configured: boolean; connected: boolean } | undefined;
}) {
  const titleId = useId();
  const { type } = meta;
  const { form, inputFields, displayFields, bodyOf, showFieldErrors, ready, hasStored } = useServiceForm(meta, view);
  const { errors } = form.formState;
  const [confirmRemove, setConfirmRemove] = useState(false);

  const save = useSaveCredentials(type, {
    onSuccess: (saved) => {
      form.reset(defaultsFrom(cardFields(meta, saved)));
      // A plain-http URL to another machine works, but the server says so.
      toast({ title: "Success", description: saved.warning ? `${meta.savedText} ${saved.warning}` : meta.savedText });
    },
    onError: (err) => {
      showFieldErrors(fieldMessages(err));
      failed(messageOf(err) ?? meta.saveFailedText);
    },
  });

  const test = useTestCredentials(type, {
    onSuccess: (result) =>
      toast({
        title: result.success ? "Connection Successful" : "Connection Failed",
        description: result.warning ? `${result.message} ${result.warning}` : result.message,
        variant: result.success ? "default" : "destructive",
      }),
    onError: (err) =>
      toast({ title: "Connection Failed", description: messageOf(err) ?? err.message, variant: "destructive" }),
  });

  const forgetHostKey = useForgetHostKey(type, {
    onSuccess: () =>
      toast({ title: "Host key forgotten", description: "The next successful test pins the host's current key." }),
    onError: (err) => failed(messageOf(err) ?? meta.saveFailedText),
  });

  const remove = useRemoveCredentials(type, {
    onSuccess: () => {
      setConfirmRemove(false);
      form.reset(defaultsFrom(cardFields(meta, undefined)));
      toast({ title: "Credentials removed", description: `Stored ${meta.title} credentials were removed.` });
    },
    onError: (err) => failed(messageOf(err) ?? `Failed to remove ${meta.title} credentials`),
  });

  const pending = save.isPending || test.isPending || remove.isPending || forgetHostKey.isPending;
  const Icon = meta.icon;

  return (
    <Card role="region" aria-labelledby={titleId} data-service={type} className="gap-5">
      <CardHeader>
        <div className="flex items-start justify-between gap-3">
          <CardTitle id={titleId} className="flex items-center gap-2 text-base">
            <Icon className="size-4 text-muted-foreground" aria-hidden />
            {meta.title}
          </CardTitle>
          <CredentialStatusBadge status={status} />
        </div>
        <CardDescription>{meta.description}</CardDescription>
      </CardHeader>
      <form
        noValidate
        onSubmit={form.handleSubmit((v) => save.mutate(bodyOf(v, false)))}
        className="flex flex-1 flex-col gap-5"
      >
        <CardContent className="grid flex-1 content-start gap-4">
          {inputFields.map((f) => (
            <CredentialInput
              key={f.name}
              field={f}
              input={meta.inputs[f.name] ?? {}}
              error={errors[f.name]?.message}
              register={form.register(f.name)}
            />
          ))}
          {displayFields.map((f) => (
            <PinnedValue
              key={f.name}
              field={f}
              testId={`${type}-${f.name}`}
              disabled={pending}
              forgetting={forgetHostKey.isPending}
              onForget={() => forgetHostKey.mutate()}
            />
          ))}
          {view?.lastTestedAt && (
            <p className="text-muted-foreground text-xs" data-testid={`${type}-last-test`}>
              Last tested {formatDateTime(view.lastTestedAt)}
              {view.lastTestMessage ? `: ${view.lastTestMessage}` : ""}
            </p>
          )}
        </CardContent>
        <CardFooter className="flex-wrap gap-2">
          {hasStored && (
            <Button
              type="button"
              variant="ghost"
              size="sm"
              className="mr-auto text-muted-foreground"
              disabled={pending}
              onClick={() => setConfirmRemove(true)}
            >
              <Trash2 />
              Remove
            </Button>
          )}
          <div className="ml-auto flex flex-wrap gap-2">
            <Button
              type="button"
              variant="outline"
              disabled={!ready || pending}
              onClick={form.handleSubmit((v) => test.mutate(bodyOf(v, true)))}
            >
              {test.isPending ? <LoaderCircle className="animate-spin" /> : <PlugZap />}
              Test Connection
            </Button>
            <Button type="submit" disabled={!ready || pending}>
              {save.isPending ? <LoaderCircle className="animate-spin" /> : <Save />}
              Save Credentials
            </Button>
          </div>
        </CardFooter>
      </form>
      <RemoveCredentialsDialog
        title={meta.title}
        open={confirmRemove}
        onOpenChange={setConfirmRemove}
        pending={remove.isPending}
        onRemove={() => remove.mutate()}
      />
    </Card>
  );
}
