/**
 * One message to an alert channel: what the rules engine sends when an alert fires, repeats or resolves, and
 * what "Send test" sends. Every channel renders the same fields (a subject line and plain text), so an
 * alert reads the same in a mailbox, a chat and a webhook receiver.
 */
export type AlertWhat = "firing" | "repeat" | "resolved" | "test";

export interface AlertMessage {
  what: AlertWhat;
  /** The alert (`alert_events.id`); null for a test message. */
  eventId: number | null;
  ruleName: string;
  /** The rule's condition kind (`trunk-unregistered`, `disk-usage`, …); `test` for a test message. */
  kind: string;
  /** What it is about, stable while it lasts: `trunk:telnyx`, `extension:2501`, `disk:/`. */
  subject: string;
  /** One line, e.g. "Trunk telnyx unregistered for 5 min". */
  title: string;
  /** Plain-text detail. */
  text: string;
  /** When the condition began (ms since the epoch). */
  startedAt: number;
  /** When this message was made (ms since the epoch). */
  at: number;
  /** The console's name (SERVER_LABEL), so a message from one of several PBXs says which. */
  server: string;
}
