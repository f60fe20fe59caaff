/**
 * The review before every deployment (ADR 0025): the plan of the target, grouped by action (conflicts,
 * creates, updates, deletes, unchanged) with each object's owned fields from → to, a choice per conflict
 * (Adopt / Skip), the counts, and Apply. Apply starts the job the page shows; when the PBX or the console
 * changed since the plan, the dialog says so and shows the new plan to review.
 */
import { AlertTriangle, ArrowRight, LoaderCircle, RefreshCw, Rocket } from "lucide-react";
import { useEffect, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { errorText } from "@/lib/error-text";
import type { DeployPlan, FieldChange, PlanAction, PlanItem, PlanTarget, Resolution } from "../../../shared/plan";
import { stalePlanOf, useApplyPlan, usePlan } from "./api";

const TARGET_TITLE: Record<PlanTarget, string> = {
  trunks: "trunks",
  extensions: "extensions",
  "ptt-groups": "PTT groups",
  all: "all configurations",
};

const KIND_TEXT: Record<PlanItem["kind"], string> = {
  trunk: "Trunk",
  extension: "Extension",
  outboundRoute: "Outbound route",
  inboundRoute: "Inbound route",
  pttGroup: "PTT group",
};

const GROUPS: {
  action: PlanAction;
  title: string;
  variant: "default" | "success" | "destructive" | "warning" | "outline";
}[] = [
  { action: "conflict", title: "Conflicts", variant: "warning" },
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

function value(v: string | null) {
  return v === null ? <span className="text-muted-foreground italic">none</span> : <code>{v}</code>;
}

function Changes({ changes }: { changes: FieldChange[] }) {
  if (!changes.length) return null;
  return (
    <ul className="grid gap-1 text-xs" aria-label="Field changes">
      {changes.map((c) => (
        <li key={c.field} className="flex flex-wrap items-center gap-1.5" data-testid="field-change">
          <span className="font-medium">{c.field}</span>
          {c.secret ? (
            <span className="text-muted-foreground">(secret) changes</span>
          ) : (
            <>
              {value(c.from)}
              <ArrowRight className="size-3 text-muted-foreground" aria-label="to" />
              {value(c.to)}
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

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
    <li
      className="grid gap-2 rounded-md border p-3"
      aria-label={`${KIND_TEXT[item.kind]} ${item.label}`}
      data-action={item.action}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <Badge variant="outline">{KIND_TEXT[item.kind]}</Badge>
          <span className="truncate font-medium">{item.label}</span>
          {item.pbxId && <span className="text-muted-foreground text-xs">PBX id {item.pbxId}</span>}
        </div>
        {item.action === "conflict" && choice && onChoose && (
          <ConflictChoice item={item} choice={choice} onChoose={onChoose} />
        )}
      </div>
      {item.note && <p className="text-muted-foreground text-xs">{item.note}</p>}
      {item.action !== "unchanged" && <Changes changes={item.changes} />}
    </li>
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
    <Dialog open={target !== null} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-3xl" aria-describedby="review-description" data-testid="review-dialog">
        <DialogHeader>
          <DialogTitle>Review: deploy {target ? TARGET_TITLE[target] : ""}</DialogTitle>
          <DialogDescription id="review-description">
            What the deployment changes on the PBX. Only the fields the console manages are written; objects made in
            FreePBX are changed only when you adopt them.
          </DialogDescription>
        </DialogHeader>

        {planning.isPending && (
          <p className="flex items-center gap-2 text-sm" role="status">
            <LoaderCircle className="size-4 animate-spin" aria-hidden /> Reading the PBX…
          </p>
        )}
        {planning.isError && (
          <div className="grid gap-2" role="alert">
            <p className="text-destructive text-sm">Could not make the plan: {errorText(planning.error)}</p>
            <Button
              variant="outline"
              size="sm"
              className="w-fit"
              onClick={() => target && makePlan(target, { onSuccess: setPlan })}
            >
              <RefreshCw /> Try again
            </Button>
          </div>
        )}

        {plan && (
          <div className="grid gap-4">
            {stale && (
              <p
                className="flex items-start gap-2 rounded-md border border-warning p-3 text-sm"
                role="alert"
                data-testid="stale-plan"
              >
                <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
                The PBX or the console changed since this plan: review the new plan below, then apply it.
              </p>
            )}
            <ul className="flex flex-wrap gap-2" aria-label="Plan counts">
              {GROUPS.map((g) => (
                <li key={g.action}>
                  <Badge variant={g.variant} data-testid={`count-${g.action}`}>
                    {plan.counts[g.action]} {COUNT_TEXT[g.action]}
                  </Badge>
                </li>
              ))}
            </ul>
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
            {GROUPS.map((g) => {
              const items = plan.items.filter((i) => i.action === g.action);
              if (!items.length) return null;
              const list = (
                <ul className="grid gap-2">
                  {items.map((i) => (
                    <ItemRow
                      key={i.id}
                      item={i}
                      choice={choiceOf(i.id)}
                      onChoose={(r) => setChoices((c) => ({ ...c, [i.id]: r }))}
                    />
                  ))}
                </ul>
              );
              return (
                <section key={g.action} aria-label={g.title} className="grid gap-2">
                  {g.action === "unchanged" ? (
                    <details>
                      <summary className="cursor-pointer font-medium text-sm">
                        {g.title} ({items.length})
                      </summary>
                      <div className="mt-2">{list}</div>
                    </details>
                  ) : (
                    <>
                      <h3 className="font-medium text-sm">
                        {g.title} ({items.length})
                      </h3>
                      {g.action === "conflict" && (
                        <p className="text-muted-foreground text-xs">
                          On the PBX with the same number or name, but not managed by the console. Adopt lets the
                          console update it from now on; Skip leaves it as it is.
                        </p>
                      )}
                      {list}
                    </>
                  )}
                </section>
              );
            })}
            {plan.items.length === 0 && plan.refused.length === 0 && (
              <p className="text-muted-foreground text-sm">Nothing to deploy.</p>
            )}
          </div>
        )}

        {failure && (
          <p className="text-destructive text-sm" role="alert">
            {failure}
          </p>
        )}
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button disabled={!plan || work === 0 || applying.isPending} onClick={apply}>
            {applying.isPending ? <LoaderCircle className="animate-spin" /> : <Rocket />}
            Apply{plan ? ` (${work} change${work === 1 ? "" : "s"})` : ""}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
