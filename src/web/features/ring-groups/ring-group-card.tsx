import { PhoneForwarded, Timer, Users } from "lucide-react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { EditRingGroupDialog } from "@/forms/inventory-deferred";
import { PTT_MEMBERS_SHOWN } from "@/lib/constants";
import { queryKeys } from "@/lib/query-keys";
import { destinationLabel } from "../../../shared/destinations";
import type { RingGroup } from "../../../shared/inventory";
import { STRATEGY_TEXT } from "./strategies";

export function RingGroupCard({
  group,
  deleting,
  onDelete,
}: {
  group: RingGroup;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const shown = group.members.slice(0, PTT_MEMBERS_SHOWN);
  const more = group.members.length - shown.length;
  const count = group.members.length;
  const edit = useEditDialog<RingGroup>();
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <div className="flex min-w-0 flex-wrap items-center gap-2">
            <CardTitle className="truncate">{group.name}</CardTitle>
            <Badge variant="outline" className="font-mono">
              {group.number}
            </Badge>
          </div>
          <EditButton
            label={`Edit ring group ${group.name}`}
            buttonRef={edit.buttonRef}
            onClick={() => edit.show(group)}
          />
          <EditDialogSlot dialog={edit.editing && <EditRingGroupDialog group={edit.editing} onClose={edit.close} />} />
          <ConfirmDeleteDialog
            what="ring group"
            name={group.name}
            list={queryKeys.ringGroups}
            id={group.id}
            onDelete={onDelete}
          >
            {(ask) => <DeleteButton label={`Delete ring group ${group.name}`} pending={deleting} onClick={ask} />}
          </ConfirmDeleteDialog>
        </CardHeader>
        <CardContent className="grid gap-3">
          <div className="flex flex-wrap gap-2">
            <Badge variant="secondary">{STRATEGY_TEXT[group.strategy]}</Badge>
            <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
              <Timer className="size-4" aria-hidden />
              {group.ringTime} s
            </span>
          </div>
          <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
            <Users className="size-4" aria-hidden />
            {count} {count === 1 ? "member" : "members"}
          </span>
          <ul aria-label={`Members of ${group.name}`} className="flex flex-wrap gap-1.5">
            {shown.map((m) => (
              <li key={m}>
                <Badge variant="outline" className="font-mono">
                  {/* An external number ends in FreePBX's `#` (shared isExternalMember; the group chunk stays without zod). */}
                  {m.endsWith("#") ? `${m.slice(0, -1)} (external)` : m}
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
          <span className="flex items-center gap-1.5 text-muted-foreground text-sm">
            <PhoneForwarded className="size-4" aria-hidden />
            No answer → {group.noAnswer ? destinationLabel(group.noAnswer) : "hang up"}
          </span>
        </CardContent>
      </Card>
    </li>
  );
}
