import { LoaderCircle, RefreshCw } from "lucide-react";
import { useEffect, useRef } from "react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { toast } from "@/components/ui/use-toast";
import { useIssueProvisioningLink } from "@/features/softphone/api";
import { ProvisioningApps, ProvisioningLinkView } from "@/features/softphone/link-view";
import { errorMessage } from "@/lib/error-text";
import type { Extension } from "../../../shared/inventory";

/**
 * Issues a one-time link when it opens (ADR 0039): a link works once and for 15 minutes, so one is made
 * for each showing; "New link" replaces it (the earlier one stops working).
 */
function LinkPanel({ ext }: { ext: Extension }) {
  const issue = useIssueProvisioningLink({
    onError: (err) =>
      toast({
        variant: "destructive",
        title: "Failed to create the provisioning link.",
        description: errorMessage(err),
      }),
  });
  const issued = useRef(false);
  useEffect(() => {
    if (issued.current) return;
    issued.current = true;
    issue.mutate(ext.id);
  }, [issue, ext.id]);

  return (
    <div className="grid gap-3">
      {issue.data && !issue.isPending ? (
        <ProvisioningLinkView link={issue.data} extension={ext.extension} />
      ) : issue.isError ? (
        <p className="rounded-md border p-4 text-center text-sm">The provisioning link could not be created.</p>
      ) : (
        <div
          role="status"
          className="mx-auto flex size-64 flex-col items-center justify-center gap-2 rounded-lg border text-muted-foreground text-sm"
        >
          <LoaderCircle className="size-8 animate-spin" aria-hidden />
          Creating provisioning link…
        </div>
      )}
      <div>
        <Button variant="outline" size="sm" disabled={issue.isPending} onClick={() => issue.mutate(ext.id)}>
          <RefreshCw />
          New link
        </Button>
      </div>
    </div>
  );
}

/** The per-extension provisioning code: scan it in Linphone to set the account up. */
export function QrCodeDialog({ ext, onClose }: { ext: Extension | null; onClose: () => void }) {
  return (
    <Dialog open={ext !== null} onOpenChange={(open) => !open && onClose()}>
      {ext && (
        <DialogContent className="max-h-[90vh] overflow-y-auto sm:max-w-md">
          <DialogHeader>
            <DialogTitle>Provision a softphone</DialogTitle>
            <DialogDescription>
              Extension {ext.extension} ({ext.name}): scan the code in Linphone, or open the link on the phone.
            </DialogDescription>
          </DialogHeader>
          <LinkPanel key={ext.id} ext={ext} />
          <ProvisioningApps />
        </DialogContent>
      )}
    </Dialog>
  );
}
