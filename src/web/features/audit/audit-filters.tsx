/**
 * The Audit screen's filters: actor, action (a prefix such as `extension.` or one action), outcome and
 * free text. Typed text is applied after a short pause; a value the server would refuse is shown with
 * the shared schema's message and left out of the query.
 */
import { X } from "lucide-react";
import { useState } from "react";
import { SearchField, SelectField, SuggestField } from "@/components/form-fields";
import { Button } from "@/components/ui/button";
import { useDebounced } from "@/hooks/use-debounced";
import { AUDIT_OUTCOMES, type AuditFilter, auditFilterSchema } from "../../../shared/audit";

export interface AuditFilterDraft {
  actor: string;
  action: string;
  q: string;
  /** "any" or one of AUDIT_OUTCOMES. */
  outcome: string;
}

const EMPTY: AuditFilterDraft = { actor: "", action: "", q: "", outcome: "any" };

/** Typed filters wait this long after the last key before they are queried. */
export const FILTER_DEBOUNCE_MS = 300;

/** The action areas the console records (a prefix matches every action of the area). */
export const ACTION_PREFIXES = [
  "auth.",
  "user.",
  "extension.",
  "trunk.",
  "inbound-route.",
  "outbound-route.",
  "ptt-group.",
  "ring-group.",
  "queue.",
  "ivr.",
  "announcement.",
  "credential.",
  "deploy.",
  "sync.",
  "backup.",
  "ai.",
  "telnyx.",
  "vps.",
  "settings.",
] as const;

const TEXT_FIELDS = ["actor", "action", "q"] as const;

/** The draft as a query filter: empty fields dropped, invalid ones dropped with their message. */
function toFilter(draft: AuditFilterDraft): { filter: AuditFilter; errors: Partial<Record<string, string>> } {
  const filter: AuditFilter = {};
  const errors: Partial<Record<string, string>> = {};
  for (const field of TEXT_FIELDS) {
    const parsed = auditFilterSchema.shape[field].safeParse(draft[field]);
    if (!parsed.success) errors[field] = parsed.error.issues[0]?.message;
    else if (parsed.data) filter[field] = parsed.data;
  }
  const outcome = AUDIT_OUTCOMES.find((o) => o === draft.outcome);
  if (outcome) filter.outcome = outcome;
  return { filter, errors };
}

/** The filter state: what is typed (`draft`) and what is queried (`filter`, after the pause). */
export function useAuditFilter() {
  const [draft, setDraft] = useState<AuditFilterDraft>(EMPTY);
  const settled = useDebounced(draft, FILTER_DEBOUNCE_MS);
  // The outcome select applies at once; only typing waits.
  const { filter, errors } = toFilter({ ...settled, outcome: draft.outcome });
  return {
    draft,
    filter,
    errors,
    set: (field: keyof AuditFilterDraft, value: string) => setDraft((d) => ({ ...d, [field]: value })),
    clear: () => setDraft(EMPTY),
    /** Anything typed or chosen (a value the server would refuse included: "Clear filters" clears it too). */
    isFiltered: TEXT_FIELDS.some((f) => draft[f].trim() !== "") || draft.outcome !== EMPTY.outcome,
  };
}

const OUTCOME_OPTIONS = [
  { value: "any", label: "Any outcome" },
  { value: "ok", label: "OK" },
  { value: "denied", label: "Denied" },
  { value: "failed", label: "Failed" },
] as const;

export function AuditFilters({
  state,
  actors,
}: {
  state: ReturnType<typeof useAuditFilter>;
  /** Names offered for the actor field (the console's users). */
  actors: readonly string[];
}) {
  const { draft, errors, set, clear, isFiltered } = state;
  return (
    <search className="flex flex-wrap items-start gap-3" aria-label="Filter the audit trail">
      <SearchField
        label="Search"
        error={errors.q}
        className="min-w-60 flex-1"
        placeholder="Object, address, detail, changed value…"
        value={draft.q}
        onChange={(v) => set("q", v)}
      />
      <SuggestField
        label="Actor"
        error={errors.actor}
        className="w-44"
        placeholder="Any user"
        value={draft.actor}
        onChange={(v) => set("actor", v)}
        suggestions={[...actors, "system", "cli"]}
      />
      <SuggestField
        label="Action"
        error={errors.action}
        className="w-52"
        placeholder="e.g. extension."
        value={draft.action}
        onChange={(v) => set("action", v)}
        suggestions={ACTION_PREFIXES}
      />
      <SelectField
        label="Outcome"
        className="w-40"
        value={draft.outcome}
        options={OUTCOME_OPTIONS}
        onValueChange={(v) => set("outcome", v)}
      />
      {isFiltered && (
        <Button type="button" variant="ghost" className="mt-[1.375rem]" onClick={clear}>
          <X aria-hidden />
          Clear filters
        </Button>
      )}
    </search>
  );
}
