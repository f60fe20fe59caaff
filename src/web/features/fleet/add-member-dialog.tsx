import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { addFleetMemberSchema } from "../../../shared/fleet";
import { useAddFleetMember } from "./api";

/** Adds a member console by its https address and a REST API token made there (Settings → REST API Tokens). */
export function AddMemberDialog() {
  const dialog = useFormDialog({
    schema: addFleetMemberSchema,
    defaults: { url: "", token: "" },
    fields: ["url", "token"],
    draft: "reset-on-close",
    success: "Member added",
    failure: "Failed to add member",
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const add = useAddFleetMember(dialog.saved);
  return (
    <FormDialog
      dialog={dialog}
      trigger="Add Member"
      title="Add Member"
      description="Another console, reached over https: its certificate is pinned now, and the token (made on that console, a viewer token is enough to watch it) is stored sealed."
      submitLabel="Add Member"
      onSubmit={dialog.submit((values) => add.mutate(values))}
      pending={add.isPending}
    >
      <FormField label="Console URL" error={errors.url?.message}>
        {(control) => (
          <Input
            {...control}
            autoComplete="off"
            autoFocus
            placeholder="https://pbx2.example.com"
            {...form.register("url")}
          />
        )}
      </FormField>
      <FormField label="REST API token" error={errors.token?.message}>
        {(control) => (
          <Input {...control} type="password" autoComplete="off" placeholder="pbxt_…" {...form.register("token")} />
        )}
      </FormField>
    </FormDialog>
  );
}
