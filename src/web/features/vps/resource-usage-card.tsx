import { ArrowDown, ArrowUp, Cpu, Gauge, HardDrive, type LucideIcon, MemoryStick } from "lucide-react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Progress } from "@/components/ui/progress";
import { cn } from "@/lib/utils";
import type { VpsStatus } from "../../../shared/vps";
import { formatPercent, formatRate, levelBar, levelOf, levelText, SOURCE_LABEL } from "./format";

function Meter({ label, icon: Icon, value }: { label: string; icon: LucideIcon; value: number }) {
  const level = levelOf(value);
  return (
    <div className="grid gap-2" data-testid={`usage-${label.toLowerCase()}`} data-level={level}>
      <div className="flex items-center justify-between text-sm">
        <span className="flex items-center gap-2 text-muted-foreground">
          <Icon className="size-4" aria-hidden />
          {label}
        </span>
        <span className={cn("font-semibold tabular-nums", levelText[level])}>{formatPercent(value)}</span>
      </div>
      <Progress
        value={Math.min(100, Math.max(0, value))}
        aria-label={`${label} usage`}
        indicatorClassName={levelBar[level]}
      />
    </div>
  );
}

/** Shown only when metrics exist. */
export function ResourceUsageCard({ vps }: { vps: VpsStatus }) {
  const m = vps.metrics;
  if (!m) return null;
  return (
    <Card role="region" aria-label="Resource Usage">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Gauge className="size-4 text-muted-foreground" aria-hidden />
          Resource Usage
        </CardTitle>
        <CardDescription>From {SOURCE_LABEL[vps.source]}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        <div className="grid gap-5 md:grid-cols-3">
          <Meter label="CPU" icon={Cpu} value={m.cpu} />
          <Meter label="Memory" icon={MemoryStick} value={m.memory} />
          <Meter label="Disk" icon={HardDrive} value={m.disk} />
        </div>
        <div className="grid gap-3 sm:grid-cols-2">
          <div className="flex items-center justify-between rounded-md border p-3 text-sm">
            <span className="flex items-center gap-2 text-muted-foreground">
              <ArrowDown className="size-4" aria-hidden />
              Network In
            </span>
            <span className="font-semibold tabular-nums" data-testid="usage-network-in">
              {formatRate(m.network.in)}
            </span>
          </div>
          <div className="flex items-center justify-between rounded-md border p-3 text-sm">
            <span className="flex items-center gap-2 text-muted-foreground">
              <ArrowUp className="size-4" aria-hidden />
              Network Out
            </span>
            <span className="font-semibold tabular-nums" data-testid="usage-network-out">
              {formatRate(m.network.out)}
            </span>
          </div>
        </div>
      </CardContent>
    </Card>
  );
}
