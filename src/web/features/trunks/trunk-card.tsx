import { Server } from "lucide-react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { TrunkLiveBadge } from "@/features/live/live-badges";
import { EditTrunkDialog } from "@/forms/inventory-deferred";
import { queryKeys } from "@/lib/query-keys";
import type { Trunk } from "../../../shared/inventory";

export function TrunkCard({
  trunk,
  deleting,
  onDelete,
}: {
  trunk: Trunk;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const address = trunk.port ? `${trunk.host}:${trunk.port}` : trunk.host;
  const edit = useEditDialog<Trunk>();
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <CardTitle className="truncate leading-normal">{trunk.name}</CardTitle>
          <EditButton label={`Edit trunk ${trunk.name}`} buttonRef={edit.buttonRef} onClick={() => edit.show(trunk)} />
          <EditDialogSlot dialog={edit.editing && <EditTrunkDialog editing={edit.editing} onClose={edit.close} />} />
          <ConfirmDeleteDialog what="trunk" name={trunk.name} list={queryKeys.trunks} id={trunk.id} onDelete={onDelete}>
            {(ask) => <DeleteButton label={`Delete trunk ${trunk.name}`} pending={deleting} onClick={ask} />}
          </ConfirmDeleteDialog>
        </CardHeader>
        <CardContent className="grid gap-3">
          <span className="flex min-w-0 items-center gap-2 text-muted-foreground text-sm">
            <Server className="size-4 shrink-0" aria-hidden />
            <span className="truncate font-mono">{address}</span>
          </span>
          {trunk.authMode === "ip" && trunk.providerAddresses.length > 0 && (
            <p className="truncate font-mono text-muted-foreground text-xs" title={trunk.providerAddresses.join(", ")}>
              From {trunk.providerAddresses.join(", ")}
            </p>
          )}
          <div className="flex flex-wrap items-center gap-2">
            <Badge variant="secondary">{trunk.type.toUpperCase()}</Badge>
            <Badge variant="outline" data-testid="trunk-auth">
              {trunk.authMode === "ip" ? "IP-authenticated" : trunk.registrationEnabled ? "Registers" : "Credentials"}
            </Badge>
            <TrunkLiveBadge name={trunk.name} />
          </div>
        </CardContent>
      </Card>
    </li>
  );
}
