import { Controller, useWatch } from "react-hook-form";
import type { z } from "zod";
import { SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import type { Extension } from "../../../shared/inventory";
import { pttGroupSchema } from "../../../shared/inventory";
import { useCreatePttGroup } from "./api";
import { MemberChecklist } from "./member-checklist";

type PttInput = z.input<typeof pttGroupSchema>;

/** A new group answers automatically and is one-way (duplex off). */
const DEFAULTS: PttInput = { name: "", extension: "", description: "", members: [], duplex: false, autoAnswer: true };
const FIELDS = ["name", "extension", "description", "members", "duplex", "autoAnswer"] as const;

/** `extensions`: the member candidates, sorted numerically; undefined while loading. */
export function AddPttGroupDialog({ extensions }: { extensions: Extension[] | undefined }) {
  const dialog = useFormDialog({
    schema: pttGroupSchema,
    defaults: DEFAULTS,
    fields: FIELDS,
    draft: "keep",
    success: "PTT Group created",
    failure: "Failed to create PTT group.",
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const members = useWatch({ control: form.control, name: "members" });
  const create = useCreatePttGroup(dialog.saved);

  return (
    <FormDialog
      dialog={dialog}
      trigger="Add PTT Group"
      title="Add PTT Group"
      description="Dial the group's number to talk to every member at once."
      submitLabel="Create Group"
      onSubmit={dialog.submit((values) => create.mutate(values))}
      pending={create.isPending}
      canSubmit={members.length > 0}
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="Warehouse" autoFocus {...form.register("name")} />}
        </FormField>
        <FormField label="Extension" error={errors.extension?.message}>
          {(control) => <Input {...control} inputMode="numeric" placeholder="8000" {...form.register("extension")} />}
        </FormField>
      </div>
      <FormField label="Description" error={errors.description?.message}>
        {(control) => <Textarea {...control} rows={2} {...form.register("description")} />}
      </FormField>
      <div className="grid gap-3 sm:grid-cols-2">
        <Controller
          control={form.control}
          name="duplex"
          render={({ field }) => (
            <SwitchField
              label="Two-way (duplex)"
              description="Members can talk back"
              checked={field.value ?? false}
              onCheckedChange={field.onChange}
            />
          )}
        />
        <Controller
          control={form.control}
          name="autoAnswer"
          render={({ field }) => (
            <SwitchField
              label="Auto-answer"
              description="Phones answer without ringing"
              checked={field.value ?? true}
              onCheckedChange={field.onChange}
            />
          )}
        />
      </div>
      <Controller
        control={form.control}
        name="members"
        render={({ field }) => (
          <MemberChecklist
            extensions={extensions}
            value={field.value}
            onChange={field.onChange}
            error={errors.members?.message ?? errors.members?.find?.((e) => e?.message)?.message}
          />
        )}
      />
    </FormDialog>
  );
}
