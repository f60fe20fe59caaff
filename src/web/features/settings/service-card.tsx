/**
 * One outside service's credentials card, driven by SERVICE_FIELDS: every
 * service on the API Settings screen is this component with its own metadata.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { KeyRound, LoaderCircle, PlugZap, Save, Trash2 } from "lucide-react";
import { useEffect, useId, useMemo, useState } from "react";
import { type FieldErrors, type Resolver, useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { ApiError, apiRequest, sendJson } from "@/lib/api";
import {
  type CredentialView,
  type FieldSpec,
  type FieldView,
  SERVICE_FIELDS,
  SERVICE_NAMES,
  saveCredentialSchema,
  type TestResult,
} from "../../../shared/credentials";
import { credentialKeys } from "./queries";
import { SecretInput, SecretTextarea } from "./secret-input";
import type { ServiceMeta } from "./services";
import { CredentialStatusBadge } from "./status-badge";

type Values = Record<string, string>;

/** A field as the card shows it: the shared spec plus what the server reported. */
interface CardField extends FieldSpec {
  view?: FieldView;
}

const MASK = "••••";

function defaultsFrom(fields: CardField[]): Values {
  const values: Values = {};
  for (const f of fields) values[f.name] = f.secret ? "" : (f.view?.value ?? "");
  return values;
}

/** Filled for the disabled rules: typed now, a stored secret, or set by the environment. */
function isFilled(f: CardField, value: string | undefined): boolean {
  if (f.view?.fromEnv) return true;
  if ((value ?? "").trim() !== "") return true;
  return f.secret && Boolean(f.view?.set);
}

function messageOf(err: unknown): string | undefined {
  if (err instanceof ApiError) return err.serverMessage;
  if (err instanceof TypeError) return "Could not reach the server. Check the connection and try again.";
  return undefined;
}

const formatDate = (iso: string) => new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short" });

