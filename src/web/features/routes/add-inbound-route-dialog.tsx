import { Controller, useWatch } from "react-hook-form";
import type { z } from "zod";
import { ControlledSelect, SelectField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import type { Trunk } from "../../../shared/inventory";
import { destinationTypes, inboundRouteSchema } from "../../../shared/inventory";
import { type NewInboundRoute, useCreateInboundRoute } from "./api";

type InboundInput = z.input<typeof inboundRouteSchema>;
type InboundOutput = z.output<typeof inboundRouteSchema>;

const DEFAULTS: InboundInput = {
  description: "",
  didNumber: "",
  trunkId: null,
  destination: "",
  destinationType: "extension",
};
const FIELDS = ["description", "didNumber", "trunkId", "destination", "destinationType"] as const;

/** Radix Select has no empty value, so "Any Trunk" is this sentinel (never sent). */
const ANY_TRUNK = "any";

const DESTINATIONS: Record<(typeof destinationTypes)[number], { label: string; placeholder: string }> = {
  extension: { label: "Extension", placeholder: "1001" },
  // FreePBX routes to numbers (shared DESTINATION_HINTS): an IVR's or a queue's number, never its name.
  ivr: { label: "IVR", placeholder: "IVR number, e.g. 1" },
  voicemail: { label: "Voicemail", placeholder: "1001" },
  queue: { label: "Queue", placeholder: "Queue number, e.g. 400" },
};
const DESTINATION_OPTIONS = destinationTypes.map((t) => ({ value: t, label: DESTINATIONS[t].label }));

/** The create body: 'Any Trunk' sends no trunkId at all. */
function toBody({ trunkId, ...rest }: InboundOutput): NewInboundRoute {
  return trunkId == null ? rest : { ...rest, trunkId };
}

export function AddInboundRouteDialog({ trunks }: { trunks: Trunk[] }) {
  const dialog = useFormDialog({
    schema: inboundRouteSchema,
    defaults: DEFAULTS,
    fields: FIELDS,
    draft: "keep",
    success: "Route created",
    failure: "Failed to create inbound route.",
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const destinationType = useWatch({ control: form.control, name: "destinationType" });
  const create = useCreateInboundRoute(dialog.saved);
  const trunkOptions = [
    { value: ANY_TRUNK, label: "Any Trunk" },
    ...trunks.map((t) => ({ value: String(t.id), label: t.name })),
  ];

  return (
    <FormDialog
      dialog={dialog}
      trigger="Add Inbound Route"
      title="Add Inbound Route"
      description="Send calls that arrive on a DID number to a destination."
      submitLabel="Create Route"
      onSubmit={dialog.submit((values) => create.mutate(toBody(values)))}
      pending={create.isPending}
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
        <Controller
          control={form.control}
          name="trunkId"
          render={({ field }) => (
            <SelectField
              label="Trunk"
              error={errors.trunkId?.message}
              value={field.value == null ? ANY_TRUNK : String(field.value)}
              onValueChange={(v) => field.onChange(v === ANY_TRUNK ? null : Number(v))}
              options={trunkOptions}
            />
          )}
        />
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
              placeholder={DESTINATIONS[destinationType]?.placeholder}
              {...form.register("destination")}
            />
          )}
        </FormField>
      </div>
    </FormDialog>
  );
}
