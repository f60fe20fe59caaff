import type { ReactNode } from "react";
import { Controller } from "react-hook-form";
import type { z } from "zod";
import { ControlledSelect, SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { cn } from "@/lib/utils";
import { trunkAuthTypes, trunkSchema, trunkTypes } from "../../../shared/inventory";
import { type NewTrunk, useCreateTrunk } from "./api";

type TrunkInput = z.input<typeof trunkSchema>;
type TrunkOutput = z.output<typeof trunkSchema>;

/** A new trunk: port 5060, outbound authentication, every switch off. */
const DEFAULTS: TrunkInput = {
  name: "",
  type: "sip",
  host: "",
  port: 5060,
  username: "",
  secret: "",
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
  "username",
  "secret",
  "fromDomain",
  "fromUser",
  "contactUser",
  "authType",
  "registrationEnabled",
  "rewriteContact",
  "trustRpid",
  "sendRpid",
] as const;

const SWITCHES = [
  { name: "registrationEnabled", label: "Registration", description: "Register with the provider" },
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

/** Empty means "no port" (absent from the body); anything else is read as a number for the schema to judge. */
const portValue = (v: unknown) => (v === "" || v == null ? undefined : Number(v));

/** The create body: everything but the status, which is the server's business. */
const toBody = ({ status: _status, ...body }: TrunkOutput): NewTrunk => body;

function Section({ title, columns, children }: { title: string; columns: 2 | 3; children: ReactNode }) {
  return (
    <fieldset className={cn("grid items-start gap-4", columns === 2 ? "sm:grid-cols-2" : "sm:grid-cols-3")}>
      <legend className="mb-3 font-medium text-muted-foreground text-xs uppercase tracking-wide">{title}</legend>
      {children}
    </fieldset>
  );
}

export function AddTrunkDialog() {
  const dialog = useFormDialog({
    schema: trunkSchema,
    defaults: DEFAULTS,
    fields: FIELDS,
    draft: "keep",
    success: "Trunk created",
    failure: "Failed to create trunk.",
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const create = useCreateTrunk(dialog.saved);

  return (
    <FormDialog
      dialog={dialog}
      trigger="Add Trunk"
      title="Add Trunk"
      description="Connect the PBX to a SIP, IAX or DAHDI carrier."
      submitLabel="Create Trunk"
      onSubmit={dialog.submit((values) => create.mutate(toBody(values)))}
      pending={create.isPending}
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

      <Section title="Authentication" columns={3}>
        <FormField label="Username" error={errors.username?.message}>
          {(control) => <Input {...control} autoComplete="off" {...form.register("username")} />}
        </FormField>
        <FormField label="Secret" error={errors.secret?.message}>
          {(control) => <Input {...control} type="password" autoComplete="new-password" {...form.register("secret")} />}
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
        {SWITCHES.map((s) => (
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
