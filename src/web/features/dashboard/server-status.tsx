import { Badge } from "@/components/ui/badge";
import type { VpsStatus } from "../../../shared/vps";

const GOOD = new Set(["online", "running"]);

/** Status badge (online is good; anything else destructive; 'Unknown' when absent) and the IP. */
export function ServerStatusValue({ vps, caption }: { vps: VpsStatus; caption: string | null }) {
  const status = vps.status;
  return (
    <>
      <div>
        {status ? (
          <Badge variant={GOOD.has(status.toLowerCase()) ? "success" : "destructive"} className="capitalize">
            {status}
          </Badge>
        ) : (
          <Badge variant="outline">Unknown</Badge>
        )}
      </div>
      <p className="text-muted-foreground text-sm">
        IP: <span className="font-mono text-foreground">{vps.ipAddress ?? "N/A"}</span>
      </p>
      {caption && <p className="text-muted-foreground text-xs">{caption}</p>}
    </>
  );
}
