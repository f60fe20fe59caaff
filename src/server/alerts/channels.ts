/**
 * Alert channels (ADR 0062): where alerts go, and the one way a message is sent to one (`deliverAlert`).
 *
 * A channel keeps what is not secret in `settings` and its one secret sealed with the secret box (the SMTP
 * password, the Slack webhook URL, the Telegram bot token, the webhook signing secret). The secret is opened
 * only to send, never returned (`hasSecret`), and goes only where it was saved for: an e-mail channel moved
 * to another server needs its password typed again; the bot token only ever goes to PBX_TELEGRAM_URL; the
 * webhook's signing secret never leaves the console (only its signatures do).
 *
 * Every message sent or tried is a row in `alert_deliveries` (the channel's last one is on its card);
 * a failed delivery is a result, never an exception.
 */
import { and, eq, inArray, max, ne, sql } from "drizzle-orm";
import { alertChannels, alertDeliveries, alertRules } from "../../db/schema";
import {
  type AlertChannel,
  type AlertChannelCreate,
  type AlertChannelDelivery,
  type AlertChannelKind,
  type AlertChannelSettingsByKind,
  type AlertChannelTestResult,
  type AlertChannelUpdate,
  type EmailChannelSettings,
  emailProblems,
  RETYPE_PASSWORD_MESSAGE,
  type SavedAlertChannel,
} from "../../shared/alert-channels";
import { plainHttpWarning } from "../../shared/credentials";
import type { Role } from "../../shared/users";
import { deadline, redact, ServiceError } from "../clients/http";
import { sendMail } from "../clients/mail";
import { generateSigningSecret, postSignedWebhook } from "../clients/signed-webhook";
import { postSlackMessage } from "../clients/slack";
import { sendTelegramMessage } from "../clients/telegram";
import type { Deps } from "../core/deps";
import { Conflict, Invalid, NotFound } from "../core/errors";
import type { AlertMessage } from "./message";
import { plainTextOf, slackMessageOf, subjectOf, testMessageOf, webhookPayloadOf } from "./render";

type Row = typeof alertChannels.$inferSelect;
type ChannelDeps = Pick<Deps, "db" | "events" | "now" | "box">;
export type DeliverDeps = ChannelDeps & { config: Pick<Deps["config"], "serverLabel" | "endpoints"> };

/** How long one message may take, all its calls together (an SMTP session is several round trips). */
export const DELIVERY_DEADLINE_MS = 30_000;

const EVENT = "alert-channels-updated" as const;
const iso = (d: Date) => d.toISOString();

function publish(deps: Pick<Deps, "events">, id: number, action: string) {
  deps.events.publish({ type: EVENT, data: { id, action } });
}

const settingsOf = <K extends AlertChannelKind>(row: Row & { kind: K }) =>
  row.settings as unknown as AlertChannelSettingsByKind[K];

/** Where a channel's messages go, in words and without its secret. */
function targetOf(row: Row): string {
  switch (row.kind) {
    case "email": {
      const s = settingsOf(row as Row & { kind: "email" });
      return `${s.to.join(", ")} via ${s.host}:${s.port}`;
    }
    case "slack":
      return `Slack webhook at ${settingsOf(row as Row & { kind: "slack" }).host}`;
    case "telegram":
      return `Telegram chat ${settingsOf(row as Row & { kind: "telegram" }).chatId}`;
    case "webhook": {
      // The host only: a receiver's URL may carry a key of its own in its path or query.
      const url = URL.parse(settingsOf(row as Row & { kind: "webhook" }).url);
      return `Signed webhook to ${url?.host ?? "?"}`;
    }
  }
}

/** Each channel's newest delivery, in one pass over the deliveries. */
function lastDeliveries(deps: Pick<Deps, "db">, ids?: number[]): Map<number, AlertChannelDelivery> {
  const newest = deps.db
    .select({ id: max(alertDeliveries.id) })
    .from(alertDeliveries)
    .where(ids ? inArray(alertDeliveries.channelId, ids) : sql`${alertDeliveries.channelId} is not null`)
    .groupBy(alertDeliveries.channelId)
    .all()
    .map((r) => r.id)
    .filter((id): id is number => id !== null);
  const out = new Map<number, AlertChannelDelivery>();
  if (newest.length === 0) return out;
  for (const d of deps.db.select().from(alertDeliveries).where(inArray(alertDeliveries.id, newest)).all())
    if (d.channelId !== null) out.set(d.channelId, { at: iso(d.at), what: d.what, ok: d.ok, error: d.error });
  return out;
}

