/**
 * The assistant dialog's post-call analysis (ADR 0071): whether each call is analysed when it ends, the goal
 * its verdict is judged against, the fields the model fills in (name, type, description) and the text model.
 * Every rule (field names, reserved names, duplicates, sizes) is the shared schema's, shown under the field it
 * concerns; the server checks the same schema again.
 */
import { Plus, X } from "lucide-react";
import type { UseFormReturn } from "react-hook-form";
import { Controller, useFieldArray, useWatch } from "react-hook-form";
import type { z } from "zod";
import { SwitchField } from "@/components/form-fields";
import { Button } from "@/components/ui/button";
import { CellField, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";
import { ANALYSIS_FIELD_TYPES, ANALYSIS_FIELDS_MAX, type AnalysisFieldType } from "../../../shared/ai/analysis";
import type { aiAssistantSchema } from "../../../shared/ai/assistants";

type AssistantForm = UseFormReturn<z.input<typeof aiAssistantSchema>, unknown, z.output<typeof aiAssistantSchema>>;

export const FIELD_TYPE_LABELS: Record<AnalysisFieldType, string> = {
  string: "Text",
  number: "Number",
  boolean: "Yes / no",
};

const MODEL_DEFAULT = "gpt-4o-mini";
const NEW_CONFIG = { enabled: true, goal: "", fields: [], model: MODEL_DEFAULT };

const ROW = "grid grid-cols-[minmax(0,11rem)_minmax(0,8rem)_minmax(0,1fr)_auto] items-start gap-2";

function FieldsTable({ form }: { form: AssistantForm }) {
  const { fields, append, remove } = useFieldArray({ control: form.control, name: "analysis.fields" });
  const errors = form.formState.errors.analysis?.fields;
  const listError = errors?.root?.message ?? errors?.message;
  return (
    <fieldset className="grid gap-2" data-testid="analysis-fields">
      <legend className="mb-1 font-medium text-sm">Fields</legend>
      <p className="text-muted-foreground text-xs">
        What the model fills in from each call, e.g. callback_number or order_id. Lower case letters, digits and _; they
        are searchable on the Transcripts screen and exported as columns.
      </p>
      {fields.length > 0 && (
        <div className={`${ROW} text-muted-foreground text-xs`} aria-hidden>
          <span>Name</span>
          <span>Type</span>
          <span>Description</span>
          <span className="w-9" />
        </div>
      )}
      {fields.map((field, i) => {
        const n = i + 1;
        const row = errors?.[i];
        return (
          <div key={field.id} className={ROW} data-testid="analysis-field-row">
            <CellField label={`Name of field ${n}`} error={row?.name?.message}>
              {(c) => (
                <Input {...c} placeholder="callback_number" {...form.register(`analysis.fields.${i}.name` as const)} />
              )}
            </CellField>
            <CellField label={`Type of field ${n}`} error={row?.type?.message}>
              {(c) => (
                <Controller
                  control={form.control}
                  name={`analysis.fields.${i}.type` as const}
                  render={({ field: f }) => (
                    <Select value={String(f.value ?? "string")} onValueChange={f.onChange}>
                      <SelectTrigger {...c} className="w-full">
                        <SelectValue />
                      </SelectTrigger>
                      <SelectContent>
                        {ANALYSIS_FIELD_TYPES.map((t) => (
                          <SelectItem key={t} value={t}>
                            {FIELD_TYPE_LABELS[t]}
                          </SelectItem>
                        ))}
                      </SelectContent>
                    </Select>
                  )}
                />
              )}
            </CellField>
            <CellField label={`Description of field ${n}`} error={row?.description?.message}>
              {(c) => (
                <Input
                  {...c}
                  placeholder="The number to call the caller back on"
                  {...form.register(`analysis.fields.${i}.description` as const)}
                />
              )}
            </CellField>
            <Button
              type="button"
              variant="ghost"
              size="icon"
              aria-label={`Remove field ${n}`}
              onClick={() => remove(i)}
            >
              <X />
            </Button>
          </div>
        );
      })}
      {listError && <p className="text-destructive text-sm">{listError}</p>}
      <div>
        <Button
          type="button"
          variant="outline"
          size="sm"
          disabled={fields.length >= ANALYSIS_FIELDS_MAX}
          onClick={() => append({ name: "", type: "string", description: "" })}
        >
          <Plus />
          Add field
        </Button>
      </div>
    </fieldset>
  );
}

/** The analysis section of the assistant dialog. */
export function AnalysisEditor({ form }: { form: AssistantForm }) {
  const analysis = useWatch({ control: form.control, name: "analysis" });
  const errors = form.formState.errors.analysis;
  const on = Boolean(analysis && analysis.enabled !== false);
  const toggle = (checked: boolean) => {
    const opts = { shouldDirty: true } as const;
    if (checked) form.setValue("analysis", analysis ? { ...analysis, enabled: true } : NEW_CONFIG, opts);
    // Turned off with nothing set up: no analysis at all; otherwise kept, so turning it on again restores it.
    else if (!analysis?.goal?.trim() && !analysis?.fields?.length) form.setValue("analysis", null, opts);
    else form.setValue("analysis.enabled", false, opts);
  };
  return (
    <section className="grid gap-4" aria-label="Post-call analysis">
      <SwitchField
        label="Post-call analysis"
        description="When a call ends, a text model summarises it, judges it against the goal and fills in the fields."
        checked={on}
        onCheckedChange={toggle}
      />
      {on && (
        <>
          <div className="grid gap-4 sm:grid-cols-[minmax(0,1fr)_12rem]">
            <FormField label="Goal" error={errors?.goal?.message}>
              {(control) => (
                <Textarea
                  {...control}
                  rows={2}
                  placeholder="The caller leaves a callback number and the order id (leave empty for no verdict)"
                  {...form.register("analysis.goal")}
                />
              )}
            </FormField>
            <FormField label="Analysis model" error={errors?.model?.message}>
              {(control) => <Input {...control} placeholder={MODEL_DEFAULT} {...form.register("analysis.model")} />}
            </FormField>
          </div>
          <FieldsTable form={form} />
        </>
      )}
    </section>
  );
}
