/**
 * Call transcripts: the intake's request schema (POST /api/ai/transcripts), the transcript as the API returns
 * it, and the list's filters, pages and cursor (ADRs 0033, 0041).
 */
import { z } from "zod";
import { limitParam, optionalText, required } from "../fields";
import { lazySchema } from "../lazy-schema";
import { ANALYSIS_FIELD_FILTER, type CallAnalysisResult } from "./analysis";

/** POST /api/ai/transcripts: a finished call's transcript from the voice bridge (an API token's client). */
export const callTranscriptSchema = lazySchema(() =>
  z.object({
    callId: optionalText("Call id", 255),
    extensionId: optionalText("Extension", 50),
    phoneNumber: optionalText("Phone number", 50),
    direction: optionalText("Direction", 10),
    transcript: required("Transcript", 200_000),
    summary: optionalText("Summary", 5000),
    sentiment: optionalText("Sentiment", 20),
    keywords: z
      .array(
        z
          .string({ error: "Keywords must be text" })
          .trim()
          .min(1, "Keywords must not be empty")
          .max(100, "Each keyword must be at most 100 characters"),
        {
          error: "Keywords must be a list of text",
        },
      )
      .max(50, "At most 50 keywords")
      .default([]),
    duration: z
      .number({ error: "Duration must be a number of seconds" })
      .int("Duration must be a whole number of seconds")
      .min(0, "Duration must not be negative")
      .max(7 * 24 * 3600, "Duration is too long")
      .optional()
      .nullable()
      .transform((v) => v ?? null),
    recordingUrl: optionalText("Recording URL", 1000).refine((v) => v === null || /^https?:\/\/\S+$/.test(v), {
      message: "Recording URL must be an http(s) URL",
    }),
  }),
);

/** A transcript as the API returns it (dates as ISO strings). */
export interface CallTranscript {
  id: number;
  callId: string | null;
  extensionId: string | null;
  phoneNumber: string | null;
  direction: string | null;
  transcript: string;
  summary: string | null;
  sentiment: string | null;
  keywords: string[];
  duration: number | null;
  recordingUrl: string | null;
  /** How a call the console followed on its sideband ended ("transferred to 1001", …); null from the token intake. */
  outcome: string | null;
  /** The console lost the call's sideband for good: turns may be missing (ADR 0042). */
  partial: boolean;
  /** The caller's intent from the console's end-of-call classification; null otherwise (ADR 0043). */
  intent: string | null;
  /** What a routing rule did during the call ("… rule 'Angry' (#3) route_to_extension → 200: done"), or null (ADR 0043). */
  ruleDecision: string | null;
  /** The call's post-call analysis (ADR 0071), or null (none configured, not done yet, or failed). */
  analysis: CallAnalysisResult | null;
  createdAt: string;
}

/** The bare list of GET /api/ai/transcripts (no `limit`/`cursor`) stays as before; the console pages. */
export const TRANSCRIPT_PAGE_DEFAULT = 100;
export const TRANSCRIPT_PAGE_MAX = 500;
/** Characters of the transcript a list item carries (the card's two-line preview); the detail has all. */
export const TRANSCRIPT_PREVIEW_CHARS = 300;

const transcriptTime = (label: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), `${label} must be an ISO 8601 time`);

/** The sentiments the voice bridge reports (stored as given; the filter compares case-insensitively). */
export const TRANSCRIPT_SENTIMENTS = ["positive", "neutral", "negative"] as const;

/**
 * The filters of GET /api/ai/transcripts and its exports (query string values; each applied in SQL as a
 * bound parameter, ADR 0041): `q` the search (text and summary case-insensitively in any script, phone
 * number and extension as substrings), `from` (inclusive) and `to` (exclusive) ISO 8601 times,
 * `sentiment` (case-insensitive equality), `assistant` (the AI assistant the call was routed to, by the
 * call log's call id), `caller` (part of the caller's number) and `field` (`name=value`: the post-call
 * analysis field `name` is `value`, case-insensitively; ADR 0071). The search also finds the analysis's
 * summary and field values.
 */
export const transcriptFilterSchema = lazySchema(() =>
  z.object({
    q: z.string().trim().max(200, "The search is at most 200 characters").optional(),
    from: transcriptTime("From").optional(),
    to: transcriptTime("To").optional(),
    sentiment: z.string().trim().min(1).max(100, "Sentiment is at most 100 characters").optional(),
    assistant: z.coerce
      .number({ error: "The assistant must be an assistant id" })
      .int("The assistant must be an assistant id")
      .positive("The assistant must be an assistant id")
      .optional(),
    caller: z.string().trim().min(1).max(50, "The caller number is at most 50 characters").optional(),
    field: z
      .string()
      .trim()
      .max(300, "The field filter is at most 300 characters")
      .regex(ANALYSIS_FIELD_FILTER, "The field filter is name=value, e.g. callback_number=5551234")
      .optional(),
  }),
);
export type TranscriptFilter = z.infer<typeof transcriptFilterSchema>;

/**
 * GET /api/ai/transcripts query: the filters (`transcriptFilterSchema`); `limit` or `cursor` asks for a page
 * (`TranscriptPage`), without either the answer is the whole list (`CallTranscript[]`).
 */
export const transcriptQuerySchema = lazySchema(() =>
  transcriptFilterSchema.extend({
    limit: limitParam(TRANSCRIPT_PAGE_MAX),
    /** The `nextCursor` of the previous page: `<createdAt ms>.<id>` of its last item. */
    cursor: z
      .string()
      .regex(/^[0-9]{1,15}\.[1-9][0-9]{0,15}$/, "The cursor is not one this console gave out")
      .optional(),
  }),
);
export type TranscriptQuery = z.infer<typeof transcriptQuerySchema>;

/** One transcript in a page: everything but the text, of which only the start (`preview`). */
export interface TranscriptListItem extends Omit<CallTranscript, "transcript"> {
  preview: string;
}

/** GET /api/ai/transcripts?limit=&cursor=&q= */
export interface TranscriptPage {
  items: TranscriptListItem[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
  /** All stored transcripts. */
  total: number;
  /** Those matching the filters (`total` without any). */
  matched: number;
}
