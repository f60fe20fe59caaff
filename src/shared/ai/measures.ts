/**
 * What an AI call cost and how fast it answered (ADR 0070): the token usage OpenAI reports in every
 * `response.done`, summed per call; the price table per model (USD per million tokens) that turns it into a
 * cost; the latency of each turn (the caller stops speaking → the first assistant audio); the call as its page
 * shows it (GET /api/ai/calls/:callId) and the per-assistant figures over time.
 */
import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import type { CallAnalysisResult } from "./analysis";
import type { AiCallLog } from "./calls";

/**
 * The Realtime usage object as OpenAI reports it in `response.done` (`response.usage`), summed over the call.
 * `cached_tokens` are part of `input_tokens`; the detail splits them by modality.
 */
export interface RealtimeUsage {
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  input_token_details: {
    text_tokens: number;
    audio_tokens: number;
    image_tokens: number;
    cached_tokens: number;
    cached_tokens_details: { text_tokens: number; audio_tokens: number; image_tokens: number };
  };
  output_token_details: { text_tokens: number; audio_tokens: number };
}

/** USD per one million tokens of each kind, for one model. */
export interface ModelPrice {
  model: string;
  inputText: number;
  cachedInputText: number;
  outputText: number;
  inputAudio: number;
  cachedInputAudio: number;
  outputAudio: number;
}

export const PRICE_FIELDS = [
  "inputText",
  "cachedInputText",
  "outputText",
  "inputAudio",
  "cachedInputAudio",
  "outputAudio",
] as const;
export type PriceField = (typeof PRICE_FIELDS)[number];

/** At most four decimals per price: the cost is then one integer sum and one division (exact, ADR 0070). */
export const PRICE_SCALE = 10_000;

const price = (label: string) =>
  z
    .number({ error: `${label} is required` })
    .finite(`${label} must be a number`)
    .min(0, `${label} must not be negative`)
    .max(10_000, `${label} must be at most 10000 USD per million tokens`)
    .refine(
      (v) =>
        Number.isInteger(Math.round(v * PRICE_SCALE)) && Math.abs(v * PRICE_SCALE - Math.round(v * PRICE_SCALE)) < 1e-6,
      {
        message: `${label} may have at most 4 decimals`,
      },
    );

/** One row of PUT /api/ai/prices: every price is required (a missing one is refused, never read as 0). */
export const modelPriceSchema = lazySchema(() =>
  z.object({
    model: z
      .string({ error: "Model is required" })
      .trim()
      .min(1, "Model is required")
      .max(50, "Model must be at most 50 characters")
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "Model must be a model id such as gpt-realtime"),
    inputText: price("Text input"),
    cachedInputText: price("Cached text input"),
    outputText: price("Text output"),
    inputAudio: price("Audio input"),
    cachedInputAudio: price("Cached audio input"),
    outputAudio: price("Audio output"),
  }),
);

/** PUT /api/ai/prices: the whole table (models not listed are removed; defaults come back only by listing them). */
export const aiPricesSchema = lazySchema(() =>
  z
    .object({ items: z.array(modelPriceSchema, { error: "items must be a list of prices" }).max(100) })
    .superRefine((v, ctx) => {
      const seen = new Set<string>();
      v.items.forEach((p, i) => {
        if (seen.has(p.model))
          ctx.addIssue({ code: "custom", path: ["items", i, "model"], message: "Model is listed twice" });
        seen.add(p.model);
      });
    }),
);
export type AiPricesRequest = z.output<typeof aiPricesSchema>;

/** GET /api/ai/prices */
export interface AiPrices {
  items: ModelPrice[];
  /** When an administrator last saved the table; null while the built-in defaults apply. */
  updatedAt: string | null;
}

/**
 * OpenAI's list prices (USD per 1M tokens) for the realtime models the console offers, used until an
 * administrator saves a table. They are a starting point, not a promise: prices change, the table is editable.
 */
export const DEFAULT_PRICES: ModelPrice[] = [
  {
    model: "gpt-realtime",
    inputText: 4,
    cachedInputText: 0.4,
    outputText: 16,
    inputAudio: 32,
    cachedInputAudio: 0.4,
    outputAudio: 64,
  },
  {
    model: "gpt-realtime-mini",
    inputText: 0.6,
    cachedInputText: 0.06,
    outputText: 2.4,
    inputAudio: 10,
    cachedInputAudio: 0.3,
    outputAudio: 20,
  },
  {
    model: "gpt-4o-realtime-preview",
    inputText: 5,
    cachedInputText: 2.5,
    outputText: 20,
    inputAudio: 40,
    cachedInputAudio: 2.5,
    outputAudio: 80,
  },
];

export const emptyUsage = (): RealtimeUsage => ({
  total_tokens: 0,
  input_tokens: 0,
  output_tokens: 0,
  input_token_details: {
    text_tokens: 0,
    audio_tokens: 0,
    image_tokens: 0,
    cached_tokens: 0,
    cached_tokens_details: { text_tokens: 0, audio_tokens: 0, image_tokens: 0 },
  },
  output_token_details: { text_tokens: 0, audio_tokens: 0 },
});

const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
const o = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};

