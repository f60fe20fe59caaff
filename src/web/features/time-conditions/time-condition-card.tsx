import { useQuery } from "@tanstack/react-query";
import { CalendarClock, Globe, PhoneForwarded, PhoneOff } from "lucide-react";
import { useCallback, useMemo } from "react";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EditButton, EditDialogSlot, useEditDialog } from "@/components/edit-button";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { destinationsQuery } from "@/features/routing/api";
import { EditTimeConditionDialog } from "@/forms/inventory-deferred";
import { queryKeys } from "@/lib/query-keys";
import type { TimeCondition, TimeGroup } from "../../../shared/call-flow";
import { type Destination, destinationLabel } from "../../../shared/destinations";

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A destination as the pickers label it (`GET /api/destinations`: "Extension 1001 · Alice"); the bare kind and
 * number while that list loads or fails; null is FreePBX's empty destination, where the call is hung up.
 */
function useDestinationText(): (d: Destination | null) => string {
  const items = useQuery(destinationsQuery()).data?.items;
  const labels = useMemo(() => new Map(items?.map((i) => [`${i.kind}:${i.target}`, i.label])), [items]);
  return useCallback(
    (d) => (d ? (labels.get(`${d.kind}:${d.target}`) ?? capitalized(destinationLabel(d))) : "Hang up"),
    [labels],
  );
}

export function TimeConditionCard({
  condition,
  groups,
  deleting,
  onDelete,
}: {
  condition: TimeCondition;
  /** The console's time groups, to name the one it reads. */
  groups: readonly TimeGroup[] | undefined;
  deleting: boolean;
  onDelete: () => Promise<unknown>;
}) {
  const edit = useEditDialog<TimeCondition>();
  const destinationText = useDestinationText();
  const { name } = condition;
  const group = groups?.find((g) => g.id === condition.timeGroup);
  return (
    <li>
      <Card className="h-full gap-4">
        <CardHeader className="flex items-start justify-between gap-2">
          <div className="flex min-w-0 flex-wrap items-center gap-2">
            <CardTitle className="truncate">{name}</CardTitle>
            {/* The number a destination names the time condition by (the console's, ADR 0059). */}
            <Badge variant="outline" className="font-mono">
              Time condition {condition.id}
            </Badge>
          </div>
          <EditButton
            label={`Edit time condition ${name}`}
            buttonRef={edit.buttonRef}
            onClick={() => edit.show(condition)}
          />
          <EditDialogSlot
            dialog={edit.editing && <EditTimeConditionDialog condition={edit.editing} onClose={edit.close} />}
          />
          <ConfirmDeleteDialog
            what="time condition"
            name={name}
            list={queryKeys.timeConditions}
            id={condition.id}
            onDelete={onDelete}
          >
            {(ask) => <DeleteButton label={`Delete time condition ${name}`} pending={deleting} onClick={ask} />}
          </ConfirmDeleteDialog>
        </CardHeader>
        <CardContent className="grid gap-3 text-muted-foreground text-sm">
          <span className="flex min-w-0 items-center gap-1.5">
            <CalendarClock className="size-4 shrink-0" aria-hidden />
            <span className="truncate">Hours: {group?.name ?? `Time group ${condition.timeGroup}`}</span>
          </span>
          <span className="flex min-w-0 items-center gap-1.5">
            <Globe className="size-4 shrink-0" aria-hidden />
            <span className="truncate">{condition.timeZone ?? "PBX time zone"}</span>
          </span>
          <span className="flex items-center gap-1.5">
            <PhoneForwarded className="size-4 shrink-0" aria-hidden />
            In hours → {destinationText(condition.match)}
          </span>
          <span className="flex items-center gap-1.5">
            <PhoneOff className="size-4 shrink-0" aria-hidden />
            Outside hours → {destinationText(condition.noMatch)}
          </span>
        </CardContent>
      </Card>
    </li>
  );
}
