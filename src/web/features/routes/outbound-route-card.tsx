import { Network, PhoneOutgoing } from "lucide-react";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import type { OutboundRoute } from "../../../shared/inventory";

export function OutboundRouteCard({
  route,
  trunkName,
  deleting,
  onDelete,
}: {
  route: OutboundRoute;
  trunkName: string;
  deleting: boolean;
  onDelete: () => void;
}) {
  return (
    <li>
      <Card className="gap-3 py-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <CardTitle className="flex min-w-0 items-center gap-2">
            <PhoneOutgoing className="size-4 shrink-0 text-muted-foreground" aria-hidden />
            <span className="truncate">{route.name}</span>
          </CardTitle>
          <DeleteButton label={`Delete outbound route ${route.name}`} pending={deleting} onClick={onDelete} />
        </CardHeader>
        <CardContent className="flex flex-col gap-3">
          <ul aria-label={`Dial patterns of ${route.name}`} className="flex flex-wrap gap-1.5">
            {route.dialPatterns.map((p) => (
              <li key={p}>
                <Badge variant="secondary" className="font-mono">
                  {p}
                </Badge>
              </li>
            ))}
          </ul>
          <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
            <Network className="size-4" aria-hidden />
            via {trunkName}
          </span>
        </CardContent>
      </Card>
    </li>
  );
}