/** Adds one `response.done` usage (any missing count is 0) to a running total, in place; returns the total. */
export function addUsage(total: RealtimeUsage, usage: unknown): RealtimeUsage {
  const u = o(usage);
  const inD = o(u.input_token_details);
  const cached = o(inD.cached_tokens_details);
  const outD = o(u.output_token_details);
  total.total_tokens += n(u.total_tokens);
  total.input_tokens += n(u.input_tokens);
  total.output_tokens += n(u.output_tokens);
  total.input_token_details.text_tokens += n(inD.text_tokens);
  total.input_token_details.audio_tokens += n(inD.audio_tokens);
  total.input_token_details.image_tokens += n(inD.image_tokens);
  total.input_token_details.cached_tokens += n(inD.cached_tokens);
  total.input_token_details.cached_tokens_details.text_tokens += n(cached.text_tokens);
  total.input_token_details.cached_tokens_details.audio_tokens += n(cached.audio_tokens);
  total.input_token_details.cached_tokens_details.image_tokens += n(cached.image_tokens);
  total.output_token_details.text_tokens += n(outD.text_tokens);
  total.output_token_details.audio_tokens += n(outD.audio_tokens);
  return total;
}

/** Tokens of each priced kind: cached tokens are billed at the cached price, the rest of the input at full price. */
export function pricedTokens(u: RealtimeUsage): Record<PriceField, number> {
  const d = u.input_token_details;
  const cachedText = d.cached_tokens_details.text_tokens;
  const cachedAudio = d.cached_tokens_details.audio_tokens;
  return {
    inputText: Math.max(0, d.text_tokens - cachedText),
    cachedInputText: cachedText,
    outputText: u.output_token_details.text_tokens,
    inputAudio: Math.max(0, d.audio_tokens - cachedAudio),
    cachedInputAudio: cachedAudio,
    outputAudio: u.output_token_details.audio_tokens,
  };
}

/** The cost in USD of `usage` at `price`: Σ tokens × price×10⁴ (integers) / 10¹⁰, one division. */
export function costOf(usage: RealtimeUsage, p: ModelPrice): number {
  const t = pricedTokens(usage);
  let sum = 0;
  for (const f of PRICE_FIELDS) sum += t[f] * Math.round(p[f] * PRICE_SCALE);
  return sum / (PRICE_SCALE * 1_000_000);
}

/** One turn's latency: when the caller stopped speaking and how long until the assistant's first audio. */
export interface TurnLatency {
  /** ISO 8601: the caller stopped speaking (`input_audio_buffer.speech_stopped` as the console received it). */
  at: string;
  ms: number;
}

export interface CallLatency {
  p50Ms: number | null;
  p95Ms: number | null;
  turns: TurnLatency[];
}

/** Nearest-rank percentile (p in 0..100) of a list of numbers; null for an empty list. */
export function percentile(values: number[], p: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? null;
}

export const latencyOf = (turns: TurnLatency[]): CallLatency => {
  const ms = turns.map((t) => t.ms);
  return { p50Ms: percentile(ms, 50), p95Ms: percentile(ms, 95), turns };
};

/** How a followed AI call ended, as the measures record it. */
export const AI_CALL_ENDS = ["completed", "transferred", "ended-by-assistant", "cap-reached", "lost"] as const;
export type AiCallEnd = (typeof AI_CALL_ENDS)[number];

/** GET /api/ai/calls/:callId: the call's log row, its measures and its analysis. */
export interface AiCallDetail extends AiCallLog {
  assistantName: string | null;
  /** When the sideband session ended (ISO); null while the call is live or when it was never followed. */
  endedAt: string | null;
  /** null until the call's first `response.done`. */
  usage: RealtimeUsage | null;
  /** null when no usage was reported or the model has no price in the table. */
  costUsd: number | null;
  /** The price row the cost was computed with (the table's row when the call started). */
  price: ModelPrice | null;
  latency: CallLatency;
  end: AiCallEnd | null;
  analysis: CallAnalysisResult | null;
  analysisError: string | null;
  /** The stored transcript of the call, when there is one. */
  transcriptId: number | null;
  live: boolean;
}

/** GET /api/ai/assistants/:id/stats?days=N: one point per UTC day with calls. */
export interface AssistantStatsDay {
  day: string;
  calls: number;
  costUsd: number;
  p50Ms: number | null;
  p95Ms: number | null;
  /** Calls whose analysis said success, and calls with a verdict. */
  succeeded: number;
  judged: number;
}
export interface AssistantStats {
  assistantId: number;
  days: AssistantStatsDay[];
  totals: {
    calls: number;
    costUsd: number;
    p50Ms: number | null;
    p95Ms: number | null;
    succeeded: number;
    judged: number;
  };
  /** Spent today (UTC) against the daily cap. */
  spentTodayUsd: number;
}

/** GET /api/ai/assistants/:id/stats?days=N: N UTC days up to today (1…366, default 30). */
export const STATS_DAYS_MAX = 366;
export const assistantStatsQuerySchema = lazySchema(() =>
  z.object({
    days: z.coerce
      .number({ error: "days must be a number of days" })
      .int("days must be a whole number")
      .min(1, "days must be at least 1")
      .max(STATS_DAYS_MAX, `days must be at most ${STATS_DAYS_MAX}`)
      .default(30),
  }),
);
export type AssistantStatsQuery = z.output<typeof assistantStatsQuerySchema>;

/** POST /api/ai/calls/:callId/whisper: an instruction only the assistant receives. */
export const WHISPER_MAX = 1000;
export const aiWhisperSchema = lazySchema(() =>
  z.object({
    text: z
      .string({ error: "Text is required" })
      .trim()
      .min(1, "Text is required")
      .max(WHISPER_MAX, `Text must be at most ${WHISPER_MAX} characters`),
  }),
);
export type AiWhisperRequest = z.output<typeof aiWhisperSchema>;
export interface AiWhisperAnswer {
  callId: string;
  delivered: true;
}
