import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { Controller, type DefaultValues, type UseFormReturn } from "react-hook-form";
import type { z } from "zod";
import { DestinationField } from "@/components/destination-picker";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { SelectField } from "@/components/select-field";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { type TimeCondition, timeConditionSchema } from "../../../shared/call-flow";
import { timeGroupsQuery, useCreateTimeCondition, useUpdateTimeCondition } from "./api";

type TimeConditionInput = z.input<typeof timeConditionSchema>;
type TimeConditionForm = UseFormReturn<TimeConditionInput, unknown, z.output<typeof timeConditionSchema>>;

/** No time group chosen yet: the schema says "Choose a time group" until one is. */
const DEFAULTS: DefaultValues<TimeConditionInput> = { name: "", timeZone: "", match: null, noMatch: null };
const FIELDS = [
  "name",
  "timeGroup",
  "timeZone",
  "match.kind",
  "match.target",
  "noMatch.kind",
  "noMatch.target",
] as const;

const toForm = (c: TimeCondition): TimeConditionInput => ({
  name: c.name,
  timeGroup: c.timeGroup,
  timeZone: c.timeZone ?? "",
  match: c.match,
  noMatch: c.noMatch,
});

/** The IANA zones this browser knows, for the zone's suggestions (the server checks the name with its own). */
const ZONES = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];

/**
 * "Add Time Condition", or with `editing` "Edit Time Condition": the same form prefilled (the card opens it and
 * closes it with `onClose`); the save is optimistic. A time condition reads one of the console's time groups in
 * a time zone and sends calls one way in its hours and another outside them.
 */
export function AddTimeConditionDialog({ editing, onClose }: { editing?: TimeCondition; onClose?: () => void }) {
  const dialog = useFormDialog({
    schema: timeConditionSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Time condition created", edit: "Time condition saved" },
    failure: { create: "Failed to create time condition.", edit: "Failed to save time condition." },
    failureDetail: editing ? "server" : "form",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const form = dialog.form as TimeConditionForm;
  const { errors } = form.formState;
  const groups = useQuery(timeGroupsQuery()).data ?? [];
  const create = useCreateTimeCondition(dialog.saved);
  const update = useUpdateTimeCondition(dialog.saved);
  const zonesId = useId();
  const zoneHintId = useId();

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Time Condition"}
      title={editing ? "Edit Time Condition" : "Add Time Condition"}
      description="In the time group's hours calls go to the first destination, outside them to the second."
      submitLabel={editing ? "Save Changes" : "Create Time Condition"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate(values),
      )}
      pending={create.isPending || update.isPending}
      wide
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="Office" autoFocus {...form.register("name")} />}
        </FormField>
        <Controller
          control={form.control}
          name="timeGroup"
          render={({ field }) => (
            <SelectField
              label="Time group"
              error={errors.timeGroup?.message}
              value={field.value ? String(field.value) : ""}
              onValueChange={(v) => field.onChange(Number(v))}
              placeholder={groups.length ? "Choose a time group" : "No time groups yet"}
              options={groups.map((g) => ({ value: String(g.id), label: g.name }))}
            />
          )}
        />
        <div className="grid content-start gap-1.5 sm:col-span-2">
          <FormField label="Time zone" error={errors.timeZone?.message}>
            {(control) => (
              <Input
                {...control}
                list={zonesId}
                autoComplete="off"
                placeholder="The PBX's time zone"
                aria-describedby={[control["aria-describedby"], zoneHintId].filter(Boolean).join(" ")}
                {...form.register("timeZone")}
              />
            )}
          </FormField>
          <p id={zoneHintId} className="text-muted-foreground text-xs">
            An IANA name such as Europe/Berlin; empty: the hours are read in the PBX's own time zone.
          </p>
          <datalist id={zonesId}>
            {ZONES.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
        </div>
      </div>
      <DestinationField form={form} name="match" label="In hours" group="In hours destination" />
      <DestinationField form={form} name="noMatch" label="Outside hours" group="Outside hours destination" />
    </FormDialog>
  );
}

/** The card's edit dialog. */
export function EditTimeConditionDialog({ condition, onClose }: { condition: TimeCondition; onClose: () => void }) {
  return <AddTimeConditionDialog editing={condition} onClose={onClose} />;
}
