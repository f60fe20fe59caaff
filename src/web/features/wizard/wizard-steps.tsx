import { Controller, type UseFormReturn, useWatch } from "react-hook-form";
import type { z } from "zod";
import { SwitchField } from "@/components/form-fields";
import { Badge } from "@/components/ui/badge";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { type wizardDeploySchema, wizardExtensionNumbers } from "../../../shared/wizard";
import { CountInput } from "./count-input";
import { numberRanges } from "./number-ranges";

export type WizardInput = z.input<typeof wizardDeploySchema>;
export type WizardOutput = z.output<typeof wizardDeploySchema>;
export type WizardForm = UseFormReturn<WizardInput, unknown, WizardOutput>;

/** The four input steps (a fifth screen shows the outcome) and the fields each one owns. */
export const STEPS = [
  { title: "Extensions", description: "How many extensions to create, and how their numbers start." },
  { title: "Trunk provider", description: "The SIP provider the PBX connects to. Optional." },
  { title: "Features", description: "What every new extension gets." },
  { title: "Review and deploy", description: "Check the configuration, then deploy it." },
] as const;

export const STEP_FIELDS: Record<1 | 2 | 3 | 4, readonly (keyof WizardInput)[]> = {
  1: ["extensionCount", "extensionPrefix"],
  2: ["trunkProvider"],
  3: ["enableVoicemail", "enableIVR"],
  4: [],
};

export function ExtensionsStep({ form }: { form: WizardForm }) {
  const { errors } = form.formState;
  return (
    <div className="grid items-start gap-4 sm:grid-cols-2">
      <Controller
        control={form.control}
        name="extensionCount"
        render={({ field }) => (
          <FormField label="Number of extensions" error={errors.extensionCount?.message}>
            {(control) => (
              <CountInput
                {...control}
                min={1}
                max={100}
                autoFocus
                value={field.value}
                onChange={field.onChange}
                onBlur={field.onBlur}
              />
            )}
          </FormField>
        )}
      />
      <FormField label="Number prefix" error={errors.extensionPrefix?.message}>
        {(control) => (
          <Input
            {...control}
            inputMode="numeric"
            maxLength={5}
            placeholder="10"
            {...form.register("extensionPrefix")}
          />
        )}
      </FormField>
      <p className="text-muted-foreground text-sm sm:col-span-2">
        Numbers are the prefix plus a two-digit index: prefix 10 gives 1001, 1002, …
      </p>
    </div>
  );
}

export function TrunkStep({ form }: { form: WizardForm }) {
  const { errors } = form.formState;
  return (
    <FormField label="Trunk provider host" error={errors.trunkProvider?.message}>
      {(control) => (
        <>
          <Input {...control} autoFocus placeholder="sip.example.com" {...form.register("trunkProvider")} />
          <p className="text-muted-foreground text-sm">
            A SIP trunk to this host (port 5060, registration on) is created. Leave it empty to skip the trunk.
          </p>
        </>
      )}
    </FormField>
  );
}

export function FeaturesStep({ form }: { form: WizardForm }) {
  return (
    <div className="grid gap-3">
      <Controller
        control={form.control}
        name="enableVoicemail"
        render={({ field }) => (
          <SwitchField
            label="Voicemail"
            description="Turn on voicemail for every new extension"
            checked={field.value ?? true}
            onCheckedChange={field.onChange}
          />
        )}
      />
      <Controller
        control={form.control}
        name="enableIVR"
        render={({ field }) => (
          <SwitchField
            label="IVR"
            description="Create a Main IVR that falls back to the first new extension"
            checked={field.value ?? false}
            onCheckedChange={field.onChange}
          />
        )}
      />
    </div>
  );
}

const onOff = (on: boolean | undefined) => (on ? "Enabled" : "Disabled");

export function ReviewStep({ form }: { form: WizardForm }) {
  const values = useWatch({ control: form.control });
  const numbers = wizardExtensionNumbers(values.extensionPrefix ?? "", values.extensionCount ?? 1);
  const rows = [
    { term: "Trunk provider", detail: values.trunkProvider?.trim() || "None" },
    { term: "Voicemail", detail: onOff(values.enableVoicemail) },
    { term: "IVR", detail: onOff(values.enableIVR) },
  ];
  return (
    <dl className="grid gap-4 text-sm">
      <div className="grid gap-2 rounded-md border p-3">
        <dt className="text-muted-foreground">
          {numbers.length} {numbers.length === 1 ? "extension" : "extensions"}
        </dt>
        <dd className="grid gap-2">
          <span className="font-medium font-mono text-base" data-testid="wizard-numbers">
            {numberRanges(numbers)}
          </span>
          <ul aria-label="Extension numbers" className="flex max-h-32 flex-wrap gap-1.5 overflow-y-auto">
            {numbers.map((n) => (
              <li key={n}>
                <Badge variant="outline" className="font-mono">
                  {n}
                </Badge>
              </li>
            ))}
          </ul>
          <span className="text-muted-foreground text-xs">Numbers that already exist are kept as they are.</span>
        </dd>
      </div>
      {rows.map((r) => (
        <div key={r.term} className="flex items-center justify-between gap-4 border-b pb-3 last:border-b-0">
          <dt className="text-muted-foreground">{r.term}</dt>
          <dd className="font-medium">{r.detail}</dd>
        </div>
      ))}
    </dl>
  );
}
