/** How AI values read on the AI screens: durations, action names, JSON-text fields, models and voices. */
import { AI_MODEL_LABELS, AI_VOICE_LABELS, type AiModel, type AiVoice } from "../../../shared/ai/assistants";
import { parseJsonObject } from "../../../shared/ai/routing-rules";

/** Seconds as m:ss (e.g. 2:05); 'N/A' when unknown. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return "N/A";
  const s = Math.floor(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** An action name for display: underscores shown as spaces (route_to_ivr → "route to ivr"). */
export const actionLabel = (action: string) => action.replace(/_/g, " ");

/** Display form of a JSON-text field: text that is not a JSON object shows as empty. */
export const jsonEntries = (text: string | null | undefined): [string, string][] =>
  Object.entries(parseJsonObject(text) ?? {}).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]);

/** A model's label, or its id when the catalogue has none. */
export const modelLabel = (model: string) => AI_MODEL_LABELS[model as AiModel] ?? model;

/** A voice as the form shows it, e.g. "Alloy (Neutral)"; an unknown voice as it is. */
export const voiceLabel = (voice: string) => {
  const label = AI_VOICE_LABELS[voice as AiVoice];
  return label ? `${voice[0]?.toUpperCase()}${voice.slice(1)} (${label})` : voice;
};
