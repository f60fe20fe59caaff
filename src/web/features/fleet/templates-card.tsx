import { useQuery } from "@tanstack/react-query";
import { FileStack } from "lucide-react";
import { useId, useState } from "react";
import { FormDialog, useFormDialog } from "@/components/form-kit";
import { DeleteButton } from "@/components/list-kit";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import {
  type FleetMember,
  type FleetTemplate,
  type FleetTemplateApplyEntry,
  type FleetTemplatePlanEntry,
  fleetTemplateSchema,
} from "../../../shared/fleet";
import {
  fleetTemplatesQuery,
  useApplyFleetTemplate,
  useCreateFleetTemplate,
  useDeleteFleetTemplate,
  usePlanFleetTemplate,
} from "./api";

const EXAMPLE = `{
  "version": 1,
  "outboundRoutes": [
    { "name": "International", "patterns": ["00."], "trunks": ["main"] }
  ]
}`;

function AddTemplateDialog() {
  const dialog = useFormDialog({
    schema: fleetTemplateSchema,
    defaults: { name: "", document: "" },
    fields: ["name", "document"],
    draft: "reset-on-close",
    success: "Template saved",
    failure: "Failed to save template",
  });
  const { form } = dialog;
  const { errors } = form.formState;
  const create = useCreateFleetTemplate(dialog.saved);
  return (
    <FormDialog
      dialog={dialog}
      trigger="Add Template"
      title="Add Template"
      description="A fragment of the configuration document (JSON or YAML, as Configuration as Code exports it): only the lists it names are planned, and nothing is deleted."
      submitLabel="Save Template"
      onSubmit={dialog.submit((values) => create.mutate(values))}
      pending={create.isPending}
    >
      <FormField label="Name" error={errors.name?.message}>
        {(control) => <Input {...control} autoComplete="off" autoFocus {...form.register("name")} />}
      </FormField>
      <FormField label="Document fragment" error={errors.document?.message}>
        {(control) => (
          <Textarea
            {...control}
            rows={10}
            className="font-mono text-xs"
            placeholder={EXAMPLE}
            {...form.register("document")}
          />
        )}
      </FormField>
    </FormDialog>
  );
}

const ACTION_VARIANT = { create: "success", update: "warning", delete: "destructive", unchanged: "secondary" } as const;
const text = (v: unknown) => (v === null || v === undefined ? "—" : typeof v === "string" ? v : JSON.stringify(v));

