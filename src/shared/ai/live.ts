/**
 * AI calls in progress as the Live AI Calls screen shows them (GET /api/ai/calls/live), and the operator's
 * take-over (POST /api/ai/calls/:callId/transfer). ADR 0044.
 */
import { z } from "zod";
import { lazySchema } from "../lazy-schema";

export interface LiveAiTurn {
  speaker: "caller" | "assistant";
  text: string;
}

/** The latest classification of the conversation (ADR 0043), once one succeeded. */
export interface LiveAiClassification {
  sentiment: string;
  intent: string;
  summary: string;
}

export interface LiveAiCall {
  /** OpenAI's call id (the path parameter of the take-over routes). */
  callId: string;
  callerNumber: string | null;
  /** The caller's display name from the SIP From header. */
  callerName: string | null;
  assistantId: number;
  assistantName: string;
  /** When the console accepted the call (ISO 8601). */
  startedAt: string;
  /** Whether the console's sideband to the call is open now (false while it opens or reconnects). */
  connected: boolean;
  /** The turns so far, in conversation order (the last `LIVE_TURNS_MAX`). */
  turns: LiveAiTurn[];
  /** How many earlier turns are not in `turns`. */
  earlierTurns: number;
  classification: LiveAiClassification | null;
  /** What operators whispered to the assistant (POST /api/ai/calls/:callId/whisper; the last 20, each cut to 200 characters). */
  whispers: LiveAiWhisper[];
}

/** An operator's whisper on a live call: an instruction only the assistant received (ADR 0070). */
export interface LiveAiWhisper {
  /** ISO 8601 */
  at: string;
  text: string;
}

/** Turns per call in the live list (the whole transcript is stored when the call ends). */
export const LIVE_TURNS_MAX = 100;

/** POST /api/ai/calls/:callId/transfer: the extension (or the assistant's IVR number) the call goes to. */
export const aiTransferSchema = lazySchema(() =>
  z.object({
    extension: z
      .string({ error: "Extension is required" })
      .trim()
      .min(1, "Extension is required")
      .max(20, "Extension must be at most 20 characters")
      .regex(/^[0-9*#]+$/, "Extension must be digits"),
  }),
);
export type AiTransferRequest = z.output<typeof aiTransferSchema>;

export interface AiTransferAnswer {
  callId: string;
  transferredTo: string;
  targetUri: string;
}

export interface AiHangupAnswer {
  callId: string;
  ended: true;
}
