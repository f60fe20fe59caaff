/**
 * Post-call analysis per assistant (ADR 0071): a summary, a success verdict against a stated goal and structured
 * fields the administrator defines as a small schema (name, type, description), asked of a text model with
 * JSON-schema output when the call ends. The config is stored with the assistant; the result with the call.
 */
import { z } from "zod";
import { lazySchema } from "../lazy-schema";

export const ANALYSIS_FIELD_TYPES = ["string", "number", "boolean"] as const;
export type AnalysisFieldType = (typeof ANALYSIS_FIELD_TYPES)[number];
export const ANALYSIS_FIELDS_MAX = 20;
/** Field names become JSON-schema property names and search keys: lower snake case. */
export const ANALYSIS_FIELD_NAME = /^[a-z][a-z0-9_]{0,39}$/;
/** Names the result's own members take in the model's answer and in exports. */
export const ANALYSIS_RESERVED_NAMES = ["summary", "success", "reason"] as const;
/** The transcripts filter `field=name=value` (ADR 0071). */
export const ANALYSIS_FIELD_FILTER = /^[a-z][a-z0-9_]{0,39}=\S.*$/;

/** `name=value` of the transcripts' field filter, split (the value trimmed). */
export function splitFieldFilter(filter: string): { name: string; value: string } {
  const at = filter.indexOf("=");
  return { name: filter.slice(0, at).trim(), value: filter.slice(at + 1).trim() };
}

export const analysisFieldSchema = lazySchema(() =>
  z.object({
    name: z
      .string({ error: "Field name is required" })
      .trim()
      .regex(
        ANALYSIS_FIELD_NAME,
        "Field name must be lower case letters, digits and _ (e.g. callback_number), starting with a letter",
      ),
    type: z.enum(ANALYSIS_FIELD_TYPES, { error: "Field type must be string, number or boolean" }),
    description: z
      .string({ error: "Description is required" })
      .trim()
      .min(1, "Description is required")
      .max(300, "Description must be at most 300 characters"),
  }),
);

/** The analysis an assistant runs at the end of each call; `null` on the assistant = none. */
export const analysisConfigSchema = lazySchema(() =>
  z
    .object({
      enabled: z.boolean().default(true),
      /** What a successful call achieves, in the administrator's words (the verdict is judged against it). */
      goal: z.string().trim().max(1000, "Goal must be at most 1000 characters").default(""),
      fields: z
        .array(analysisFieldSchema, { error: "Fields must be a list" })
        .max(ANALYSIS_FIELDS_MAX, `At most ${ANALYSIS_FIELDS_MAX} fields`)
        .default([]),
      /** The text model that analyses (Structured Outputs). */
      model: z
        .string()
        .trim()
        .max(50)
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "Model must be a model id such as gpt-4o-mini")
        .default("gpt-4o-mini"),
    })
    .superRefine((v, ctx) => {
      const seen = new Set<string>();
      v.fields.forEach((f, i) => {
        if ((ANALYSIS_RESERVED_NAMES as readonly string[]).includes(f.name))
          ctx.addIssue({ code: "custom", path: ["fields", i, "name"], message: `'${f.name}' is reserved` });
        if (seen.has(f.name))
          ctx.addIssue({ code: "custom", path: ["fields", i, "name"], message: "Field name is used twice" });
        seen.add(f.name);
      });
    }),
);
export type AnalysisConfig = z.output<typeof analysisConfigSchema>;
export type AnalysisField = AnalysisConfig["fields"][number];

/** What the analysis of one call found. */
export interface CallAnalysisResult {
  summary: string;
  /** Whether the call met the goal; null when the assistant states no goal. */
  success: boolean | null;
  reason: string;
  fields: Record<string, string | number | boolean | null>;
  model: string;
  at: string;
}
