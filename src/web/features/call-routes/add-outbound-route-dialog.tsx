import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { Controller, type DefaultValues, useWatch } from "react-hook-form";
import type { z } from "zod";
import { SelectField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { RecordingHint, RecordingSelect } from "@/components/recording-field";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { trunksQuery } from "@/features/trunks/api";
import type { OutboundRoute, Trunk } from "../../../shared/inventory";
import { outboundRouteSchema } from "../../../shared/inventory";
import { ROUTE_TEMPLATES, type RouteTemplate } from "../../../shared/route-templates";
import { useCreateOutboundRoute, useUpdateOutboundRoute } from "./api";
import { DialPatternEditor } from "./dial-pattern-editor";

type OutboundInput = z.input<typeof outboundRouteSchema>;

const DEFAULT_TEMPLATE: RouteTemplate["id"] = "custom";
const DEFAULTS: DefaultValues<OutboundInput> = {
  name: "",
  dialPatterns: [],
  trunkId: undefined,
  routeOrder: 0,
  recording: "dontcare",
};
const FIELDS = ["name", "dialPatterns", "trunkId", "routeOrder", "recording"] as const;
const TEMPLATE_OPTIONS = ROUTE_TEMPLATES.map((t) => ({ value: t.id, label: t.label }));

/** The route being edited as the form's values (its dial order is not the form's: it stays). */
const toForm = (r: OutboundRoute): OutboundInput => ({
  name: r.name,
  dialPatterns: r.dialPatterns,
  trunkId: r.trunkId,
  routeOrder: r.routeOrder,
  recording: r.recording,
});

/**
 * "Add Outbound Route", or with `editing` "Edit Outbound Route": the same form prefilled (the card
 * opens it and closes it with `onClose`); the save is optimistic.
 */
export function AddOutboundRouteDialog({
  trunks,
  editing,
  onClose,
}: {
  trunks: Trunk[];
  editing?: OutboundRoute;
  onClose?: () => void;
}) {
  const [template, setTemplate] = useState<RouteTemplate["id"]>(DEFAULT_TEMPLATE);
  const dialog = useFormDialog({
    schema: outboundRouteSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Route created", edit: "Route saved" },
    failure: { create: "Failed to create outbound route.", edit: "Failed to save outbound route." },
    failureDetail: editing ? "server" : "form",
    onSaved: () => setTemplate(DEFAULT_TEMPLATE),
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const patterns = useWatch({ control: form.control, name: "dialPatterns" });
  const create = useCreateOutboundRoute(dialog.saved);
  const update = useUpdateOutboundRoute(dialog.saved);

  function chooseTemplate(id: string) {
    const chosen = ROUTE_TEMPLATES.find((t) => t.id === id);
    if (!chosen) return;
    setTemplate(chosen.id);
    form.setValue("name", chosen.name, { shouldValidate: form.formState.isSubmitted });
    form.setValue("dialPatterns", [...chosen.patterns], { shouldValidate: form.formState.isSubmitted });
  }

  const patternError = errors.dialPatterns?.message ?? errors.dialPatterns?.find?.((e) => e?.message)?.message;

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Outbound Route"}
      title={editing ? "Edit Outbound Route" : "Add Outbound Route"}
      description="Choose which trunk places calls that match these dial patterns."
      submitLabel={editing ? "Save Changes" : "Create Route"}
      onSubmit={dialog.submit(({ routeOrder, ...values }) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate({ ...values, routeOrder }),
      )}
      pending={create.isPending || update.isPending}
      canSubmit={patterns.length > 0}
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <SelectField label="Template" value={template} onValueChange={chooseTemplate} options={TEMPLATE_OPTIONS} />
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="UK Calling" {...form.register("name")} />}
        </FormField>
      </div>
      <Controller
        control={form.control}
        name="dialPatterns"
        render={({ field }) => (
          <DialPatternEditor
            patterns={field.value}
            onChange={(next) => field.onChange(next)}
            allowCustom={template === "custom"}
            error={patternError}
          />
        )}
      />
      <Controller
        control={form.control}
        name="trunkId"
        render={({ field }) => (
          <div className="grid gap-2">
            <SelectField
              label="Trunk"
              error={errors.trunkId?.message}
              value={field.value == null ? "" : String(field.value)}
              onValueChange={(v) => field.onChange(Number(v))}
              options={trunks.map((t) => ({ value: String(t.id), label: t.name }))}
              placeholder="Choose a trunk"
            />
            {trunks.length === 0 && (
              <p className="text-muted-foreground text-sm">
                No trunks yet.{" "}
                <Link to="/trunks" className="text-primary underline-offset-4 hover:underline">
                  Add a trunk
                </Link>{" "}
                first.
              </p>
            )}
          </div>
        )}
      />
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

/** The card's edit dialog: the trunks come from the list the screen already loaded. */
export function EditOutboundRouteDialog({ route, onClose }: { route: OutboundRoute; onClose: () => void }) {
  const trunks = useQuery(trunksQuery()).data ?? [];
  return <AddOutboundRouteDialog trunks={trunks} editing={route} onClose={onClose} />;
}
