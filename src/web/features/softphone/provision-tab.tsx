import { LoaderCircle, QrCode, RefreshCw } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/use-toast";
import { errorDescription } from "@/lib/error-text";
import { useIssueProvisioningLink } from "./api";
import { ProvisioningApps, ProvisioningLinkView } from "./link-view";
import type { GeneratedConfig } from "./types";

/** The last one-time link issued, as a QR code and as text; "New link" replaces it. */
export function ProvisionTab({
  generated,
  onConfigure,
  onGenerated,
}: {
  generated: GeneratedConfig | null;
  onConfigure: () => void;
  onGenerated: (config: GeneratedConfig) => void;
}) {
  const issue = useIssueProvisioningLink({
    onSuccess: (link) => generated && onGenerated({ ...generated, link }),
    onError: (err) =>
      toast({
        variant: "destructive",
        title: "Failed to create the provisioning link",
        description: errorDescription(err),
      }),
  });

  if (!generated) {
    return (
      <Card>
        <CardContent className="flex flex-col items-center gap-3 py-10 text-center">
          <QrCode className="size-10 text-muted-foreground" aria-hidden />
          <p className="font-medium">No provisioning link yet</p>
          <p className="text-muted-foreground text-sm">
            Create a provisioning link in the Configure tab first to get a QR code for Linphone.
          </p>
          <Button variant="outline" onClick={onConfigure}>
            Go to Configure
          </Button>
        </CardContent>
      </Card>
    );
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>
          Provision extension <span className="font-mono">{generated.extension}</span>
        </CardTitle>
        <CardDescription>{generated.name}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6 md:grid-cols-[auto_1fr] md:items-start">
        <ProvisioningLinkView link={generated.link} extension={generated.extension} />
        <div className="grid min-w-0 gap-4">
          <ProvisioningApps />
          <div>
            <Button
              variant="outline"
              size="sm"
              disabled={issue.isPending}
              onClick={() => issue.mutate(generated.extensionId)}
            >
              {issue.isPending ? <LoaderCircle className="animate-spin" /> : <RefreshCw />}
              New link
            </Button>
          </div>
        </div>
      </CardContent>
    </Card>
  );
}
