import { ArrowDown, ArrowUp, GripVertical, Network, PhoneOutgoing } from "lucide-react";
import { Can } from "@/components/can";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { RecordingBadge } from "@/components/recording-badge";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { EditOutboundRouteDialog } from "@/forms/inventory-deferred";
import { queryKeys } from "@/lib/query-keys";
import type { OutboundRoute } from "../../../shared/inventory";
import type { RouteOrderHandles } from "./outbound-route-order";

export function OutboundRouteCard({
  route,
  trunkName,
  deleting,
  onDelete,
  order,
}: {
  route: OutboundRoute;
  trunkName: string;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
  /** Its place in the dial order and how to move it (ADR 0040). */
  order?: RouteOrderHandles;
}) {
  const edit = useEditDialog<OutboundRoute>();
  return (
    <li
      {...order?.item}
      data-testid="outbound-route"
      aria-label={order ? `${route.name}, position ${order.position} of ${order.count}` : route.name}
      onKeyDown={order?.onKeyDown}
      className="rounded-xl data-[drop-target=true]:ring-2 data-[drop-target=true]:ring-primary"
    >
      <Card className="gap-3 py-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <CardTitle className="flex min-w-0 items-center gap-2">
            {order && (
              <>
                <Can minRole="operator">
                  <GripVertical className="size-4 shrink-0 cursor-grab text-muted-foreground" aria-hidden />
                </Can>
                <Badge variant="outline" className="shrink-0 tabular-nums" title="Dial order: tried in this position">
                  <span className="sr-only">Position </span>
                  {order.position}
                </Badge>
              </>
            )}
            <PhoneOutgoing className="size-4 shrink-0 text-muted-foreground" aria-hidden />
            <span className="truncate">{route.name}</span>
          </CardTitle>
          <div className="flex shrink-0 items-center gap-1">
            {order && order.count > 1 && (
              <Can minRole="operator">
                <Button
                  type="button"
                  variant="ghost"
                  size="icon"
                  data-route-move={`${route.id}-up`}
                  aria-label={`Move ${route.name} up`}
                  title="Move up (Alt+Up)"
                  disabled={!order.moveUp}
                  onClick={order.moveUp}
                >
                  <ArrowUp aria-hidden />
                </Button>
                <Button
                  type="button"
                  variant="ghost"
                  size="icon"
                  data-route-move={`${route.id}-down`}
                  aria-label={`Move ${route.name} down`}
                  title="Move down (Alt+Down)"
                  disabled={!order.moveDown}
                  onClick={order.moveDown}
                >
                  <ArrowDown aria-hidden />
                </Button>
              </Can>
            )}
            <EditButton
              label={`Edit outbound route ${route.name}`}
              buttonRef={edit.buttonRef}
              onClick={() => edit.show(route)}
            />
            <EditDialogSlot
              dialog={edit.editing && <EditOutboundRouteDialog route={edit.editing} onClose={edit.close} />}
            />
            <ConfirmDeleteDialog
              what="outbound route"
              name={route.name}
              list={queryKeys.outboundRoutes}
              id={route.id}
              onDelete={onDelete}
            >
              {(ask) => <DeleteButton label={`Delete outbound route ${route.name}`} pending={deleting} onClick={ask} />}
            </ConfirmDeleteDialog>
          </div>
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
            <RecordingBadge mode={route.recording} />
          </span>
        </CardContent>
      </Card>
    </li>
  );
}
