/**
 * The review before a Sync import (ADR 0025 "Sync import"), built from the same pieces as the deploy
 * review (features/review): the import's plan grouped by action (create, update, cannot import,
 * unchanged) with each object's console fields from → to, which objects the console starts managing, the
 * counts, and Import. Import starts the job the page shows; when the PBX or the console changed since the
 * plan, the dialog says so and shows the new plan to review.
 */
import { Download, LoaderCircle } from "lucide-react";
import { useEffect, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import {
  type BadgeVariant,
  PlanCounts,
  PlanGroups,
  PlanItemRow,
  PlanReading,
  ReviewFrame,
  StalePlanNotice,
} from "@/features/review/plan-parts";
import { serverMessage } from "@/lib/error-text";
import type { ImportAction, ImportPlan, ImportPlanItem } from "../../../shared/plan";
import { type ImportRequest, SYNC_WORDS, type SyncKind, staleImportPlanOf, useImportPlan, useStartImport } from "./api";

const GROUPS: { action: ImportAction; title: string; variant: BadgeVariant; hint?: string }[] = [
  { action: "create", title: "Create", variant: "success" },
  { action: "update", title: "Update", variant: "default" },
  {
    action: "refused",
    title: "Cannot import",
    variant: "destructive",
    hint: "The console cannot hold these as they are on the PBX: change them in FreePBX, or leave them out.",
  },
  { action: "unchanged", title: "Unchanged", variant: "outline" },
];

const COUNT_TEXT: Record<ImportAction, string> = {
  create: "to create",
  update: "to update",
  refused: "cannot import",
  unchanged: "unchanged",
};

/** What Import writes: creates, updates, and unchanged objects the console starts managing. */
const isWork = (i: ImportPlanItem) =>
  i.action === "create" || i.action === "update" || (i.action === "unchanged" && i.adopt);

function ItemRow({ item }: { item: ImportPlanItem }) {
  return (
    <PlanItemRow
      kind={item.kind}
      label={item.label}
      action={item.action}
      pbxId={item.pbxId}
      note={item.note}
      changes={item.action === "create" || item.action === "update" ? item.changes : undefined}
      aside={item.adopt && item.action !== "refused" && <Badge variant="secondary">Becomes managed</Badge>}
    >
      {item.reason && <p className="text-destructive text-xs">{item.reason}</p>}
    </PlanItemRow>
  );
}

export function ImportReviewDialog({
  kind,
  request,
  failedText,
  onOpenChange,
  onStarted,
}: {
  kind: SyncKind;
  /** The selection to review; null: closed. */
  request: ImportRequest | null;
  /** The failure's text when the server gave none. */
  failedText: string;
  onOpenChange: (open: boolean) => void;
  onStarted: (jobId: number, mode: ImportRequest["mode"]) => void;
}) {
  const planning = useImportPlan(kind);
  const importing = useStartImport(kind);
  const [plan, setPlan] = useState<ImportPlan | null>(null);
  const [stale, setStale] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const { mutate: makePlan, reset: resetPlan } = planning;

  useEffect(() => {
    setPlan(null);
    setStale(false);
    setFailure(null);
    resetPlan();
    if (request) makePlan(request, { onSuccess: setPlan });
  }, [request, makePlan, resetPlan]);

  const work = plan ? plan.items.filter(isWork).length : 0;
  // An IVR's import brings the announcements it plays (and the reverse): then the count is of objects.
  const mixed = plan ? new Set(plan.items.filter(isWork).map((i) => i.kind)).size > 1 : false;
  const workWords = (n: number) =>
    mixed ? (n === 1 ? "object" : "objects") : n === 1 ? SYNC_WORDS[kind].one : SYNC_WORDS[kind].many;

  const confirm = () => {
    if (!plan || !request) return;
    setFailure(null);
    importing.mutate(
      { ...request, fingerprint: plan.fingerprint },
      {
        onSuccess: ({ jobId }) => {
          onStarted(jobId, request.mode);
          onOpenChange(false);
        },
        onError: (err) => {
          const fresh = staleImportPlanOf(err);
          if (fresh) {
            setPlan(fresh);
            setStale(true);
          } else setFailure(serverMessage(err) || failedText);
        },
      },
    );
  };

  return (
    <ReviewFrame
      open={request !== null}
      onOpenChange={onOpenChange}
      title={`Review: import ${SYNC_WORDS[kind].many}`}
      description="What the import changes in the console; the PBX is only read. Every imported object becomes managed by the console, so later deployments update it."
      failure={failure}
      testId="import-review-dialog"
      confirm={
        <Button disabled={!plan || work === 0 || importing.isPending} onClick={confirm}>
          {importing.isPending ? <LoaderCircle className="animate-spin" /> : <Download />}
          Import{plan ? ` (${work} ${workWords(work)})` : ""}
        </Button>
      }
    >
      <PlanReading
        pending={planning.isPending}
        error={planning.isError ? planning.error : null}
        onRetry={() => request && makePlan(request, { onSuccess: setPlan })}
      />

      {plan && (
        <div className="grid gap-4">
          {stale && (
            <StalePlanNotice>
              The PBX or the console changed since this plan: review the new plan below, then import it.
            </StalePlanNotice>
          )}
          <PlanCounts
            groups={GROUPS}
            counts={plan.counts}
            text={COUNT_TEXT}
            extra={
              <li>
                <Badge variant="secondary" data-testid="count-adopt">
                  {plan.adopts} become{plan.adopts === 1 ? "s" : ""} managed
                </Badge>
              </li>
            }
          />
          <PlanGroups groups={GROUPS} items={plan.items} renderItem={(i) => <ItemRow key={i.id} item={i} />} />
          {plan.items.length === 0 && <p className="text-muted-foreground text-sm">Nothing to import.</p>}
        </div>
      )}
    </ReviewFrame>
  );
}
