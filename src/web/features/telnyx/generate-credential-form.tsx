import { useQuery } from "@tanstack/react-query";
import { KeyRound, LoaderCircle } from "lucide-react";
import { type FormEvent, useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError, FormField } from "@/components/ui/form-field";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { toast } from "@/components/ui/use-toast";
import { extensionsQuery } from "@/features/extensions/api";
import { byNumber } from "../../../shared/sort";
import type { SipConnection } from "../../../shared/telnyx";
import { failureText, useGenerateCredential } from "./api";

const REQUIRED = "Connection and extension are required";

/** Shown only when connections exist. */
export function GenerateCredentialForm({ connections }: { connections: SipConnection[] }) {
  const extensionList = useQuery(extensionsQuery());
  const extensions = useMemo(
    () => [...(extensionList.data ?? [])].sort((a, b) => byNumber(a.extension, b.extension)),
    [extensionList.data],
  );
  const [connectionId, setConnectionId] = useState("");
  const [extensionId, setExtensionId] = useState("");
  const [error, setError] = useState<string>();

  const generate = useGenerateCredential({
    onSuccess: () => {
      setConnectionId("");
      setExtensionId("");
      toast({ title: "Success", description: "SIP credential generated and linked to extension" });
    },
    onError: (err) =>
      toast({ title: "Error", description: failureText(err, "Failed to create credential"), variant: "destructive" }),
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!connectionId || !extensionId) {
      setError(REQUIRED);
      return;
    }
    setError(undefined);
    generate.mutate({ connectionId, extensionId });
  };

  return (
    <Card role="region" aria-label="Generate Extension Credential">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRound className="size-4 text-muted-foreground" aria-hidden />
          Generate Extension Credential
        </CardTitle>
        <CardDescription>A Telnyx SIP credential on a connection, linked to one extension.</CardDescription>
      </CardHeader>
      <form noValidate onSubmit={onSubmit} className="grid gap-6">
        <CardContent className="grid gap-4">
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField label="Connection">
              {(control) => (
                <Select
                  value={connectionId}
                  onValueChange={(v) => {
                    setConnectionId(v);
                    setError(undefined);
                  }}
                >
                  <SelectTrigger {...control} aria-invalid={Boolean(error && !connectionId)}>
                    <SelectValue placeholder="Select a connection" />
                  </SelectTrigger>
                  <SelectContent>
                    {connections.map((c) => (
                      <SelectItem key={c.id} value={c.id}>
                        {c.connection_name}
                      </SelectItem>
                    ))}
                  </SelectContent>
                </Select>
              )}
            </FormField>
            <FormField label="Extension">
              {(control) => (
                <Select
                  value={extensionId}
                  onValueChange={(v) => {
                    setExtensionId(v);
                    setError(undefined);
                  }}
                >
                  <SelectTrigger {...control} aria-invalid={Boolean(error && !extensionId)}>
                    <SelectValue placeholder={extensions.length ? "Select an extension" : "No extensions yet"} />
                  </SelectTrigger>
                  <SelectContent>
                    {extensions.map((x) => (
                      <SelectItem key={x.id} value={String(x.id)}>
                        {x.extension} - {x.name}
                      </SelectItem>
                    ))}
                  </SelectContent>
                </Select>
              )}
            </FormField>
          </div>
          <FormError message={error} />
        </CardContent>
        <CardFooter>
          <Button type="submit" disabled={generate.isPending}>
            {generate.isPending ? <LoaderCircle className="animate-spin" /> : <KeyRound />}
            Generate Credential
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
