/**
 * Alert channels: where alerts are sent (e-mail over SMTP, a Slack incoming webhook, a Telegram bot, a
 * webhook signed as Standard Webhooks). The request schemas of `/api/alerts/channels` and the wire type.
 *
 * Each kind has one secret (the SMTP password, the Slack webhook URL, which carries its token, the Telegram
 * bot token, the webhook signing secret). It is sealed at rest and never returned: the API says `hasSecret`.
 * An update that leaves the secret out keeps the stored one. ADR 0062.
 */
import { z } from "zod";
import { isLoopbackHost, serviceUrl } from "./credentials";
import { required } from "./fields";
import { lazySchema } from "./lazy-schema";

export const ALERT_CHANNEL_KINDS = ["email", "slack", "telegram", "webhook"] as const;
export type AlertChannelKind = (typeof ALERT_CHANNEL_KINDS)[number];

export const ALERT_CHANNEL_KIND_LABELS: Record<AlertChannelKind, string> = {
  email: "E-mail",
  slack: "Slack",
  telegram: "Telegram",
  webhook: "Webhook",
};

/** How the SMTP connection is protected: STARTTLS after connecting (587), TLS from the start (465), or none. */
export const EMAIL_SECURITY = ["starttls", "tls", "none"] as const;
export type EmailSecurity = (typeof EMAIL_SECURITY)[number];

export const EMAIL_SECURITY_LABELS: Record<EmailSecurity, string> = {
  starttls: "STARTTLS (port 587)",
  tls: "TLS (port 465)",
  none: "None (a relay on this machine only)",
};

/** What a delivery was: an alert firing, repeating while it lasts, resolved, or a channel's test. */
export const ALERT_DELIVERY_WHATS = ["firing", "repeat", "resolved", "test"] as const;
export type AlertDeliveryWhat = (typeof ALERT_DELIVERY_WHATS)[number];

export const ALERT_CHANNEL_LIMITS = {
  name: 100,
  host: 255,
  username: 255,
  password: 1000,
  /** RFC 5321's longest path. */
  address: 254,
  recipients: 20,
  certificate: 20_000,
  url: 1000,
  chatId: 64,
  /** Standard Webhooks: a secret of 24 to 64 random bytes. */
  secretMinBytes: 24,
  secretMaxBytes: 64,
} as const;

/** The field messages the server adds after it merged an update with what is stored. */
export const RETYPE_PASSWORD_MESSAGE = "Enter the password again to send it to a new server";
export const PASSWORD_REQUIRED_MESSAGE = "Enter the password for this user name";
export const USERNAME_REQUIRED_MESSAGE = "Enter the user name this password belongs to";
export const PLAIN_SMTP_MESSAGE =
  "Without encryption the password and the messages cross the network in clear: choose STARTTLS or TLS (None is for a mail relay on this machine)";

const EMAIL_RE =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Whether `value` is one bare e-mail address (no display name, no line break: it goes into a header). */
export const isEmailAddress = (value: string) => value.length <= ALERT_CHANNEL_LIMITS.address && EMAIL_RE.test(value);

/** A recipients text (commas, semicolons, spaces or lines between addresses) as a list. */
export const splitRecipients = (value: string | readonly string[]): string[] =>
  (typeof value === "string" ? value.split(/[\s,;]+/) : [...value]).map((a) => a.trim()).filter((a) => a !== "");

const HOST_RE = /^[A-Za-z0-9.-]+$|^\[?[0-9A-Fa-f:.]+\]?$/;

/** The checks of an e-mail channel that look at several fields, as `{field: message}`. */
export function emailProblems(
  v: { host: string; security: EmailSecurity; username: string | null },
  hasPassword: boolean,
): Record<string, string> {
  const problems: Record<string, string> = {};
  // A loopback relay (Postfix, exim) is the one place a plain connection does not cross a network.
  if (v.security === "none" && !isLoopbackHost(v.host)) problems.security = PLAIN_SMTP_MESSAGE;
  if (v.username && !hasPassword) problems.password = PASSWORD_REQUIRED_MESSAGE;
  if (!v.username && hasPassword) problems.username = USERNAME_REQUIRED_MESSAGE;
  return problems;
}

/** `whsec_` and base64 of 24 to 64 bytes (the Standard Webhooks secret format). */
export function signingSecretProblem(value: string): string | null {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value);
  const bytes = m ? Math.floor(((m[1] as string).replace(/=+$/, "").length * 3) / 4) : 0;
  return m && bytes >= ALERT_CHANNEL_LIMITS.secretMinBytes && bytes <= ALERT_CHANNEL_LIMITS.secretMaxBytes
    ? null
    : "A signing secret is whsec_ followed by 24 to 64 bytes in base64 (leave it empty to have one made)";
}

const name = () => required("Name", ALERT_CHANNEL_LIMITS.name);
const enabled = () => z.boolean({ error: "Enabled is true or false" }).default(true);
const optional = (label: string, max: number) =>
  z
    .string({ error: `${label} must be text` })
    .trim()
    .max(max, `${label} must be at most ${max} characters`)
    .nullable()
    .optional()
    .transform((v) => (v ? v : null));
