import { Check, Copy, QrCode } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/use-toast";
import { useCopiedFlag } from "@/hooks/use-copied";
import { copyText } from "@/lib/clipboard";
import type { GeneratedConfig } from "./types";

/** The generated QR code and provisioning link; stays until the next Generate. */
export function ProvisionTab({
  generated,
  onConfigure,
}: {
  generated: GeneratedConfig | null;
  onConfigure: () => void;
}) {
  const [copied, flashCopied] = useCopiedFlag();

  if (!generated) {
    return (
      <Card>
        <CardContent className="flex flex-col items-center gap-3 py-10 text-center">
          <QrCode className="size-10 text-muted-foreground" aria-hidden />
          <p className="font-medium">No configuration generated yet</p>
          <p className="text-muted-foreground text-sm">
            Generate a configuration in the Configure tab first to get a QR code and provisioning link.
          </p>
          <Button variant="outline" onClick={onConfigure}>
            Go to Configure
          </Button>
        </CardContent>
      </Card>
    );
  }

  const copyLink = async () => {
    try {
      await copyText(generated.link);
      flashCopied();
    } catch (err) {
      toast({ variant: "destructive", title: "Failed to copy link", description: String(err) });
    }
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>
          Provision extension <span className="font-mono">{generated.extension}</span>
        </CardTitle>
        <CardDescription>{generated.name}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6 md:grid-cols-[auto_1fr] md:items-start">
        <div className="mx-auto flex flex-col items-center gap-3">
          <div className="size-64 rounded-lg border bg-white p-2">
            <img
              src={generated.qrCode}
              alt={`Provisioning QR code for extension ${generated.extension}`}
              className="size-full"
            />
          </div>
          <p className="text-center text-sm">Open Sangoma Talk → Settings → Scan QR Code</p>
        </div>
        <div className="grid min-w-0 gap-2">
          <Label htmlFor="provisioning-link">Provisioning link</Label>
          <Textarea
            id="provisioning-link"
            readOnly
            value={generated.link}
            rows={6}
            className="resize-none break-all font-mono text-xs"
            onFocus={(e) => e.currentTarget.select()}
          />
          <div className="flex flex-wrap items-center gap-2">
            <Button variant="outline" size="sm" onClick={copyLink}>
              {copied ? <Check /> : <Copy />}
              {copied ? "Copied" : "Copy Link"}
            </Button>
            <p className="text-muted-foreground text-xs">
              Opening the link on the phone also provisions the app. It contains the SIP password.
            </p>
          </div>
        </div>
      </CardContent>
    </Card>
  );
}
