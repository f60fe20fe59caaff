import { useQuery } from "@tanstack/react-query";
import { LoaderCircle } from "lucide-react";
import { useEffect } from "react";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { toast } from "@/components/ui/use-toast";
import { serverInfoQuery } from "@/features/auth/api";
import { errorMessage } from "@/lib/error-text";
import type { Extension } from "../../../shared/inventory";
import { qrCodeQuery } from "./api";

function Detail({ label, value, mono }: { label: string; value: string; mono?: boolean }) {
  return (
    <div className="flex justify-between gap-4 py-1.5">
      <dt className="text-muted-foreground">{label}</dt>
      <dd className={mono ? "truncate font-mono" : "truncate font-medium"}>{value}</dd>
    </div>
  );
}

/** Fetched each time it opens: the code carries the current secret and PTT groups. */
function QrImage({ ext }: { ext: Extension }) {
  const qr = useQuery(qrCodeQuery(ext.id));

  useEffect(() => {
    if (qr.isError)
      toast({ variant: "destructive", title: "Failed to generate QR code.", description: errorMessage(qr.error) });
  }, [qr.isError, qr.error]);

  return (
    <div className="mx-auto flex size-64 items-center justify-center rounded-lg border bg-white p-2">
      {qr.data ? (
        <img src={qr.data.qrCode} alt={`Sangoma Talk QR code for extension ${ext.extension}`} className="size-full" />
      ) : qr.isError ? (
        <p className="px-4 text-center text-sm text-zinc-600">The QR code could not be generated.</p>
      ) : (
        <div role="status" className="flex flex-col items-center gap-2 text-sm text-zinc-600">
          <LoaderCircle className="size-8 animate-spin" aria-hidden />
          Generating QR code…
        </div>
      )}
    </div>
  );
}

/** The per-extension softphone code: scan it in Sangoma Talk to set the account up. */
export function QrCodeDialog({ ext, onClose }: { ext: Extension | null; onClose: () => void }) {
  const info = useQuery(serverInfoQuery());
  return (
    <Dialog open={ext !== null} onOpenChange={(open) => !open && onClose()}>
      {ext && (
        <DialogContent className="sm:max-w-md">
          <DialogHeader>
            <DialogTitle>Sangoma Talk QR Code</DialogTitle>
            <DialogDescription>Scan this code with Sangoma Talk to set up extension {ext.extension}.</DialogDescription>
          </DialogHeader>
          <QrImage key={ext.id} ext={ext} />
          <dl className="divide-y rounded-md border px-3 text-sm">
            <Detail label="Extension" value={ext.extension} mono />
            <Detail label="User" value={ext.name} />
            <Detail label="Server" value={info.data?.serverAddress ?? "…"} mono />
          </dl>
          <div className="text-sm">
            <p className="font-medium">To scan</p>
            <ol className="mt-1 list-decimal space-y-0.5 pl-5 text-muted-foreground">
              <li>Open Sangoma Talk on the phone.</li>
              <li>Go to Settings → Scan QR Code.</li>
              <li>Point the camera at this code.</li>
            </ol>
            <p className="mt-2 text-muted-foreground text-xs">
              The code contains the extension's SIP password: show it only to its user.
            </p>
          </div>
        </DialogContent>
      )}
    </Dialog>
  );
}
