import { type ReactNode, useState } from "react";
import { Controller, useWatch } from "react-hook-form";
import { z } from "zod";
import { ControlledSelect, SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { cn } from "@/lib/utils";
import {
  type Trunk,
  type TrunkAuthMode,
  trunkAuthTypes,
  trunkSchema,
  trunkTypeDeployProblem,
  trunkTypes,
} from "../../../shared/inventory";
import { type NewTrunk, useCreateTrunk, useUpdateTrunk } from "./api";

type TrunkInput = z.input<typeof trunkSchema>;
type TrunkOutput = z.output<typeof trunkSchema>;

/** A new trunk: port 5060, authentication with credentials (outbound), every switch off. */
const DEFAULTS: TrunkInput = {
  name: "",
  type: "sip",
  host: "",
  port: 5060,
  authMode: "credentials",
  username: "",
  secret: "",
  providerAddresses: [],
  fromDomain: "",
  fromUser: "",
  contactUser: "",
  authType: "outbound",
  registrationEnabled: false,
  rewriteContact: false,
  trustRpid: false,
  sendRpid: false,
};

const FIELDS = [
  "name",
  "type",
  "host",
  "port",
  "authMode",
  "username",
  "secret",
  "providerAddresses",
  "fromDomain",
  "fromUser",
  "contactUser",
  "authType",
  "registrationEnabled",
  "rewriteContact",
  "trustRpid",
  "sendRpid",
] as const;

const REGISTRATION = {
  name: "registrationEnabled",
  label: "Registration",
  description: "Register with the provider",
} as const;
const SWITCHES = [
  { name: "rewriteContact", label: "Rewrite contact", description: "Fix the Contact header behind NAT" },
  { name: "trustRpid", label: "Trust RPID", description: "Accept the caller ID the provider sends" },
  { name: "sendRpid", label: "Send RPID", description: "Send our caller ID to the provider" },
] as const;

const TYPE_OPTIONS = trunkTypes.map((t) => ({ value: t, label: t.toUpperCase() }));
const AUTH_LABELS: Record<(typeof trunkAuthTypes)[number], string> = {
  outbound: "Outbound",
  inbound: "Inbound",
  both: "Both",
};
const AUTH_OPTIONS = trunkAuthTypes.map((t) => ({ value: t, label: AUTH_LABELS[t] }));

/** The two ways a provider and the PBX trust each other (FreePBX: authentication/registration vs none + match). */
const AUTH_MODES: { value: TrunkAuthMode; label: string; description: string }[] = [
  {
    value: "credentials",
    label: "Username and secret",
    description: "The provider gave you a login: the PBX authenticates with it, and registers when Registration is on.",
  },
  {
    value: "ip",
    label: "IP address",
    description:
      "The provider trusts your PBX's address: no login and no registration; its calls are recognised by its addresses.",
  },
];

/** Addresses typed one per line (or separated by commas or spaces). */
const addressList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** The provider's addresses: the text as typed, the list in the form. */
function AddressesInput({
  value,
  onChange,
  ...control
}: {
  value: string[] | undefined;
  onChange: (v: string[]) => void;
  id: string;
  "aria-invalid": boolean;
  "aria-describedby"?: string;
}) {
  const [text, setText] = useState(() => (value ?? []).join("\n"));
  // A reset (the dialog reopened with its defaults, or with the trunk being edited): follow it.
  const list = value ?? [];
  const typed = addressList(text);
  if (typed.length !== list.length || typed.some((a, i) => a !== list[i])) setText(list.join("\n"));
  return (
    <Textarea
      {...control}
      rows={3}
      placeholder={"203.0.113.10\n198.51.100.0/24"}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onChange(addressList(e.target.value));
      }}
    />
  );
}

/** Empty means "no port" (absent from the body); anything else is read as a number for the schema to judge. */
const portValue = (v: unknown) => (v === "" || v == null ? undefined : Number(v));

/** The create body: everything but the status, which is the server's business. */
const toBody = ({ status: _status, ...body }: TrunkOutput): NewTrunk => body;

