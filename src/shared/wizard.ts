/** The configuration wizard: its request, defaults, numbering and result. */
import { z } from "zod";
import { HOST_RE } from "./inventory";
import { lazySchema } from "./lazy-schema";

export const WIZARD_DEFAULTS = {
  extensionCount: 5,
  extensionPrefix: "10",
  trunkProvider: "",
  enableVoicemail: true,
  enableIVR: false,
} as const;

export const wizardDeploySchema = lazySchema(() =>
  z.object({
    step: z.number().int().optional(),
    extensionCount: z
      .number({ error: "Extension count must be a number" })
      .int("Extension count must be a whole number")
      .min(1, "Create at least 1 extension")
      .max(100, "Create at most 100 extensions"),
    extensionPrefix: z
      .string()
      .trim()
      .min(1, "Prefix is required")
      .max(5, "Prefix must be at most 5 characters")
      .regex(/^\d+$/, "Prefix must contain digits only"),
    trunkProvider: z
      .string()
      .trim()
      .max(255)
      .refine((v) => v === "" || HOST_RE.test(v), "Enter a host name such as sip.example.com")
      .optional()
      .default(""),
    enableVoicemail: z.boolean().default(true),
    enableIVR: z.boolean().default(false),
  }),
);

/** Wizard numbering: prefix plus a two-digit index (1001–1005 for the defaults). */
export const wizardExtensionNumbers = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(2, "0")}`);

export interface WizardDeployResult {
  created: { extensions: string[]; trunk: string | null; ivr: string | null };
  existing: { extensions: string[]; trunk: string | null; ivr: string | null };
}
