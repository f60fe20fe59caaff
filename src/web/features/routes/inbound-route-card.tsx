import { Network, PhoneIncoming } from "lucide-react";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import type { InboundRoute } from "../../../shared/inventory";

export function InboundRouteCard({
  route,
  trunkName,
  deleting,
  onDelete,
}: {
  route: InboundRoute;
  /** undefined: the route takes calls from any trunk. */
  trunkName: string | undefined;
  deleting: boolean;
  onDelete: () => void;
}) {
  return (
    <li>
      <Card className="gap-3 py-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <CardTitle className="flex min-w-0 items-center gap-2">
            <PhoneIncoming className="size-4 shrink-0 text-muted-foreground" aria-hidden />
            <span className="truncate">{route.description}</span>
          </CardTitle>
          <DeleteButton label={`Delete inbound route ${route.description}`} pending={deleting} onClick={onDelete} />
        </CardHeader>
        <CardContent className="flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
          <Badge variant="outline" className="font-mono">
            DID: {route.didNumber ?? "Any"}
          </Badge>
          <span className="flex items-center gap-1.5 text-muted-foreground">
            <Network className="size-4" aria-hidden />
            {trunkName ?? "Any Trunk"}
          </span>
          <span className="font-medium">
            → {route.destinationType} {route.destination}
          </span>
        </CardContent>
      </Card>
    </li>
  );
}
