/**
 * One alert message as each channel kind sends it: a subject line and plain text (e-mail, Telegram), the
 * same as Slack blocks, and the JSON a webhook receiver gets. Every kind says the same things in the same
 * order, so an alert reads alike wherever it arrives.
 */
import type { SlackBlock, SlackMessage } from "../clients/slack";
import type { AlertMessage, AlertWhat } from "./message";

const TAGS: Record<AlertWhat, string> = {
  firing: "FIRING",
  repeat: "STILL FIRING",
  resolved: "RESOLVED",
  test: "TEST",
};

const iso = (ms: number) => new Date(ms).toISOString();
/** Text that goes into one header line: no line breaks, a sane length. */
const oneLine = (text: string, max: number) => text.replace(/\s+/g, " ").trim().slice(0, max);

/** "[FIRING] pbx1: Trunk telnyx unregistered for 5 min" */
export function subjectOf(m: AlertMessage): string {
  return oneLine(`[${TAGS[m.what]}] ${m.server}: ${m.title}`, 200);
}

/** The facts under the text, one per line. */
function factsOf(m: AlertMessage): string[] {
  if (m.what === "test") return [`Server: ${m.server}`, `Sent: ${iso(m.at)}`];
  return [
    `Rule: ${m.ruleName} (${m.kind})`,
    `Subject: ${m.subject}`,
    `Started: ${iso(m.startedAt)}`,
    ...(m.what === "resolved" ? [`Resolved: ${iso(m.at)}`] : []),
    `Server: ${m.server}`,
  ];
}

/** The plain-text body (e-mail, Telegram). */
export function plainTextOf(m: AlertMessage): string {
  return [m.title, "", m.text, "", ...factsOf(m)].join("\n");
}

/** Slack's mrkdwn treats these three as markup; everything else is shown as typed. */
const slackEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** `text` is the notification (and what shows where blocks cannot); the blocks are the message. */
export function slackMessageOf(m: AlertMessage): SlackMessage {
  const blocks: SlackBlock[] = [
    // Slack's limits: a header's text 150 characters, a section's 3,000.
    { type: "header", text: { type: "plain_text", text: oneLine(`${TAGS[m.what]}: ${m.title}`, 150) } },
    ...(m.text.trim()
      ? [{ type: "section" as const, text: { type: "mrkdwn" as const, text: slackEscape(m.text).slice(0, 3000) } }]
      : []),
    { type: "context", elements: [{ type: "mrkdwn", text: slackEscape(factsOf(m).join(" · ")).slice(0, 3000) }] },
  ];
  return { text: subjectOf(m), blocks };
}

/** The webhook's JSON, in the Standard Webhooks payload shape `{type, timestamp, data}`. */
export function webhookPayloadOf(m: AlertMessage): string {
  return JSON.stringify({
    type: `alert.${m.what}`,
    timestamp: iso(m.at),
    data: {
      what: m.what,
      eventId: m.eventId,
      ruleName: m.ruleName,
      kind: m.kind,
      subject: m.subject,
      title: m.title,
      text: m.text,
      startedAt: iso(m.startedAt),
      at: iso(m.at),
      server: m.server,
    },
  });
}

/** What "Send test" sends: a message of every field, so the channel shows how an alert will look. */
export function testMessageOf(server: string, channelName: string, now: number): AlertMessage {
  return {
    what: "test",
    eventId: null,
    ruleName: "Send test",
    kind: "test",
    subject: `channel:${channelName}`,
    title: `Test message to ${channelName}`,
    text: `This is a test from the PBX console on ${server}. Alerts sent to "${channelName}" will arrive like this.`,
    startedAt: now,
    at: now,
    server,
  };
}
