import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { Controller, type DefaultValues, useWatch } from "react-hook-form";
import type { z } from "zod";
import { SelectField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import type { Trunk } from "../../../shared/inventory";
import { outboundRouteSchema } from "../../../shared/inventory";
import { ROUTE_TEMPLATES, type RouteTemplate } from "../../../shared/route-templates";
import { useCreateOutboundRoute } from "./api";
import { DialPatternEditor } from "./dial-pattern-editor";

type OutboundInput = z.input<typeof outboundRouteSchema>;

const DEFAULT_TEMPLATE: RouteTemplate["id"] = "custom";
const DEFAULTS: DefaultValues<OutboundInput> = { name: "", dialPatterns: [], trunkId: undefined, routeOrder: 0 };
const FIELDS = ["name", "dialPatterns", "trunkId", "routeOrder"] as const;
const TEMPLATE_OPTIONS = ROUTE_TEMPLATES.map((t) => ({ value: t.id, label: t.label }));

export function AddOutboundRouteDialog({ trunks }: { trunks: Trunk[] }) {
  const [template, setTemplate] = useState<RouteTemplate["id"]>(DEFAULT_TEMPLATE);
  const dialog = useFormDialog({
    schema: outboundRouteSchema,
    defaults: DEFAULTS,
    fields: FIELDS,
    draft: "keep",
    success: "Route created",
    failure: "Failed to create outbound route.",
    onSaved: () => setTemplate(DEFAULT_TEMPLATE),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const patterns = useWatch({ control: form.control, name: "dialPatterns" });
  const create = useCreateOutboundRoute(dialog.saved);

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
      trigger="Add Outbound Route"
      title="Add Outbound Route"
      description="Choose which trunk places calls that match these dial patterns."
      submitLabel="Create Route"
      onSubmit={dialog.submit((values) => create.mutate(values))}
      pending={create.isPending}
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
    </FormDialog>
  );
}
