import { type QueryKey, useQuery } from "@tanstack/react-query";
import { Bot, type LucideIcon, Network, Phone, PhoneCall, PhoneIncoming, Radio } from "lucide-react";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { assistantsQuery } from "@/features/ai/api";
import { extensionsQuery } from "@/features/extensions/api";
import { pttGroupsQuery } from "@/features/ptt/api";
import { inboundRoutesQuery } from "@/features/routes/api";
import { trunksQuery } from "@/features/trunks/api";
import { POLL_LIST_MS } from "@/lib/constants";

interface CountSpec {
  title: string;
  caption: string;
  icon: LucideIcon;
  list: () => { queryKey: QueryKey };
}

const COUNTS: CountSpec[] = [
  { title: "Extensions", caption: "Total configured", icon: Phone, list: extensionsQuery },
  { title: "Trunks", caption: "Active connections", icon: Network, list: trunksQuery },
  { title: "Inbound Routes", caption: "Call routes configured", icon: PhoneIncoming, list: inboundRoutesQuery },
  { title: "PTT Groups", caption: "Push-to-talk groups", icon: Radio, list: pttGroupsQuery },
  { title: "AI Assistants", caption: "AI voice modules", icon: Bot, list: assistantsQuery },
];

function CountCard({
  title,
  caption,
  icon: Icon,
  value,
}: {
  title: string;
  caption: string;
  icon: LucideIcon;
  value: string;
}) {
  return (
    <Card className="gap-2" role="group" aria-label={title} data-testid={`count-${title}`}>
      <CardHeader className="flex flex-row items-center justify-between gap-2">
        <CardTitle className="font-medium text-muted-foreground text-sm">{title}</CardTitle>
        <Icon className="size-4 text-muted-foreground" aria-hidden />
      </CardHeader>
      <CardContent>
        <div className="font-bold text-2xl tabular-nums" data-testid="count-value">
          {value}
        </div>
        <p className="text-muted-foreground text-xs">{caption}</p>
      </CardContent>
    </Card>
  );
}

/** One list's length, polled every 5 s and refetched whenever the dashboard mounts. */
function ListCount(spec: CountSpec) {
  const list = useQuery<unknown[]>({ ...spec.list(), refetchInterval: POLL_LIST_MS, refetchOnMount: "always" });
  const value = list.data ? list.data.length.toLocaleString("en-US") : list.isError ? "—" : "...";
  return <CountCard title={spec.title} caption={spec.caption} icon={spec.icon} value={value} />;
}

export function CountCards() {
  return (
    <section aria-labelledby="config-heading" className="flex flex-col gap-3">
      <h2 id="config-heading" className="font-semibold text-lg tracking-tight">
        Configuration
      </h2>
      <div className="grid gap-4 min-[400px]:grid-cols-2 lg:grid-cols-3 2xl:grid-cols-6">
        {COUNTS.map((spec) => (
          <ListCount key={spec.title} {...spec} />
        ))}
        {/* No call-state source yet: always 0 until the live PBX state arrives. */}
        <CountCard title="Active Calls" caption="In progress" icon={PhoneCall} value="0" />
      </div>
    </section>
  );
}
