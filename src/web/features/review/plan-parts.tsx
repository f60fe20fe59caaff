/**
 * The pieces of every review dialog (ADR 0025): the deploy review (features/deployment/review-dialog.tsx)
 * and the Sync import review (features/sync/import-review-dialog.tsx) show a plan the same way: the
 * dialog's frame, "Reading the PBX…" / the plan's failure with Try again, the counts as badges, sections
 * per action, one row per object with its fields from → to, and the "changed since this plan" notice.
 */
import { AlertTriangle, ArrowRight, LoaderCircle, RefreshCw } from "lucide-react";
import type { ReactNode } from "react";
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
import type { DeployKind } from "../../../shared/pbx";
import type { FieldChange } from "../../../shared/plan";

export type BadgeVariant = "default" | "success" | "destructive" | "warning" | "outline";

/** An object's kind as the review names it. */
export const KIND_TEXT: Record<DeployKind, string> = {
  trunk: "Trunk",
  extension: "Extension",
  outboundRoute: "Outbound route",
  inboundRoute: "Inbound route",
  pttGroup: "PTT group",
  ringGroup: "Ring group",
  queue: "Queue",
  ivr: "IVR",
  announcement: "Announcement",
  timeGroup: "Time group",
  timeCondition: "Time condition",
};

function value(v: string | null) {
  return v === null ? <span className="text-muted-foreground italic">none</span> : <code>{v}</code>;
}

/** An object's fields, each from → to (a secret only says that it changes). */
export function FieldChanges({ changes }: { changes: FieldChange[] }) {
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

/**
 * One object of a plan: its kind (a deploy kind, or `kindText` for another plan's kinds), label, PBX id, a
 * control or mark on the right, the note and the fields.
 */
export function PlanItemRow({
  kind,
  kindText = kind ? KIND_TEXT[kind] : "",
  label,
  action,
  pbxId,
  note,
  changes,
  aside,
  children,
}: {
  kind?: keyof typeof KIND_TEXT;
  kindText?: string;
  label: string;
  action: string;
  pbxId?: string | null;
  note?: string;
  /** Left out: no field list (unchanged objects). */
  changes?: FieldChange[];
  aside?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <li className="grid gap-2 rounded-md border p-3" aria-label={`${kindText} ${label}`} data-action={action}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <Badge variant="outline">{kindText}</Badge>
          <span className="truncate font-medium">{label}</span>
          {pbxId && <span className="text-muted-foreground text-xs">PBX id {pbxId}</span>}
        </div>
        {aside}
      </div>
      {note && <p className="text-muted-foreground text-xs">{note}</p>}
      {children}
      {changes && <FieldChanges changes={changes} />}
    </li>
  );
}

/** The plan's counts as badges (`count-<action>` for tests). */
export function PlanCounts<A extends string>({
  groups,
  counts,
  text,
  extra,
}: {
  groups: readonly { action: A; variant: BadgeVariant }[];
  counts: Record<A, number>;
  text: Record<A, string>;
  extra?: ReactNode;
}) {
  return (
    <ul className="flex flex-wrap gap-2" aria-label="Plan counts">
      {groups.map((g) => (
        <li key={g.action}>
          <Badge variant={g.variant} data-testid={`count-${g.action}`}>
            {counts[g.action]} {text[g.action]}
          </Badge>
        </li>
      ))}
      {extra}
    </ul>
  );
}

/** The objects of one action; `collapsed` (unchanged objects) folds them under their title. */
export function PlanSection({
  title,
  count,
  collapsed = false,
  hint,
  children,
}: {
  title: string;
  count: number;
  collapsed?: boolean;
  hint?: ReactNode;
  children: ReactNode;
}) {
  const list = <ul className="grid gap-2">{children}</ul>;
  return (
    <section aria-label={title} className="grid gap-2">
      {collapsed ? (
        <details>
          <summary className="cursor-pointer font-medium text-sm">
            {title} ({count})
          </summary>
          <div className="mt-2">{list}</div>
        </details>
      ) : (
        <>
          <h3 className="font-medium text-sm">
            {title} ({count})
          </h3>
          {hint && <p className="text-muted-foreground text-xs">{hint}</p>}
          {list}
        </>
      )}
    </section>
  );
}

/** "The PBX or the console changed since this plan": shown above the new plan after a 409. */
/**
 * The plan's items as one section per action, in the groups' order (an "unchanged" section starts folded;
 * a group may carry a hint under its title).
 */
export function PlanGroups<A extends string, I extends { id: string; action: A }>({
  groups,
  items,
  renderItem,
}: {
  groups: readonly { action: A; title: string; hint?: string }[];
  items: readonly I[];
  renderItem: (item: I) => ReactNode;
}) {
  return (
    <>
      {groups.map((g) => {
        const mine = items.filter((i) => i.action === g.action);
        if (!mine.length) return null;
        return (
          <PlanSection
            key={g.action}
            title={g.title}
            count={mine.length}
            collapsed={g.action === "unchanged"}
            hint={g.hint}
          >
            {mine.map(renderItem)}
          </PlanSection>
        );
      })}
    </>
  );
}

export function StalePlanNotice({ children }: { children: ReactNode }) {
  return (
    <p
      className="flex items-start gap-2 rounded-md border border-warning p-3 text-sm"
      role="alert"
      data-testid="stale-plan"
    >
      <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
      {children}
    </p>
  );
}

/** Reading the PBX for the plan, or why the plan could not be made (with Try again). */
export function PlanReading({ pending, error, onRetry }: { pending: boolean; error: unknown; onRetry: () => void }) {
  if (pending)
    return (
      <p className="flex items-center gap-2 text-sm" role="status">
        <LoaderCircle className="size-4 animate-spin" aria-hidden /> Reading the PBX…
      </p>
    );
  if (!error) return null;
  return (
    <div className="grid gap-2" role="alert">
      <p className="text-destructive text-sm">Could not make the plan: {errorText(error)}</p>
      <Button variant="outline" size="sm" className="w-fit" onClick={onRetry}>
        <RefreshCw /> Try again
      </Button>
    </div>
  );
}

/** A review dialog's frame: title, description, the plan, a failure line, Cancel and the confirm button. */
export function ReviewFrame({
  open,
  onOpenChange,
  title,
  description,
  failure,
  confirm,
  children,
  testId = "review-dialog",
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  failure: string | null;
  confirm: ReactNode;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-3xl" aria-describedby="review-description" data-testid={testId}>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription id="review-description">{description}</DialogDescription>
        </DialogHeader>
        {children}
        {failure && (
          <p className="text-destructive text-sm" role="alert">
            {failure}
          </p>
        )}
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          {confirm}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
