import { Controller } from "react-hook-form";
import type { z } from "zod";
import { SelectField, SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { type AiRoutingRule, aiRoutingRuleSchema, ROUTING_ACTIONS } from "../../../shared/ai/routing-rules";
import { useSaveRule } from "./api";
import { ActionFields, ConditionBuilder, paramsForAction } from "./condition-builder";
import { actionLabel } from "./format";

type FormInput = z.input<typeof aiRoutingRuleSchema>;

/** A new rule, as an example to edit: negative sentiment → route to extension 200, enabled, priority 0. */
export const RULE_DEFAULTS: FormInput = {
  name: "",
  description: "",
  priority: 0,
  conditions: JSON.stringify({ match: "all", conditions: [{ kind: "sentiment", op: "is", value: "negative" }] }),
  action: "route_to_extension",
  actionParams: JSON.stringify({ extensionId: "200" }),
  enabled: true,
};

const FIELDS = ["name", "description", "priority", "conditions", "action", "actionParams", "enabled"] as const;

const ACTION_OPTIONS = ROUTING_ACTIONS.map((a) => ({ value: a, label: actionLabel(a) }));

/** The stored texts go to the builder as they are: it reads both condition shapes (ADR 0040). */
const toForm = (r: AiRoutingRule): FormInput => ({
  name: r.name,
  description: r.description ?? "",
  priority: r.priority,
  conditions: r.conditions,
  action: r.action,
  actionParams: r.actionParams,
  enabled: r.enabled,
});

const numberValue = (v: unknown) => (v === "" || v == null ? Number.NaN : Number(v));

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

  const action = form.watch("action");
  const known = (ROUTING_ACTIONS as readonly string[]).includes(action ?? "");

  return (
    <FormDialog
      dialog={dialog}
      title={editing ? "Edit Routing Rule" : "Create Routing Rule"}
      description="When the conditions match a call, the action runs. Higher priority is evaluated first."
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
      <Controller
        control={form.control}
        name="conditions"
        render={({ field }) => (
          <ConditionBuilder text={field.value ?? ""} onChange={field.onChange} error={errors.conditions?.message} />
        )}
      />
      <Controller
        control={form.control}
        name="action"
        render={({ field }) => (
          <SelectField
            label="Action"
            error={errors.action?.message}
            value={field.value ?? ""}
            onValueChange={(next) => {
              const params = form.getValues("actionParams") ?? "";
              form.setValue("actionParams", paramsForAction(params, field.value ?? "", next));
              field.onChange(next);
            }}
            options={
              known || !field.value
                ? ACTION_OPTIONS
                : [...ACTION_OPTIONS, { value: field.value, label: actionLabel(field.value) }]
            }
            placeholder="Choose an action"
          />
        )}
      />
      <Controller
        control={form.control}
        name="actionParams"
        render={({ field }) => (
          <ActionFields
            action={action ?? ""}
            text={field.value ?? ""}
            onChange={field.onChange}
            error={errors.actionParams?.message}
          />
        )}
      />
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
