import { Server } from "lucide-react";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import type { VpsStatus } from "../../../shared/vps";
import { formatUptime, isOnline, SOURCE_LABEL } from "./format";

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-center justify-between gap-4 border-b py-2 last:border-b-0">
      <dt className="text-muted-foreground text-sm">{label}</dt>
      <dd className="truncate text-right font-medium text-sm">{children}</dd>
    </div>
  );
}

export function StatusBadge({ status }: { status: string | null | undefined }) {
  if (!status) return <Badge variant="destructive">Unknown</Badge>;
  return <Badge variant={isOnline(status) ? "default" : "destructive"}>{status}</Badge>;
}

/** The VPS Management screen's server facts: status, IP, hostname, uptime, and where the numbers come from. */
export function ServerInfoCard({ vps }: { vps: VpsStatus | undefined }) {
  return (
    <Card role="region" aria-label="Server Information">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Server className="size-4 text-muted-foreground" aria-hidden />
          Server Information
        </CardTitle>
        <CardDescription>
          {vps ? (
            vps.source === "none" ? (
              "No source of server information is available."
            ) : (
              <>Numbers from {SOURCE_LABEL[vps.source]}</>
            )
          ) : (
            <Skeleton className="h-4 w-40" />
          )}
        </CardDescription>
      </CardHeader>
      <CardContent>
        {vps ? (
          <dl>
            <Row label="Status">
              <span data-testid="vps-status">
                <StatusBadge status={vps.status} />
              </span>
            </Row>
            <Row label="IP Address">
              <span data-testid="vps-ip">{vps.ipAddress ?? "N/A"}</span>
            </Row>
            <Row label="Hostname">
              <span data-testid="vps-hostname">{vps.hostname ?? "N/A"}</span>
            </Row>
            <Row label="Uptime">
              <span data-testid="vps-uptime">{formatUptime(vps.metrics?.uptime)}</span>
            </Row>
          </dl>
        ) : (
          <div className="grid gap-3">
            {["status", "ip", "host", "uptime"].map((k) => (
              <Skeleton key={k} className="h-6 w-full" />
            ))}
          </div>
        )}
      </CardContent>
    </Card>
  );
}
