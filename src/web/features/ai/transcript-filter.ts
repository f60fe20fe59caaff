/**
 * The Call Transcripts screen's filter, kept in the page's URL (`?q=&from=&to=&sentiment=&assistant=&caller=&field=`)
 * so a filtered view can be reloaded, bookmarked and shared. Dates in the URL are the user's calendar
 * days (`from` and `to` both included); the API gets the instants of their local midnights. A value the
 * shared schema refuses (a hand-edited URL) is ignored.
 */
import { useRouter, useRouterState } from "@tanstack/react-router";
import { useCallback, useMemo } from "react";
import { type TranscriptFilter, transcriptFilterSchema } from "../../../shared/ai/transcripts";

/** What the screen's controls hold (the URL's values). */
export interface TranscriptFilterForm {
  q: string;
  /** YYYY-MM-DD, the first day included. */
  from: string;
  /** YYYY-MM-DD, the last day included. */
  to: string;
  sentiment: string;
  assistant: string;
  caller: string;
  /** `name=value`: a post-call analysis field's value (ADR 0071). */
  field: string;
}

const KEYS = ["q", "from", "to", "sentiment", "assistant", "caller", "field"] as const;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function formFromSearch(search: string): TranscriptFilterForm {
  const params = new URLSearchParams(search);
  const form = Object.fromEntries(KEYS.map((k) => [k, params.get(k)?.trim() ?? ""])) as unknown as TranscriptFilterForm;
  if (!DAY.test(form.from)) form.from = "";
  if (!DAY.test(form.to)) form.to = "";
  return form;
}

/** Local midnight starting the day `day` (YYYY-MM-DD) plus `addDays`, as an ISO instant. */
function localMidnight(day: string, addDays = 0): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d + addDays).toISOString();
}

/** The API's filter: days as local-midnight instants (`to` exclusive: the day after), refused values left out. */
export function apiFilter(form: TranscriptFilterForm): TranscriptFilter {
  const raw: Record<string, string> = {};
  if (form.q) raw.q = form.q;
  if (form.from) raw.from = localMidnight(form.from);
  if (form.to) raw.to = localMidnight(form.to, 1);
  if (form.sentiment) raw.sentiment = form.sentiment;
  if (form.assistant) raw.assistant = form.assistant;
  if (form.caller) raw.caller = form.caller;
  if (form.field) raw.field = form.field;
  const filter: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const field = transcriptFilterSchema.shape[key as keyof typeof transcriptFilterSchema.shape];
    const parsed = field.safeParse(value);
    if (parsed.success && parsed.data !== undefined) filter[key] = parsed.data;
  }
  return filter as TranscriptFilter;
}

/** The filter of the URL, and a setter that replaces the URL's (no history entry per keystroke). */
export function useTranscriptFilter() {
  const router = useRouter();
  const search = useRouterState({ select: (s) => s.location.searchStr });
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const form = useMemo(() => formFromSearch(search), [search]);
  const filter = useMemo(() => apiFilter(form), [form]);
  const setForm = useCallback(
    (patch: Partial<TranscriptFilterForm>) => {
      const next = { ...formFromSearch(router.state.location.searchStr), ...patch };
      const params = new URLSearchParams();
      for (const key of KEYS) if (next[key]) params.set(key, next[key]);
      const query = params.toString();
      router.history.replace(`${pathname}${query ? `?${query}` : ""}`);
    },
    [router, pathname],
  );
  const active = KEYS.some((k) => k !== "q" && form[k] !== "");
  return { form, filter, setForm, active };
}
