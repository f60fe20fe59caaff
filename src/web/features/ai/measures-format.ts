/** How an AI call's measures read: amounts in USD, milliseconds, token kinds and how a call ended. */
import type { AiCallEnd, PriceField } from "../../../shared/ai/measures";

/** The token kinds a price row lists, in the table's order, as the screens name them. */
export const PRICE_LABELS: Record<PriceField, string> = {
  inputText: "Text input",
  cachedInputText: "Cached text input",
  outputText: "Text output",
  inputAudio: "Audio input",
  cachedInputAudio: "Cached audio input",
  outputAudio: "Audio output",
};

/**
 * An amount in USD: cents for a dollar or more, otherwise as many decimals as a call's cost needs (a short
 * call costs fractions of a cent), at most six.
 */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return value.toLocaleString("en-US", {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 2,
    maximumFractionDigits: Math.abs(value) >= 1 ? 2 : 6,
  });
}

/** Milliseconds as "850 ms" or "1.25 s"; "—" when unknown. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** A share as a whole percentage, or "—" when nothing was judged. */
export const formatRate = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)}%` : "—");

export const END_LABELS: Record<AiCallEnd, string> = {
  completed: "Completed",
  transferred: "Transferred",
  "ended-by-assistant": "Ended by the assistant",
  "cap-reached": "A spend or time cap was reached",
  lost: "Lost (the connection to OpenAI dropped)",
};
