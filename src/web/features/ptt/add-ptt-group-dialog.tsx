import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { Controller, useForm, useWatch } from "react-hook-form";
import type { z } from "zod";
import { CreateDialog, SwitchField } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { keys } from "@/lib/constants";
import { useCreate } from "@/lib/mutations";
import type { Extension } from "../../../shared/inventory";
import { pttGroupSchema } from "../../../shared/inventory";
import { MemberChecklist } from "./member-checklist";

type PttInput = z.input<typeof pttGroupSchema>;
type PttOutput = z.output<typeof pttGroupSchema>;

/** Spec section 9: auto-answer on, duplex off. */
const DEFAULTS: PttInput = { name: "", extension: "", description: "", members: [], duplex: false, autoAnswer: true };
const FIELDS = ["name", "extension", "description", "members", "duplex", "autoAnswer"] as const;

/** `extensions`: the member candidates, sorted numerically; undefined while loading. */
export function AddPttGroupDialog({ extensions }: { extensions: Extension[] | undefined }) {
  const [open, setOpen] = useState(false);
  const [formError, setFormError] = useState<string>();
  const form = useForm<PttInput, unknown, PttOutput>({
    resolver: zodResolver(pttGroupSchema),
    defaultValues: DEFAULTS,
  });
  const { errors } = form.formState;
  const members = useWatch({ control: form.control, name: "members" });
  const create = useCreate<PttInput, PttOutput>({
    listKey: keys.pttGroups,
    success: "PTT Group created",
    failure: "Failed to create PTT group.",
    setError: form.setError,
    fields: FIELDS,
    onFormError: setFormError,
    onCreated: () => {
      setOpen(false);
      form.reset(DEFAULTS);
    },
  });

  return (
    <CreateDialog
      trigger="Add PTT Group"
      title="Add PTT Group"
      description="Dial the group's number to talk to every member at once."
      submitLabel="Create Group"
      open={open}
      onOpenChange={setOpen}
      onSubmit={form.handleSubmit((values) => create.mutate(values))}
      pending={create.isPending}
      canSubmit={members.length > 0}
      formError={formError}
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
    </CreateDialog>
  );
}