export function ServiceCard({
  meta,
  view,
  status,
}: {
  meta: ServiceMeta;
  view: CredentialView | undefined;
  status: { configured: boolean; connected: boolean } | undefined;
}) {
  const client = useQueryClient();
  const titleId = useId();
  const { type } = meta;

  const allFields: CardField[] = useMemo(
    () => SERVICE_FIELDS[type].map((spec) => ({ ...spec, view: view?.fields.find((f) => f.name === spec.name) })),
    [type, view],
  );
  const inputFields = allFields.filter((f) => !meta.inputs[f.name]?.display);
  const displayFields = allFields.filter((f) => meta.inputs[f.name]?.display);
  const inputNames = inputFields.map((f) => f.name);

  /** The body fields: env-provided ones are left out; an empty secret is left out (keeps the stored one). */
  const bodyOf = (values: Values, forTest: boolean): Record<string, string> => {
    const body: Record<string, string> = {};
    for (const f of inputFields) {
      if (f.view?.fromEnv) continue;
      const raw = values[f.name] ?? "";
      const value = f.secret ? raw : raw.trim();
      if (value === "" && (f.secret || forTest)) continue;
      body[forTest ? (meta.testNames?.[f.name] ?? f.name) : f.name] = value;
    }
    return body;
  };

  const resolver: Resolver<Values> = async (values) => {
    const parsed = saveCredentialSchema.safeParse({ type, ...bodyOf(values, false) });
    if (parsed.success) return { values, errors: {} };
    const errors: FieldErrors<Values> = {};
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? "");
      if (inputNames.includes(name) && !errors[name]) errors[name] = { type: "validation", message: issue.message };
    }
    return { values: {}, errors };
  };

  const form = useForm<Values>({ resolver, defaultValues: defaultsFrom(allFields) });
  const values = form.watch();
  const { errors } = form.formState;

  // Server data arrived or changed: take it, but keep what the user is typing.
  useEffect(() => {
    form.reset(defaultsFrom(allFields), { keepDirtyValues: true });
  }, [allFields, form]);

  const afterChange = (saved?: CredentialView) => {
    if (saved) {
      client.setQueryData<CredentialView[]>(credentialKeys.all, (list) =>
        list ? list.map((c) => (c.type === saved.type ? saved : c)) : list,
      );
    }
    void client.invalidateQueries({ queryKey: credentialKeys.all });
  };

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      sendJson<CredentialView>("POST", "/api/credentials", { type, name: SERVICE_NAMES[type], ...body }),
    onSuccess: (saved) => {
      const fields = SERVICE_FIELDS[type].map((spec) => ({
        ...spec,
        view: saved?.fields.find((f) => f.name === spec.name),
      }));
      form.reset(defaultsFrom(fields));
      afterChange(saved);
      toast({ title: "Success", description: meta.savedText });
    },
    onError: (err) => {
      if (err instanceof ApiError) {
        for (const [name, message] of Object.entries(err.fields ?? {}))
          if (inputNames.includes(name)) form.setError(name, { type: "server", message });
      }
      toast({ title: "Error", description: messageOf(err) ?? meta.saveFailedText, variant: "destructive" });
    },
  });

  const test = useMutation({
    mutationFn: (body: Record<string, string>) =>
      sendJson<TestResult>("POST", "/api/credentials/test", { type, ...body }),
    onSuccess: (result) => {
      afterChange();
      toast({
        title: result.success ? "Connection Successful" : "Connection Failed",
        description: result.message,
        variant: result.success ? "default" : "destructive",
      });
    },
    onError: (err) => {
      afterChange();
      toast({
        title: "Connection Failed",
        description: messageOf(err) ?? (err instanceof Error ? err.message : String(err)),
        variant: "destructive",
      });
    },
  });

  const forgetHostKey = useMutation({
    mutationFn: () =>
      sendJson<CredentialView>("POST", "/api/credentials", {
        type,
        name: SERVICE_NAMES[type],
        resetHostKey: true,
      }),
    onSuccess: (saved) => {
      afterChange(saved);
      toast({ title: "Host key forgotten", description: "The next successful test pins the host's current key." });
    },
    onError: (err) =>
      toast({ title: "Error", description: messageOf(err) ?? meta.saveFailedText, variant: "destructive" }),
  });

  const [confirmRemove, setConfirmRemove] = useState(false);
  const remove = useMutation({
    mutationFn: () => apiRequest("DELETE", `/api/credentials/${type}`),
    onSuccess: () => {
      setConfirmRemove(false);
      form.reset(defaultsFrom(allFields.map((f) => ({ ...f, view: undefined }))));
      afterChange();
      toast({ title: "Credentials removed", description: `Stored ${meta.title} credentials were removed.` });
    },
    onError: (err) =>
      toast({
        title: "Error",
        description: messageOf(err) ?? `Failed to remove ${meta.title} credentials`,
        variant: "destructive",
      }),
  });

  const pending = save.isPending || test.isPending || remove.isPending || forgetHostKey.isPending;
  const ready = inputFields.filter((f) => f.required).every((f) => isFilled(f, values[f.name]));
  const hasStored = allFields.some((f) => f.view?.set && !f.view.fromEnv);
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
          {inputFields.map((f) => {
            const input = meta.inputs[f.name] ?? {};
            const fromEnv = Boolean(f.view?.fromEnv);
            const placeholder = f.secret
              ? f.view?.set
                ? `${MASK}${f.view.last4 ?? ""}`
                : input.placeholder
              : input.placeholder;
            return (
              <FormField key={f.name} label={f.label} error={errors[f.name]?.message}>
                {(control) => (
                  <>
                    {f.secret && input.multiline ? (
                      <SecretTextarea
                        {...control}
                        {...form.register(f.name)}
                        placeholder={placeholder}
                        disabled={fromEnv}
                      />
                    ) : f.secret ? (
                      <SecretInput
                        {...control}
                        {...form.register(f.name)}
                        placeholder={placeholder}
                        disabled={fromEnv}
                      />
                    ) : (
                      <Input
                        {...control}
                        {...form.register(f.name)}
                        type={input.type ?? "text"}
                        inputMode={input.type === "number" ? "numeric" : undefined}
                        placeholder={placeholder}
                        disabled={fromEnv}
                        autoComplete="off"
                        spellCheck={false}
                      />
                    )}
                    {fromEnv && (
                      <p className="text-muted-foreground text-xs">
                        from <code className="font-mono">{f.env}</code>
                      </p>
                    )}
                  </>
                )}
              </FormField>
            );
          })}
          {displayFields.map((f) => (
            <div key={f.name} className="grid gap-2 rounded-md border border-dashed p-3">
              <div className="flex items-center justify-between gap-2">
                <span className="flex items-center gap-2 font-medium text-sm">
                  <KeyRound className="size-4 text-muted-foreground" aria-hidden />
                  {f.label}
                </span>
                {f.view?.set && !f.view.fromEnv && (
                  <Button
                    type="button"
                    variant="outline"
                    size="sm"
                    disabled={pending}
                    onClick={() => forgetHostKey.mutate()}
                  >
                    {forgetHostKey.isPending && <LoaderCircle className="animate-spin" />}
                    Forget host key
                  </Button>
                )}
              </div>
              {f.view?.set ? (
                <code className="break-all font-mono text-xs" data-testid={`${type}-${f.name}`}>
                  {f.view.value}
                </code>
              ) : (
                <p className="text-muted-foreground text-xs">Not pinned yet: the first successful test pins it.</p>
              )}
              {f.view?.fromEnv && (
                <p className="text-muted-foreground text-xs">
                  from <code className="font-mono">{f.env}</code>
                </p>
              )}
            </div>
          ))}
          {view?.lastTestedAt && (
            <p className="text-muted-foreground text-xs" data-testid={`${type}-last-test`}>
              Last tested {formatDate(view.lastTestedAt)}
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
      <Dialog open={confirmRemove} onOpenChange={setConfirmRemove}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Remove {meta.title} credentials?</DialogTitle>
            <DialogDescription>
              The values stored in the database are deleted. Values set by environment variables stay in effect.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <Button variant="destructive" disabled={remove.isPending} onClick={() => remove.mutate()}>
              {remove.isPending && <LoaderCircle className="animate-spin" />}
              Remove
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  );
}
