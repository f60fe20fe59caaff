import { Controller } from "react-hook-form";
import type { z } from "zod";
import { DestinationField } from "@/components/destination-picker";
import { SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { RecordingField } from "@/features/ivrs/recording-field";
import { type Announcement, announcementSchema } from "../../../shared/call-flow";
import { useCreateAnnouncement, useUpdateAnnouncement } from "./api";

type AnnouncementInput = z.input<typeof announcementSchema>;

const DEFAULTS: AnnouncementInput = { name: "", recording: null, allowSkip: false, after: null };
const FIELDS = ["name", "recording", "allowSkip", "after.kind", "after.target"] as const;

const toForm = (a: Announcement): AnnouncementInput => ({
  name: a.name,
  recording: a.recording,
  allowSkip: a.allowSkip,
  after: a.after,
});

/**
 * "Add Announcement", or with `editing` "Edit Announcement": the same form prefilled (the card opens it and
 * closes it with `onClose`); the save is optimistic. The caller hears the recording, then goes on.
 */
export function AddAnnouncementDialog({ editing, onClose }: { editing?: Announcement; onClose?: () => void }) {
  const dialog = useFormDialog({
    schema: announcementSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Announcement created", edit: "Announcement saved" },
    failure: { create: "Failed to create announcement.", edit: "Failed to save announcement." },
    failureDetail: editing ? "server" : "form",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const create = useCreateAnnouncement(dialog.saved);
  const update = useUpdateAnnouncement(dialog.saved);

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Announcement"}
      title={editing ? "Edit Announcement" : "Add Announcement"}
      description="The caller hears the recording, then goes to the destination below."
      submitLabel={editing ? "Save Changes" : "Create Announcement"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate(values),
      )}
      pending={create.isPending || update.isPending}
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="Name" error={errors.name?.message}>
          {(control) => (
            <Input {...control} placeholder="Closed for the holidays" autoFocus {...form.register("name")} />
          )}
        </FormField>
        <Controller
          control={form.control}
          name="recording"
          render={({ field }) => (
            <RecordingField
              label="Recording"
              value={field.value ?? null}
              onChange={field.onChange}
              error={errors.recording?.message}
            />
          )}
        />
      </div>
      <Controller
        control={form.control}
        name="allowSkip"
        render={({ field }) => (
          <SwitchField
            label="Callers may skip it"
            description="A key press ends the recording and sends the call on at once."
            checked={field.value ?? false}
            onCheckedChange={field.onChange}
          />
        )}
      />
      <DestinationField form={form} name="after" label="After it plays" />
    </FormDialog>
  );
}

/** The card's edit dialog. */
export function EditAnnouncementDialog({ announcement, onClose }: { announcement: Announcement; onClose: () => void }) {
  return <AddAnnouncementDialog editing={announcement} onClose={onClose} />;
}
