/**
 * The assistant dialog's caps (ADR 0070): what one call may cost and last, what the assistant may spend in a day,
 * and what happens at a cap (the call is ended politely, or transferred to an extension). Empty = no cap.
 */
import { useId } from "react";
import type { UseFormReturn } from "react-hook-form";
import type { z } from "zod";
import { ControlledSelect } from "@/components/form-fields";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import type { AiAssistant, aiAssistantSchema } from "../../../shared/ai/assistants";

type FormInput = z.input<typeof aiAssistantSchema>;
export type AssistantForm = UseFormReturn<FormInput, unknown, z.output<typeof aiAssistantSchema>>;

/** The form's cap fields: none set, hang up at a cap. */
export const LIMIT_DEFAULTS = {
  callCostCapUsd: null,
  callSecondsCap: null,
  dailySpendCapUsd: null,
  capAction: "hangup",
  capTransferTo: "",
} satisfies Partial<FormInput>;

export const LIMIT_FIELDS = [
  "callCostCapUsd",
  "callSecondsCap",
  "dailySpendCapUsd",
  "capAction",
  "capTransferTo",
] as const satisfies readonly (keyof FormInput)[];

export const limitsOf = (a: AiAssistant) => ({
  callCostCapUsd: a.callCostCapUsd,
  callSecondsCap: a.callSecondsCap,
  dailySpendCapUsd: a.dailySpendCapUsd,
  capAction: a.capAction,
  capTransferTo: a.capTransferTo ?? "",
});

/** An empty input is no cap (null); anything else a number for the schema to judge. */
const capValue = (v: unknown) => (v === "" || v === null || v === undefined ? null : Number(v));

const ACTION_OPTIONS = [
  { value: "hangup", label: "End the call politely" },
  { value: "transfer", label: "Transfer to an extension" },
];

/** One cap: an amount in USD, or whole seconds (at least 30); empty for none. */
function CapInput({
  form,
  name,
  label,
  seconds = false,
}: {
  form: AssistantForm;
  name: "callCostCapUsd" | "callSecondsCap" | "dailySpendCapUsd";
  label: string;
  seconds?: boolean;
}) {
  return (
    <FormField label={label} error={form.formState.errors[name]?.message}>
      {(control) => (
        <Input
          {...control}
          type="number"
          inputMode={seconds ? "numeric" : "decimal"}
          step={seconds ? 1 : "any"}
          min={seconds ? 30 : 0}
          placeholder="No cap"
          {...form.register(name, { setValueAs: capValue })}
        />
      )}
    </FormField>
  );
}

export function AssistantLimits({ form }: { form: AssistantForm }) {
  const { errors } = form.formState;
  const action = form.watch("capAction");
  const helpId = useId();
  return (
    <fieldset className="grid gap-3" aria-describedby={helpId}>
      <legend className="mb-1 font-medium text-sm">Caps</legend>
      <p id={helpId} className="text-muted-foreground text-xs">
        Leave a cap empty for none. When a call reaches one, the assistant says so and the call ends or is transferred.
      </p>
      <div className="grid gap-4 sm:grid-cols-3">
        <CapInput form={form} name="callCostCapUsd" label="Cost cap per call (USD)" />
        <CapInput form={form} name="callSecondsCap" label="Time cap per call (seconds)" seconds />
        <CapInput form={form} name="dailySpendCapUsd" label="Daily spend cap (USD)" />
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <ControlledSelect
          control={form.control}
          name="capAction"
          label="At a cap"
          error={errors.capAction?.message}
          options={ACTION_OPTIONS}
          fallback="hangup"
        />
        {action === "transfer" && (
          <FormField label="Transfer at the cap to" error={errors.capTransferTo?.message}>
            {(control) => <Input {...control} placeholder="e.g. 1001" {...form.register("capTransferTo")} />}
          </FormField>
        )}
      </div>
    </fieldset>
  );
}
