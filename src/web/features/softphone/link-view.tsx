/**
 * The pieces both provisioning places show (the Softphone screen's Provision tab and the Extensions screen's
 * QR dialog): the one-time link as a QR code and as text, when it stops working, which apps read it, and
 * why a phone elsewhere might not reach it.
 */
import { Check, Copy, TriangleAlert } from "lucide-react";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/use-toast";
import { useCopiedFlag } from "@/hooks/use-copied";
import { copyText } from "@/lib/clipboard";
import { PROVISIONING_APPS, PROVISIONING_LINK_MINUTES, type ProvisioningLink } from "../../../shared/provisioning";

/** Why a phone elsewhere might not reach the console or the SIP host; nothing when there is no reason. */
export function ProvisioningWarnings({ warnings }: { warnings: readonly string[] }) {
  if (warnings.length === 0) return null;
  return (
    <div
      role="alert"
      className="grid gap-1.5 rounded-md border border-amber-500/50 bg-amber-500/10 p-3 text-amber-900 text-sm dark:text-amber-200"
    >
      {warnings.map((w) => (
        <p key={w} className="flex gap-2">
          <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
          <span>{w}</span>
        </p>
      ))}
    </div>
  );
}

/** Which apps read the link, and where. */
export function ProvisioningApps() {
  return (
    <div className="text-sm">
      <p className="font-medium">To set up the phone</p>
      <ul className="mt-1 list-disc space-y-0.5 pl-5 text-muted-foreground">
        {PROVISIONING_APPS.map((app) => (
          <li key={app.name}>
            <span className="font-medium text-foreground">{app.name}</span>: {app.where}.
          </li>
        ))}
        <li>Any other SIP app: type the SIP details in by hand (Softphone screen).</li>
      </ul>
      <p className="mt-2 text-muted-foreground text-xs">
        The link works once, for {PROVISIONING_LINK_MINUTES} minutes, and carries the extension's SIP password: show it
        only to its user. A new link replaces this one.
      </p>
    </div>
  );
}

const timeOf = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });

/** The QR code of a link and the link itself as text (the same string the code carries). */
export function ProvisioningLinkView({ link, extension }: { link: ProvisioningLink; extension: string }) {
  const [copied, flashCopied] = useCopiedFlag();
  const copy = async () => {
    try {
      await copyText(link.link);
      flashCopied();
    } catch (err) {
      toast({ variant: "destructive", title: "Failed to copy link", description: String(err) });
    }
  };
  return (
    <div className="grid gap-3">
      <div className="mx-auto size-64 rounded-lg border bg-white p-2">
        <img src={link.qrCode} alt={`Provisioning QR code for extension ${extension}`} className="size-full" />
      </div>
      <div className="grid min-w-0 gap-1">
        <p className="text-muted-foreground text-xs">Provisioning link (expires at {timeOf(link.expiresAt)})</p>
        <code
          data-testid="provisioning-link"
          className="block break-all rounded-md border bg-muted/50 p-2 font-mono text-xs"
        >
          {link.link}
        </code>
        <div>
          <Button variant="outline" size="sm" onClick={copy}>
            {copied ? <Check /> : <Copy />}
            {copied ? "Copied" : "Copy Link"}
          </Button>
        </div>
      </div>
      <ProvisioningWarnings warnings={link.warnings} />
    </div>
  );
}
