import { CalendarDays, Clock } from "lucide-react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { EditTimeGroupDialog } from "@/forms/inventory-deferred";
import { queryKeys } from "@/lib/query-keys";
import type { TimeGroup } from "../../../shared/call-flow";
import { holidayText, weeklyText } from "./format";

/** A time group: its weekly hours and its holidays, each row as a person reads it. */
export function TimeGroupCard({
  group,
  deleting,
  onDelete,
}: {
  group: TimeGroup;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const edit = useEditDialog<TimeGroup>();
  const { name } = group;
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <CardTitle className="min-w-0 truncate">{name}</CardTitle>
          <EditButton label={`Edit time group ${name}`} buttonRef={edit.buttonRef} onClick={() => edit.show(group)} />
          <EditDialogSlot dialog={edit.editing && <EditTimeGroupDialog group={edit.editing} onClose={edit.close} />} />
          <ConfirmDeleteDialog
            what="time group"
            name={name}
            list={queryKeys.timeGroups}
            id={group.id}
            onDelete={onDelete}
          >
            {(ask) => <DeleteButton label={`Delete time group ${name}`} pending={deleting} onClick={ask} />}
          </ConfirmDeleteDialog>
        </CardHeader>
        <CardContent className="grid gap-3 text-sm">
          {group.weekly.length === 0 ? (
            <p className="text-muted-foreground">No weekly hours</p>
          ) : (
            <ul aria-label={`Weekly hours of ${name}`} className="grid gap-1">
              {group.weekly.map((w) => (
                <li key={`${w.fromDay}-${w.toDay}-${w.start}`} className="flex items-center gap-1.5">
                  <Clock className="size-4 shrink-0 text-muted-foreground" aria-hidden />
                  {weeklyText(w)}
                </li>
              ))}
            </ul>
          )}
          {group.holidays.length > 0 && (
            <ul aria-label={`Holidays of ${name}`} className="grid gap-1">
              {group.holidays.map((h) => (
                <li key={`${h.month}-${h.day}`} className="flex items-center gap-1.5">
                  <CalendarDays className="size-4 shrink-0 text-muted-foreground" aria-hidden />
                  {holidayText(h)}
                </li>
              ))}
            </ul>
          )}
        </CardContent>
      </Card>
    </li>
  );
}
