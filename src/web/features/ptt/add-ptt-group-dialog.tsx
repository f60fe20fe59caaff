import { useQuery } from "@tanstack/react-query";
import { Controller, useWatch } from "react-hook-form";
import type { z } from "zod";
import { SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { extensionsQuery } from "@/features/extensions/api";
import { sortExtensions } from "@/features/extensions/filter";
import type { Extension, PttGroup } from "../../../shared/inventory";
import { pttGroupSchema } from "../../../shared/inventory";
import { useCreatePttGroup, useUpdatePttGroup } from "./api";
import { MemberChecklist } from "./member-checklist";

type PttInput = z.input<typeof pttGroupSchema>;

/** A new group answers automatically and is one-way (duplex off). */
const DEFAULTS: PttInput = { name: "", extension: "", description: "", members: [], duplex: false };
const FIELDS = ["name", "extension", "description", "members", "duplex"] as const;

/** The group being edited as the form's values. */
const toForm = (g: PttGroup): PttInput => ({
  name: g.name,
  extension: g.extension,
  description: g.description ?? "",
  members: g.members,
  duplex: g.duplex,
});

/**
 * "Add PTT Group", or with `editing` "Edit PTT Group": the same form prefilled (the card opens it and
 * closes it with `onClose`); the save is optimistic. `extensions`: the member candidates, sorted
 * numerically; undefined while loading.
 */
export function AddPttGroupDialog({
  extensions,
  editing,
  onClose,
}: {
  extensions: Extension[] | undefined;
  editing?: PttGroup;
  onClose?: () => void;
}) {
  const dialog = useFormDialog({
    schema: pttGroupSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "PTT Group created", edit: "PTT Group saved" },
    failure: { create: "Failed to create PTT group.", edit: "Failed to save PTT group." },
    failureDetail: editing ? "server" : "form",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const members = useWatch({ control: form.control, name: "members" });
  const create = useCreatePttGroup(dialog.saved);
  const update = useUpdatePttGroup(dialog.saved);

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add PTT Group"}
      title={editing ? "Edit PTT Group" : "Add PTT Group"}
      description="Dial the group's number to talk to every member at once."
      submitLabel={editing ? "Save Changes" : "Create Group"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate(values),
      )}
      pending={create.isPending || update.isPending}
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
        {/* FreePBX auto-answers every page leg (its paging auto-answer headers, by phone model): not a group setting. */}
        <p className="self-center text-muted-foreground text-sm">Members' phones answer pages automatically.</p>
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

/** The card's edit dialog: the member candidates come from the extension list (cached by the screen). */
export function EditPttGroupDialog({ group, onClose }: { group: PttGroup; onClose: () => void }) {
  const extensions = useQuery({ ...extensionsQuery(), select: sortExtensions }).data;
  return <AddPttGroupDialog extensions={extensions} editing={group} onClose={onClose} />;
}
