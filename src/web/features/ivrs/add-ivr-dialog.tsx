import { Controller, type Path } from "react-hook-form";
import type { z } from "zod";
import { DestinationField } from "@/components/destination-picker";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { CALL_FLOW_LIMITS, IVR_RETRIES, IVR_TIMEOUT, type Ivr, ivrSchema } from "../../../shared/call-flow";
import { useCreateIvr, useUpdateIvr } from "./api";
import { type IvrForm, IvrOptionsField } from "./ivr-options-field";
import { RecordingField } from "./recording-field";

type IvrInput = z.input<typeof ivrSchema>;

const DEFAULTS: IvrInput = {
  name: "",
  greeting: null,
  timeout: IVR_TIMEOUT.default,
  retries: IVR_RETRIES.default,
  options: [],
  invalidDestination: null,
  timeoutDestination: null,
};

/** Where the server's field errors can land: every option row's cells included ("options.3.digits"). */
const FIELDS = [
  "name",
  "greeting",
  "timeout",
  "retries",
  "options",
  ...Array.from({ length: CALL_FLOW_LIMITS.options }, (_, i) => [
    `options.${i}.digits`,
    `options.${i}.destination`,
    `options.${i}.destination.kind`,
    `options.${i}.destination.target`,
  ]).flat(),
  "invalidDestination.kind",
  "invalidDestination.target",
  "timeoutDestination.kind",
  "timeoutDestination.target",
] as Path<IvrInput>[];

const toForm = (ivr: Ivr): IvrInput => ({
  name: ivr.name,
  greeting: ivr.greeting,
  timeout: ivr.timeout,
  retries: ivr.retries,
  options: ivr.options.map((o) => ({ digits: o.digits, destination: { ...o.destination } })),
  invalidDestination: ivr.invalidDestination,
  timeoutDestination: ivr.timeoutDestination,
});

/**
 * "Add IVR", or with `editing` "Edit IVR": the same form prefilled (the card opens it and closes it with
 * `onClose`); the save is optimistic. A caller hears the greeting, presses one of the options' keys and goes
 * where it sends them; a wrong key or none, after the retries, goes to the destinations at the bottom.
 */
export function AddIvrDialog({ editing, onClose }: { editing?: Ivr; onClose?: () => void }) {
  const dialog = useFormDialog({
    schema: ivrSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "IVR created", edit: "IVR saved" },
    failure: { create: "Failed to create IVR.", edit: "Failed to save IVR." },
    failureDetail: editing ? "server" : "form",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const form = dialog.form as IvrForm;
  const { errors } = form.formState;
  const create = useCreateIvr(dialog.saved);
  const update = useUpdateIvr(dialog.saved);

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add IVR"}
      title={editing ? "Edit IVR" : "Add IVR"}
      description="A menu: the caller hears the greeting and presses a key; each option's keys send the call on."
      submitLabel={editing ? "Save Changes" : "Create IVR"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate(values),
      )}
      pending={create.isPending || update.isPending}
      wide
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="Main menu" autoFocus {...form.register("name")} />}
        </FormField>
        <Controller
          control={form.control}
          name="greeting"
          render={({ field }) => (
            <RecordingField
              label="Greeting"
              value={field.value ?? null}
              onChange={field.onChange}
              error={errors.greeting?.message}
            />
          )}
        />
        <FormField label="Timeout (seconds)" error={errors.timeout?.message}>
          {(control) => (
            <Input
              {...control}
              type="number"
              inputMode="numeric"
              min={IVR_TIMEOUT.min}
              max={IVR_TIMEOUT.max}
              {...form.register("timeout", { valueAsNumber: true })}
            />
          )}
        </FormField>
        <FormField label="Retries" error={errors.retries?.message}>
          {(control) => (
            <Input
              {...control}
              type="number"
              inputMode="numeric"
              min={IVR_RETRIES.min}
              max={IVR_RETRIES.max}
              {...form.register("retries", { valueAsNumber: true })}
            />
          )}
        </FormField>
      </div>
      <IvrOptionsField form={form} />
      {/* Two pickers: each in a group of its own name. */}
      <DestinationField form={form} name="invalidDestination" label="After a wrong key" group="Wrong key" />
      <DestinationField form={form} name="timeoutDestination" label="After no key" group="No key" />
    </FormDialog>
  );
}

/** The card's edit dialog. */
export function EditIvrDialog({ ivr, onClose }: { ivr: Ivr; onClose: () => void }) {
  return <AddIvrDialog editing={ivr} onClose={onClose} />;
}
