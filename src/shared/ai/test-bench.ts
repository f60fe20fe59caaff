/**
 * The test bench (ADR 0073): a browser talks to one assistant over OpenAI's Realtime WebRTC flow, with a
 * short-lived client secret the console mints for that assistant's session. Never the API key.
 */

/** What `POST /api/ai/assistants/:id/client-secret` answers. */
export interface AiClientSecret {
  /** The ephemeral key (`ek_…`): the bearer of the one SDP offer POST, valid until `expiresAt`. */
  value: string;
  /** When the key stops opening calls (ISO 8601); a call it opened goes on. */
  expiresAt: string;
  /** Where the browser POSTs its SDP offer: the configured OpenAI base URL's `/realtime/calls`. */
  callsUrl: string;
}

/** The data channel OpenAI's WebRTC calls carry the Realtime events on. */
export const REALTIME_DATA_CHANNEL = "oai-events";
