/**
 * "Add Target" and "Edit Target": one form whose fields follow the kind (S3-compatible bucket or SFTP server),
 * validated by the shared schema. A secret left empty on edit keeps the stored one, which is never shown; an SFTP
 * server's host key is pinned by the first contact unless one is given here.
 */
import { Controller, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";
import { SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { SelectField } from "@/components/select-field";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { SecretInput, SecretTextarea } from "@/features/settings/secret-input";
import {
  BACKUP_TARGET_KIND_LABELS,
  BACKUP_TARGET_KINDS,
  type BackupTarget,
  type BackupTargetCreate,
  type BackupTargetKind,
  type BackupTargetUpdate,
  backupTargetCreateSchema,
  backupTargetUpdateSchema,
  type SftpAuth,
} from "../../../shared/offsite-backups";
import { useCreateBackupTarget, useUpdateBackupTarget } from "./api";

/** Both kinds' fields in one form: the schema keeps the chosen kind's and drops the rest. */
interface TargetForm {
  kind: BackupTargetKind;
  name: string;
  enabled: boolean;
  includePbx: boolean;
  keep: number;
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  virtualHostedStyle: boolean;
  host: string;
  port: number;
  username: string;
  directory: string;
  auth: SftpAuth;
  password: string;
  privateKey: string;
  hostKeyFingerprint: string;
  forgetHostKey: boolean;
}

const DEFAULTS: TargetForm = {
  kind: "s3",
  name: "",
  enabled: true,
  includePbx: true,
  keep: 14,
  endpoint: "",
  region: "",
  bucket: "",
  prefix: "pbx-console/",
  accessKeyId: "",
  secretAccessKey: "",
  virtualHostedStyle: false,
  host: "",
  port: 22,
  username: "",
  directory: "pbx-console-backups",
  auth: "key",
  password: "",
  privateKey: "",
  hostKeyFingerprint: "",
  forgetHostKey: false,
};

const FIELDS = Object.keys(DEFAULTS) as Path<TargetForm>[];

function toForm(t: BackupTarget): TargetForm {
  const base = { ...DEFAULTS, kind: t.kind, name: t.name, enabled: t.enabled, includePbx: t.includePbx, keep: t.keep };
  // The pinned host key is shown beside the form, not sent back: the server keeps it unless told otherwise.
  if (t.kind === "s3") return { ...base, ...t.settings };
  return { ...base, ...t.settings, hostKeyFingerprint: "" };
}

const SECRET_KEPT = "Leave empty to keep the stored one";

function S3Fields({ form, editing }: { form: UseFormReturn<TargetForm>; editing: boolean }) {
  const { errors } = form.formState;
  return (
    <>
      <FormField label="Endpoint" error={errors.endpoint?.message}>
        {(c) => (
          <Input {...c} type="url" placeholder="https://s3.eu-central-1.amazonaws.com" {...form.register("endpoint")} />
        )}
      </FormField>
      <div className="grid items-start gap-4 sm:grid-cols-3">
        <FormField label="Bucket" error={errors.bucket?.message}>
          {(c) => <Input {...c} placeholder="my-pbx-backups" {...form.register("bucket")} />}
        </FormField>
        <FormField label="Region" error={errors.region?.message}>
          {(c) => <Input {...c} placeholder="us-east-1" {...form.register("region")} />}
        </FormField>
        <FormField label="Folder in the bucket" error={errors.prefix?.message}>
          {(c) => <Input {...c} placeholder="pbx-console/" {...form.register("prefix")} />}
        </FormField>
      </div>
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="Access key ID" error={errors.accessKeyId?.message}>
          {(c) => <Input {...c} autoComplete="off" {...form.register("accessKeyId")} />}
        </FormField>
        <FormField label="Secret access key" error={errors.secretAccessKey?.message}>
          {(c) => (
            <SecretInput {...c} placeholder={editing ? SECRET_KEPT : undefined} {...form.register("secretAccessKey")} />
          )}
        </FormField>
      </div>
      <Controller
        control={form.control}
        name="virtualHostedStyle"
        render={({ field }) => (
          <SwitchField
            label="Bucket in the host name (virtual-hosted style)"
            description="Some providers need https://bucket.endpoint rather than https://endpoint/bucket."
            checked={field.value}
            onCheckedChange={field.onChange}
          />
        )}
      />
    </>
  );
}

function SftpFields({
  form,
  editing,
  pinned,
}: {
  form: UseFormReturn<TargetForm>;
  editing: boolean;
  pinned: string | null;
}) {
  const { errors } = form.formState;
  const auth = form.watch("auth");
  return (
    <>
      <div className="grid items-start gap-4 sm:grid-cols-[1fr_7rem]">
        <FormField label="Host" error={errors.host?.message}>
          {(c) => <Input {...c} placeholder="backup.example.com" {...form.register("host")} />}
        </FormField>
        <FormField label="Port" error={errors.port?.message}>
          {(c) => (
            <Input {...c} type="number" inputMode="numeric" {...form.register("port", { valueAsNumber: true })} />
          )}
        </FormField>
      </div>
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="User name" error={errors.username?.message}>
          {(c) => <Input {...c} autoComplete="off" placeholder="pbx-backup" {...form.register("username")} />}
        </FormField>
        <FormField label="Directory" error={errors.directory?.message}>
          {(c) => <Input {...c} placeholder="pbx-console-backups" {...form.register("directory")} />}
        </FormField>
      </div>
      <Controller
        control={form.control}
        name="auth"
        render={({ field }) => (
          <SelectField
            label="Sign in with"
            error={errors.auth?.message}
            value={field.value}
            onValueChange={(v) => {
              form.setValue(v === "key" ? "password" : "privateKey", "");
              field.onChange(v);
            }}
            options={[
              { value: "key", label: "A private key" },
              { value: "password", label: "A password" },
            ]}
          />
        )}
      />
      {auth === "key" ? (
        <FormField label="Private key (OpenSSH or PEM, without a passphrase)" error={errors.privateKey?.message}>
          {(c) => (
            <SecretTextarea
              {...c}
              rows={4}
              placeholder={editing ? SECRET_KEPT : "-----BEGIN OPENSSH PRIVATE KEY-----"}
              {...form.register("privateKey")}
            />
          )}
        </FormField>
      ) : (
        <FormField label="Password" error={errors.password?.message}>
          {(c) => <SecretInput {...c} placeholder={editing ? SECRET_KEPT : undefined} {...form.register("password")} />}
        </FormField>
      )}
      <FormField label="Host key fingerprint (optional)" error={errors.hostKeyFingerprint?.message}>
        {(c) => (
          <div className="grid gap-1">
            <Input
              {...c}
              spellCheck={false}
              placeholder={pinned ?? "SHA256:… (empty: pinned at the first connection)"}
              className="font-mono text-xs md:text-xs"
              {...form.register("hostKeyFingerprint")}
            />
            <p className="text-muted-foreground text-xs">
              {pinned
                ? `Pinned: ${pinned}. A server showing another key is refused.`
                : "Empty pins the key the server shows at the first connection; a different key later is refused."}
            </p>
          </div>
        )}
      </FormField>
      {editing && pinned && (
        <Controller
          control={form.control}
          name="forgetHostKey"
          render={({ field }) => (
            <SwitchField
              label="Forget the pinned host key"
              description="After the server was reinstalled: the next connection pins the key it shows then."
              checked={field.value}
              onCheckedChange={field.onChange}
            />
          )}
        />
      )}
    </>
  );
}

/** The dialog, opened by the card: `editing` null creates. */
export function TargetDialog({ editing, onClose }: { editing: BackupTarget | null; onClose: () => void }) {
  const dialog = useFormDialog({
    schema: (editing ? backupTargetUpdateSchema : backupTargetCreateSchema) as never,
    defaults: (editing ? toForm(editing) : DEFAULTS) as never,
    fields: FIELDS as never,
    draft: "reset-on-open",
    success: { create: "Backup target added", edit: "Backup target saved" },
    failure: { create: "Failed to add the backup target", edit: "Failed to save the backup target" },
    open: true,
    onClose,
    editing,
    toForm: toForm as never,
  });
  const form = dialog.form as unknown as UseFormReturn<TargetForm>;
  const { errors } = form.formState;
  const create = useCreateBackupTarget(dialog.saved);
  const update = useUpdateBackupTarget(dialog.saved);
  const editingOne = editing !== null;
  const pinned = editing?.kind === "sftp" ? editing.settings.hostKeyFingerprint : null;

  return (
    <FormDialog
      dialog={dialog}
      title={editing ? `Edit ${editing.name}` : "Add Backup Target"}
      description={
        editing
          ? "Secrets are never shown: leave a secret empty to keep it (a new endpoint or server needs it again)."
          : "Where encrypted copies of the backups go. Test the connection from the list once it is saved."
      }
      submitLabel={editing ? "Save Changes" : "Add Target"}
      onSubmit={dialog.submit((values: FieldValues) =>
        editing
          ? update.mutate({ ...(values as BackupTargetUpdate), id: editing.id })
          : create.mutate(values as BackupTargetCreate),
      )}
      pending={create.isPending || update.isPending}
      minRole="admin"
      wide
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <Controller
          control={form.control}
          name="kind"
          render={({ field }) => (
            <SelectField
              label="Kind"
              error={errors.kind?.message}
              value={field.value}
              onValueChange={field.onChange}
              disabled={editingOne}
              options={BACKUP_TARGET_KINDS.map((k) => ({ value: k, label: BACKUP_TARGET_KIND_LABELS[k] }))}
            />
          )}
        />
        <FormField label="Name" error={errors.name?.message}>
          {(c) => <Input {...c} placeholder="Off-site bucket" autoFocus {...form.register("name")} />}
        </FormField>
      </div>
      {form.watch("kind") === "s3" ? (
        <S3Fields form={form} editing={editingOne} />
      ) : (
        <SftpFields form={form} editing={editingOne} pinned={pinned} />
      )}
      <FormField label="Copies kept of each (console database, PBX backups)" error={errors.keep?.message}>
        {(c) => (
          <Input
            {...c}
            type="number"
            inputMode="numeric"
            min={1}
            className="sm:w-32"
            {...form.register("keep", { valueAsNumber: true })}
          />
        )}
      </FormField>
      <Controller
        control={form.control}
        name="includePbx"
        render={({ field }) => (
          <SwitchField
            label="Also copy the PBX backups deployments take"
            checked={field.value}
            onCheckedChange={field.onChange}
          />
        )}
      />
      <Controller
        control={form.control}
        name="enabled"
        render={({ field }) => (
          <SwitchField
            label="Enabled"
            description="A disabled target gets no scheduled copies; Upload now and the drill still work."
            checked={field.value}
            onCheckedChange={field.onChange}
          />
        )}
      />
    </FormDialog>
  );
}