/** A secret as typed: not trimmed (a password may end in a space); empty means "not given". */
const secret = (label: string, max: number) =>
  z
    .string({ error: `${label} must be text` })
    .max(max, `${label} must be at most ${max} characters`)
    .optional()
    .transform((v) => (v ? v : undefined));
/** An outbound URL the user types: http or https, no user name or password in it (ADR 0018). */
const url = (label: string, example: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(ALERT_CHANNEL_LIMITS.url, `${label} must be at most ${ALERT_CHANNEL_LIMITS.url} characters`)
    .pipe(serviceUrl(example));

const emailFields = () => ({
  name: name(),
  enabled: enabled(),
  host: z
    .string({ error: "Server is required" })
    .trim()
    .min(1, "Server is required")
    .max(ALERT_CHANNEL_LIMITS.host, `Server must be at most ${ALERT_CHANNEL_LIMITS.host} characters`)
    .regex(HOST_RE, "Enter a host name or IP address such as smtp.example.com"),
  port: z
    .number({ error: "Port must be a whole number from 1 to 65535" })
    .int("Port must be a whole number from 1 to 65535")
    .min(1, "Port must be a whole number from 1 to 65535")
    .max(65535, "Port must be a whole number from 1 to 65535")
    .default(587),
  security: z.enum(EMAIL_SECURITY, { error: "Choose STARTTLS, TLS or None" }).default("starttls"),
  username: optional("User name", ALERT_CHANNEL_LIMITS.username).refine(
    (v) => v === null || !/[\r\n]/.test(v),
    "The user name cannot contain a line break",
  ),
  from: z
    .string({ error: "Sender is required" })
    .trim()
    .min(1, "Sender is required")
    .max(ALERT_CHANNEL_LIMITS.address, `Sender must be at most ${ALERT_CHANNEL_LIMITS.address} characters`)
    .refine(isEmailAddress, "Enter the sender's e-mail address, such as pbx@example.com"),
  to: z
    .union([z.string(), z.array(z.string())], { error: "Add at least one recipient" })
    .transform(splitRecipients)
    .superRefine((list, ctx) => {
      const bad = list.find((a) => !isEmailAddress(a));
      if (list.length === 0) ctx.addIssue({ code: "custom", message: "Add at least one recipient" });
      else if (list.length > ALERT_CHANNEL_LIMITS.recipients)
        ctx.addIssue({ code: "custom", message: `At most ${ALERT_CHANNEL_LIMITS.recipients} recipients` });
      else if (bad) ctx.addIssue({ code: "custom", message: `${bad.slice(0, 60)} is not an e-mail address` });
    }),
  caCertificate: optional("The certificate", ALERT_CHANNEL_LIMITS.certificate).refine(
    (v) => v === null || /^-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----$/.test(v),
    "Paste a certificate in PEM form (-----BEGIN CERTIFICATE----- …)",
  ),
});

const emailPassword = () => secret("Password", ALERT_CHANNEL_LIMITS.password);

const slackFields = () => ({ name: name(), enabled: enabled() });
const slackUrl = () => url("Webhook URL", "https://hooks.slack.com/services/T000/B000/XXXX");

const telegramFields = () => ({
  name: name(),
  enabled: enabled(),
  chatId: z
    .string({ error: "Chat ID is required" })
    .trim()
    .min(1, "Chat ID is required")
    .regex(/^-?\d{1,20}$|^@[A-Za-z][A-Za-z0-9_]{3,31}$/, "A chat ID is a number (-1001234567890) or @channelname"),
});
const botToken = () =>
  secret("Bot token", 200).refine(
    (v) => v === undefined || /^\d{1,20}:[A-Za-z0-9_-]{20,150}$/.test(v),
    "A bot token looks like 123456789:AAE… (from @BotFather)",
  );

const webhookFields = () => ({
  name: name(),
  enabled: enabled(),
  url: url("URL", "https://alerts.example.com/hooks/pbx"),
});
const signingSecret = () =>
  secret("Signing secret", 200).superRefine((v, ctx) => {
    const problem = v === undefined ? null : signingSecretProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

function addProblems(ctx: z.RefinementCtx, problems: Record<string, string>) {
  for (const [path, message] of Object.entries(problems)) ctx.addIssue({ code: "custom", path: [path], message });
}

const emailObject = () => z.object({ kind: z.literal("email"), ...emailFields(), password: emailPassword() });
const telegramObject = () => z.object({ kind: z.literal("telegram"), ...telegramFields(), botToken: botToken() });
const webhookObject = () => z.object({ kind: z.literal("webhook"), ...webhookFields(), secret: signingSecret() });

/** The create form of each kind (also a member of the POST body's union). */
export const emailChannelSchema = lazySchema(() =>
  emailObject().superRefine((v, ctx) => addProblems(ctx, emailProblems(v, v.password !== undefined))),
);
export const slackChannelSchema = lazySchema(() =>
  z.object({ kind: z.literal("slack"), ...slackFields(), webhookUrl: slackUrl() }),
);
export const telegramChannelSchema = lazySchema(() =>
  telegramObject().superRefine((v, ctx) => {
    if (v.botToken === undefined) addProblems(ctx, { botToken: "Bot token is required" });
  }),
);
/** A webhook's signing secret may be left out: the console makes one and shows it once. */
export const webhookChannelSchema = lazySchema(() => webhookObject());

/** POST /api/alerts/channels */
export const alertChannelCreateSchema = lazySchema(() =>
  z.discriminatedUnion("kind", [emailChannelSchema, slackChannelSchema, telegramChannelSchema, webhookChannelSchema], {
    error: "Choose the kind: email, slack, telegram or webhook",
  }),
);
export type AlertChannelCreateInput = z.input<typeof alertChannelCreateSchema>;
export type AlertChannelCreate = z.output<typeof alertChannelCreateSchema>;

/**
 * The edit form of each kind, and a member of the PUT body's union: every field as on create (a field left
 * out takes its default, as on create), the secret optional: left out or empty, the stored one is kept. The
 * server checks what depends on the stored secret (a user name needs a password) after merging.
 */
export const emailChannelEditSchema = lazySchema(() =>
  emailObject().superRefine((v, ctx) => {
    const { security } = emailProblems(v, true);
    if (security) addProblems(ctx, { security });
  }),
);
export const slackChannelEditSchema = lazySchema(() =>
  z.object({
    kind: z.literal("slack"),
    ...slackFields(),
    webhookUrl: z
      .string({ error: "Webhook URL must be text" })
      .trim()
      .optional()
      .transform((v) => (v ? v : undefined))
      .pipe(slackUrl().optional()),
  }),
);
export const telegramChannelEditSchema = lazySchema(() => telegramObject());
export const webhookChannelEditSchema = lazySchema(() =>
  webhookObject().extend({
    /** Replace the signing secret with a new one the console makes (shown once in the answer). */
    regenerateSecret: z.boolean({ error: "Regenerate is true or false" }).optional(),
  }),
);

/** PUT /api/alerts/channels/{id}: `kind` (it cannot change) and the kind's fields. */
export const alertChannelUpdateSchema = lazySchema(() =>
  z.discriminatedUnion(
    "kind",
    [emailChannelEditSchema, slackChannelEditSchema, telegramChannelEditSchema, webhookChannelEditSchema],
    { error: "Choose the kind: email, slack, telegram or webhook" },
  ),
);
export type AlertChannelUpdateInput = z.input<typeof alertChannelUpdateSchema>;
export type AlertChannelUpdate = z.output<typeof alertChannelUpdateSchema>;

/** The settings of each kind that are not secret, as stored and as an administrator reads them. */
export interface EmailChannelSettings {
  host: string;
  port: number;
  security: EmailSecurity;
  username: string | null;
  from: string;
  to: string[];
  /** A certificate to trust for this server (its own, or its private CA), PEM. */
  caCertificate: string | null;
}
/** Slack's webhook URL is the secret: only its host is kept in the clear, to say where messages go. */
export interface SlackChannelSettings {
  host: string;
}
export interface TelegramChannelSettings {
  chatId: string;
}
export interface WebhookChannelSettings {
  url: string;
}
export interface AlertChannelSettingsByKind {
  email: EmailChannelSettings;
  slack: SlackChannelSettings;
  telegram: TelegramChannelSettings;
  webhook: WebhookChannelSettings;
}

/** The last message sent (or tried) through a channel. */
export interface AlertChannelDelivery {
  at: string;
  what: AlertDeliveryWhat;
  ok: boolean;
  error: string | null;
}

interface AlertChannelCommon {
  id: number;
  name: string;
  enabled: boolean;
  /** Whether the channel's secret is stored (it is never returned). */
  hasSecret: boolean;
  /** Where messages go, in words and without any secret: "ops@example.com via smtp.example.com:587". */
  target: string;
  lastDelivery: AlertChannelDelivery | null;
  createdAt: string;
  updatedAt: string;
}

/** GET /api/alerts/channels: one channel. `settings` only for administrators (null for other roles). */
export type AlertChannel = {
  [K in AlertChannelKind]: AlertChannelCommon & { kind: K; settings: AlertChannelSettingsByKind[K] | null };
}[AlertChannelKind];

/** POST /api/alerts/channels and PATCH: the channel, and what the console has to say once. */
export type SavedAlertChannel = AlertChannel & {
  /** A webhook's signing secret the console made: the only answer that carries it. */
  signingSecret?: string;
  /** Something that works but is unsafe (plain http to another host). */
  warning?: string;
};

/** POST /api/alerts/channels/{id}/test: the delivery's result (a failure is a result, not an error status). */
export interface AlertChannelTestResult {
  ok: boolean;
  error?: string;
}