function toChannel(row: Row, last: AlertChannelDelivery | null, withSettings: boolean): AlertChannel {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    enabled: row.enabled,
    hasSecret: row.secret !== null,
    target: targetOf(row),
    settings: withSettings ? (row.settings as never) : null,
    lastDelivery: last,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  } as AlertChannel;
}

/**
 * GET /api/alerts/channels, by name. Every role sees the names, kinds, targets and last deliveries; the
 * settings (the form's values: SMTP server and user, recipients, chat, URL) only administrators, who alone
 * may change them. No answer carries a secret.
 */
export function listAlertChannels(deps: Pick<Deps, "db">, role: Role): AlertChannel[] {
  const rows = deps.db.select().from(alertChannels).orderBy(alertChannels.name).all();
  const last = lastDeliveries(deps);
  return rows.map((r) => toChannel(r, last.get(r.id) ?? null, role === "admin"));
}

function rowOf(deps: Pick<Deps, "db">, id: number): Row {
  const row = deps.db.select().from(alertChannels).where(eq(alertChannels.id, id)).get();
  if (!row) throw new NotFound("Alert channel");
  return row;
}

function channelOf(deps: Pick<Deps, "db">, row: Row): AlertChannel {
  return toChannel(row, lastDeliveries(deps, [row.id]).get(row.id) ?? null, true);
}

/**
 * What the audit trail records of a channel: its administrator view, and its sealed secret under a field
 * the audit masks, so a new secret shows as a change without its value (the sealed text changes only when a
 * new secret is saved).
 */
export function auditViewOfChannel(deps: Pick<Deps, "db">, id: number): object | null {
  const row = deps.db.select().from(alertChannels).where(eq(alertChannels.id, id)).get();
  if (!row) return null;
  const { settings, lastDelivery: _l, createdAt: _c, updatedAt: _u, ...view } = channelOf(deps, row);
  return { ...view, ...(settings ?? {}), secret: row.secret ?? "" };
}

function nameTaken(deps: Pick<Deps, "db">, name: string, except?: number): void {
  const clash = deps.db
    .select({ id: alertChannels.id })
    .from(alertChannels)
    .where(
      and(
        sql`lower(${alertChannels.name}) = lower(${name})`,
        except === undefined ? undefined : ne(alertChannels.id, except),
      ),
    )
    .get();
  if (clash) throw new Conflict(`An alert channel named "${name}" already exists`, { name: "This name is taken" });
}

/** The non-secret settings of a kind's form values, and its secret as typed (undefined: not given). */
function split(input: AlertChannelCreate | AlertChannelUpdate): {
  settings: Record<string, unknown>;
  secret: string | undefined;
} {
  switch (input.kind) {
    case "email": {
      const settings: EmailChannelSettings = {
        host: input.host,
        port: input.port,
        security: input.security,
        username: input.username,
        from: input.from,
        to: input.to,
        caCertificate: input.caCertificate,
      };
      return { settings: { ...settings }, secret: input.password };
    }
    case "slack":
      return { settings: {}, secret: input.webhookUrl };
    case "telegram":
      return { settings: { chatId: input.chatId }, secret: input.botToken };
    case "webhook":
      return { settings: { url: input.url }, secret: input.secret };
  }
}

/** A Slack webhook URL's host, kept in the clear to say where its messages go. */
const slackSettings = (webhookUrl: string) => ({ host: URL.parse(webhookUrl)?.host ?? "" });

const warningOf = (kind: AlertChannelKind, settings: Record<string, unknown>, secret: string | undefined) =>
  plainHttpWarning(kind === "webhook" ? (settings.url as string) : kind === "slack" ? secret : undefined) ?? undefined;

