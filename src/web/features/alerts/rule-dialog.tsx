/**
 * "Add Rule", or with `editing` "Edit Rule": a rule's name, what it watches, the fields that kind takes (a
 * trunk and seconds, a percent, days, a count within minutes…), how often it repeats and its channels. Choosing
 * another kind starts its fields from that kind's defaults.
 */
import { useQuery } from "@tanstack/react-query";
import { Controller, type Path } from "react-hook-form";
import type { z } from "zod";
import { SelectField, SwitchField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { Checkbox } from "@/components/ui/checkbox";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { alertChannelsQuery } from "@/features/alert-channels/api";
import { testCallsQuery } from "@/features/test-calls/api";
import { ALERT_CHANNEL_KIND_LABELS } from "../../../shared/alert-channels";
import {
  ALERT_KIND_TEXT,
  ALERT_KINDS,
  ALERT_LIMITS,
  type AlertKind,
  type AlertRule,
  alertRuleSchema,
} from "../../../shared/alerts";
import { useCreateAlertRule, useUpdateAlertRule } from "./api";

type RuleForm = z.input<typeof alertRuleSchema>;

interface ParamField {
  key: string;
  label: string;
  type: "number" | "text" | "test-call";
  placeholder?: string;
  hint?: string;
}

const seconds = (hint: string): ParamField => ({
  key: "seconds",
  label: "For at least (seconds)",
  type: "number",
  hint,
});
const percent: ParamField = { key: "percent", label: "Percent", type: "number", hint: "Fires at this use or more." };

/** Each kind's fields, in the dialog's order. */
const PARAM_FIELDS: Record<AlertKind, ParamField[]> = {
  "trunk-unregistered": [
    { key: "trunk", label: "Trunk", type: "text", placeholder: "Every trunk", hint: "Empty: every registering trunk." },
    seconds("How long it stays unregistered before the alert fires."),
  ],
  "extension-offline": [
    {
      key: "extension",
      label: "Extension",
      type: "text",
      placeholder: "Every extension",
      hint: "Empty: every extension of this console that is on the PBX.",
    },
    seconds("How long no phone is registered before the alert fires."),
  ],
  "ami-unreachable": [seconds("How long the manager interface is away before the alert fires.")],
  "cdr-unreachable": [seconds("How long the database does not answer before the alert fires.")],
  "disk-usage": [percent, seconds("How long the disk stays that full (0: at once).")],
  "memory-usage": [percent, seconds("How long memory stays that full (0: at once).")],
  "backup-failed": [],
  "certificate-expiring": [
    { key: "days", label: "Days ahead", type: "number", hint: "Fires this many days before TLS_CERT expires." },
  ],
  "failed-sign-ins": [
    { key: "count", label: "Failed sign-ins", type: "number", hint: "Fires at this many or more…" },
    { key: "minutes", label: "Within (minutes)", type: "number", hint: "…within this many minutes." },
  ],
  "sip-attack": [
    { key: "count", label: "Failed SIP sign-ins", type: "number", hint: "Fires at this many or more…" },
    { key: "minutes", label: "Within (minutes)", type: "number", hint: "…within this many minutes (at most 60)." },
  ],
  "test-call-failed": [{ key: "testCallId", label: "Test call", type: "test-call" }],
};

const ALL_PARAM_KEYS = [...new Set(Object.values(PARAM_FIELDS).flatMap((fields) => fields.map((f) => f.key)))];
const FIELDS = [
  "name",
  "kind",
  "channelIds",
  "repeatMinutes",
  "enabled",
  ...ALL_PARAM_KEYS.map((k) => `params.${k}`),
] as Path<RuleForm>[];

/** A kind's parameters with their defaults (text fields as "" for the inputs). */
function defaultsOf(kind: AlertKind): Record<string, unknown> {
  const parsed = alertRuleSchema.safeParse({ name: "defaults", kind });
  const params = (parsed.success ? parsed.data.params : {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v === null && k !== "testCallId" ? "" : v]));
}

const DEFAULTS: RuleForm = {
  name: "",
  kind: "extension-offline",
  params: defaultsOf("extension-offline") as never,
  channelIds: [],
  repeatMinutes: ALERT_LIMITS.repeatMinutes.default,
  enabled: true,
};

const toForm = (r: AlertRule): RuleForm =>
  ({
    name: r.name,
    kind: r.kind,
    params: Object.fromEntries(
      Object.entries(r.params).map(([k, v]) => [k, v === null && k !== "testCallId" ? "" : v]),
    ),
    channelIds: r.channelIds,
    repeatMinutes: r.repeatMinutes,
    enabled: r.enabled,
  }) as RuleForm;

const KIND_OPTIONS = ALERT_KINDS.map((k) => ({ value: k, label: ALERT_KIND_TEXT[k].label }));

