/**
 * Slack incoming webhooks: a JSON POST of `{text, blocks?}` to the webhook's own URL, answered `200 ok`, or
 * an HTTP status with a short error code as plain text (`invalid_payload`, `no_service`, `channel_not_found`,
 * `channel_is_archived`, `action_prohibited`…), and 429 with `Retry-After` past about one message a second.
 * The URL is the credential (its path carries the token), so every error is redacted of it.
 */
import { httpRequest, ServiceError } from "./http";

const SERVICE = "Slack";

/** A Block Kit block, as far as the console sends them. */
export type SlackBlock =
  | { type: "header"; text: { type: "plain_text"; text: string } }
  | { type: "section"; text: { type: "mrkdwn" | "plain_text"; text: string } }
  | { type: "context"; elements: { type: "mrkdwn" | "plain_text"; text: string }[] };

export interface SlackMessage {
  /** The notification's text, and what shows where blocks cannot be shown. */
  text: string;
  blocks?: SlackBlock[];
}

/** Slack's error codes and what each means for the person who set the channel up. */
const SLACK_ERRORS: Record<string, string> = {
  no_service: "the webhook URL is unknown or was revoked; make a new one in Slack",
  no_team: "the webhook's workspace is gone; make a new webhook URL in Slack",
  invalid_token: "the webhook URL's token is not valid; copy the URL again from Slack",
  team_disabled: "the webhook's workspace is disabled",
  channel_not_found: "the webhook's channel no longer exists",
  channel_is_archived: "the webhook's channel is archived",
  action_prohibited: "the workspace does not allow this webhook to post",
  posting_to_general_channel_denied: "only administrators may post to that channel",
  user_not_found: "the webhook's user no longer exists",
  invalid_payload: "Slack could not read the message",
  no_text: "the message had no text",
  too_many_attachments: "the message had too many attachments",
  rate_limited: "too many messages; Slack accepts about one a second",
};

/** The webhook URL and its path's parts: what an error must never show. */
function secretsOf(webhookUrl: string): string[] {
  const out = [webhookUrl];
  try {
    const u = new URL(webhookUrl);
    out.push(u.pathname, `${u.pathname}${u.search}`, ...u.pathname.split("/").filter((p) => p.length >= 8));
  } catch {}
  return out;
}

/** Posts one message to a Slack incoming webhook; a refusal is a ServiceError saying what Slack meant. */
export async function postSlackMessage(webhookUrl: string, message: SlackMessage, signal?: AbortSignal): Promise<void> {
  const secrets = secretsOf(webhookUrl);
  try {
    await httpRequest({
      service: SERVICE,
      method: "POST",
      url: webhookUrl,
      headers: { Accept: "text/plain, application/json" },
      body: message,
      signal,
      secrets,
    });
  } catch (err) {
    if (!(err instanceof ServiceError) || err.status === undefined) throw err;
    const code = Object.keys(SLACK_ERRORS).find((c) => err.message.includes(c));
    if (err.status === 429)
      throw new ServiceError(SERVICE, `Slack is rate-limiting messages (429): ${SLACK_ERRORS.rate_limited}`, 429);
    if (!code) throw err;
    throw new ServiceError(
      SERVICE,
      `Slack refused the message (${err.status} ${code}): ${SLACK_ERRORS[code]}`,
      err.status,
    );
  }
}