/** The trunk being edited as the form's values; the secret stays blank (blank keeps the stored one). */
const toForm = (t: Trunk): TrunkInput => ({
  name: t.name,
  type: t.type,
  host: t.host,
  port: t.port,
  authMode: t.authMode,
  username: t.username ?? "",
  secret: "",
  providerAddresses: t.providerAddresses,
  fromDomain: t.fromDomain ?? "",
  fromUser: t.fromUser ?? "",
  contactUser: t.contactUser ?? "",
  authType: t.authType,
  registrationEnabled: t.registrationEnabled,
  rewriteContact: t.rewriteContact,
  trustRpid: t.trustRpid,
  sendRpid: t.sendRpid,
});

/** Stands for the stored secret while the edit form validates (its credential rule needs one); never sent. */
const KEPT_SECRET = "kept-stored-secret";
/**
 * The edit form's schema: the create schema, where a blank secret means "keep the stored one" when the
 * trunk has one (the server does the same: a blank secret keeps the stored sealed secret).
 */
const keepingSecret = (hasSecret: boolean) =>
  (hasSecret
    ? z
        .preprocess(
          (v) => (v && typeof v === "object" && !(v as TrunkInput).secret ? { ...v, secret: KEPT_SECRET } : v),
          trunkSchema,
        )
        .transform((t) => ({ ...t, secret: t.secret === KEPT_SECRET ? null : t.secret }))
    : trunkSchema) as unknown as typeof trunkSchema;

function Section({ title, columns, children }: { title: string; columns: 2 | 3; children: ReactNode }) {
  return (
    <fieldset className={cn("grid items-start gap-4", columns === 2 ? "sm:grid-cols-2" : "sm:grid-cols-3")}>
      <legend className="mb-3 font-medium text-muted-foreground text-xs uppercase tracking-wide">{title}</legend>
      {children}
    </fieldset>
  );
}

/**
 * "Add Trunk", or with `editing` "Edit Trunk": the same form prefilled from the trunk (the card opens it
 * and closes it with `onClose`); a blank secret keeps the stored one, and the save is optimistic.
 */