export function RuleDialog({ editing, onClose }: { editing?: AlertRule; onClose?: () => void }) {
  const dialog = useFormDialog({
    schema: alertRuleSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Alert rule created", edit: "Alert rule saved" },
    failure: { create: "Failed to create the alert rule.", edit: "Failed to save the alert rule." },
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const paramErrors = (errors as { params?: Record<string, { message?: string } | undefined> }).params;
  const create = useCreateAlertRule(dialog.saved);
  const update = useUpdateAlertRule(dialog.saved);
  const channels = useQuery(alertChannelsQuery());
  const kind = form.watch("kind") as AlertKind;
  const fields = PARAM_FIELDS[kind] ?? [];
  const needsTestCalls = kind === "test-call-failed";
  const testCalls = useQuery({ ...testCallsQuery(), enabled: dialog.open && needsTestCalls });

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Rule"}
      minRole="admin"
      wide
      title={editing ? "Edit Alert Rule" : "Add Alert Rule"}
      description="What to watch, how long it must last, and where the alert goes."
      submitLabel={editing ? "Save Changes" : "Create Rule"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate(values),
      )}
      pending={create.isPending || update.isPending}
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="Carrier down" autoFocus {...form.register("name")} />}
        </FormField>
        <Controller
          control={form.control}
          name="kind"
          render={({ field }) => (
            <SelectField
              label="Watches"
              value={String(field.value)}
              onValueChange={(value) => {
                field.onChange(value);
                form.setValue("params", defaultsOf(value as AlertKind) as never);
                form.clearErrors("params");
              }}
              options={KIND_OPTIONS}
              error={errors.kind?.message}
            />
          )}
        />
      </div>
      <p className="-mt-2 text-muted-foreground text-sm" data-testid="kind-description">
        {ALERT_KIND_TEXT[kind]?.description}
      </p>
      {fields.length > 0 && (
        <div className="grid items-start gap-4 sm:grid-cols-2" data-testid="rule-params">
          {fields.map((f) => {
            const name = `params.${f.key}` as Path<RuleForm>;
            const error = paramErrors?.[f.key]?.message;
            if (f.type === "test-call") {
              return (
                <Controller
                  key={`${kind}-${f.key}`}
                  control={form.control}
                  name={name}
                  render={({ field }) => (
                    <SelectField
                      label={f.label}
                      value={field.value === null || field.value === undefined ? "all" : String(field.value)}
                      onValueChange={(v) => field.onChange(v === "all" ? null : Number(v))}
                      options={[
                        { value: "all", label: "Every test call" },
                        ...(testCalls.data ?? []).map((t) => ({ value: String(t.id), label: t.name })),
                      ]}
                      error={error}
                    />
                  )}
                />
              );
            }
            return (
              <FormField key={`${kind}-${f.key}`} label={f.label} error={error}>
                {(control) => (
                  <>
                    <Input
                      {...control}
                      type={f.type === "number" ? "number" : "text"}
                      inputMode={f.type === "number" ? "numeric" : undefined}
                      placeholder={f.placeholder}
                      aria-describedby={
                        [control["aria-describedby"], f.hint ? `${control.id}-hint` : undefined]
                          .filter(Boolean)
                          .join(" ") || undefined
                      }
                      {...form.register(name, f.type === "number" ? { valueAsNumber: true } : {})}
                    />
                    {f.hint && (
                      <p id={`${control.id}-hint`} className="text-muted-foreground text-xs">
                        {f.hint}
                      </p>
                    )}
                  </>
                )}
              </FormField>
            );
          })}
        </div>
      )}
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="Repeat every (minutes)" error={errors.repeatMinutes?.message}>
          {(control) => (
            <>
              <Input
                {...control}
                type="number"
                inputMode="numeric"
                aria-describedby={[control["aria-describedby"], `${control.id}-hint`].filter(Boolean).join(" ")}
                {...form.register("repeatMinutes", { valueAsNumber: true })}
              />
              <p id={`${control.id}-hint`} className="text-muted-foreground text-xs">
                While the alert lasts; 0 sends it once.
              </p>
            </>
          )}
        </FormField>
        <Controller
          control={form.control}
          name="enabled"
          render={({ field }) => (
            <SwitchField
              label="Enabled"
              description="A rule turned off ends its alerts."
              checked={field.value ?? true}
              onCheckedChange={field.onChange}
            />
          )}
        />
      </div>
      <Controller
        control={form.control}
        name="channelIds"
        render={({ field }) => {
          const chosen = new Set((field.value ?? []) as number[]);
          const list = channels.data ?? [];
          return (
            <fieldset className="grid gap-2" aria-describedby={errors.channelIds ? "rule-channels-error" : undefined}>
              <legend className="mb-1 font-medium text-sm">Send to</legend>
              {list.length === 0 ? (
                <p className="text-muted-foreground text-sm">
                  No channels yet: the alert is kept in the history only. Add a channel on this screen.
                </p>
              ) : (
                <ul className="grid gap-2 sm:grid-cols-2">
                  {list.map((c) => {
                    const id = `rule-channel-${c.id}`;
                    return (
                      <li key={c.id} className="flex items-center gap-2">
                        <Checkbox
                          id={id}
                          checked={chosen.has(c.id)}
                          onCheckedChange={(on) => {
                            const next = new Set(chosen);
                            if (on === true) next.add(c.id);
                            else next.delete(c.id);
                            field.onChange(list.map((x) => x.id).filter((x) => next.has(x)));
                          }}
                        />
                        <Label htmlFor={id} className="font-normal">
                          {c.name}{" "}
                          <span className="text-muted-foreground text-xs">({ALERT_CHANNEL_KIND_LABELS[c.kind]})</span>
                        </Label>
                      </li>
                    );
                  })}
                </ul>
              )}
              {errors.channelIds?.message && (
                <p id="rule-channels-error" className="text-destructive text-sm">
                  {errors.channelIds.message}
                </p>
              )}
            </fieldset>
          );
        }}
      />
    </FormDialog>
  );
}
