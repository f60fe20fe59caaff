import { useQuery } from "@tanstack/react-query";
import { type ComponentProps, useEffect, useId } from "react";
import { type Control, useWatch } from "react-hook-form";
import type { z } from "zod";
import { DestinationOptions } from "@/components/destination-options";
import { ControlledSelect } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { RecordingHint, RecordingSelect } from "@/components/recording-field";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { destinationsQuery } from "@/features/routing/api";
import { DESTINATION_OPTIONS, DESTINATION_PICKER } from "@/lib/destinations";
import { targetless } from "../../../shared/destinations";
import type { InboundRoute } from "../../../shared/inventory";
import { inboundRouteSchema } from "../../../shared/inventory";
import { type NewInboundRoute, useCreateInboundRoute, useUpdateInboundRoute } from "./api";

type InboundInput = z.input<typeof inboundRouteSchema>;
type InboundOutput = z.output<typeof inboundRouteSchema>;

const DEFAULTS: InboundInput = {
  description: "",
  didNumber: "",
  destination: "",
  destinationType: "extension",
  recording: "dontcare",
};
// No trunk field: FreePBX matches an inbound route by its DID only, never by the trunk (ADR 0037).
const FIELDS = ["description", "didNumber", "destination", "destinationType", "recording"] as const;

const toBody = (values: InboundOutput): NewInboundRoute => values;

/** The route being edited as the form's values. */
const toForm = (r: InboundRoute): InboundInput => ({
  ...DEFAULTS,
  description: r.description,
  didNumber: r.didNumber ?? "",
  destination: r.destination,
  destinationType: r.destinationType,
  recording: r.recording,
});

/** The destination's suggestions for what its field holds: they alone render again as one types, not the form. */
function TypedDestinationOptions({
  control,
  ...props
}: { control: Control<InboundInput, unknown, InboundOutput> } & Omit<
  ComponentProps<typeof DestinationOptions>,
  "typed"
>) {
  const typed = useWatch({ control, name: "destination" });
  return <DestinationOptions {...props} typed={typed} />;
}

/**
 * "Add Inbound Route", or with `editing` "Edit Inbound Route": the same form prefilled (the card opens
 * it and closes it with `onClose`); the save is optimistic.
 */
export function AddInboundRouteDialog({ editing, onClose }: { editing?: InboundRoute; onClose?: () => void }) {
  const dialog = useFormDialog({
    schema: inboundRouteSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Route created", edit: "Route saved" },
    failure: { create: "Failed to create inbound route.", edit: "Failed to save inbound route." },
    failureDetail: editing ? "server" : "form",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const destinationType = useWatch({ control: form.control, name: "destinationType" });
  const noTarget = targetless(destinationType);
  // Hang up has no number: a number typed for another kind goes, so the form sends none.
  useEffect(() => {
    if (noTarget) form.setValue("destination", "");
  }, [noTarget, form]);
  const destinations = useQuery(destinationsQuery());
  const optionsId = useId();
  const create = useCreateInboundRoute(dialog.saved);
  const update = useUpdateInboundRoute(dialog.saved);

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Inbound Route"}
      title={editing ? "Edit Inbound Route" : "Add Inbound Route"}
      description="Send calls that arrive on a DID number to a destination."
      submitLabel={editing ? "Save Changes" : "Create Route"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...toBody(values), id: editing.id }) : create.mutate(toBody(values)),
      )}
      pending={create.isPending || update.isPending}
    >
      <FormField label="Description" error={errors.description?.message}>
        {(control) => <Input {...control} placeholder="Main number" autoFocus {...form.register("description")} />}
      </FormField>
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="DID number" error={errors.didNumber?.message}>
          {(control) => (
            <Input {...control} inputMode="tel" placeholder="Any (leave empty)" {...form.register("didNumber")} />
          )}
        </FormField>
        <ControlledSelect
          control={form.control}
          name="destinationType"
          label="Destination type"
          error={errors.destinationType?.message}
          options={DESTINATION_OPTIONS}
        />
        <FormField label="Destination" error={errors.destination?.message}>
          {(control) => (
            <Input
              {...control}
              list={optionsId}
              placeholder={DESTINATION_PICKER[destinationType]?.placeholder}
              disabled={noTarget}
              {...form.register("destination")}
            />
          )}
        </FormField>
        <TypedDestinationOptions
          control={form.control}
          id={optionsId}
          kind={destinationType}
          items={destinations.data?.items}
        />
      </div>
      <div className="grid gap-2">
        <RecordingSelect
          control={form.control}
          name="recording"
          label="Call recording"
          error={errors.recording?.message}
        />
        <RecordingHint />
      </div>
    </FormDialog>
  );
}

/** The card's edit dialog. */
export function EditInboundRouteDialog({ route, onClose }: { route: InboundRoute; onClose: () => void }) {
  return <AddInboundRouteDialog editing={route} onClose={onClose} />;
}
