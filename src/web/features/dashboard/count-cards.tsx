import { useQuery } from "@tanstack/react-query";
import {
  Bot,
  ListOrdered,
  type LucideIcon,
  Network,
  Phone,
  PhoneCall,
  PhoneIncoming,
  Radio,
  Users,
} from "lucide-react";
import type { ReactNode } from "react";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { pbxLiveQuery, trunkIsUp, unknownReason } from "@/features/live/api";
import { formatNumber } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { DashboardSummary } from "../../../shared/dashboard";
import type { PbxLiveStatus } from "../../../shared/live";
import { dashboardSummaryQuery } from "./api";

interface CountSpec {
  title: string;
  caption: string;
  icon: LucideIcon;
  /** Which count of the summary (GET /api/dashboard/summary). */
  count: keyof DashboardSummary;
  /** What the PBX says right now about these (registered or up of all it knows), under the count. */
  live?: (status: PbxLiveStatus) => string;
}

const COUNTS: CountSpec[] = [
  {
    title: "Extensions",
    caption: "Total configured",
    icon: Phone,
    count: "extensions",
    live: (s) => `${s.extensions.filter((e) => e.registered).length}/${s.extensions.length} registered`,
  },
  {
    title: "Trunks",
    caption: "Active connections",
    icon: Network,
    count: "trunks",
    live: (s) => `${s.trunks.filter(trunkIsUp).length}/${s.trunks.length} up`,
  },
  { title: "Inbound Routes", caption: "Call routes configured", icon: PhoneIncoming, count: "inboundRoutes" },
  { title: "Ring Groups", caption: "Numbers that ring several phones", icon: Users, count: "ringGroups" },
  { title: "Queues", caption: "Callers waiting for agents", icon: ListOrdered, count: "queues" },
  { title: "PTT Groups", caption: "Push-to-talk groups", icon: Radio, count: "pttGroups" },
  { title: "AI Assistants", caption: "AI voice modules", icon: Bot, count: "aiAssistants" },
];

function CountCard({
  title,
  caption,
  icon: Icon,
  value,
  live,
  valueTitle,
}: {
  title: string;
  caption: string;
  icon: LucideIcon;
  value: string;
  /** A line from the live PBX under the caption. */
  live?: ReactNode;
  valueTitle?: string;
}) {
  return (
    <Card className="gap-2" role="group" aria-label={title} data-testid={`count-${title}`}>
      <CardHeader className="flex flex-row items-center justify-between gap-2">
        <CardTitle className="font-medium text-muted-foreground text-sm">{title}</CardTitle>
        <Icon className="size-4 text-muted-foreground" aria-hidden />
      </CardHeader>
      <CardContent>
        <div className="font-bold text-2xl tabular-nums" data-testid="count-value" title={valueTitle}>
          {value}
        </div>
        <p className="text-muted-foreground text-xs">{caption}</p>
        {live}
      </CardContent>
    </Card>
  );
}

/**
 * The live PBX line of a card: the figure, "unknown" with the reason while AMI is not connected, or
 * nothing while the status loads. Never polled: the sync socket's pbx-status-updated refetches it.
 */
function LiveLine({ text }: { text: (status: PbxLiveStatus) => string }) {
  const status = useQuery(pbxLiveQuery());
  if (status.isPending) return null;
  const known = status.data?.connected === true;
  const reason = known ? undefined : unknownReason(status.data, status.error);
  return (
    <p
      className={cn("mt-1 truncate text-xs", known ? "font-medium" : "text-muted-foreground")}
      data-testid="count-live"
      data-known={known}
      title={reason}
    >
      {status.data && known ? text(status.data) : "Live status unknown"}
    </p>
  );
}

/** One count of the summary (one query shared by every card; never the full lists). */
function SummaryCount(spec: CountSpec) {
  const summary = useQuery(dashboardSummaryQuery());
  const value = summary.data ? formatNumber(summary.data[spec.count]) : summary.isError ? "—" : "...";
  return (
    <CountCard
      title={spec.title}
      caption={spec.caption}
      icon={spec.icon}
      value={value}
      live={spec.live && <LiveLine text={spec.live} />}
    />
  );
}

/** Calls in progress from the live PBX (AMI); "Unknown" with the reason while it is not connected. */
function ActiveCallsCount() {
  const status = useQuery(pbxLiveQuery());
  if (status.isPending) return <CountCard title="Active Calls" caption="In progress" icon={PhoneCall} value="..." />;
  if (status.data?.connected) {
    return (
      <CountCard
        title="Active Calls"
        caption="In progress"
        icon={PhoneCall}
        value={formatNumber(status.data.activeCalls)}
      />
    );
  }
  const reason = unknownReason(status.data, status.error);
  return (
    <CountCard
      title="Active Calls"
      caption="In progress"
      icon={PhoneCall}
      value="Unknown"
      valueTitle={reason}
      live={
        <p className="mt-1 line-clamp-2 text-muted-foreground text-xs" data-testid="count-live" data-known={false}>
          {reason}
        </p>
      }
    />
  );
}

export function CountCards() {
  return (
    <section aria-labelledby="config-heading" className="flex flex-col gap-3">
      <h2 id="config-heading" className="font-semibold text-lg tracking-tight">
        Configuration
      </h2>
      <div className="grid gap-4 min-[400px]:grid-cols-2 lg:grid-cols-4 2xl:grid-cols-8">
        {COUNTS.map((spec) => (
          <SummaryCount key={spec.title} {...spec} />
        ))}
        <ActiveCallsCount />
      </div>
    </section>
  );
}
