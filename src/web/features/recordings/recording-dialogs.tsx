/**
 * The System Recordings forms: "Upload Recording" (a WAV or MP3 file with its name and description, the
 * upload's progress, then the PBX's conversion) and the card's "Edit Recording" (name and description).
 * Loaded on demand with the other Inventory forms (pages/forms-inventory.ts, ADR 0046).
 */
import { useState } from "react";
import { Controller } from "react-hook-form";
import { z } from "zod";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Progress } from "@/components/ui/progress";
import { lazySchema } from "../../../shared/lazy-schema";
import {
  RECORDING_ACCEPT,
  RECORDING_MAX_BYTES,
  RECORDING_NAME_MAX,
  RECORDING_TOO_LARGE,
  type Recording,
  recordingPatchSchema,
  recordingUploadSchema,
} from "../../../shared/recordings";
import { useUpdateRecording, useUploadRecording } from "./api";

/** The upload's fields and the file, checked here for presence and size (the server checks its content). */
const uploadFormSchema = lazySchema(() =>
  recordingUploadSchema.extend({
    file: z
      .custom<File | null>()
      .refine((f) => typeof File !== "undefined" && f instanceof File, "Choose a WAV or MP3 file")
      .refine((f) => !f || f.size <= RECORDING_MAX_BYTES, RECORDING_TOO_LARGE),
  }),
);
type UploadInput = z.input<typeof uploadFormSchema>;
const UPLOAD_DEFAULTS: UploadInput = { name: "", description: "", file: null };
const UPLOAD_FIELDS = ["name", "description", "file"] as const;

/** A name from the file's: FreePBX makes one the same way (spaces and the like become `-`). */
export const nameFromFile = (fileName: string) =>
  fileName
    .replace(/\.[^.]+$/, "")
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^[-_]+/, "")
    .slice(0, RECORDING_NAME_MAX);

const percent = (fraction: number) => Math.min(100, Math.round(fraction * 100));

export function UploadRecordingDialog() {
  const [progress, setProgress] = useState<number | null>(null);
  const dialog = useFormDialog({
    schema: uploadFormSchema,
    defaults: UPLOAD_DEFAULTS,
    fields: UPLOAD_FIELDS,
    draft: "reset-on-close",
    success: "Recording uploaded",
    failure: "Failed to upload the recording.",
    onSaved: () => setProgress(null),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const upload = useUploadRecording({
    ...dialog.saved,
    onError: (err, vars) => {
      setProgress(null);
      dialog.saved.onError?.(err, vars);
    },
  });
  const sending = upload.isPending && progress !== null && progress < 1;

  return (
    <FormDialog
      dialog={dialog}
      trigger="Upload Recording"
      title="Upload Recording"
      description="A WAV or MP3 file of at most 20 MB. The PBX converts it to what Asterisk plays (8 kHz mono WAV) and stores it at once as custom/<name>."
      submitLabel="Upload"
      onSubmit={dialog.submit((values) => {
        setProgress(0);
        upload.mutate({
          name: values.name,
          description: values.description,
          file: values.file as File,
          onProgress: setProgress,
        });
      })}
      pending={upload.isPending}
    >
      <Controller
        control={form.control}
        name="file"
        render={({ field }) => (
          <FormField label="Audio file (WAV or MP3)" error={errors.file?.message}>
            {(control) => (
              <Input
                {...control}
                type="file"
                accept={RECORDING_ACCEPT}
                disabled={upload.isPending}
                onChange={(e) => {
                  const file = e.target.files?.[0] ?? null;
                  field.onChange(file);
                  if (file && !form.getValues("name")) form.setValue("name", nameFromFile(file.name));
                }}
              />
            )}
          </FormField>
        )}
      />
      <FormField label="Name" error={errors.name?.message}>
        {(control) => (
          <Input {...control} placeholder="welcome" disabled={upload.isPending} {...form.register("name")} />
        )}
      </FormField>
      <FormField label="Description" error={errors.description?.message}>
        {(control) => (
          <Input
            {...control}
            placeholder="Main greeting"
            disabled={upload.isPending}
            {...form.register("description")}
          />
        )}
      </FormField>
      {upload.isPending && progress !== null && (
        <div className="grid gap-2" aria-live="polite">
          <Progress value={percent(progress)} aria-label="Upload progress" />
          <p className="text-muted-foreground text-sm">
            {sending ? `Uploading… ${percent(progress)}%` : "Converting and storing on the PBX…"}
          </p>
        </div>
      )}
    </FormDialog>
  );
}

type EditInput = z.input<typeof recordingPatchSchema>;
const EDIT_FIELDS = ["name", "description"] as const;
const toForm = (r: Recording): EditInput => ({ name: r.name, description: r.description });

/** The card's edit dialog: a new name and description (the sound file keeps its name, as in FreePBX). */
export function EditRecordingDialog({ recording, onClose }: { recording: Recording; onClose: () => void }) {
  const dialog = useFormDialog({
    schema: recordingPatchSchema,
    defaults: toForm(recording),
    fields: EDIT_FIELDS,
    draft: "reset-on-open",
    success: "Recording saved",
    failure: "Failed to save the recording.",
    failureDetail: "server",
    open: true,
    onClose,
    editing: recording,
    toForm,
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const update = useUpdateRecording(dialog.saved);
  return (
    <FormDialog
      dialog={dialog}
      title="Edit Recording"
      description={`Its sound file stays ${recording.files.join(", ")}: what plays it (IVRs, announcements) finds it by the recording, not by its name.`}
      submitLabel="Save Changes"
      onSubmit={dialog.submit((values) => update.mutate({ ...values, id: recording.id }))}
      pending={update.isPending}
    >
      <FormField label="Name" error={errors.name?.message}>
        {(control) => <Input {...control} autoFocus {...form.register("name")} />}
      </FormField>
      <FormField label="Description" error={errors.description?.message}>
        {(control) => <Input {...control} {...form.register("description")} />}
      </FormField>
    </FormDialog>
  );
}