function PlanEntry({ entry, result }: { entry: FleetTemplatePlanEntry; result?: FleetTemplateApplyEntry }) {
  const changed = entry.plan?.items.filter((i) => i.action !== "unchanged") ?? [];
  return (
    <li
      className="grid gap-2 rounded-md border p-3 text-sm"
      aria-label={`Plan on ${entry.memberName}`}
      data-testid="template-plan"
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{entry.memberName}</span>
        {entry.plan && (
          <span className="text-muted-foreground">
            {entry.plan.counts.create} to create, {entry.plan.counts.update} to update, {entry.plan.counts.unchanged}{" "}
            unchanged
          </span>
        )}
        {result &&
          (result.ok ? <Badge variant="success">Applied</Badge> : <Badge variant="destructive">Not applied</Badge>)}
      </div>
      {entry.error && <p className="text-destructive">{entry.error}</p>}
      {entry.refused.length > 0 && (
        <ul className="text-destructive text-xs">
          {entry.refused.map((r) => (
            <li key={r.path}>
              <code>{r.path}</code>: {r.message}
            </li>
          ))}
        </ul>
      )}
      {changed.length > 0 && (
        <ul className="grid gap-1 text-xs">
          {changed.map((item) => (
            <li key={item.id}>
              <Badge variant={ACTION_VARIANT[item.action]}>{item.action}</Badge> {item.label}
              {item.changes.length > 0 && (
                <ul className="ml-4 text-muted-foreground">
                  {item.changes.map((c) => (
                    <li key={c.field}>
                      {c.field}: {text(c.from)} → {text(c.to)}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      {result?.error && <p className="text-destructive">{result.error}</p>}
    </li>
  );
}

/** Choose members, plan the template on each (their own plans), review, then apply the reviewed plans. */
function TemplateRunDialog({
  template,
  members,
  onClose,
}: {
  template: FleetTemplate | null;
  members: FleetMember[];
  onClose: () => void;
}) {
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [plans, setPlans] = useState<FleetTemplatePlanEntry[] | null>(null);
  const [results, setResults] = useState<FleetTemplateApplyEntry[] | null>(null);
  const idBase = useId();
  const plan = usePlanFleetTemplate({
    onSuccess: (answer) => {
      setPlans(answer.items);
      setResults(null);
    },
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to plan the template", description: errorText(err) }),
  });
  const apply = useApplyFleetTemplate({
    onSuccess: (answer) => setResults(answer.items),
    onError: (err) =>
      toast({ variant: "destructive", title: "Failed to apply the template", description: errorText(err) }),
  });
  const reviewed = (plans ?? []).filter((p) => p.plan && p.plan.counts.create + p.plan.counts.update > 0);
  const close = () => {
    setChosen(new Set());
    setPlans(null);
    setResults(null);
    onClose();
  };
  return (
    <Dialog open={template !== null} onOpenChange={(open) => !open && close()}>
      <DialogContent className="sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>Apply {template?.name}</DialogTitle>
          <DialogDescription>
            Each member plans the template itself; review each plan, then apply: a member changed since its plan applies
            nothing.
          </DialogDescription>
        </DialogHeader>
        <fieldset className="grid gap-2">
          <legend className="mb-1 font-medium text-sm">Members</legend>
          {members.map((m) => (
            <div key={m.id} className="flex items-center gap-2">
              <Checkbox
                id={`${idBase}-${m.id}`}
                checked={chosen.has(m.id)}
                onCheckedChange={(on) => {
                  const next = new Set(chosen);
                  if (on === true) next.add(m.id);
                  else next.delete(m.id);
                  setChosen(next);
                  setPlans(null);
                  setResults(null);
                }}
              />
              <Label htmlFor={`${idBase}-${m.id}`} className="font-normal">
                {m.name} {!m.reachable && <span className="text-muted-foreground">(unreachable)</span>}
              </Label>
            </div>
          ))}
        </fieldset>
        {plans && (
          <ul className="grid gap-2" aria-label="Plans">
            {plans.map((p) => (
              <PlanEntry key={p.member} entry={p} result={results?.find((r) => r.member === p.member)} />
            ))}
          </ul>
        )}
        <DialogFooter>
          <Button type="button" variant="outline" onClick={close}>
            Close
          </Button>
          <Button
            type="button"
            variant="outline"
            disabled={chosen.size === 0 || plan.isPending || !template}
            onClick={() => template && plan.mutate({ id: template.id, members: [...chosen] })}
          >
            {plans ? "Plan again" : "Plan"}
          </Button>
          <Button
            type="button"
            disabled={reviewed.length === 0 || apply.isPending || results !== null || !template}
            onClick={() =>
              template &&
              apply.mutate({
                id: template.id,
                plans: reviewed.map((p) => ({ member: p.member, fingerprint: p.plan?.fingerprint ?? "" })),
              })
            }
          >
            Apply {reviewed.length} reviewed {reviewed.length === 1 ? "plan" : "plans"}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/** The fleet's templates: kept here, planned and applied on chosen members through their own plan/apply. */
export function TemplatesCard({ members }: { members: FleetMember[] }) {
  const templates = useQuery(fleetTemplatesQuery());
  const [running, setRunning] = useState<FleetTemplate | null>(null);
  const remove = useDeleteFleetTemplate(deleteToasts("Template deleted", "Failed to delete template"));
  const titleId = useId();
  return (
    <Card role="region" aria-labelledby={titleId}>
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-4">
        <div className="grid gap-1.5">
          <CardTitle id={titleId} className="flex items-center gap-2">
            <FileStack className="size-4 text-muted-foreground" aria-hidden />
            Templates
          </CardTitle>
          <CardDescription>
            A fragment (e.g. an outbound route set) applied to chosen members, each with its own plan to review. The
            member's token needs the operator role to apply.
          </CardDescription>
        </div>
        <AddTemplateDialog />
      </CardHeader>
      <CardContent>
        {templates.isError && <FormError message={`Could not load the templates: ${errorText(templates.error)}`} />}
        {templates.data?.length === 0 && <p className="text-muted-foreground text-sm">No templates yet.</p>}
        <ul className="grid gap-2" aria-label="Templates">
          {templates.data?.map((t) => (
            <li
              key={t.id}
              className="flex flex-wrap items-center gap-3 rounded-md border p-3 text-sm"
              aria-label={t.name}
            >
              <span className="min-w-32 font-medium">{t.name}</span>
              <Button
                type="button"
                size="sm"
                variant="outline"
                disabled={members.length === 0}
                onClick={() => setRunning(t)}
              >
                Plan and apply {t.name}
              </Button>
              <span className="ml-auto">
                <DeleteButton
                  label={`Delete template ${t.name}`}
                  pending={runningFor(remove, t.id)}
                  onClick={() => afterConfirm(`Delete the template ${t.name}?`, () => remove.mutate(t.id))}
                />
              </span>
            </li>
          ))}
        </ul>
      </CardContent>
      <TemplateRunDialog template={running} members={members} onClose={() => setRunning(null)} />
    </Card>
  );
}
