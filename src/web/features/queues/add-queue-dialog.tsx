import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useMemo } from "react";
import { Controller, useWatch } from "react-hook-form";
import type { z } from "zod";
import { DestinationField } from "@/components/destination-picker";
import { SelectField } from "@/components/form-fields";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { MemberPicker } from "@/components/member-picker";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { extensionsQuery } from "@/features/extensions/api";
import { type Extension, QUEUE_MAX_WAITS, QUEUE_STRATEGIES, type Queue, queueSchema } from "../../../shared/inventory";
import { byNumber } from "../../../shared/sort";
import { useCreateQueue, useUpdateQueue } from "./api";
import { maxWaitText, STRATEGY_TEXT } from "./strategies";

type QueueInput = z.input<typeof queueSchema>;

const DEFAULTS: QueueInput = {
  name: "",
  number: "",
  strategy: "ringall",
  agents: [],
  maxWait: 0,
  timeoutDestination: null,
};
const FIELDS = [
  "name",
  "number",
  "strategy",
  "agents",
  "maxWait",
  "timeoutDestination.kind",
  "timeoutDestination.target",
] as const;

const toForm = (q: Queue): QueueInput => ({
  name: q.name,
  number: q.number,
  strategy: q.strategy,
  agents: q.agents,
  maxWait: q.maxWait,
  timeoutDestination: q.timeoutDestination,
});

const STRATEGY_OPTIONS = QUEUE_STRATEGIES.map((s) => ({ value: s, label: STRATEGY_TEXT[s] }));
/** FreePBX's form offers these times only (shared QUEUE_MAX_WAITS). */
const MAX_WAIT_OPTIONS = QUEUE_MAX_WAITS.map((s) => ({ value: String(s), label: maxWaitText(s) }));
/** "none": FreePBX ends the call of a caller who waited too long (an empty dest). */
/**
 * "Add Queue", or with `editing` "Edit Queue": the same form prefilled (the card opens it and closes it with
 * `onClose`); the save is optimistic. Agents are the extensions picked; `extensions`: the candidates, sorted
 * numerically; undefined while loading.
 */
export function AddQueueDialog({
  extensions,
  editing,
  onClose,
}: {
  extensions: Extension[] | undefined;
  editing?: Queue;
  onClose?: () => void;
}) {
  const dialog = useFormDialog({
    schema: queueSchema,
    defaults: editing ? toForm(editing) : DEFAULTS,
    fields: FIELDS,
    draft: editing ? "reset-on-open" : "keep",
    success: { create: "Queue created", edit: "Queue saved" },
    failure: { create: "Failed to create queue.", edit: "Failed to save queue." },
    failureDetail: editing ? "server" : "form",
    ...(editing ? { open: true, onClose, editing, toForm } : {}),
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const agents = useWatch({ control: form.control, name: "agents" }) ?? [];
  const create = useCreateQueue(dialog.saved);
  const update = useUpdateQueue(dialog.saved);
  const options = useMemo(
    () => extensions?.map((ext) => ({ value: ext.extension, label: `${ext.extension} - ${ext.name}` })),
    [extensions],
  );
  const agentError =
    errors.agents?.message ??
    (Array.isArray(errors.agents) ? errors.agents.find((e) => e?.message)?.message : undefined);
  const _timeoutErrors = errors.timeoutDestination as
    | { kind?: { message?: string }; target?: { message?: string } }
    | undefined;

  return (
    <FormDialog
      dialog={dialog}
      trigger={editing ? undefined : "Add Queue"}
      title={editing ? "Edit Queue" : "Add Queue"}
      description="Callers to the queue's number wait for one of its agents; after the max wait they go to the destination below."
      submitLabel={editing ? "Save Changes" : "Create Queue"}
      onSubmit={dialog.submit((values) =>
        editing ? update.mutate({ ...values, id: editing.id }) : create.mutate(values),
      )}
      pending={create.isPending || update.isPending}
      canSubmit={agents.length > 0}
    >
      <div className="grid items-start gap-4 sm:grid-cols-2">
        <FormField label="Name" error={errors.name?.message}>
          {(control) => <Input {...control} placeholder="Support" autoFocus {...form.register("name")} />}
        </FormField>
        <FormField label="Number" error={errors.number?.message}>
          {(control) => <Input {...control} inputMode="numeric" placeholder="400" {...form.register("number")} />}
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
        <Controller
          control={form.control}
          name="maxWait"
          render={({ field }) => (
            <SelectField
              label="Max wait"
              error={errors.maxWait?.message}
              value={String(field.value ?? 0)}
              onValueChange={(v) => field.onChange(Number(v))}
              options={MAX_WAIT_OPTIONS}
            />
          )}
        />
      </div>
      <Controller
        control={form.control}
        name="agents"
        render={({ field }) => (
          <MemberPicker
            legend="Agents"
            options={options}
            value={field.value ?? []}
            onChange={(next) => field.onChange([...next].sort(byNumber))}
            error={agentError}
            searchLabel="Search extensions by number or name"
            empty={
              <p className="rounded-md border border-dashed p-3 text-muted-foreground text-sm">
                No extensions yet.{" "}
                <Link to="/extensions" className="text-primary underline-offset-4 hover:underline">
                  Create extensions
                </Link>{" "}
                first: a queue's agents are extensions.
              </p>
            }
          />
        )}
      />
      <DestinationField form={form} name="timeoutDestination" label="After the max wait" />
    </FormDialog>
  );
}

/** The card's edit dialog: the agent candidates come from the extension list (cached by the screen). */
export function EditQueueDialog({ queue, onClose }: { queue: Queue; onClose: () => void }) {
  const extensions = useQuery({
    ...extensionsQuery(),
    select: (list: Extension[]) => [...list].sort((a, b) => byNumber(a.extension, b.extension)),
  }).data;
  return <AddQueueDialog extensions={extensions} editing={queue} onClose={onClose} />;
}
