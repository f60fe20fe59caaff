/**
 * Configuration as code on the Deployment screen (ADR 0075): the console's document downloaded as YAML or
 * JSON, and a document chosen from a file planned against the console and reviewed like a deployment (the
 * same plan pieces, features/review) before Apply. A refused document lists each problem at its path.
 */
import { Check, Download, FileCode2, LoaderCircle } from "lucide-react";
import { useId, useRef, useState } from "react";
import { Can } from "@/components/can";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";
import { toast } from "@/components/ui/use-toast";
import {
  type BadgeVariant,
  PlanCounts,
  PlanGroups,
  PlanItemRow,
  ReviewFrame,
  StalePlanNotice,
} from "@/features/review/plan-parts";
import { fieldMessages, serverMessage } from "@/lib/error-text";
import {
  CONFIG_KIND_LABELS,
  type ConfigAction,
  type ConfigPlan,
  type ConfigPlanItem,
} from "../../../shared/config-document";
import { exportUrl, stalePlanOf, useApplyDocument, usePlanDocument } from "./api";

const GROUPS: { action: ConfigAction; title: string; variant: BadgeVariant; hint?: string }[] = [
  { action: "create", title: "Create", variant: "success" },
  { action: "update", title: "Update", variant: "default" },
  {
    action: "delete",
    title: "Delete",
    variant: "destructive",
    hint: "In the console but not in the document's lists (prune).",
  },
  { action: "unchanged", title: "Unchanged", variant: "outline" },
];

const COUNT_TEXT: Record<ConfigAction, string> = {
  create: "to create",
  update: "to update",
  delete: "to delete",
  unchanged: "unchanged",
};

function ItemRow({ item }: { item: ConfigPlanItem }) {
  return (
    <PlanItemRow
      kindText={CONFIG_KIND_LABELS[item.kind]}
      label={item.label}
      action={item.action}
      note={item.note}
      changes={item.action === "create" || item.action === "update" ? item.changes : undefined}
    />
  );
}

/** A document's plan in review: counts, the objects per action, and Apply (operators). */
function DocumentReview({
  file,
  plan,
  stale,
  onPlan,
  onClose,
}: {
  file: string;
  plan: ConfigPlan | null;
  stale: boolean;
  onPlan: (plan: ConfigPlan, stale: boolean) => void;
  onClose: () => void;
}) {
  const apply = useApplyDocument();
  const [failure, setFailure] = useState<string | null>(null);
  const work = plan ? plan.counts.create + plan.counts.update + plan.counts.delete : 0;
  const confirm = () => {
    if (!plan) return;
    setFailure(null);
    apply.mutate(plan.fingerprint, {
      onSuccess: ({ counts }) => {
        toast({
          title: "Document applied",
          description: `${counts.create} created, ${counts.update} updated, ${counts.delete} deleted. Deploy to send the changes to the PBX.`,
        });
        onClose();
      },
      onError: (err) => {
        const fresh = stalePlanOf(err);
        if (fresh) onPlan(fresh, true);
        else setFailure(serverMessage(err) || "The document could not be applied");
      },
    });
  };
  return (
    <ReviewFrame
      open={plan !== null}
      onOpenChange={(open) => !open && onClose()}
      title={`Review: apply ${file}`}
      description="What applying the document changes in the console. The PBX is not touched: deploy afterwards to send the changes to it."
      failure={failure}
      testId="document-review-dialog"
      confirm={
        <Can minRole="operator">
          <Button disabled={!plan || work === 0 || apply.isPending} onClick={confirm}>
            {apply.isPending ? <LoaderCircle className="animate-spin" /> : <Check />}
            Apply{plan ? ` (${work} ${work === 1 ? "change" : "changes"})` : ""}
          </Button>
        </Can>
      }
    >
      {plan && (
        <div className="grid max-h-[60vh] gap-4 overflow-y-auto">
          {stale && (
            <StalePlanNotice>
              The console changed since this plan: this is the new plan, review it again.
            </StalePlanNotice>
          )}
          <PlanCounts groups={GROUPS} counts={plan.counts} text={COUNT_TEXT} />
          {work === 0 && <p className="text-sm">The console already holds this document: nothing to change.</p>}
          <PlanGroups groups={GROUPS} items={plan.items} renderItem={(item) => <ItemRow key={item.id} item={item} />} />
        </div>
      )}
    </ReviewFrame>
  );
}

export function DocumentCard() {
  const inputId = useId();
  const pruneId = useId();
  const input = useRef<HTMLInputElement>(null);
  const planning = usePlanDocument();
  const [prune, setPrune] = useState(false);
  const [file, setFile] = useState("");
  const [review, setReview] = useState<{ plan: ConfigPlan; stale: boolean } | null>(null);

  const choose = async (chosen: File | undefined) => {
    if (!chosen) return;
    setFile(chosen.name);
    planning.mutate(
      { document: await chosen.text(), prune },
      { onSuccess: (plan) => setReview({ plan, stale: false }) },
    );
    // The same file chosen again (after editing it) is a new choice.
    if (input.current) input.current.value = "";
  };
  const problems = planning.isError ? Object.entries(fieldMessages(planning.error) ?? {}) : [];

  return (
    <Card className="gap-4">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <FileCode2 className="size-4 text-muted-foreground" aria-hidden />
          Configuration as Code
        </CardTitle>
        <CardDescription>
          Everything the console holds as one YAML document, secrets as references: keep it in git, review changes, and
          plan a document against this console before applying it.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" asChild>
            <a href={exportUrl("yaml")} download>
              <Download /> Export YAML
            </a>
          </Button>
          <Button variant="outline" asChild>
            <a href={exportUrl("json")} download="pbx-config.json">
              <Download /> Export JSON
            </a>
          </Button>
        </div>
        <div className="grid gap-2">
          <label htmlFor={inputId} className="font-medium text-sm">
            Plan a document
          </label>
          <input
            ref={input}
            id={inputId}
            type="file"
            accept=".yaml,.yml,.json,application/yaml,application/json"
            onChange={(e) => void choose(e.target.files?.[0])}
            className="text-sm file:mr-3 file:rounded-md file:border file:bg-background file:px-3 file:py-1.5 file:font-medium file:text-sm"
          />
          <div className="flex items-center gap-2">
            <Checkbox id={pruneId} checked={prune} onCheckedChange={(v) => setPrune(v === true)} />
            <Label htmlFor={pruneId} className="font-normal text-sm">
              Delete what the document's lists leave out (prune)
            </Label>
          </div>
        </div>
        {planning.isPending && (
          <p role="status" className="flex items-center gap-2 text-muted-foreground text-sm">
            <LoaderCircle className="size-4 animate-spin" aria-hidden />
            Planning {file}…
          </p>
        )}
        {planning.isError && (
          <div role="alert" className="grid gap-1 text-sm" data-testid="document-problems">
            <p className="text-destructive">
              {problems.length
                ? `The document cannot be applied (${problems.length} ${problems.length === 1 ? "problem" : "problems"}):`
                : serverMessage(planning.error) || "The document could not be planned"}
            </p>
            {problems.length > 0 && (
              <ul className="grid gap-0.5 text-xs">
                {problems.map(([path, message]) => (
                  <li key={path}>
                    <code>{path}</code>: {message}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        <DocumentReview
          file={file}
          plan={review?.plan ?? null}
          stale={review?.stale ?? false}
          onPlan={(plan, stale) => setReview({ plan, stale })}
          onClose={() => setReview(null)}
        />
      </CardContent>
    </Card>
  );
}
