import { Controller } from "react-hook-form";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { RecordingHint, RecordingSelect } from "@/components/recording-field";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Switch } from "@/components/ui/switch";
import { type Extension, extensionSchema } from "../../../shared/inventory";
import { useCreateExtension, useUpdateExtension } from "./api";

const RECORDING_FIELDS = [
  "recordingInExternal",
  "recordingOutExternal",
  "recordingInInternal",
  "recordingOutInternal",
  "recordingOnDemand",
] as const;
const FIELDS = ["extension", "name", "email", "secret", "voicemail", ...RECORDING_FIELDS] as const;
/** A new extension gets FreePBX's own recording defaults. */
const DEFAULTS = {
  extension: "",
  name: "",
  email: "",
  secret: "",
  voicemail: false,
  recordingInExternal: "dontcare",
  recordingOutExternal: "dontcare",
  recordingInInternal: "dontcare",
  recordingOutInternal: "dontcare",
  recordingOnDemand: "disabled",
} as const;

/** The recording selects: each direction as FreePBX's Extensions page names it. */
const DIRECTIONS = [
  ["recordingInExternal", "Inbound external calls"],
  ["recordingOutExternal", "Outbound external calls"],
  ["recordingInInternal", "Inbound internal calls"],
  ["recordingOutInternal", "Outbound internal calls"],
] as const;

/** The extension being edited as the form's values; the secret stays blank (blank keeps the stored one). */
const toForm = (e: Extension) => ({
  extension: e.extension,
  name: e.name,
  email: e.email ?? "",
  secret: "",
  voicemail: e.voicemail,
  recordingInExternal: e.recordingInExternal,
  recordingOutExternal: e.recordingOutExternal,
  recordingInInternal: e.recordingInInternal,
  recordingOutInternal: e.recordingOutInternal,
  recordingOnDemand: e.recordingOnDemand,
});

/**
 * "Add Extension", or with `editing` "Edit Extension" (the same form prefilled; the row opens it and
 * closes it with `onClose`): the form validates with the server's own schema; server field errors land
 * under the fields. Closing the dialog, cancelled or saved, empties the form. An edit is optimistic,
 * and a blank secret keeps the stored one.
 */
export function AddExtensionDialog({ editing, onClose }: { editing?: Extension; onClose?: () => void } = {}) {
  const dialog = useFormDialog({
    schema: extensionSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "reset-on-close",
    success: { create: "Extension created", edit: "Extension saved" },
    failure: { create: "Failed to create extension.", edit: "Failed to save extension." },
    failureDetail: "server",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const create = useCreateExtension(dialog.saved);
  const update = useUpdateExtension(dialog.saved);

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Extension"}
      title={editing ? "Edit Extension" : "Add Extension"}
      description={
        editing ? `Change extension ${editing.extension}.` : "Create a SIP extension for a phone or softphone."
      }
      submitLabel={editing ? "Save Changes" : "Create Extension"}
      onSubmit={dialog.submit((v) => {
        const body = {
          extension: v.extension,
          name: v.name,
          email: v.email,
          voicemail: v.voicemail,
          secret: v.secret,
          recordingInExternal: v.recordingInExternal,
          recordingOutExternal: v.recordingOutExternal,
          recordingInInternal: v.recordingInInternal,
          recordingOutInternal: v.recordingOutInternal,
          recordingOnDemand: v.recordingOnDemand,
        };
        if (editing) update.mutate({ ...body, id: editing.id });
        else create.mutate(body);
      })}
      pending={create.isPending || update.isPending}
    >
      <div className="grid gap-4 sm:grid-cols-[10rem_1fr]">
        <FormField label="Extension" error={errors.extension?.message}>
          {(c) => <Input {...c} inputMode="numeric" placeholder="1001" autoFocus {...form.register("extension")} />}
        </FormField>
        <FormField label="Name" error={errors.name?.message}>
          {(c) => <Input {...c} placeholder="Jane Doe" autoComplete="off" {...form.register("name")} />}
        </FormField>
      </div>
      <FormField label="Email" error={errors.email?.message}>
        {(c) => (
          <Input
            {...c}
            type="email"
            placeholder="jane@example.com (optional)"
            autoComplete="off"
            {...form.register("email")}
          />
        )}
      </FormField>
      <FormField label="Secret" error={errors.secret?.message}>
        {(c) => (
          <Input
            {...c}
            type="password"
            placeholder={editing ? "Leave blank to keep the current secret" : "Leave blank to generate a strong secret"}
            autoComplete="new-password"
            {...form.register("secret")}
          />
        )}
      </FormField>
      <Controller
        control={form.control}
        name="voicemail"
        render={({ field }) => (
          <div className="flex items-center justify-between gap-4 rounded-md border px-3 py-2.5">
            <div className="grid gap-1">
              <Label htmlFor="extension-voicemail">Voicemail</Label>
              <p className="text-muted-foreground text-xs">Callers can leave a message when nobody answers.</p>
            </div>
            <Switch
              id="extension-voicemail"
              checked={field.value ?? false}
              onCheckedChange={field.onChange}
              onBlur={field.onBlur}
            />
          </div>
        )}
      />
      <fieldset className="grid gap-3 rounded-md border p-3" aria-describedby="extension-recording-hint">
        <legend className="px-1 font-medium text-sm">Call recording</legend>
        <div className="grid gap-3 sm:grid-cols-2">
          {DIRECTIONS.map(([name, label]) => (
            <RecordingSelect
              key={name}
              control={form.control}
              name={name}
              label={label}
              error={errors[name]?.message}
            />
          ))}
          <RecordingSelect
            control={form.control}
            name="recordingOnDemand"
            label="On-demand recording"
            error={errors.recordingOnDemand?.message}
            onDemand
          />
        </div>
        <RecordingHint id="extension-recording-hint" />
      </fieldset>
    </FormDialog>
  );
}
