import { PhoneIncoming } from "lucide-react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { RecordingBadge } from "@/components/recording-badge";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { EditInboundRouteDialog } from "@/forms/inventory-deferred";
import { queryKeys } from "@/lib/query-keys";
import { destinationLabel } from "../../../shared/destinations";
import type { InboundRoute } from "../../../shared/inventory";

export function InboundRouteCard({
  route,
  deleting,
  onDelete,
}: {
  route: InboundRoute;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const edit = useEditDialog<InboundRoute>();
  return (
    <li>
      <Card className="gap-3 py-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <CardTitle className="flex min-w-0 items-center gap-2">
            <PhoneIncoming className="size-4 shrink-0 text-muted-foreground" aria-hidden />
            <span className="truncate">{route.description}</span>
          </CardTitle>
          <EditButton
            label={`Edit inbound route ${route.description}`}
            buttonRef={edit.buttonRef}
            onClick={() => edit.show(route)}
          />
          <EditDialogSlot
            dialog={edit.editing && <EditInboundRouteDialog route={edit.editing} onClose={edit.close} />}
          />
          <ConfirmDeleteDialog
            what="inbound route"
            name={route.description}
            list={queryKeys.inboundRoutes}
            id={route.id}
            onDelete={onDelete}
          >
            {(ask) => (
              <DeleteButton label={`Delete inbound route ${route.description}`} pending={deleting} onClick={ask} />
            )}
          </ConfirmDeleteDialog>
        </CardHeader>
        <CardContent className="flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
          <Badge variant="outline" className="font-mono">
            DID: {route.didNumber ?? "Any"}
          </Badge>
          <span className="font-medium">
            → {destinationLabel({ kind: route.destinationType, target: route.destination })}
          </span>
          <RecordingBadge mode={route.recording} />
        </CardContent>
      </Card>
    </li>
  );
}
