import { z } from "zod";
import { ControlledSelect } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { passwordSchema } from "../../../shared/auth";
import { lazySchema } from "../../../shared/lazy-schema";
import { type ConsoleUser, newUserSchema, ROLE_LABELS, ROLES } from "../../../shared/users";
import { useCreateUser, useUpdateUser } from "./api";

const ROLE_OPTIONS = ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }));

export function AddUserDialog() {
  const dialog = useFormDialog({
    schema: newUserSchema,
    defaults: { username: "", password: "", role: "operator" },
    fields: ["username", "password", "role"],
    draft: "reset-on-close",
    success: "User added",
    failure: "Failed to add user",
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const create = useCreateUser(dialog.saved);
  return (
    <FormDialog
      dialog={dialog}
      trigger="Add User"
      title="Add User"
      description="A console account with a role: administrators do everything, operators run the PBX, viewers only read."
      submitLabel="Add User"
      onSubmit={dialog.submit((values) => create.mutate(values))}
      pending={create.isPending}
    >
      <FormField label="Username" error={errors.username?.message}>
        {(control) => <Input {...control} autoComplete="off" autoFocus {...form.register("username")} />}
      </FormField>
      <FormField label="Password" error={errors.password?.message}>
        {(control) => <Input {...control} type="password" autoComplete="new-password" {...form.register("password")} />}
      </FormField>
      <ControlledSelect
        control={form.control}
        name="role"
        label="Role"
        error={errors.role?.message}
        options={ROLE_OPTIONS}
      />
    </FormDialog>
  );
}

const resetSchema = lazySchema(() => z.object({ password: passwordSchema }));

/** An administrator sets a new password for `user`; the user is signed out everywhere. */
export function ResetPasswordDialog({ user, onClose }: { user: ConsoleUser | null; onClose: () => void }) {
  const dialog = useFormDialog({
    schema: resetSchema,
    defaults: { password: "" },
    fields: ["password"],
    draft: "reset-on-open",
    success: "Password reset; the user was signed out everywhere",
    failure: "Failed to reset password",
    open: user !== null,
    onClose,
    editing: user,
    toForm: () => ({ password: "" }),
  });
  const { form } = dialog;
  const update = useUpdateUser(dialog.saved);
  return (
    <FormDialog
      dialog={dialog}
      title={`Reset password of ${user?.username ?? ""}`}
      description="Their sessions end at once; give them the new password."
      submitLabel="Reset Password"
      onSubmit={dialog.submit((values) => user && update.mutate({ id: user.id, patch: { password: values.password } }))}
      pending={update.isPending}
    >
      <FormField label="New password" error={form.formState.errors.password?.message}>
        {(control) => <Input {...control} type="password" autoComplete="new-password" {...form.register("password")} />}
      </FormField>
    </FormDialog>
  );
}

export { ROLE_OPTIONS };
