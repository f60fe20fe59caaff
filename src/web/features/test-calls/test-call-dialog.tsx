import { Controller, type Path } from "react-hook-form";
import { SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import {
  DEFAULT_TEST_CALL_CONTEXT,
  TEST_CALL_LIMITS,
  type TestCall,
  type TestCallInput,
  testCallSchema,
} from "../../../shared/test-calls";
import { useCreateTestCall, useUpdateTestCall } from "./api";

const DEFAULTS: TestCallInput = {
  name: "",
  number: "",
  context: DEFAULT_TEST_CALL_CONTEXT,
  intervalMinutes: TEST_CALL_LIMITS.intervalMinutes.default,
  answerWithinSeconds: TEST_CALL_LIMITS.answerWithinSeconds.default,
  listenSeconds: TEST_CALL_LIMITS.listenSeconds.default,
  enabled: true,
};

const FIELDS: Path<TestCallInput>[] = [
  "name",
  "number",
  "context",
  "intervalMinutes",
  "answerWithinSeconds",
  "listenSeconds",
  "enabled",
];

const toForm = (call: TestCall): TestCallInput => ({
  name: call.name,
  number: call.number,
  context: call.context,
  intervalMinutes: call.intervalMinutes,
  answerWithinSeconds: call.answerWithinSeconds,
  listenSeconds: call.listenSeconds,
  enabled: call.enabled,
});

/**
 * "Add Test Call", or with `editing` "Edit Test Call": what is dialled and in which context, how often, how
 * long it may ring and how long the answered call is listened to.
 */
export function TestCallDialog({ editing, onClose }: { editing?: TestCall; onClose?: () => void }) {
  const dialog = useFormDialog({
    schema: testCallSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Test call created", edit: "Test call saved" },
    failure: { create: "Failed to create test call.", edit: "Failed to save test call." },
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const create = useCreateTestCall(dialog.saved);
  const update = useUpdateTestCall(dialog.saved);
  const number = (name: "intervalMinutes" | "answerWithinSeconds" | "listenSeconds") =>
    form.register(name, { valueAsNumber: true });

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Test Call"}
      title={editing ? "Edit Test Call" : "Add Test Call"}
      description="A call the console places through the PBX on a schedule: it passes when answered in time and audio comes back."
      submitLabel={editing ? "Save Changes" : "Create Test Call"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate(values),
      )}
      pending={create.isPending || update.isPending}
    >
      <FormField label="Name" error={errors.name?.message}>
        {(c) => <Input {...c} placeholder="Echo test" autoFocus {...form.register("name")} />}
      </FormField>
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField label="Number" error={errors.number?.message}>
          {(c) => <Input {...c} placeholder="*43" inputMode="tel" {...form.register("number")} />}
        </FormField>
        <FormField label="Context" error={errors.context?.message}>
          {(c) => <Input {...c} placeholder={DEFAULT_TEST_CALL_CONTEXT} {...form.register("context")} />}
        </FormField>
      </div>
      <div className="grid gap-4 sm:grid-cols-3">
        <FormField label="Every (minutes)" error={errors.intervalMinutes?.message}>
          {(c) => <Input {...c} type="number" inputMode="numeric" {...number("intervalMinutes")} />}
        </FormField>
        <FormField label="Answer within (s)" error={errors.answerWithinSeconds?.message}>
          {(c) => <Input {...c} type="number" inputMode="numeric" {...number("answerWithinSeconds")} />}
        </FormField>
        <FormField label="Listen for (s)" error={errors.listenSeconds?.message}>
          {(c) => <Input {...c} type="number" inputMode="numeric" {...number("listenSeconds")} />}
        </FormField>
      </div>
      <Controller
        control={form.control}
        name="enabled"
        render={({ field }) => (
          <SwitchField
            label="Scheduled"
            description="Off: the test call runs only when you press Run now"
            checked={field.value ?? true}
            onCheckedChange={field.onChange}
          />
        )}
      />
    </FormDialog>
  );
}
