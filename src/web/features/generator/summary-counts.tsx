import { type LucideIcon, Network, Phone, PhoneIncoming, PhoneOutgoing, Radio } from "lucide-react";
import { Card, CardContent } from "@/components/ui/card";
import { formatNumber } from "@/lib/format";
import type { GeneratedConfig } from "./types";

interface Count {
  title: string;
  icon: LucideIcon;
  value: number;
}

function CountTile({ title, icon: Icon, value }: Count) {
  return (
    <Card className="gap-1 py-4" role="group" aria-label={title} data-testid={`summary-${title}`}>
      <CardContent className="flex items-center justify-between gap-3 px-4">
        <div>
          <p className="text-muted-foreground text-sm">{title}</p>
          <p className="font-bold text-2xl tabular-nums" data-testid="summary-value">
            {formatNumber(value)}
          </p>
        </div>
        <Icon className="size-5 text-muted-foreground" aria-hidden />
      </CardContent>
    </Card>
  );
}

/** How many trunks, extensions, outbound and inbound routes and page groups the script carries. */
export function SummaryCounts({ summary }: { summary: GeneratedConfig["summary"] }) {
  const counts: Count[] = [
    { title: "Trunks", icon: Network, value: summary.totalTrunks },
    { title: "Extensions", icon: Phone, value: summary.totalExtensions },
    { title: "Outbound Routes", icon: PhoneOutgoing, value: summary.totalOutboundRoutes },
    { title: "Inbound Routes", icon: PhoneIncoming, value: summary.totalInboundRoutes },
    { title: "Page Groups", icon: Radio, value: summary.totalPttGroups ?? 0 },
  ];
  return (
    <section aria-label="Summary" className="grid grid-cols-2 gap-4 md:grid-cols-3 xl:grid-cols-5">
      {counts.map((c) => (
        <CountTile key={c.title} {...c} />
      ))}
    </section>
  );
}
