import { useId } from "react";
import { Controller } from "react-hook-form";
import type { z } from "zod";
import { ControlledSelect, SelectField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { Checkbox } from "@/components/ui/checkbox";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import {
  AI_DEFAULT_MODEL,
  AI_MODEL_LABELS,
  AI_MODELS,
  AI_TOOL_DEFS,
  AI_TOOLS,
  AI_VOICES,
  type AiAssistant,
  aiAssistantSchema,
} from "../../../shared/ai/assistants";
import { AnalysisEditor } from "./analysis-editor";
import { useSaveAssistant } from "./api";
import { AssistantLimits, LIMIT_DEFAULTS, LIMIT_FIELDS, limitsOf } from "./assistant-limits";
import { voiceLabel } from "./format";

type FormInput = z.input<typeof aiAssistantSchema>;

/**
 * A new assistant: empty texts, the default model, the "alloy" voice, active. No temperature: the GA realtime
 * session has none, so the form neither shows nor sends it (the API still accepts it from older clients and
 * stores it, but nothing uses it; ADR 0044).
 */
export const ASSISTANT_DEFAULTS: FormInput = {
  name: "",
  description: "",
  provider: "openai",
  model: AI_DEFAULT_MODEL,
  systemPrompt: "",
  voice: "alloy",
  tools: [],
  extensionId: "",
  ivrId: "",
  status: "active",
  analysis: null,
  ...LIMIT_DEFAULTS,
};

const FIELDS = [
  "name",
  "description",
  "provider",
  "model",
  "systemPrompt",
  "voice",
  "tools",
  "extensionId",
  "ivrId",
  "status",
  "analysis",
  "analysis.goal",
  "analysis.model",
  "analysis.fields",
  ...LIMIT_FIELDS,
] as const;

const toForm = (a: AiAssistant): FormInput => ({
  name: a.name,
  description: a.description ?? "",
  provider: "openai",
  model: a.model,
  systemPrompt: a.systemPrompt,
  voice: a.voice as FormInput["voice"],
  tools: a.tools as FormInput["tools"],
  extensionId: a.extensionId ?? "",
  ivrId: a.ivrId ?? "",
  status: a.status,
  analysis: a.analysis,
  ...limitsOf(a),
});

const MODEL_OPTIONS = AI_MODELS.map((m) => ({ value: m, label: AI_MODEL_LABELS[m] }));
const VOICE_OPTIONS = AI_VOICES.map((v) => ({ value: v, label: voiceLabel(v) }));
const STATUS_OPTIONS = [
  { value: "active", label: "Active" },
  { value: "inactive", label: "Inactive" },
];

/**
 * The one dialog for creating and editing an assistant ('Create AI Assistant' /
 * 'Edit AI Assistant'). Every opening resets the form to the edit target or the
 * defaults, so nothing typed survives a close; the screen keeps the target only
 * while the closing animation runs.
 */
export function AssistantDialog({
  open,
  editing,
  onClose,
}: {
  open: boolean;
  editing: AiAssistant | null;
  onClose: () => void;
}) {
  const dialog = useFormDialog({
    schema: aiAssistantSchema,
    defaults: ASSISTANT_DEFAULTS,
    fields: FIELDS,
    draft: "reset-on-open",
    open,
    onClose,
    editing,
    toForm,
    success: { create: "AI assistant created successfully", edit: "AI assistant updated successfully" },
    failure: { create: "Failed to create assistant", edit: "Failed to update assistant" },
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const save = useSaveAssistant(editing?.id ?? null, dialog.saved);

  const model = form.watch("model");
  const ivrHelpId = useId();

  return (
    <FormDialog
      dialog={dialog}
      title={editing ? "Edit AI Assistant" : "Create AI Assistant"}
      description="A voice assistant that answers calls through OpenAI's realtime SIP connector."
      submitLabel={editing ? "Save Changes" : "Create Assistant"}
      onSubmit={dialog.submit(({ temperature: _unused, ...values }) => save.mutate(values))}
      pending={save.isPending}
      wide
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="Front desk" {...form.register("name")} />}
        </FormField>
        <ControlledSelect
          control={form.control}
          name="status"
          label="Status"
          error={errors.status?.message}
          options={STATUS_OPTIONS}
          fallback="active"
        />
        <FormField label="Description" error={errors.description?.message} className="sm:col-span-2">
          {(control) => <Input {...control} placeholder="Answers the main number" {...form.register("description")} />}
        </FormField>
        <Controller
          control={form.control}
          name="model"
          render={({ field }) => (
            <SelectField
              label="Model"
              error={errors.model?.message}
              value={field.value ?? ""}
              onValueChange={field.onChange}
              options={
                MODEL_OPTIONS.some((o) => o.value === field.value) || !field.value
                  ? MODEL_OPTIONS
                  : [...MODEL_OPTIONS, { value: field.value, label: field.value }]
              }
              placeholder="Choose a model"
            />
          )}
        />
        <ControlledSelect
          control={form.control}
          name="voice"
          label="Voice"
          error={errors.voice?.message}
          options={VOICE_OPTIONS}
          fallback="alloy"
        />
        <FormField label="Extension" error={errors.extensionId?.message}>
          {(control) => <Input {...control} placeholder="1001 or +15551234567" {...form.register("extensionId")} />}
        </FormField>
        <FormField label="IVR number" error={errors.ivrId?.message}>
          {(control) => (
            <>
              <Input
                {...control}
                aria-describedby={[control["aria-describedby"], ivrHelpId].filter(Boolean).join(" ")}
                placeholder="Optional, e.g. 7000"
                {...form.register("ivrId")}
              />
              <p id={ivrHelpId} className="text-muted-foreground text-xs">
                A transfer target besides the extensions: when the caller asks for it, the assistant's transfer sends
                the call to this number on the PBX (an IVR or any dial plan number).
              </p>
            </>
          )}
        </FormField>
      </div>
      {model === "gpt-4o-realtime-preview" && (
        <p className="-mt-2 text-muted-foreground text-xs">
          GPT-4O Realtime is OpenAI's preview model; GPT Realtime is the current one for SIP calls.
        </p>
      )}
      <FormField label="System prompt" error={errors.systemPrompt?.message}>
        {(control) => (
          <Textarea
            {...control}
            rows={5}
            placeholder="You are the receptionist of … Greet callers, answer questions about …"
            {...form.register("systemPrompt")}
          />
        )}
      </FormField>
      <Controller
        control={form.control}
        name="tools"
        render={({ field }) => (
          <fieldset className="grid gap-2">
            <legend className="mb-2 font-medium text-sm">Tools</legend>
            {AI_TOOLS.map((tool) => {
              const id = `assistant-tool-${tool}`;
              const checked = (field.value ?? []).includes(tool);
              return (
                <div key={tool} className="flex items-center gap-2">
                  <Checkbox
                    id={id}
                    checked={checked}
                    onCheckedChange={(on) =>
                      field.onChange(
                        on ? [...(field.value ?? []), tool] : (field.value ?? []).filter((t: string) => t !== tool),
                      )
                    }
                  />
                  <Label htmlFor={id} className="font-normal">
                    {AI_TOOL_DEFS[tool].label}
                  </Label>
                </div>
              );
            })}
            {errors.tools?.message && <p className="text-destructive text-sm">{errors.tools.message}</p>}
          </fieldset>
        )}
      />
      <AnalysisEditor form={form} />
      <AssistantLimits form={form} />
    </FormDialog>
  );
}
