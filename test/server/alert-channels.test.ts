// Alert channels over the API, each kind through the real client: e-mail to a real SMTP server on loopback
// (smtp-server: STARTTLS with a certificate made here, AUTH), Slack, Telegram and a signed webhook against
// fakes that follow the real APIs (the webhook's signature checked by the receiver's own code).
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { deliverAlert } from "../../src/server/alerts/channels";
import type { AlertMessage } from "../../src/server/alerts/message";
import { RETYPE_PASSWORD_MESSAGE } from "../../src/shared/alert-channels";
import { startFakeSlack } from "../fakes/slack";
import { verifyWebhook } from "../fakes/standard-webhooks";
import { startFakeTelegram, TELEGRAM_TEST_TOKEN } from "../fakes/telegram";
import { type ReceivedWebhook, startFakeWebhookReceiver } from "../fakes/webhook-receiver";
import { signedInServer } from "../helpers/server";

const SMTP_USER = "alerts@example.com";
const SMTP_PASSWORD = "smtp-Pa55word-9Qx";
const WRONG_PASSWORD = "wrong-Pa55-7Hd2";

// A certificate for 127.0.0.1, made for this run (openssl, fixed arguments).
const certDir = mkdtempSync(join(tmpdir(), "alert-smtp-"));
const made = Bun.spawnSync(
  [
    "openssl",
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    join(certDir, "key.pem"),
    "-out",
    join(certDir, "cert.pem"),
    "-days",
    "1",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=DNS:localhost,IP:127.0.0.1",
  ],
  { stderr: "pipe" },
);
if (made.exitCode !== 0) throw new Error(`openssl: ${made.stderr.toString()}`);
const key = readFileSync(join(certDir, "key.pem"));
const cert = readFileSync(join(certDir, "cert.pem"), "utf8");

interface Received {
  mail: ParsedMail;
  /** Whether the session was encrypted when the message came (STARTTLS or TLS). */
  secure: boolean;
  user: string | undefined;
  rcpt: string[];
}

