import { Controller } from "react-hook-form";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Switch } from "@/components/ui/switch";
import { extensionSchema } from "../../../shared/inventory";
import { useCreateExtension } from "./api";

const FIELDS = ["extension", "name", "email", "secret", "voicemail"] as const;

/**
 * "Add Extension": the form validates with the server's own schema; server field errors land under
 * the fields. Closing the dialog, cancelled or saved, empties the form.
 */
export function AddExtensionDialog() {
  const dialog = useFormDialog({
    schema: extensionSchema,
    defaults: { extension: "", name: "", email: "", secret: "", voicemail: false },
    fields: FIELDS,
    draft: "reset-on-close",
    success: "Extension created",
    failure: "Failed to create extension.",
    failureDetail: "server",
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const create = useCreateExtension(dialog.saved);

  return (
    <FormDialog
      dialog={dialog}
      trigger="Add Extension"
      title="Add Extension"
      description="Create a SIP extension for a phone or softphone."
      submitLabel="Create Extension"
      onSubmit={dialog.submit((v) =>
        create.mutate({
          extension: v.extension,
          name: v.name,
          email: v.email,
          voicemail: v.voicemail,
          secret: v.secret,
        }),
      )}
      pending={create.isPending}
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
            placeholder="Leave blank to generate a strong secret"
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
    </FormDialog>
  );
}
