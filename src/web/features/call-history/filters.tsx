/**
 * The Call History screen's filters: a date range (the last 7 days by default), a number or name,
 * direction, result, extension and trunk. Typed text is applied after a short pause; a value the
 * server would refuse is shown with the shared schema's message and left out of the query; an
 * impossible date range keeps the last good one.
 */
import { X } from "lucide-react";
import { useRef, useState } from "react";
import { SearchField, SelectField, SuggestField } from "@/components/form-fields";
import { Button } from "@/components/ui/button";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { useDebounced } from "@/hooks/use-debounced";
import {
  CALL_DIRECTIONS,
  CDR_DISPOSITIONS,
  CDR_MAX_RANGE_DAYS,
  type CdrFilter,
  cdrFilterSchema,
} from "../../../shared/live";
import { DIRECTION_LABELS } from "../calls/format";
import { DISPOSITION_LABELS } from "./disposition";

export interface CallFilterDraft {
  /** `YYYY-MM-DD`, local dates, both days included. */
  fromDate: string;
  toDate: string;
  q: string;
  /** "any" or one of CALL_DIRECTIONS. */
  direction: string;
  /** "any" or one of CDR_DISPOSITIONS. */
  disposition: string;
  extension: string;
  trunk: string;
}

/** The default range: today and the six days before. */
export const DEFAULT_RANGE_DAYS = 7;
/** Typed filters wait this long after the last key before they are queried. */
export const FILTER_DEBOUNCE_MS = 300;
/** Ranges up to this many days are charted per hour, longer ones per day. */
const HOURLY_UP_TO_DAYS = 2;
const DAY_MS = 86_400_000;

