/**
 * The review before every deployment (ADR 0025): the plan of the target, grouped by action (conflicts,
 * creates, updates, deletes, unchanged) with each object's owned fields from → to, a choice per conflict
 * (Adopt / Skip), the counts, and Apply. Apply starts the job the page shows; when the PBX or the console
 * changed since the plan, the dialog says so and shows the new plan to review.
 */
import { LoaderCircle, Rocket } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import {
  type BadgeVariant,
  KIND_TEXT,
  PlanCounts,
  PlanGroups,
  PlanItemRow,
  PlanReading,
  ReviewFrame,
  StalePlanNotice,
} from "@/features/review/plan-parts";
import { ReroutedCalls } from "@/features/routing/rerouted-calls";
import { errorText } from "@/lib/error-text";
import type { DeployPlan, PlanAction, PlanItem, PlanTarget, Resolution } from "../../../shared/plan";
import { stalePlanOf, useApplyPlan, usePlan } from "./api";

const TARGET_TITLE: Record<PlanTarget, string> = {
  trunks: "trunks",
  extensions: "extensions",
  "ptt-groups": "PTT groups",
  "ring-groups": "ring groups",
  queues: "queues",
  ivrs: "IVRs",
  announcements: "announcements",
  "time-groups": "time groups",
  "time-conditions": "time conditions",
  all: "all configurations",
};

const GROUPS: { action: PlanAction; title: string; variant: BadgeVariant; hint?: string }[] = [
  {
    action: "conflict",
    title: "Conflicts",
    variant: "warning",
    hint: "On the PBX with the same number or name, but not managed by the console. Adopt lets the console update it from now on; Skip leaves it as it is.",
  },
  { action: "create", title: "Create", variant: "success" },
  { action: "update", title: "Update", variant: "default" },
  { action: "delete", title: "Delete", variant: "destructive" },
  { action: "unchanged", title: "Unchanged", variant: "outline" },
];

const COUNT_TEXT: Record<PlanAction, string> = {
  create: "to create",
  update: "to update",
  delete: "to delete",
  conflict: "conflicts",
  unchanged: "unchanged",
};

function ConflictChoice({
  item,
  choice,
  onChoose,
}: {
  item: PlanItem;
  choice: Resolution;
  onChoose: (r: Resolution) => void;
}) {
  return (
    <fieldset className="flex gap-2" aria-label={`Resolve ${item.label}`}>
      {(["adopt", "skip"] as const).map((r) => (
        <Button
          key={r}
          type="button"
          size="sm"
          variant={choice === r ? "default" : "outline"}
          aria-pressed={choice === r}
          onClick={() => onChoose(r)}
        >
          {r === "adopt" ? "Adopt" : "Skip"}
        </Button>
      ))}
    </fieldset>
  );
}

function ItemRow({
  item,
  choice,
  onChoose,
}: {
  item: PlanItem;
  choice?: Resolution;
  onChoose?: (r: Resolution) => void;
}) {
  return (
    <PlanItemRow
      kind={item.kind}
      label={item.label}
      action={item.action}
      pbxId={item.pbxId}
      note={item.note}
      changes={item.action !== "unchanged" ? item.changes : undefined}
      aside={
        item.action === "conflict" &&
        choice &&
        onChoose && <ConflictChoice item={item} choice={choice} onChoose={onChoose} />
      }
    />
  );
}

export function ReviewDialog({
  target,
  onOpenChange,
  onStarted,
}: {
  /** The target to review; null: closed. */
  target: PlanTarget | null;
  onOpenChange: (open: boolean) => void;
  onStarted: (jobId: number) => void;
}) {
  const planning = usePlan();
  const applying = useApplyPlan();
  const [plan, setPlan] = useState<DeployPlan | null>(null);
  const [stale, setStale] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [choices, setChoices] = useState<Record<string, Resolution>>({});
  const { mutate: makePlan, reset: resetPlan } = planning;

  useEffect(() => {
    setPlan(null);
    setStale(false);
    setFailure(null);
    setChoices({});
    resetPlan();
    if (target) makePlan(target, { onSuccess: setPlan });
  }, [target, makePlan, resetPlan]);

  const conflicts = plan?.items.filter((i) => i.action === "conflict") ?? [];
  const choiceOf = (id: string): Resolution => choices[id] ?? "skip";
  const adopted = conflicts.filter((i) => choiceOf(i.id) === "adopt").length;
  const work = plan ? plan.counts.create + plan.counts.update + plan.counts.delete + adopted : 0;

  const apply = () => {
    if (!plan || !target) return;
    setFailure(null);
    const resolutions = Object.fromEntries(conflicts.map((i) => [i.id, choiceOf(i.id)]));
    applying.mutate(
      { target, fingerprint: plan.fingerprint, resolutions },
      {
        onSuccess: ({ jobId }) => {
          onStarted(jobId);
          onOpenChange(false);
        },
        onError: (err) => {
          const fresh = stalePlanOf(err);
          if (fresh) {
            setPlan(fresh);
            setStale(true);
          } else setFailure(errorText(err));
        },
      },
    );
  };

  return (
    <ReviewFrame
      open={target !== null}
      onOpenChange={onOpenChange}
      title={`Review: deploy ${target ? TARGET_TITLE[target] : ""}`}
      description="What the deployment changes on the PBX. Only the fields the console manages are written; objects made in FreePBX are changed only when you adopt them."
      failure={failure}
      confirm={
        <Button disabled={!plan || work === 0 || applying.isPending} onClick={apply}>
          {applying.isPending ? <LoaderCircle className="animate-spin" /> : <Rocket />}
          Apply{plan ? ` (${work} change${work === 1 ? "" : "s"})` : ""}
        </Button>
      }
    >
      <PlanReading
        pending={planning.isPending}
        error={planning.isError ? planning.error : null}
        onRetry={() => target && makePlan(target, { onSuccess: setPlan })}
      />

      {plan && (
        <div className="grid gap-4">
          {stale && (
            <StalePlanNotice>
              The PBX or the console changed since this plan: review the new plan below, then apply it.
            </StalePlanNotice>
          )}
          <PlanCounts groups={GROUPS} counts={plan.counts} text={COUNT_TEXT} />
          {plan.refused.length > 0 && (
            <section aria-label="Cannot deploy" className="grid gap-2">
              <h3 className="font-medium text-sm">Cannot deploy ({plan.refused.length})</h3>
              <ul className="grid gap-1 text-sm">
                {plan.refused.map((r) => (
                  <li key={`${r.kind}:${r.key}`}>
                    <span className="font-medium">
                      {KIND_TEXT[r.kind]} {r.key}
                    </span>
                    : <span className="text-muted-foreground">{r.reason}</span>
                  </li>
                ))}
              </ul>
            </section>
          )}
          <ReroutedCalls calls={plan.calls ?? []} />
          <PlanGroups
            groups={GROUPS}
            items={plan.items}
            renderItem={(i) => (
              <ItemRow
                key={i.id}
                item={i}
                choice={choiceOf(i.id)}
                onChoose={(r) => setChoices((c) => ({ ...c, [i.id]: r }))}
              />
            )}
          />
          {plan.items.length === 0 && plan.refused.length === 0 && (
            <p className="text-muted-foreground text-sm">Nothing to deploy.</p>
          )}
        </div>
      )}
    </ReviewFrame>
  );
}
