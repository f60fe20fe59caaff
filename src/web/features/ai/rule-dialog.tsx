import { Controller } from "react-hook-form";
import type { z } from "zod";
import { SelectField, SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import {
  type AiRoutingRule,
  actionLabel,
  aiRoutingRuleSchema,
  parseJsonObject,
  ROUTING_ACTIONS,
} from "../../../shared/ai";
import { useSaveRule } from "./api";

type FormInput = z.input<typeof aiRoutingRuleSchema>;

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

/** A new rule, as an example to edit: negative sentiment → route to extension 200, enabled, priority 0. */
export const RULE_DEFAULTS: FormInput = {
  name: "",
  description: "",
  priority: 0,
  conditions: pretty({ sentiment: "negative" }),
  action: "route_to_extension",
  actionParams: pretty({ extensionId: "200" }),
  enabled: true,
};

const FIELDS = ["name", "description", "priority", "conditions", "action", "actionParams", "enabled"] as const;

const ACTION_OPTIONS = ROUTING_ACTIONS.map((a) => ({ value: a, label: actionLabel(a) }));

/** Stored JSON is shown indented; text that is not JSON is shown as it was saved. */
const indent = (text: string) => {
  const obj = parseJsonObject(text);
  return obj ? pretty(obj) : text;
};

const toForm = (r: AiRoutingRule): FormInput => ({
  name: r.name,
  description: r.description ?? "",
  priority: r.priority,
  conditions: indent(r.conditions),
  action: r.action,
  actionParams: indent(r.actionParams),
  enabled: r.enabled,
});

const numberValue = (v: unknown) => (v === "" || v == null ? Number.NaN : Number(v));

/** A hint, not a check: text that is not a JSON object is saved as it is; the hint says what that means. */
function JsonHint({ text, what }: { text: string | undefined; what: string }) {
  if (!text?.trim() || parseJsonObject(text)) return null;
  return <p className="text-muted-foreground text-xs">Not a JSON object: {what}</p>;
}

/** The one dialog for creating and editing a routing rule. */
export function RuleDialog({
  open,
  editing,
  onClose,
}: {
  open: boolean;
  editing: AiRoutingRule | null;
  onClose: () => void;
}) {
  const dialog = useFormDialog({
    schema: aiRoutingRuleSchema,
    defaults: RULE_DEFAULTS,
    fields: FIELDS,
    draft: "reset-on-open",
    open,
    onClose,
    editing,
    toForm,
    success: { create: "Routing rule created successfully", edit: "Routing rule updated successfully" },
    failure: { create: "Failed to create routing rule", edit: "Failed to update routing rule" },
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const save = useSaveRule(editing?.id ?? null, dialog.saved);

  const [conditions, actionParams, action] = form.watch(["conditions", "actionParams", "action"]);
  const known = (ROUTING_ACTIONS as readonly string[]).includes(action ?? "");

  return (
    <FormDialog
      dialog={dialog}
      title={editing ? "Edit Routing Rule" : "Create Routing Rule"}
      description="When every condition matches the facts of a call, the action runs. Higher priority is evaluated first."
      submitLabel={editing ? "Save Changes" : "Create Rule"}
      onSubmit={dialog.submit((values) => save.mutate(values))}
      pending={save.isPending}
      wide
    >
      <div className="grid gap-4 sm:grid-cols-[1fr_10rem]">
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="Angry callers to a person" {...form.register("name")} />}
        </FormField>
        <FormField label="Priority (0-100)" error={errors.priority?.message}>
          {(control) => (
            <Input
              {...control}
              type="number"
              inputMode="numeric"
              min={0}
              max={100}
              {...form.register("priority", { setValueAs: numberValue })}
            />
          )}
        </FormField>
        <FormField label="Description" error={errors.description?.message} className="sm:col-span-2">
          {(control) => <Input {...control} placeholder="Optional" {...form.register("description")} />}
        </FormField>
      </div>
      <FormField label="Conditions (JSON)" error={errors.conditions?.message}>
        {(control) => (
          <Textarea {...control} rows={4} className="font-mono" spellCheck={false} {...form.register("conditions")} />
        )}
      </FormField>
      <JsonHint text={conditions} what="the rule will never match." />
      <Controller
        control={form.control}
        name="action"
        render={({ field }) => (
          <SelectField
            label="Action"
            error={errors.action?.message}
            value={field.value ?? ""}
            onValueChange={field.onChange}
            options={
              known || !field.value
                ? ACTION_OPTIONS
                : [...ACTION_OPTIONS, { value: field.value, label: actionLabel(field.value) }]
            }
            placeholder="Choose an action"
          />
        )}
      />
      <FormField label="Action parameters (JSON)" error={errors.actionParams?.message}>
        {(control) => (
          <Textarea {...control} rows={4} className="font-mono" spellCheck={false} {...form.register("actionParams")} />
        )}
      </FormField>
      <JsonHint text={actionParams} what="the action runs without parameters." />
      <Controller
        control={form.control}
        name="enabled"
        render={({ field }) => (
          <SwitchField
            label="Enabled"
            description="Disabled rules are skipped"
            checked={field.value ?? true}
            onCheckedChange={field.onChange}
          />
        )}
      />
    </FormDialog>
  );
}
