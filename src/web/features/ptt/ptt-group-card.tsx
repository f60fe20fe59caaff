import { Users } from "lucide-react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { EditPttGroupDialog } from "@/forms/inventory-deferred";
import { PTT_MEMBERS_SHOWN } from "@/lib/constants";
import { queryKeys } from "@/lib/query-keys";
import type { PttGroup } from "../../../shared/inventory";

export function PttGroupCard({
  group,
  deleting,
  onDelete,
}: {
  group: PttGroup;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const shown = group.members.slice(0, PTT_MEMBERS_SHOWN);
  const more = group.members.length - shown.length;
  const count = group.members.length;
  const edit = useEditDialog<PttGroup>();
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <div className="grid min-w-0 gap-1.5">
            <div className="flex flex-wrap items-center gap-2">
              <CardTitle className="truncate">{group.name}</CardTitle>
              <Badge variant="outline" className="font-mono">
                {group.extension}
              </Badge>
            </div>
            {group.description && <CardDescription>{group.description}</CardDescription>}
          </div>
          <EditButton
            label={`Edit PTT group ${group.name}`}
            buttonRef={edit.buttonRef}
            onClick={() => edit.show(group)}
          />
          <EditDialogSlot dialog={edit.editing && <EditPttGroupDialog group={edit.editing} onClose={edit.close} />} />
          <ConfirmDeleteDialog
            what="PTT group"
            name={group.name}
            list={queryKeys.pttGroups}
            id={group.id}
            onDelete={onDelete}
          >
            {(ask) => <DeleteButton label={`Delete PTT group ${group.name}`} pending={deleting} onClick={ask} />}
          </ConfirmDeleteDialog>
        </CardHeader>
        <CardContent className="grid gap-3">
          {group.duplex && (
            <div className="flex flex-wrap gap-2">
              <Badge variant="secondary">Two-way</Badge>
            </div>
          )}
          <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
            <Users className="size-4" aria-hidden />
            {count} {count === 1 ? "member" : "members"}
          </span>
          <ul aria-label={`Members of ${group.name}`} className="flex flex-wrap gap-1.5">
            {shown.map((m) => (
              <li key={m}>
                <Badge variant="outline" className="font-mono">
                  {m}
                </Badge>
              </li>
            ))}
            {more > 0 && (
              <li>
                <Badge variant="outline" className="text-muted-foreground">
                  +{more} more
                </Badge>
              </li>
            )}
          </ul>
        </CardContent>
      </Card>
    </li>
  );
}
