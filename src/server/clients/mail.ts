/**
 * E-mail over SMTP through Nodemailer: one message per call on its own connection (alerts are rare; a kept
 * pool would hold a socket and a password in memory for nothing). STARTTLS is required when asked for (no
 * silent fall-back to plain text), TLS from the first byte on 465, plain only where the shared schema allows
 * it (a relay on this machine). The server's certificate is checked against the system's CAs, or against the
 * one certificate the channel trusts. Every wait has a timeout and the send an overall deadline; failures
 * become one line a person can act on, with the password redacted.
 */
import type { Mail } from "nodemailer";
import { deadlineMessage, redact, ServiceError } from "./http";

const SERVICE = "The mail server";

/** Connecting, the server's greeting, and any silence after it. */
export const SMTP_TIMEOUTS = { connectionMs: 10_000, greetingMs: 10_000, socketMs: 20_000, dnsMs: 10_000 } as const;

export interface SmtpSettings {
  host: string;
  port: number;
  security: "starttls" | "tls" | "none";
  username: string | null;
  password: string | null;
  /** A certificate (PEM) to trust for this server besides the system's CAs: its own, or its private CA. */
  caCertificate: string | null;
}

export interface MailMessage {
  from: { name: string; address: string };
  to: string[];
  subject: string;
  text: string;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
const isIp = (host: string) => /^[0-9.]+$|:/.test(host);

interface SmtpError {
  code?: string;
  originalCode?: string;
  responseCode?: number;
  response?: string;
  message?: string;
  timeoutType?: string;
}

/** Nodemailer's error as one line: what failed and what to check. */
export function smtpErrorMessage(err: unknown, s: Pick<SmtpSettings, "host" | "port" | "username">): string {
  const e = (err ?? {}) as SmtpError;
  const at = `${s.host}:${s.port}`;
  const reply = (e.response ?? "").replace(/\s+/g, " ").trim().slice(0, 200);
  const said = reply ? `: ${reply}` : "";
  const raw = e.message ?? String(err);
  switch (e.code) {
    case "EAUTH":
      return e.responseCode
        ? `${SERVICE} at ${at} refused the sign-in of ${s.username ?? "the user"}${said}. Check the user name and password`
        : `${SERVICE} at ${at} cannot sign in: ${raw}`;
    case "EDNS":
      return `Cannot reach ${SERVICE.toLowerCase()}: host ${s.host} not found`;
    case "ETIMEDOUT": {
      const wait =
        e.timeoutType === "GREETING_TIMEOUT"
          ? `did not greet within ${seconds(SMTP_TIMEOUTS.greetingMs)} (is this an SMTP port?)`
          : e.timeoutType === "CONNECT_TIMEOUT"
            ? `did not accept a connection within ${seconds(SMTP_TIMEOUTS.connectionMs)}`
            : `stopped answering for ${seconds(SMTP_TIMEOUTS.socketMs)}`;
      return `${SERVICE} at ${at} ${wait}`;
    }
    case "EENVELOPE":
      return `${SERVICE} at ${at} refused the sender or a recipient${said || `: ${raw}`}`;
    case "EMESSAGE":
    case "EPROTOCOL":
      return `${SERVICE} at ${at} refused the message${said || `: ${raw}`}`;
    case "EABORT":
      return `Sending through ${at} was cancelled`;
  }
  if (e.originalCode === "ECONNREFUSED" || /ECONNREFUSED|ConnectionRefused/.test(raw))
    return `Cannot reach ${SERVICE.toLowerCase()} at ${at}: connection refused`;
  if (/STARTTLS/i.test(raw))
    return `${SERVICE} at ${at} does not offer STARTTLS: choose TLS (port 465), or another server`;
  if (e.code === "ETLS" || /certificate|self[- ]signed|TLS|SSL|wrong version/i.test(raw))
    return `TLS with ${SERVICE.toLowerCase()} at ${at} failed (${raw}). If the server has its own certificate, paste it under Trusted certificate; check that port and security match (587 STARTTLS, 465 TLS)`;
  if (e.code === "ECONNECTION" || e.code === "ESOCKET")
    return `The connection to ${SERVICE.toLowerCase()} at ${at} failed: ${raw}`;
  return `Sending through ${at} failed: ${raw}`;
}

/** Sends one message; resolves once the server accepted it for every recipient, else a ServiceError. */
export async function sendMail(s: SmtpSettings, message: MailMessage, signal?: AbortSignal): Promise<void> {
  const secrets = [s.password];
  const late = deadlineMessage(signal);
  if (late) throw new ServiceError(SERVICE, late);
  // Loaded at the first message, not at start (like ssh2): the console may never send one.
  const { default: nodemailer } = await import("nodemailer");
  let transport: Mail | undefined;
  try {
    transport = nodemailer.createTransport({
      host: s.host,
      port: s.port,
      secure: s.security === "tls",
      requireTLS: s.security === "starttls",
      ignoreTLS: s.security === "none",
      auth: s.username ? { user: s.username, pass: s.password ?? "" } : undefined,
      connectionTimeout: SMTP_TIMEOUTS.connectionMs,
      greetingTimeout: SMTP_TIMEOUTS.greetingMs,
      socketTimeout: SMTP_TIMEOUTS.socketMs,
      dnsTimeout: SMTP_TIMEOUTS.dnsMs,
      tls: {
        minVersion: "TLSv1.2",
        rejectUnauthorized: true,
        ...(s.caCertificate ? { ca: s.caCertificate } : {}),
        ...(isIp(s.host) ? {} : { servername: s.host }),
      },
      // The message is text the console wrote: nothing in it may make Nodemailer read a file or a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
      debug: false,
    });
    const info = await transport.sendMail({
      from: message.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      signal,
    });
    const rejected = (info.rejected ?? []).map(String);
    if (rejected.length)
      throw new ServiceError(
        SERVICE,
        `${SERVICE} at ${s.host}:${s.port} refused the recipients ${rejected.join(", ")}`,
      );
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    const message = deadlineMessage(signal) ?? smtpErrorMessage(err, s);
    throw new ServiceError(SERVICE, redact(message, secrets).slice(0, 500));
  } finally {
    transport?.close();
  }
}
