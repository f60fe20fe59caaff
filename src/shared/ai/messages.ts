/**
 * Messages an AI assistant took during a call (its `take_message` tool), as GET /api/ai/messages returns
 * them, newest first. ADR 0042.
 */

export interface AiMessage {
  id: number;
  /** The OpenAI call id of the call the message was taken on. */
  callId: string | null;
  assistantId: number | null;
  callerNumber: string | null;
  /** The caller's display name from the SIP From header, when the PBX sent one. */
  callerName: string | null;
  /** Who the message is for, as the caller said it. */
  recipient: string;
  message: string;
  /** Where to call back, when the caller gave a number. */
  callbackNumber: string | null;
  /** The call's stored transcript (null while the call runs, or when it had no words). */
  transcriptId: number | null;
  createdAt: string;
}

/** How many messages the list returns at most (newest first). */
export const AI_MESSAGES_LIST_MAX = 500;