async function startSmtp(mode: "starttls" | "tls" | "plain") {
  const received: Received[] = [];
  const server = new SMTPServer({
    secure: mode === "tls",
    key,
    cert,
    authMethods: ["PLAIN", "LOGIN"],
    allowInsecureAuth: mode === "plain",
    disabledCommands: mode === "plain" ? ["STARTTLS"] : [],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) cb(null, { user: auth.username });
      else cb(new Error("Invalid username or password"));
    },
    onData(stream, session, cb) {
      simpleParser(stream).then(
        (mail) => {
          received.push({
            mail,
            secure: session.secure,
            user: session.user as string | undefined,
            rcpt: session.envelope.rcptTo.map((r) => r.address),
          });
          cb();
        },
        (err) => cb(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return { received, port, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const smtp = await startSmtp("starttls");
const smtps = await startSmtp("tls");
const smtpPlain = await startSmtp("plain");
const slack = startFakeSlack();
const telegram = startFakeTelegram();
const receiver = startFakeWebhookReceiver();

const s = signedInServer({
  env: { PBX_TELEGRAM_URL: telegram.url, SERVER_LABEL: "pbx-test" },
  clean: ["alert_deliveries", "alert_rules", "alert_channels"],
});

afterAll(async () => {
  await Promise.all([smtp.stop(), smtps.stop(), smtpPlain.stop(), slack.stop(), telegram.stop(), receiver.stop()]);
  rmSync(certDir, { recursive: true, force: true });
});
beforeEach(() => {
  telegram.state.floodWait = null;
  slack.state.limitPerSecond = null;
  receiver.state.answer = null;
});

const email = (over: Record<string, unknown> = {}) => ({
  kind: "email",
  name: "Ops mail",
  host: "127.0.0.1",
  port: smtp.port,
  security: "starttls",
  username: SMTP_USER,
  password: SMTP_PASSWORD,
  from: "pbx@example.com",
  to: "ops@example.com, oncall@example.org",
  caCertificate: cert,
  ...over,
});

async function create(body: Record<string, unknown>) {
  const res = await s.call("POST", "/api/alerts/channels", body);
  expect(res.status, res.text).toBe(201);
  return res.json;
}
const sendTest = async (id: number) => {
  const res = await s.call("POST", `/api/alerts/channels/${id}/test`, {});
  expect(res.status, res.text).toBe(200);
  return res.json as { ok: boolean; error?: string };
};
const firing = (over: Partial<AlertMessage> = {}): AlertMessage => ({
  what: "firing",
  eventId: null,
  ruleName: "Trunk down",
  kind: "trunk-unregistered",
  subject: "trunk:telnyx",
  title: "Trunk telnyx unregistered for 5 min",
  text: "The trunk telnyx has not been registered since 10:00.",
  startedAt: Date.now() - 300_000,
  at: Date.now(),
  server: "pbx-test",
  ...over,
});
/** Everything the console keeps or shows of the channels: the list, the deliveries, the audit trail. */
async function everythingShown(): Promise<string> {
  const list = await s.call("GET", "/api/alerts/channels");
  const audit = await s.call("GET", "/api/audit?limit=500");
  return list.text + s.snapshot("alert_deliveries") + s.snapshot("alert_channels") + audit.text;
}

describe("e-mail over SMTP", () => {
  test("STARTTLS with AUTH: the test message and an alert arrive with their subject and recipients", async () => {
    const ch = await create(email());
    expect(ch.hasSecret).toBe(true);
    expect(ch.target).toBe(`ops@example.com, oncall@example.org via 127.0.0.1:${smtp.port}`);
    expect(await sendTest(ch.id)).toEqual({ ok: true });
    const test = smtp.received.at(-1) as Received;
    expect(test.secure).toBe(true);
    expect(test.user).toBe(SMTP_USER);
    expect(test.rcpt).toEqual(["ops@example.com", "oncall@example.org"]);
    expect(test.mail.subject).toBe("[TEST] pbx-test: Test message to Ops mail");
    expect(test.mail.from?.value[0]?.address).toBe("pbx@example.com");

    const sent = await deliverAlert(s.app, ch.id, firing());
    expect(sent).toEqual({ ok: true });
    const alert = smtp.received.at(-1) as Received;
    expect(alert.mail.subject).toBe("[FIRING] pbx-test: Trunk telnyx unregistered for 5 min");
    expect(alert.mail.text).toContain("The trunk telnyx has not been registered since 10:00.");
    expect(alert.mail.text).toContain("Rule: Trunk down (trunk-unregistered)");
    const rows = s.db.$client.query("SELECT what, ok, error FROM alert_deliveries ORDER BY id").all();
    expect(rows).toEqual([
      { what: "test", ok: 1, error: null },
      { what: "firing", ok: 1, error: null },
    ]);
    const list = await s.call("GET", "/api/alerts/channels");
    expect(list.json[0].lastDelivery).toMatchObject({ what: "firing", ok: true, error: null });
  });

  test("TLS from the first byte (465-style), and plain to a relay on loopback", async () => {
    const tls = await create(email({ name: "TLS", port: smtps.port, security: "tls" }));
    expect(await sendTest(tls.id)).toEqual({ ok: true });
    expect(smtps.received.at(-1)?.secure).toBe(true);
    const plain = await create(email({ name: "Relay", port: smtpPlain.port, security: "none", caCertificate: null }));
    expect(await sendTest(plain.id)).toEqual({ ok: true });
    expect(smtpPlain.received.at(-1)?.mail.subject).toBe("[TEST] pbx-test: Test message to Relay");
  });

  test("a wrong password is a clear result without the password; a server's own certificate must be trusted", async () => {
    const ch = await create(email({ password: WRONG_PASSWORD }));
    const wrong = await sendTest(ch.id);
    expect(wrong.ok).toBe(false);
    expect(wrong.error).toContain(`refused the sign-in of ${SMTP_USER}`);
    expect(wrong.error).toContain("Check the user name and password");

    const untrusted = await create(email({ name: "Untrusted", caCertificate: null }));
    const tls = await sendTest(untrusted.id);
    expect(tls.ok).toBe(false);
    expect(tls.error).toMatch(/^TLS with the mail server at 127\.0\.0\.1:\d+ failed \(.*certificate/);
    expect(tls.error).toContain("Trusted certificate");

    const closed = await create(email({ name: "Closed", port: 9 }));
    expect((await sendTest(closed.id)).error).toBe("Cannot reach the mail server at 127.0.0.1:9: connection refused");

    const shown = await everythingShown();
    expect(shown).not.toContain(WRONG_PASSWORD);
    expect(shown).not.toContain(SMTP_PASSWORD);
    expect(shown).toContain("refused the sign-in");
  });

  test("rules of the form: no plain SMTP off this machine, a user needs a password, a new server needs it again", async () => {
    const plain = await s.refused(
      "alert_channels",
      () => s.call("POST", "/api/alerts/channels", email({ host: "smtp.example.com", security: "none" })),
      400,
    );
    expect(plain.fields?.security).toContain("cross the network in clear");
    const noPassword = await s.refused(
      "alert_channels",
      () => s.call("POST", "/api/alerts/channels", email({ password: "" })),
      400,
    );
    expect(noPassword.fields?.password).toBe("Enter the password for this user name");
    const badTo = await s.refused(
      "alert_channels",
      () => s.call("POST", "/api/alerts/channels", email({ to: "ops@example.com, not-an-address" })),
      400,
    );
    expect(badTo.fields?.to).toBe("not-an-address is not an e-mail address");
    const badFrom = await s.refused(
      "alert_channels",
      () => s.call("POST", "/api/alerts/channels", email({ from: "pbx" })),
      400,
    );
    expect(badFrom.fields?.from).toContain("e-mail address");

    const ch = await create(email());
    const { password: _p, ...rest } = email();
    const moved = await s.refused(
      "alert_channels",
      () => s.call("PUT", `/api/alerts/channels/${ch.id}`, { ...rest, host: "smtp.example.com" }),
      400,
    );
    expect(moved.fields?.password).toBe(RETYPE_PASSWORD_MESSAGE);
    // The same server: the stored password is kept and still works.
    const kept = await s.call("PUT", `/api/alerts/channels/${ch.id}`, { ...rest, to: ["ops@example.com"] });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json.hasSecret).toBe(true);
    expect(kept.json.settings.to).toEqual(["ops@example.com"]);
    expect(await sendTest(ch.id)).toEqual({ ok: true });
    expect(smtp.received.at(-1)?.rcpt).toEqual(["ops@example.com"]);
  });
});

describe("Slack", () => {
  test("the incoming webhook gets {text, blocks}; the URL is never shown again", async () => {
    const hook = slack.addWebhook({ channel: "#pbx" });
    const ch = await create({ kind: "slack", name: "Slack", webhookUrl: hook.url });
    expect(ch.target).toBe(`Slack webhook at ${new URL(hook.url).host}`);
    expect(await sendTest(ch.id)).toEqual({ ok: true });
    expect(await deliverAlert(s.app, ch.id, firing())).toEqual({ ok: true });
    const msg = slack.state.messages.at(-1);
    expect(msg?.text).toBe("[FIRING] pbx-test: Trunk telnyx unregistered for 5 min");
    expect(msg?.blocks?.[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "FIRING: Trunk telnyx unregistered for 5 min" },
    });

    // Slack's refusals, in words, without the URL's token.
    slack.state.limitPerSecond = 0;
    const limited = await sendTest(ch.id);
    expect(limited).toEqual({ ok: false, error: expect.stringContaining("Slack is rate-limiting messages (429)") });
    slack.state.limitPerSecond = null;
    slack.state.hooks.delete(hook.path);
    const revoked = await sendTest(ch.id);
    expect(revoked.error).toBe(
      "Slack refused the message (404 no_service): the webhook URL is unknown or was revoked; make a new one in Slack",
    );
    const token = hook.path.split("/").at(-1) as string;
    const shown = await everythingShown();
    expect(shown).not.toContain(token);
    expect(shown).not.toContain(hook.path);
  });
});

describe("Telegram", () => {
  test("sendMessage to the chat; refusals in words; the bot token is never shown anywhere", async () => {
    const ch = await create({ kind: "telegram", name: "Bot", botToken: TELEGRAM_TEST_TOKEN, chatId: "-1001234567890" });
    expect(ch.target).toBe("Telegram chat -1001234567890");
    expect(await sendTest(ch.id)).toEqual({ ok: true });
    expect(
      await deliverAlert(s.app, ch.id, firing({ what: "resolved", title: "Trunk telnyx registered again" })),
    ).toEqual({ ok: true });
    const sent = telegram.state.sent.at(-1);
    expect(sent?.chatId).toBe(-1001234567890);
    expect(sent?.text.split("\n")[0]).toBe("[RESOLVED] pbx-test: Trunk telnyx registered again");

    telegram.state.floodWait = 7;
    expect(await sendTest(ch.id)).toEqual({
      ok: false,
      error: "Telegram is rate-limiting messages (429): retry after 7 s",
    });
    telegram.state.floodWait = null;

    const otherToken = "7000000002:AAFzZ9q8W7e6R5t4Y3u2I1o0PaSdFgHjKlZ";
    const wrong = await create({ kind: "telegram", name: "Wrong bot", botToken: otherToken, chatId: "-1001234567890" });
    expect((await sendTest(wrong.id)).error).toBe(
      "Telegram refused the bot token (401: Unauthorized). Check the token from @BotFather",
    );
    const lost = await create({ kind: "telegram", name: "Lost chat", botToken: TELEGRAM_TEST_TOKEN, chatId: "-42" });
    expect((await sendTest(lost.id)).error).toBe(
      "Telegram refused the message (400: Bad Request: chat not found). Check the chat ID",
    );

    const shown = await everythingShown();
    for (const t of [TELEGRAM_TEST_TOKEN, otherToken]) {
      expect(shown).not.toContain(t);
      expect(shown).not.toContain(t.split(":")[1] as string);
    }
  });
});

describe("signed webhook", () => {
  test("a made signing secret is shown once; deliveries verify; a tampered body does not", async () => {
    const ch = await create({ kind: "webhook", name: "Hook", url: `${receiver.url}/hooks/pbx?source=console` });
    expect(ch.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(ch.target).toBe(`Signed webhook to ${new URL(receiver.url).host}`);
    receiver.state.secret = ch.signingSecret;

    expect(await sendTest(ch.id)).toEqual({ ok: true });
    expect(await deliverAlert(s.app, ch.id, firing())).toEqual({ ok: true });
    expect(receiver.state.refused).toEqual([]);
    const got = receiver.state.received.at(-1) as ReceivedWebhook;
    expect(got.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(got.payload).toMatchObject({
      type: "alert.firing",
      data: { what: "firing", title: "Trunk telnyx unregistered for 5 min", server: "pbx-test" },
    });
    expect(got.path).toBe("/hooks/pbx");

    // The same headers with one byte of the body changed: the receiver's check refuses it.
    const tampered = got.rawBody.replace("telnyx", "telnyy");
    const headers = got.headers;
    expect(verifyWebhook(ch.signingSecret, headers, tampered)).toEqual({ ok: false, reason: "bad_signature" });
    const replay = await fetch(`${receiver.url}/hooks/pbx`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": headers["webhook-id"] as string,
        "webhook-timestamp": headers["webhook-timestamp"] as string,
        "webhook-signature": headers["webhook-signature"] as string,
      },
      body: tampered,
    });
    expect(replay.status).toBe(401);
    expect(receiver.state.refused.at(-1)?.reason).toBe("bad_signature");

    // The secret is in no later answer; an edit without it keeps it; a receiver's failure is a result.
    const list = await s.call("GET", "/api/alerts/channels");
    expect(list.text).not.toContain(ch.signingSecret.slice(6));
    const edit = await s.call("PUT", `/api/alerts/channels/${ch.id}`, {
      kind: "webhook",
      name: "Hook",
      url: `${receiver.url}/hooks/pbx`,
    });
    expect(edit.status, edit.text).toBe(200);
    expect(edit.json.signingSecret).toBeUndefined();
    receiver.state.answer = 500;
    const failed = await sendTest(ch.id);
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain(`answered 500`);
    expect((await everythingShown()).includes(ch.signingSecret.slice(6))).toBe(false);
  });

  test("a given secret is used as is; a disabled channel is skipped and says so", async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    receiver.state.secret = secret;
    const ch = await create({ kind: "webhook", name: "Given", url: receiver.url, secret, enabled: false });
    expect(ch.signingSecret).toBeUndefined();
    expect(await deliverAlert(s.app, ch.id, firing())).toEqual({ ok: false, error: "channel disabled" });
    // "Send test" checks a channel before it is turned on.
    expect(await sendTest(ch.id)).toEqual({ ok: true });
    expect(receiver.state.received.at(-1)?.headers["webhook-signature"]).toMatch(/^v1,/);
  });
});

describe("input and roles", () => {
  test("bad input is a 400 with field messages and changes nothing", async () => {
    const bad = async (body: unknown) =>
      (await s.refused("alert_channels", () => s.call("POST", "/api/alerts/channels", body), 400)).fields ?? {};
    expect((await bad({ kind: "webhook", name: "F", url: "file:///etc/passwd" })).url).toContain("http:// or https://");
    expect((await bad({ kind: "slack", name: "F", webhookUrl: "ftp://hooks.slack.com/x" })).webhookUrl).toContain(
      "http:// or https://",
    );
    expect((await bad({ kind: "webhook", name: "F", url: "https://user:pw@example.com/h" })).url).toContain(
      "Leave the user name",
    );
    expect((await bad({ kind: "slack", name: "F" })).webhookUrl).toBe("Webhook URL is required");
    expect((await bad({ kind: "telegram", name: "F", chatId: "-1" })).botToken).toBe("Bot token is required");
    expect((await bad({ kind: "telegram", name: "F", chatId: "-1", botToken: "nope" })).botToken).toContain(
      "@BotFather",
    );
    expect((await bad({ kind: "webhook", name: "F", url: receiver.url, secret: "whsec_c2hvcnQ=" })).secret).toContain(
      "24 to 64 bytes",
    );
    expect((await bad({ kind: "pager", name: "F" }))._ ?? "").toBe("");
    expect((await bad({ kind: "webhook", url: receiver.url })).name).toBe("Name is required");

    await create({ kind: "webhook", name: "Taken", url: receiver.url });
    const taken = await s.refused(
      "alert_channels",
      () => s.call("POST", "/api/alerts/channels", { kind: "webhook", name: "taken", url: receiver.url }),
      409,
    );
    expect(taken.fields?.name).toBe("This name is taken");
  });

  test("viewers and operators see names and targets, never settings or secrets; only administrators write", async () => {
    const hook = slack.addWebhook();
    const ch = await create({ kind: "slack", name: "Team", webhookUrl: hook.url });
    const cookies: Record<string, string> = {};
    const admin = s.cookie;
    for (const role of ["viewer", "operator"]) {
      const made = await s.call("POST", "/api/users", {
        username: `${role}-ch`,
        password: "a long password 123",
        role,
      });
      expect([201, 409]).toContain(made.status);
      await s.call(
        "POST",
        "/api/auth/login",
        { username: `${role}-ch`, password: "a long password 123" },
        { cookie: "" },
      );
      cookies[role] = s.cookie;
      s.cookie = admin;
    }
    for (const role of ["viewer", "operator"]) {
      const cookie = cookies[role] as string;
      const list = await s.call("GET", "/api/alerts/channels", undefined, { cookie });
      expect(list.status).toBe(200);
      expect(list.json).toEqual([
        expect.objectContaining({ name: "Team", kind: "slack", settings: null, hasSecret: true }),
      ]);
      expect(list.text).not.toContain(hook.path);
      for (const [method, path] of [
        ["POST", "/api/alerts/channels"],
        ["PUT", `/api/alerts/channels/${ch.id}`],
        ["DELETE", `/api/alerts/channels/${ch.id}`],
        ["POST", `/api/alerts/channels/${ch.id}/test`],
      ] as const) {
        const res = await s.call(method, path, method === "DELETE" ? undefined : { kind: "slack", name: "X" }, {
          cookie,
        });
        expect(res.status, `${role} ${method} ${path}`).toBe(403);
      }
    }
    expect(slack.state.messages.filter((m) => m.hook === hook.path)).toEqual([]);
    const adminList = await s.call("GET", "/api/alerts/channels");
    expect(adminList.json[0].settings).toEqual({ host: new URL(hook.url).host });
  });

  test("a channel a rule sends to cannot be deleted; the kind cannot change; every write is audited", async () => {
    const ch = await create({ kind: "webhook", name: "Used", url: receiver.url });
    s.db.$client.run(
      "INSERT INTO alert_rules (name, kind, params, channel_ids, updated_at) VALUES ('Disk full', 'disk-usage', '{}', ?, 0)",
      [JSON.stringify([ch.id])],
    );
    const used = await s.refused("alert_channels", () => s.call("DELETE", `/api/alerts/channels/${ch.id}`), 409);
    expect(used.message).toBe("Alert rules send to this channel: Disk full. Take it out of them first");
    const kind = await s.refused(
      "alert_channels",
      () => s.call("PUT", `/api/alerts/channels/${ch.id}`, { kind: "slack", name: "Used" }),
      400,
    );
    expect(kind.fields?.kind).toBe("The kind cannot change: make a new channel");
    s.clear("alert_rules");
    expect((await s.call("DELETE", `/api/alerts/channels/${ch.id}`)).status).toBe(204);
    expect((await s.call("GET", "/api/alerts/channels")).json).toEqual([]);

    const audit = await s.call("GET", "/api/audit?action=alert-channel.&limit=20");
    const items = audit.json.items.slice(0, 4);
    const actions = items.map((e: { action: string; outcome: string }) => `${e.action} ${e.outcome}`);
    expect(actions).toEqual([
      "alert-channel.delete ok",
      "alert-channel.update failed",
      "alert-channel.delete failed",
      "alert-channel.create ok",
    ]);
    const created = items[3];
    expect(created.changes).toContainEqual({ field: "secret", to: "••••••" });
    expect(created.changes).toContainEqual({ field: "url", to: receiver.url });
  });
});
