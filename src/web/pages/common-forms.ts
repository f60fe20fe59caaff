/**
 * The form kit and the shared zod schemas, gathered into one chunk like `common.ts` (ADR 0030) but apart
 * from it: the Inventory group reaches its forms only through the on-demand `forms-inventory.ts` (ADR
 * 0046), so these may not be in `SHARED_MODULES`. Every group barrel that has forms re-exports
 * `FORM_MODULES`, and so does `forms-inventory.ts`, so all of these land in one chunk.
 */
import { ShieldCheck } from "lucide-react";
import * as formFields from "@/components/form-fields";
import * as formKit from "@/components/form-kit";
import * as formErrors from "@/lib/form-errors";
import * as sharedAiTokens from "../../shared/ai/api-tokens";
import * as sharedAiAssistants from "../../shared/ai/assistants";
import * as sharedAiRules from "../../shared/ai/routing-rules";
import * as sharedAiTranscripts from "../../shared/ai/transcripts";
import * as sharedFields from "../../shared/fields";
import * as sharedInventory from "../../shared/inventory";
import * as sharedJobs from "../../shared/jobs";
import * as sharedLive from "../../shared/live";

export const FORM_MODULES = [
  ShieldCheck,

  formFields,
  formKit,
  formErrors,
  sharedAiTokens,
  sharedAiAssistants,
  sharedAiRules,
  sharedAiTranscripts,
  sharedFields,
  sharedInventory,
  sharedJobs,
  sharedLive,
];
