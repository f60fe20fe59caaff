import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Plus, X } from "lucide-react";
import { useMemo, useState } from "react";
import { Controller, useWatch } from "react-hook-form";
import type { z } from "zod";
import { DestinationField } from "@/components/destination-picker";
import { SelectField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { MemberPicker } from "@/components/member-picker";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { extensionsQuery } from "@/features/extensions/api";
import {
  type Extension,
  isExternalMember,
  RING_STRATEGIES,
  RING_TIME,
  type RingGroup,
  ringGroupSchema,
  ringMemberProblem,
} from "../../../shared/inventory";
import { byNumber } from "../../../shared/sort";
import { useCreateRingGroup, useUpdateRingGroup } from "./api";
import { STRATEGY_TEXT } from "./strategies";

type RingInput = z.input<typeof ringGroupSchema>;

const DEFAULTS: RingInput = {
  name: "",
  number: "",
  strategy: "ringall",
  ringTime: RING_TIME.default,
  members: [],
  noAnswer: null,
};
const FIELDS = ["name", "number", "strategy", "ringTime", "members", "noAnswer.kind", "noAnswer.target"] as const;

const toForm = (g: RingGroup): RingInput => ({
  name: g.name,
  number: g.number,
  strategy: g.strategy,
  ringTime: g.ringTime,
  members: g.members,
  noAnswer: g.noAnswer,
});

const STRATEGY_OPTIONS = RING_STRATEGIES.map((s) => ({ value: s, label: STRATEGY_TEXT[s] }));
/** "none": FreePBX ends an unanswered call (an empty postdest). */
/** The external numbers of a group (FreePBX writes them with a trailing `#`), typed one at a time. */
function ExternalNumbers({ value, onChange }: { value: string[]; onChange: (numbers: string[]) => void }) {
  const [draft, setDraft] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const add = () => {
    const digits = draft.trim().replace(/#$/, "");
    const member = `${digits}#`;
    const p = digits ? ringMemberProblem(member) : "Enter a number";
    if (p) return setProblem(p);
    if (!value.includes(member)) onChange([...value, member]);
    setDraft("");
    setProblem(null);
  };
  return (
    <div className="grid gap-2">
      <FormField label="External number" error={problem ?? undefined}>
        {(control) => (
          <div className="flex gap-2">
            <Input
              {...control}
              inputMode="tel"
              placeholder="5551234 (dialled out through the outbound routes)"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter") {
                  e.preventDefault();
                  add();
                }
              }}
            />
            <Button type="button" variant="outline" onClick={add}>
              <Plus aria-hidden /> Add
            </Button>
          </div>
        )}
      </FormField>
      {value.length > 0 && (
        <ul aria-label="External numbers" className="flex flex-wrap gap-1.5">
          {value.map((m) => (
            <li key={m}>
              <Badge variant="outline" className="gap-1 font-mono">
                {m.slice(0, -1)}
                <button
                  type="button"
                  aria-label={`Remove ${m.slice(0, -1)}`}
                  className="rounded-sm hover:text-destructive"
                  onClick={() => onChange(value.filter((x) => x !== m))}
                >
                  <X className="size-3" aria-hidden />
                </button>
              </Badge>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * "Add Ring Group", or with `editing` "Edit Ring Group": the same form prefilled (the card opens it and closes
 * it with `onClose`); the save is optimistic. Members are the extensions picked (in the picker's order) and
 * the external numbers typed; `extensions`: the candidates, sorted numerically; undefined while loading.
 */
export function AddRingGroupDialog({
  extensions,
  editing,
  onClose,
}: {
  extensions: Extension[] | undefined;
  editing?: RingGroup;
  onClose?: () => void;
}) {
  const dialog = useFormDialog({
    schema: ringGroupSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Ring Group created", edit: "Ring Group saved" },
    failure: { create: "Failed to create ring group.", edit: "Failed to save ring group." },
    failureDetail: editing ? "server" : "form",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const members = useWatch({ control: form.control, name: "members" }) ?? [];
  const create = useCreateRingGroup(dialog.saved);
  const update = useUpdateRingGroup(dialog.saved);
  const options = useMemo(
    () => extensions?.map((ext) => ({ value: ext.extension, label: `${ext.extension} - ${ext.name}` })),
    [extensions],
  );
  const memberError =
    errors.members?.message ??
    (Array.isArray(errors.members) ? errors.members.find((e) => e?.message)?.message : undefined);
  const _noAnswerErrors = errors.noAnswer as { kind?: { message?: string }; target?: { message?: string } } | undefined;

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Ring Group"}
      title={editing ? "Edit Ring Group" : "Add Ring Group"}
      description="Dial the group's number to ring its members; an unanswered call goes to the destination below."
      submitLabel={editing ? "Save Changes" : "Create Group"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate(values),
      )}
      pending={create.isPending || update.isPending}
      canSubmit={members.length > 0}
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="Sales" autoFocus {...form.register("name")} />}
        </FormField>
        <FormField label="Number" error={errors.number?.message}>
          {(control) => <Input {...control} inputMode="numeric" placeholder="600" {...form.register("number")} />}
        </FormField>
        <Controller
          control={form.control}
          name="strategy"
          render={({ field }) => (
            <SelectField
              label="Strategy"
              error={errors.strategy?.message}
              value={field.value ?? "ringall"}
              onValueChange={field.onChange}
              options={STRATEGY_OPTIONS}
            />
          )}
        />
        <FormField label="Ring time (seconds)" error={errors.ringTime?.message}>
          {(control) => (
            <Input
              {...control}
              type="number"
              inputMode="numeric"
              min={RING_TIME.min}
              max={RING_TIME.max}
              {...form.register("ringTime", { valueAsNumber: true })}
            />
          )}
        </FormField>
      </div>
      <Controller
        control={form.control}
        name="members"
        render={({ field }) => {
          const value = field.value ?? [];
          const picked = value.filter((m) => !isExternalMember(m));
          const external = value.filter(isExternalMember);
          return (
            <div className="grid gap-3">
              <MemberPicker
                legend="Members"
                options={options}
                value={picked}
                onChange={(next) => field.onChange([...[...next].sort(byNumber), ...external])}
                error={memberError}
                searchLabel="Search extensions by number or name"
                empty={
                  <p className="rounded-md border border-dashed p-3 text-muted-foreground text-sm">
                    No extensions yet.{" "}
                    <Link to="/extensions" className="text-primary underline-offset-4 hover:underline">
                      Create extensions
                    </Link>{" "}
                    first, or add external numbers.
                  </p>
                }
              />
              <ExternalNumbers value={external} onChange={(next) => field.onChange([...picked, ...next])} />
            </div>
          );
        }}
      />
      <DestinationField form={form} name="noAnswer" label="If no one answers" />
    </FormDialog>
  );
}

/** The card's edit dialog: the member candidates come from the extension list (cached by the screen). */
export function EditRingGroupDialog({ group, onClose }: { group: RingGroup; onClose: () => void }) {
  const extensions = useQuery({
    ...extensionsQuery(),
    select: (list: Extension[]) => [...list].sort((a, b) => byNumber(a.extension, b.extension)),
  }).data;
  return <AddRingGroupDialog extensions={extensions} editing={group} onClose={onClose} />;
}