/** POST /api/alerts/channels. A webhook given no signing secret gets one, in this answer only. */
export function createAlertChannel(deps: ChannelDeps, input: AlertChannelCreate): SavedAlertChannel {
  nameTaken(deps, input.name);
  let { settings, secret } = split(input);
  let signingSecret: string | undefined;
  if (input.kind === "webhook" && !secret) secret = signingSecret = generateSigningSecret();
  if (input.kind === "slack" && secret) settings = slackSettings(secret);
  const now = new Date(deps.now());
  const row = deps.db
    .insert(alertChannels)
    .values({
      name: input.name,
      kind: input.kind,
      settings,
      secret: deps.box.seal(secret ?? null),
      enabled: input.enabled,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  publish(deps, row.id, "created");
  const warning = warningOf(input.kind, settings, secret);
  return { ...channelOf(deps, row), ...(signingSecret ? { signingSecret } : {}), ...(warning ? { warning } : {}) };
}

/**
 * PUT /api/alerts/channels/{id}: the kind's fields replace the stored settings; a secret left out keeps the
 * stored one, unless the settings now send it elsewhere (an e-mail channel's server), when it must be typed
 * again. A webhook's `regenerateSecret` makes a new signing secret, shown in this answer only.
 */
export function updateAlertChannel(deps: ChannelDeps, id: number, input: AlertChannelUpdate): SavedAlertChannel {
  const row = rowOf(deps, id);
  if (input.kind !== row.kind)
    throw new Invalid(`The kind of a channel cannot change (it is ${row.kind})`, {
      kind: "The kind cannot change: make a new channel",
    });
  nameTaken(deps, input.name, id);
  let { settings, secret } = split(input);
  let signingSecret: string | undefined;
  if (input.kind === "webhook" && input.regenerateSecret) secret = signingSecret = generateSigningSecret();
  if (input.kind === "email") {
    const before = settingsOf(row as Row & { kind: "email" });
    const moved = before.host.toLowerCase() !== input.host.toLowerCase() || before.port !== input.port;
    const keeps = secret === undefined && row.secret !== null;
    // The stored password goes only to the server it was saved for (ADR 0018).
    if (keeps && moved && input.username)
      throw new Invalid(RETYPE_PASSWORD_MESSAGE, { password: RETYPE_PASSWORD_MESSAGE });
    const problems = emailProblems(input, secret !== undefined || (keeps && !moved));
    if (Object.keys(problems).length) throw new Invalid(`Invalid request: ${Object.values(problems)[0]}`, problems);
    // A channel without a user name sends no password: a stored one is forgotten rather than kept unused.
    if (!input.username) secret = undefined;
  }
  if (input.kind === "slack") settings = secret ? slackSettings(secret) : (row.settings as Record<string, unknown>);
  const sealed =
    secret !== undefined ? deps.box.seal(secret) : input.kind === "email" && !input.username ? null : row.secret;
  const updated = deps.db
    .update(alertChannels)
    .set({ name: input.name, settings, secret: sealed, enabled: input.enabled, updatedAt: new Date(deps.now()) })
    .where(eq(alertChannels.id, id))
    .returning()
    .get();
  publish(deps, id, "updated");
  const warning = warningOf(input.kind, settings, secret);
  return {
    ...channelOf(deps, updated as Row),
    ...(signingSecret ? { signingSecret } : {}),
    ...(warning ? { warning } : {}),
  };
}

/** DELETE /api/alerts/channels/{id}: refused while a rule sends to it (a rule left without a channel alerts nobody). */
export function deleteAlertChannel(deps: Pick<Deps, "db" | "events">, id: number): void {
  rowOf(deps, id);
  const users = deps.db
    .select({ name: alertRules.name, channelIds: alertRules.channelIds })
    .from(alertRules)
    .all()
    .filter((r) => r.channelIds.includes(id))
    .map((r) => r.name);
  if (users.length)
    throw new Conflict(
      `Alert rules send to this channel: ${users.slice(0, 10).join(", ")}${users.length > 10 ? ` and ${users.length - 10} more` : ""}. Take it out of them first`,
    );
  deps.db.delete(alertChannels).where(eq(alertChannels.id, id)).run();
  publish(deps, id, "deleted");
}

/** Everything an error about this channel must not show: its secret (and, for Slack, the URL's parts). */
function secretsOf(row: Row, secret: string | null): string[] {
  if (!secret) return [];
  const out = [secret];
  if (row.kind === "slack") {
    const u = URL.parse(secret);
    if (u) out.push(u.pathname, ...u.pathname.split("/").filter((p) => p.length >= 8));
  }
  return out;
}

/** Sends one message through the channel's kind; throws a ServiceError (secret redacted) when it fails. */
async function send(deps: DeliverDeps, row: Row, secret: string | null, m: AlertMessage, signal: AbortSignal) {
  switch (row.kind) {
    case "email": {
      const s = settingsOf(row as Row & { kind: "email" });
      await sendMail(
        { ...s, password: secret },
        {
          from: { name: `PBX console (${m.server})`.slice(0, 100), address: s.from },
          to: s.to,
          subject: subjectOf(m),
          text: plainTextOf(m),
        },
        signal,
      );
      return;
    }
    case "slack":
      if (!secret) throw new ServiceError("Slack", "The channel has no webhook URL: edit it and enter one");
      await postSlackMessage(secret, slackMessageOf(m), signal);
      return;
    case "telegram": {
      if (!secret) throw new ServiceError("Telegram", "The channel has no bot token: edit it and enter one");
      const { chatId } = settingsOf(row as Row & { kind: "telegram" });
      await sendTelegramMessage(
        deps.config.endpoints.telegram,
        secret,
        chatId,
        `${subjectOf(m)}\n\n${plainTextOf(m)}`,
        signal,
      );
      return;
    }
    case "webhook": {
      if (!secret) throw new ServiceError("Webhook", "The channel has no signing secret: edit it and make one");
      const { url } = settingsOf(row as Row & { kind: "webhook" });
      await postSignedWebhook({ url, secret, body: webhookPayloadOf(m), timestamp: Math.floor(m.at / 1000), signal });
      return;
    }
  }
}

type DeliveryResult = { ok: true } | { ok: false; error: string };

/** Sends, records the delivery and publishes; never throws. */
async function deliver(
  deps: DeliverDeps,
  row: Row,
  message: AlertMessage,
  signal: AbortSignal | undefined,
  skipDisabled: boolean,
): Promise<DeliveryResult> {
  let result: DeliveryResult;
  let secret: string | null = null;
  if (skipDisabled && !row.enabled) result = { ok: false, error: "channel disabled" };
  else {
    const limit = deadline(`Sending to the channel "${row.name}"`, DELIVERY_DEADLINE_MS);
    try {
      secret = deps.box.open(row.secret);
      await send(deps, row, secret, message, signal ? AbortSignal.any([limit, signal]) : limit);
      result = { ok: true };
    } catch (err) {
      const text =
        err instanceof ServiceError
          ? err.message
          : secret === null && row.secret !== null
            ? "The channel's secret cannot be opened with this console's key (DATA_DIR/secret.key): enter it again"
            : `Sending failed: ${err instanceof Error ? err.message : String(err)}`;
      // The clients redact already; this is the backstop for anything else that reached here.
      result = { ok: false, error: redact(text, secretsOf(row, secret)).slice(0, 500) };
    }
  }
  try {
    deps.db
      .insert(alertDeliveries)
      .values({
        eventId: message.eventId,
        channelId: row.id,
        what: message.what,
        at: new Date(deps.now()),
        ok: result.ok,
        error: result.ok ? null : result.error,
      })
      .run();
    publish(deps, row.id, "delivered");
  } catch (err) {
    // The alert it belongs to may have been pruned meanwhile: the message went (or not) all the same.
    console.error(`alerts: could not record a delivery to channel ${row.id}: ${(err as Error).message}`);
  }
  return result;
}

/**
 * Sends one alert message through a channel and records it in `alert_deliveries`. Never throws for a failed
 * delivery: the answer says what went wrong, in words without the channel's secret. A disabled channel is
 * skipped (recorded as such, so the history says why nobody heard of it).
 */
export async function deliverAlert(
  deps: DeliverDeps,
  channelId: number,
  message: AlertMessage,
  signal?: AbortSignal,
): Promise<DeliveryResult> {
  const row = deps.db.select().from(alertChannels).where(eq(alertChannels.id, channelId)).get();
  if (!row) return { ok: false, error: "channel not found" };
  return deliver(deps, row, message, signal, true);
}

/**
 * POST /api/alerts/channels/{id}/test: a test message now, through a disabled channel too (to check it
 * before turning it on). The result is the answer, a failure included.
 */
export async function testAlertChannel(deps: DeliverDeps, id: number): Promise<AlertChannelTestResult> {
  const row = rowOf(deps, id);
  const result = await deliver(
    deps,
    row,
    testMessageOf(deps.config.serverLabel, row.name, deps.now()),
    undefined,
    false,
  );
  return result.ok ? { ok: true } : { ok: false, error: result.error };
}