export function AddTrunkDialog({ editing, onClose }: { editing?: Trunk; onClose?: () => void } = {}) {
  const dialog = useFormDialog({
    schema: editing ? keepingSecret(editing.hasSecret) : trunkSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Trunk created", edit: "Trunk saved" },
    failure: { create: "Failed to create trunk.", edit: "Failed to save trunk." },
    failureDetail: editing ? "server" : "form",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const create = useCreateTrunk(dialog.saved);
  const update = useUpdateTrunk(dialog.saved);
  const type = useWatch({ control: form.control, name: "type" });
  const typeNotice = type ? trunkTypeDeployProblem(type) : null;
  const authMode = useWatch({ control: form.control, name: "authMode" }) ?? "credentials";
  const addressError =
    errors.providerAddresses?.message ??
    (Array.isArray(errors.providerAddresses) ? errors.providerAddresses.find((e) => e?.message)?.message : undefined);
  const switches = authMode === "credentials" ? [REGISTRATION, ...SWITCHES] : SWITCHES;

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Trunk"}
      title={editing ? "Edit Trunk" : "Add Trunk"}
      description={
        editing ? `Change how the PBX connects to ${editing.name}.` : "Connect the PBX to a SIP, IAX or DAHDI carrier."
      }
      submitLabel={editing ? "Save Changes" : "Create Trunk"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...toBody(values), id: editing.id }) : create.mutate(toBody(values)),
      )}
      pending={create.isPending || update.isPending}
      wide
    >
      <Section title="Connection" columns={2}>
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="Telnyx" autoFocus {...form.register("name")} />}
        </FormField>
        <ControlledSelect
          control={form.control}
          name="type"
          label="Type"
          error={errors.type?.message}
          options={TYPE_OPTIONS}
        />
        {typeNotice && (
          <p className="text-muted-foreground text-sm sm:col-span-2" data-testid="trunk-type-notice">
            {typeNotice}. The console keeps it as a record.
          </p>
        )}
        <FormField label="Host" error={errors.host?.message}>
          {(control) => <Input {...control} placeholder="sip.example.com" {...form.register("host")} />}
        </FormField>
        <FormField label="Port" error={errors.port?.message}>
          {(control) => (
            <Input
              {...control}
              type="number"
              inputMode="numeric"
              min={1}
              max={65535}
              placeholder="5060"
              {...form.register("port", { setValueAs: portValue })}
            />
          )}
        </FormField>
      </Section>

      <fieldset className="grid gap-2" aria-describedby="trunk-auth-mode-help">
        <legend className="mb-1 font-medium text-muted-foreground text-xs uppercase tracking-wide">
          Authentication
        </legend>
        <div role="radiogroup" aria-label="Authentication" className="grid gap-2 sm:grid-cols-2">
          {AUTH_MODES.map((m) => (
            <label
              key={m.value}
              className={cn(
                "flex cursor-pointer items-start gap-3 rounded-md border p-3 text-sm",
                authMode === m.value && "border-primary bg-primary/5",
              )}
            >
              <input
                type="radio"
                value={m.value}
                className="mt-1 accent-primary"
                aria-describedby={`trunk-auth-${m.value}`}
                {...form.register("authMode")}
              />
              <span className="grid gap-1">
                <span className="font-medium">{m.label}</span>
                <span id={`trunk-auth-${m.value}`} className="text-muted-foreground text-xs">
                  {m.description}
                </span>
              </span>
            </label>
          ))}
        </div>
        <p id="trunk-auth-mode-help" className="sr-only">
          Choose how the provider and the PBX trust each other.
        </p>
      </fieldset>

      {authMode === "credentials" ? (
        <Section title="Credentials" columns={3}>
          <FormField label="Username" error={errors.username?.message}>
            {(control) => <Input {...control} autoComplete="off" {...form.register("username")} />}
          </FormField>
          <FormField label="Secret" error={errors.secret?.message}>
            {(control) => (
              <Input
                {...control}
                type="password"
                autoComplete="new-password"
                placeholder={editing?.hasSecret ? "Leave blank to keep the current secret" : undefined}
                {...form.register("secret")}
              />
            )}
          </FormField>
          <ControlledSelect
            control={form.control}
            name="authType"
            label="Auth type"
            error={errors.authType?.message}
            options={AUTH_OPTIONS}
            fallback="outbound"
          />
        </Section>
      ) : (
        <Section title="Provider addresses" columns={2}>
          <FormField label="Provider addresses" error={addressError}>
            {(control) => (
              <Controller
                control={form.control}
                name="providerAddresses"
                render={({ field }) => <AddressesInput {...control} value={field.value} onChange={field.onChange} />}
              />
            )}
          </FormField>
          <p className="text-muted-foreground text-sm">
            The addresses the provider's calls come from: IP addresses, networks (198.51.100.0/24) or host names, one
            per line. Left empty, calls are matched by the host above.
          </p>
        </Section>
      )}

      <Section title="Advanced" columns={3}>
        <FormField label="From domain" error={errors.fromDomain?.message}>
          {(control) => <Input {...control} {...form.register("fromDomain")} />}
        </FormField>
        <FormField label="From user" error={errors.fromUser?.message}>
          {(control) => <Input {...control} {...form.register("fromUser")} />}
        </FormField>
        <FormField label="Contact user" error={errors.contactUser?.message}>
          {(control) => <Input {...control} {...form.register("contactUser")} />}
        </FormField>
      </Section>

      <div className="grid gap-3 sm:grid-cols-2">
        {switches.map((s) => (
          <Controller
            key={s.name}
            control={form.control}
            name={s.name}
            render={({ field }) => (
              <SwitchField
                label={s.label}
                description={s.description}
                checked={field.value ?? false}
                onCheckedChange={field.onChange}
              />
            )}
          />
        ))}
      </div>
    </FormDialog>
  );
}
