import { useQuery } from "@tanstack/react-query";
import { Check, Copy, Eye, EyeOff, LoaderCircle, QrCode } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { provisioningQuery } from "@/features/extensions/api";
import { useCopiedFlag } from "@/hooks/use-copied";
import { copyText } from "@/lib/clipboard";
import { errorDescription } from "@/lib/error-text";
import type { Extension, ProvisioningConfig } from "../../../shared/inventory";
import { useIssueProvisioningLink } from "./api";
import { ExtensionSelect } from "./extension-select";
import { ProvisioningWarnings } from "./link-view";
import type { GeneratedConfig } from "./types";

const noExtension = () =>
  toast({
    variant: "destructive",
    title: "No Extension Selected",
    description: "Please select an extension to configure",
  });

function ReadOnlyField({ label, value }: { label: string; value: string | number | undefined }) {
  return (
    <FormField label={label}>
      {(c) => <Input {...c} readOnly value={value ?? ""} placeholder="—" className="bg-muted/50 font-mono" />}
    </FormField>
  );
}

/** The SIP password, hidden until asked for. */
function PasswordField({ value }: { value: string | undefined }) {
  const [shown, setShown] = useState(false);
  return (
    <FormField label="Password">
      {(c) => (
        <div className="flex gap-2">
          <Input
            {...c}
            readOnly
            type={shown ? "text" : "password"}
            value={value ?? ""}
            placeholder="—"
            className="bg-muted/50 font-mono"
          />
          <Button
            type="button"
            variant="outline"
            size="icon"
            aria-label={shown ? "Hide password" : "Show password"}
            aria-pressed={shown}
            disabled={!value}
            onClick={() => setShown((s) => !s)}
          >
            {shown ? <EyeOff /> : <Eye />}
          </Button>
        </div>
      )}
    </FormField>
  );
}

/** The details as text, for an app configured by hand. */
const detailsText = (c: ProvisioningConfig) =>
  [
    `SIP server: ${c.sip_server}`,
    `Port: ${c.sip_port}`,
    `Transport: ${c.transport}`,
    `Username: ${c.username}`,
    `Password: ${c.password}`,
    `Display name: ${c.display_name}`,
  ].join("\n");

/** Choose an extension, see the SIP details a phone registers with, then issue a one-time provisioning link. */
export function ConfigureTab({
  selected,
  onSelect,
  onGenerated,
}: {
  selected: Extension | null;
  onSelect: (ext: Extension | null) => void;
  onGenerated: (config: GeneratedConfig) => void;
}) {
  const [copied, flashCopied] = useCopiedFlag();
  const [copying, setCopying] = useState(false);
  const provisioning = useQuery(provisioningQuery(selected));
  const config = selected ? provisioning.data?.config : undefined;
  const issue = useIssueProvisioningLink({
    onSuccess: (link, extensionId) => {
      if (!selected || selected.id !== extensionId) return;
      onGenerated({ extensionId, extension: selected.extension, name: selected.name, link });
      toast({ title: "Provisioning link created", description: "Scan the QR code in Linphone within 15 minutes." });
    },
    onError: (err) =>
      toast({
        variant: "destructive",
        title: "Failed to create the provisioning link",
        description: errorDescription(err),
      }),
  });

  const generate = () => {
    if (!selected) return noExtension();
    issue.mutate(selected.id);
  };

  /** Always re-read: the secret may have changed since it was loaded. */
  const copy = async () => {
    if (!selected) return noExtension();
    setCopying(true);
    try {
      const res = await provisioning.refetch();
      if (res.error || !res.data) throw res.error ?? new Error("No configuration returned");
      await copyText(detailsText(res.data.config));
      flashCopied();
      toast({ title: "SIP details copied", description: "Type them into the softphone's account settings." });
    } catch (err) {
      toast({ variant: "destructive", title: "Failed to copy the SIP details", description: errorDescription(err) });
    } finally {
      setCopying(false);
    }
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Extension configuration</CardTitle>
        <CardDescription>
          Pick the extension to put on the phone. These SIP details are what the phone registers with: scan a
          provisioning link in Linphone, or type them into any SIP app.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        <ExtensionSelect value={selected} onChange={onSelect} />
        <div className="grid gap-4 sm:grid-cols-3">
          <ReadOnlyField label="SIP Server" value={config?.sip_server} />
          <ReadOnlyField label="Port" value={config?.sip_port} />
          <ReadOnlyField label="Transport" value={config?.transport} />
          <ReadOnlyField label="Username" value={config?.username} />
          <div className="sm:col-span-2">
            <PasswordField value={config?.password} />
          </div>
        </div>
        {selected && provisioning.data && <ProvisioningWarnings warnings={provisioning.data.warnings} />}
        {selected && provisioning.isError && (
          <p className="text-destructive text-sm" role="alert">
            Could not load the configuration: {provisioning.error.message}
          </p>
        )}
        <div className="flex flex-wrap gap-2">
          <Button onClick={generate} disabled={issue.isPending}>
            {issue.isPending ? <LoaderCircle className="animate-spin" /> : <QrCode />}
            Create Provisioning Link
          </Button>
          <Button variant="outline" onClick={copy} disabled={copying}>
            {copied ? <Check /> : copying ? <LoaderCircle className="animate-spin" /> : <Copy />}
            {copied ? "Copied" : "Copy SIP Details"}
          </Button>
        </div>
        <p className="text-muted-foreground text-xs">
          The copied details and the link carry the extension's SIP password in clear text.
        </p>
      </CardContent>
    </Card>
  );
}
