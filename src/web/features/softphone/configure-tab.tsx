import { useQuery } from "@tanstack/react-query";
import { Check, Copy, LoaderCircle, QrCode } from "lucide-react";
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
import type { Extension } from "../../../shared/inventory";
import { ExtensionSelect } from "./extension-select";
import type { GeneratedConfig } from "./types";

const noExtension = () =>
  toast({
    variant: "destructive",
    title: "No Extension Selected",
    description: "Please select an extension to configure",
  });

const failed = (title: string, err: unknown) =>
  toast({
    variant: "destructive",
    title,
    description: errorDescription(err),
  });

function ReadOnlyField({ label, value }: { label: string; value: string | number | undefined }) {
  return (
    <FormField label={label}>
      {(c) => <Input {...c} readOnly value={value ?? ""} placeholder="—" className="bg-muted/50 font-mono" />}
    </FormField>
  );
}

/** Choose an extension, see where it will register, then generate the QR code or copy the config. */
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
  const [busy, setBusy] = useState<"generate" | "copy" | null>(null);
  const provisioning = useQuery(provisioningQuery(selected));
  const config = selected ? provisioning.data?.config : undefined;

  /** Always re-read: the secret or the extension's PTT groups may have changed since it was loaded. */
  const fresh = async () => {
    const res = await provisioning.refetch();
    if (res.error || !res.data) throw res.error ?? new Error("No configuration returned");
    return res.data;
  };

  const generate = async () => {
    if (!selected) return noExtension();
    setBusy("generate");
    try {
      const data = await fresh();
      onGenerated({ extension: selected.extension, name: selected.name, link: data.link, qrCode: data.qrCode });
      toast({ title: "Configuration Generated", description: "Scan the QR code with the Sangoma Talk app." });
    } catch (err) {
      failed("Failed to generate configuration", err);
    } finally {
      setBusy(null);
    }
  };

  const copy = async () => {
    if (!selected) return noExtension();
    setBusy("copy");
    try {
      const data = await fresh();
      await copyText(JSON.stringify(data.config, null, 2));
      flashCopied();
      toast({
        title: "Configuration Copied",
        description: "Paste the configuration into the Sangoma Talk app manually.",
      });
    } catch (err) {
      failed("Failed to copy configuration", err);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Extension configuration</CardTitle>
        <CardDescription>
          Pick the extension to put on the phone. The SIP settings below are what the app will register with.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        <ExtensionSelect value={selected} onChange={onSelect} />
        <div className="grid gap-4 sm:grid-cols-3">
          <ReadOnlyField label="SIP Server" value={config?.sip_server} />
          <ReadOnlyField label="Port" value={config?.sip_port} />
          <ReadOnlyField label="Transport" value={config?.transport} />
        </div>
        {selected && provisioning.isError && (
          <p className="text-destructive text-sm" role="alert">
            Could not load the configuration: {provisioning.error.message}
          </p>
        )}
        <div className="flex flex-wrap gap-2">
          <Button onClick={generate} disabled={busy !== null}>
            {busy === "generate" ? <LoaderCircle className="animate-spin" /> : <QrCode />}
            Generate QR Code
          </Button>
          <Button variant="outline" onClick={copy} disabled={busy !== null}>
            {copied ? <Check /> : busy === "copy" ? <LoaderCircle className="animate-spin" /> : <Copy />}
            {copied ? "Copied" : "Copy Configuration"}
          </Button>
        </div>
        <p className="text-muted-foreground text-xs">
          The copied configuration contains the extension's SIP password in clear text.
        </p>
      </CardContent>
    </Card>
  );
}
