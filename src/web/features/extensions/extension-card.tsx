import { LoaderCircle, Mail, QrCode, Trash2 } from "lucide-react";
import { memo } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ExtensionLiveBadge } from "@/features/live/live-badges";
import { useCan } from "@/hooks/use-role";
import { errorMessage } from "@/lib/error-text";
import { deleteToasts } from "@/lib/mutations";
import type { Extension } from "../../../shared/inventory";
import { useDeleteExtension } from "./api";

/**
 * One extension; fixed height so the windowed grid can place rows without measuring. The QR code
 * (it carries the SIP password) and Delete are an operator's: a viewer sees neither button.
 */
export const ExtensionCard = memo(function ExtensionCard({
  ext,
  onShowQr,
}: {
  ext: Extension;
  onShowQr: (ext: Extension) => void;
}) {
  // A 409 says why (a PTT group or inbound route still uses it): the toast shows that, not just "failed".
  const remove = useDeleteExtension(deleteToasts("Extension deleted", "Failed to delete extension.", errorMessage));
  const canWrite = useCan("operator");
  return (
    <Card
      className="h-full gap-0 overflow-hidden px-5 py-4"
      data-testid="extension-card"
      data-extension={ext.extension}
    >
      <div className="flex items-start justify-between gap-2">
        <h3 className="truncate font-semibold font-mono text-xl tabular-nums" title={ext.extension}>
          {ext.extension}
        </h3>
        <ExtensionLiveBadge extension={ext.extension} />
      </div>
      <p className="mt-1 truncate font-medium" title={ext.name}>
        {ext.name}
      </p>
      <p className="flex h-5 min-w-0 items-center gap-1.5 text-muted-foreground text-sm">
        {ext.email && (
          <>
            <Mail className="size-3.5 shrink-0" aria-hidden />
            <span className="truncate" title={ext.email}>
              {ext.email}
            </span>
          </>
        )}
      </p>
      <div className="mt-2 flex h-6 items-center">
        {ext.voicemail && <Badge variant="outline">Voicemail Enabled</Badge>}
      </div>
      {canWrite && (
        <div className="mt-auto flex items-center gap-2 pt-3">
          <Button
            variant="outline"
            size="sm"
            className="flex-1"
            onClick={() => onShowQr(ext)}
            aria-label={`QR code for extension ${ext.extension}`}
          >
            <QrCode />
            QR Code
          </Button>
          <Button
            variant="ghost"
            size="sm"
            className="text-muted-foreground hover:text-destructive"
            disabled={remove.isPending}
            onClick={() => remove.mutate(ext)}
            aria-label={`Delete extension ${ext.extension}`}
          >
            {remove.isPending ? <LoaderCircle className="animate-spin" /> : <Trash2 />}
          </Button>
        </div>
      )}
    </Card>
  );
});