/** A local date as `YYYY-MM-DD`. */
function localDate(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Local midnight of a `YYYY-MM-DD` date, or null. */
function midnight(date: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const d = new Date(`${date}T00:00:00`);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function defaultDraft(today = new Date()): CallFilterDraft {
  const from = new Date(today);
  from.setDate(from.getDate() - (DEFAULT_RANGE_DAYS - 1));
  return {
    fromDate: localDate(from),
    toDate: localDate(today),
    q: "",
    direction: "any",
    disposition: "any",
    extension: "",
    trunk: "",
  };
}

type Errors = Partial<Record<keyof CallFilterDraft, string>>;

const TEXT_FIELDS = ["q", "extension", "trunk"] as const;

/** The draft as a query filter (null when the date range is impossible) and the messages to show. */
export function toFilter(draft: CallFilterDraft): { filter: CdrFilter | null; errors: Errors; days: number } {
  const errors: Errors = {};
  const from = midnight(draft.fromDate);
  const toDay = midnight(draft.toDate);
  if (!from) errors.fromDate = "Choose a start date";
  if (!toDay) errors.toDate = "Choose an end date";
  let days = 0;
  let range: { from: string; to: string } | null = null;
  if (from && toDay) {
    // The end date is included: the range ends at the next midnight.
    const to = new Date(toDay);
    to.setDate(to.getDate() + 1);
    days = Math.round((to.getTime() - from.getTime()) / DAY_MS);
    if (days < 1) errors.toDate = "The end date is before the start date";
    else if (days > CDR_MAX_RANGE_DAYS) errors.toDate = `The range is at most ${CDR_MAX_RANGE_DAYS} days`;
    else range = { from: from.toISOString(), to: to.toISOString() };
  }
  const filter: CdrFilter = { ...range };
  for (const field of TEXT_FIELDS) {
    if (draft[field].trim() === "") continue;
    const parsed = cdrFilterSchema.shape[field].safeParse(draft[field]);
    if (!parsed.success) errors[field] = parsed.error.issues[0]?.message;
    else if (parsed.data) filter[field] = parsed.data;
  }
  const direction = CALL_DIRECTIONS.find((d) => d === draft.direction);
  if (direction) filter.direction = direction;
  const disposition = CDR_DISPOSITIONS.find((d) => d === draft.disposition);
  if (disposition) filter.disposition = disposition;
  return { filter: range ? filter : null, errors, days };
}

/** The filter state: what is typed (`draft`) and what is queried (`filter`, after the pause). */
export function useCallHistoryFilter() {
  const [initial] = useState(defaultDraft);
  const [draft, setDraft] = useState<CallFilterDraft>(initial);
  const q = useDebounced(draft.q, FILTER_DEBOUNCE_MS);
  const extension = useDebounced(draft.extension, FILTER_DEBOUNCE_MS);
  const trunk = useDebounced(draft.trunk, FILTER_DEBOUNCE_MS);
  // Dates and selects apply at once; only typing waits.
  const { filter, errors, days } = toFilter({ ...draft, q, extension, trunk });
  const lastGood = useRef<{ filter: CdrFilter; days: number }>({ filter: {}, days: DEFAULT_RANGE_DAYS });
  if (filter) lastGood.current = { filter, days };
  const applied = lastGood.current;
  return {
    draft,
    filter: applied.filter,
    /** Calls per hour for short ranges, per day for longer ones. */
    bucket: applied.days <= HOURLY_UP_TO_DAYS ? ("hour" as const) : ("day" as const),
    errors,
    set: (field: keyof CallFilterDraft, value: string) => setDraft((d) => ({ ...d, [field]: value })),
    clear: () => setDraft(defaultDraft()),
    /** Anything besides the default range typed or chosen. */
    isFiltered:
      TEXT_FIELDS.some((f) => draft[f].trim() !== "") ||
      draft.direction !== "any" ||
      draft.disposition !== "any" ||
      draft.fromDate !== initial.fromDate ||
      draft.toDate !== initial.toDate,
  };
}

const DIRECTION_OPTIONS = [
  { value: "any", label: "Any direction" },
  ...CALL_DIRECTIONS.map((d) => ({ value: d, label: DIRECTION_LABELS[d] })),
];

const DISPOSITION_OPTIONS = [
  { value: "any", label: "Any result" },
  ...CDR_DISPOSITIONS.map((d) => ({ value: d, label: DISPOSITION_LABELS[d] })),
];

export function CallHistoryFilters({
  state,
  trunks,
}: {
  state: ReturnType<typeof useCallHistoryFilter>;
  /** Trunk names offered for the trunk field. */
  trunks: readonly string[];
}) {
  const { draft, errors, set, clear, isFiltered } = state;
  return (
    <search className="flex flex-wrap items-start gap-3" aria-label="Filter the call history">
      <FormField label="From" error={errors.fromDate} className="w-40">
        {(control) => (
          <Input {...control} type="date" value={draft.fromDate} onChange={(e) => set("fromDate", e.target.value)} />
        )}
      </FormField>
      <FormField label="To" error={errors.toDate} className="w-40">
        {(control) => (
          <Input {...control} type="date" value={draft.toDate} onChange={(e) => set("toDate", e.target.value)} />
        )}
      </FormField>
      <SearchField
        label="Number or name"
        error={errors.q}
        className="min-w-56 flex-1"
        placeholder="Caller, callee or dialled number"
        value={draft.q}
        onChange={(v) => set("q", v)}
      />
      <SelectField
        label="Direction"
        className="w-40"
        value={draft.direction}
        options={DIRECTION_OPTIONS}
        onValueChange={(v) => set("direction", v)}
      />
      <SelectField
        label="Result"
        className="w-40"
        value={draft.disposition}
        options={DISPOSITION_OPTIONS}
        onValueChange={(v) => set("disposition", v)}
      />
      <FormField label="Extension" error={errors.extension} className="w-32">
        {(control) => (
          <Input
            {...control}
            inputMode="numeric"
            placeholder="Any"
            autoComplete="off"
            value={draft.extension}
            onChange={(e) => set("extension", e.target.value)}
          />
        )}
      </FormField>
      <SuggestField
        label="Trunk"
        error={errors.trunk}
        className="w-40"
        placeholder="Any"
        value={draft.trunk}
        onChange={(v) => set("trunk", v)}
        suggestions={trunks}
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
