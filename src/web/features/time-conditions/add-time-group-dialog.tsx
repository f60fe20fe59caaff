import type { Path } from "react-hook-form";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { TIME_LIMITS, type TimeGroup, timeGroupSchema } from "../../../shared/call-flow";
import { useCreateTimeGroup, useUpdateTimeGroup } from "./api";
import { HolidaysField } from "./holidays-field";
import { type TimeGroupForm, type TimeGroupInput, WeeklyHoursField } from "./weekly-hours-field";

const DEFAULTS: TimeGroupInput = {
  name: "",
  weekly: [{ fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" }],
  holidays: [],
};

/** Where the server's field errors can land: each list, and every row's cells ("weekly.0.start"). */
const FIELDS = [
  "name",
  "weekly",
  "holidays",
  ...Array.from({ length: TIME_LIMITS.rows }, (_, i) => [
    `weekly.${i}.fromDay`,
    `weekly.${i}.toDay`,
    `weekly.${i}.start`,
    `weekly.${i}.end`,
    `holidays.${i}.month`,
    `holidays.${i}.day`,
    `holidays.${i}.toDay`,
  ]).flat(),
] as Path<TimeGroupInput>[];

/** The stored group as the form holds it: a one-day holiday has no last day. */
const toForm = (group: TimeGroup): TimeGroupInput => ({
  name: group.name,
  weekly: group.weekly.map((w) => ({ ...w })),
  holidays: group.holidays.map((h) => ({ month: h.month, day: h.day, toDay: h.toDay === h.day ? undefined : h.toDay })),
});

/**
 * "Add Time Group", or with `editing` "Edit Time Group": the same form prefilled (the card opens it and closes
 * it with `onClose`); the save is optimistic. A time group is when a time condition is open: its weekly hours,
 * and its holidays every year.
 */
export function AddTimeGroupDialog({ editing, onClose }: { editing?: TimeGroup; onClose?: () => void }) {
  const dialog = useFormDialog({
    schema: timeGroupSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Time group created", edit: "Time group saved" },
    failure: { create: "Failed to create time group.", edit: "Failed to save time group." },
    failureDetail: editing ? "server" : "form",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const form = dialog.form as TimeGroupForm;
  const { errors } = form.formState;
  const create = useCreateTimeGroup(dialog.saved);
  const update = useUpdateTimeGroup(dialog.saved);

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Time Group"}
      title={editing ? "Edit Time Group" : "Add Time Group"}
      description="The hours a time condition is open: weekly hours, and holidays every year."
      submitLabel={editing ? "Save Changes" : "Create Time Group"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate(values),
      )}
      pending={create.isPending || update.isPending}
      wide
    >
      <FormField label="Name" error={errors.name?.message}>
        {(control) => <Input {...control} placeholder="Office hours" autoFocus {...form.register("name")} />}
      </FormField>
      <WeeklyHoursField form={form} />
      <HolidaysField form={form} />
    </FormDialog>
  );
}

/** The card's edit dialog. */
export function EditTimeGroupDialog({ group, onClose }: { group: TimeGroup; onClose: () => void }) {
  return <AddTimeGroupDialog editing={group} onClose={onClose} />;
}
