/**
 * "Add Channel" and "Edit Channel": one form whose fields follow the chosen kind, validated by the shared
 * schema (the POST body's union on create, the PUT body's on edit). A secret field left empty on edit keeps
 * the stored secret, which is never shown.
 */
import { Controller, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";
import { SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { SelectField } from "@/components/select-field";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/use-toast";
import { SecretInput } from "@/features/settings/secret-input";
import {
  ALERT_CHANNEL_KIND_LABELS,
  ALERT_CHANNEL_KINDS,
  type AlertChannel,
  type AlertChannelCreate,
  type AlertChannelKind,
  type AlertChannelUpdate,
  alertChannelCreateSchema,
  alertChannelUpdateSchema,
  EMAIL_SECURITY,
  EMAIL_SECURITY_LABELS,
  type SavedAlertChannel,
} from "../../../shared/alert-channels";
import { useCreateAlertChannel, useUpdateAlertChannel } from "./api";

/** Every kind's fields in one form: the schema keeps the chosen kind's and drops the rest. */
interface ChannelForm {
  kind: AlertChannelKind;
  name: string;
  enabled: boolean;
  host: string;
  port: number;
  security: (typeof EMAIL_SECURITY)[number];
  username: string;
  password: string;
  from: string;
  to: string;
  caCertificate: string;
  webhookUrl: string;
  botToken: string;
  chatId: string;
  url: string;
  secret: string;
  regenerateSecret: boolean;
}

const DEFAULTS: ChannelForm = {
  kind: "email",
  name: "",
  enabled: true,
  host: "",
  port: 587,
  security: "starttls",
  username: "",
  password: "",
  from: "",
  to: "",
  caCertificate: "",
  webhookUrl: "",
  botToken: "",
  chatId: "",
  url: "",
  secret: "",
  regenerateSecret: false,
};

const FIELDS = Object.keys(DEFAULTS) as Path<ChannelForm>[];

function toForm(c: AlertChannel): ChannelForm {
  const base = { ...DEFAULTS, kind: c.kind, name: c.name, enabled: c.enabled };
  if (c.kind === "email" && c.settings)
    return {
      ...base,
      ...c.settings,
      username: c.settings.username ?? "",
      to: c.settings.to.join(", "),
      caCertificate: c.settings.caCertificate ?? "",
    };
  if (c.kind === "telegram" && c.settings) return { ...base, chatId: c.settings.chatId };
  if (c.kind === "webhook" && c.settings) return { ...base, url: c.settings.url };
  return base;
}

/** The port that goes with a security choice, when the port was the other choice's usual one. */
const PORT_FOR: Record<string, number> = { tls: 465, starttls: 587 };

const SECRET_KEPT = "Leave empty to keep the stored one";

function EmailFields({ form, editing }: { form: UseFormReturn<ChannelForm>; editing: boolean }) {
  const { errors } = form.formState;
  return (
    <>
      <div className="grid items-start gap-4 sm:grid-cols-[1fr_7rem]">
        <FormField label="SMTP server" error={errors.host?.message}>
          {(c) => <Input {...c} placeholder="smtp.example.com" {...form.register("host")} />}
        </FormField>
        <FormField label="Port" error={errors.port?.message}>
          {(c) => (
            <Input {...c} type="number" inputMode="numeric" {...form.register("port", { valueAsNumber: true })} />
          )}
        </FormField>
      </div>
      <Controller
        control={form.control}
        name="security"
        render={({ field }) => (
          <SelectField
            label="Security"
            error={errors.security?.message}
            value={field.value}
            onValueChange={(v) => {
              const port = form.getValues("port");
              if (Object.values(PORT_FOR).includes(port) && PORT_FOR[v]) form.setValue("port", PORT_FOR[v] as number);
              field.onChange(v);
            }}
            options={EMAIL_SECURITY.map((s) => ({ value: s, label: EMAIL_SECURITY_LABELS[s] }))}
          />
        )}
      />
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="User name (optional)" error={errors.username?.message}>
          {(c) => <Input {...c} autoComplete="off" placeholder="alerts@example.com" {...form.register("username")} />}
        </FormField>
        <FormField label="Password" error={errors.password?.message}>
          {(c) => <SecretInput {...c} placeholder={editing ? SECRET_KEPT : undefined} {...form.register("password")} />}
        </FormField>
      </div>
      <FormField label="Sender address" error={errors.from?.message}>
        {(c) => <Input {...c} type="email" placeholder="pbx@example.com" {...form.register("from")} />}
      </FormField>
      <FormField label="Recipients (separated by commas)" error={errors.to?.message}>
        {(c) => <Input {...c} placeholder="ops@example.com, oncall@example.com" {...form.register("to")} />}
      </FormField>
      <FormField label="Trusted certificate (PEM, optional)" error={errors.caCertificate?.message}>
        {(c) => (
          <Textarea
            {...c}
            rows={3}
            spellCheck={false}
            className="max-h-40 font-mono text-xs md:text-xs"
            placeholder="For a server with its own certificate: -----BEGIN CERTIFICATE-----…"
            {...form.register("caCertificate")}
          />
        )}
      </FormField>
    </>
  );
}

function KindFields({ form, editing }: { form: UseFormReturn<ChannelForm>; editing: boolean }) {
  const { errors } = form.formState;
  switch (form.watch("kind")) {
    case "email":
      return <EmailFields form={form} editing={editing} />;
    case "slack":
      return (
        <FormField label="Incoming webhook URL" error={errors.webhookUrl?.message}>
          {(c) => (
            <SecretInput
              {...c}
              placeholder={editing ? SECRET_KEPT : "https://hooks.slack.com/services/…"}
              {...form.register("webhookUrl")}
            />
          )}
        </FormField>
      );
    case "telegram":
      return (
        <>
          <FormField label="Bot token" error={errors.botToken?.message}>
            {(c) => (
              <SecretInput
                {...c}
                placeholder={editing ? SECRET_KEPT : "123456789:AAE… from @BotFather"}
                {...form.register("botToken")}
              />
            )}
          </FormField>
          <FormField label="Chat ID" error={errors.chatId?.message}>
            {(c) => <Input {...c} placeholder="-1001234567890 or @channelname" {...form.register("chatId")} />}
          </FormField>
        </>
      );
    case "webhook":
      return (
        <>
          <FormField label="URL" error={errors.url?.message}>
            {(c) => (
              <Input {...c} type="url" placeholder="https://alerts.example.com/hooks/pbx" {...form.register("url")} />
            )}
          </FormField>
          {editing ? (
            <Controller
              control={form.control}
              name="regenerateSecret"
              render={({ field }) => (
                <SwitchField
                  label="Make a new signing secret"
                  description="The receiver must be given the new one: it is shown once, after saving."
                  checked={field.value}
                  onCheckedChange={field.onChange}
                />
              )}
            />
          ) : (
            <FormField label="Signing secret (optional)" error={errors.secret?.message}>
              {(c) => (
                <SecretInput {...c} placeholder="Leave empty to have one made (whsec_…)" {...form.register("secret")} />
              )}
            </FormField>
          )}
        </>
      );
  }
}

/**
 * The dialog, opened by the card: `editing` null creates. `onSaved` gets the answer (a made signing secret is
 * only in it).
 */
export function ChannelDialog({
  editing,
  onClose,
  onSaved,
}: {
  editing: AlertChannel | null;
  onClose: () => void;
  onSaved: (saved: SavedAlertChannel) => void;
}) {
  const dialog = useFormDialog({
    schema: (editing ? alertChannelUpdateSchema : alertChannelCreateSchema) as never,
    defaults: (editing ? toForm(editing) : DEFAULTS) as never,
    fields: FIELDS as never,
    draft: "reset-on-open",
    success: { create: "Alert channel created", edit: "Alert channel saved" },
    failure: { create: "Failed to create the alert channel", edit: "Failed to save the alert channel" },
    open: true,
    onClose,
    editing,
    toForm: toForm as never,
  });
  const form = dialog.form as unknown as UseFormReturn<ChannelForm>;
  const { errors } = form.formState;
  const ui = {
    onSuccess: (saved: SavedAlertChannel, vars: unknown) => {
      dialog.saved.onSuccess?.(saved, vars);
      if (saved.warning) toast({ title: "Saved, with a warning", description: saved.warning });
      onSaved(saved);
    },
    onError: dialog.saved.onError,
  };
  const create = useCreateAlertChannel(ui);
  const update = useUpdateAlertChannel(ui);
  const editingOne = editing !== null;

  return (
    <FormDialog
      dialog={dialog}
      title={editing ? `Edit ${editing.name}` : "Add Alert Channel"}
      description={
        editing
          ? "Secrets are never shown: leave a secret empty to keep it."
          : "Where alerts are sent. Send a test from the list once it is saved."
      }
      submitLabel={editing ? "Save Changes" : "Create Channel"}
      onSubmit={dialog.submit((values: FieldValues) =>
        editing
          ? update.mutate({ ...(values as AlertChannelUpdate), id: editing.id })
          : create.mutate(values as AlertChannelCreate),
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
              options={ALERT_CHANNEL_KINDS.map((k) => ({ value: k, label: ALERT_CHANNEL_KIND_LABELS[k] }))}
            />
          )}
        />
        <FormField label="Name" error={errors.name?.message}>
          {(c) => <Input {...c} placeholder="Ops on-call" autoFocus {...form.register("name")} />}
        </FormField>
      </div>
      <KindFields form={form} editing={editingOne} />
      <Controller
        control={form.control}
        name="enabled"
        render={({ field }) => (
          <SwitchField
            label="Enabled"
            description="A disabled channel gets no alerts; Send test still works."
            checked={field.value}
            onCheckedChange={field.onChange}
          />
        )}
      />
    </FormDialog>
  );
}
