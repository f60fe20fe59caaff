import { Globe } from "lucide-react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { SipServerInfo } from "../../../shared/telnyx";

function Address({ label, value }: { label: string; value: string }) {
  return (
    <div className="grid gap-1 rounded-md border p-3">
      <span className="text-muted-foreground text-xs uppercase tracking-wide">{label}</span>
      <code className="break-all font-mono text-sm">{value}</code>
    </div>
  );
}

export function SipServerCard({ info }: { info: SipServerInfo }) {
  return (
    <Card role="region" aria-label="SIP Server Information">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Globe className="size-4 text-muted-foreground" aria-hidden />
          SIP Server Information
        </CardTitle>
        <CardDescription>Where phones and the PBX register with these credentials.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3 sm:grid-cols-2">
        <Address label="UDP/TCP" value={info.udp} />
        <Address label="TLS" value={info.tls} />
      </CardContent>
    </Card>
  );
}
