import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Cpu, HardDrive, Info, MemoryStick, Server, TriangleAlert } from "lucide-react";
import type { ReactNode } from "react";
import { Can } from "@/components/can";
import { Button } from "@/components/ui/button";
import { vpsStatusQuery } from "@/features/vps/api";
import type { VpsStatus } from "../../../shared/vps";
import { NotConfigured, StatCard, StatSkeleton, UsageValue } from "./resource-card";
import { ServerStatusValue } from "./server-status";
import { sourceCaption } from "./thresholds";

const USAGE = [
  { key: "cpu", title: "CPU Usage", icon: Cpu },
  { key: "memory", title: "Memory Usage", icon: MemoryStick },
  { key: "disk", title: "Disk Usage", icon: HardDrive },
] as const;

/** A note above the server cards: why there are no numbers (or where they come from), and where to fix it. */
function VpsNotice({ tone, title, message }: { tone: "info" | "error"; title?: string; message: string }) {
  const Icon = tone === "error" ? TriangleAlert : Info;
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      data-testid="vps-notice"
      className="flex flex-col gap-3 rounded-lg border border-dashed bg-muted/40 px-4 py-3 text-sm sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex items-start gap-2">
        <Icon
          className={tone === "error" ? "mt-0.5 size-4 shrink-0 text-destructive" : "mt-0.5 size-4 shrink-0"}
          aria-hidden
        />
        <p>
          {title && <span className="font-medium">{title} </span>}
          <span className="text-muted-foreground">{message}</span>
        </p>
      </div>
      {/* Credentials are an administrator's. */}
      <Can minRole="admin">
        <Button asChild variant="outline" size="sm">
          <Link to="/settings">Open API Settings</Link>
        </Button>
      </Can>
    </div>
  );
}

/** CPU, memory, disk and server status from GET /api/vps/status, polled every 10 s. */
export function VpsCards() {
  const status = useQuery(vpsStatusQuery());
  const vps = status.data;
  const caption = vps ? sourceCaption(vps.source) : null;

  const body = (render: (v: VpsStatus) => ReactNode) => {
    if (!vps) return status.isError ? <p className="text-muted-foreground text-sm">Unavailable</p> : <StatSkeleton />;
    if (!vps.configured) return <NotConfigured />;
    return render(vps);
  };

  return (
    <section aria-labelledby="server-heading" className="flex flex-col gap-3">
      <h2 id="server-heading" className="font-semibold text-lg tracking-tight">
        Server
      </h2>
      {vps && !vps.configured && (
        <VpsNotice
          tone="info"
          title="Server metrics not configured."
          message={vps.message ?? "No metrics source is configured."}
        />
      )}
      {/* Configured but with a remark, e.g. host numbers because the hosting API failed: say so. */}
      {vps?.configured && vps.message && <VpsNotice tone="info" message={vps.message} />}
      {status.isError && <VpsNotice tone="error" title="Server status unavailable." message={status.error.message} />}
      <div className="grid gap-4 min-[400px]:grid-cols-2 xl:grid-cols-4">
        {USAGE.map(({ key, title, icon }) => (
          <StatCard key={key} title={title} icon={icon} testId={`usage-${key}`}>
            {body((v) => {
              const percent = v[key];
              return percent === null ? (
                <p className="text-muted-foreground text-sm">No data</p>
              ) : (
                <UsageValue label={title} percent={percent} caption={caption} />
              );
            })}
          </StatCard>
        ))}
        <StatCard title="Server Status" icon={Server} testId="server-status">
          {body((v) => (
            <ServerStatusValue vps={v} caption={caption} />
          ))}
        </StatCard>
      </div>
    </section>
  );
}
