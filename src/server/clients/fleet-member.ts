/**
 * The one client for a member console of the fleet (ADR 0076): HTTP/1.1 over a TLS connection made here, so
 * the certificate is checked against the pin after the handshake and BEFORE a byte of the request (and its
 * token) is written. Trust is the pin alone: a member's certificate is usually self-signed or for another
 * name, so the chain and the name are not what decides; a certificate that differs from the pin is refused
 * whatever signed it. Every call has a timeout and takes the operation's deadline; the token is redacted from
 * every message; answers are capped in size.
 */
import type * as NodeTls from "node:tls";
import { redact } from "../redact";
import { DeadlineExceeded, deadlineMessage } from "./http";

/** node:tls at the first contact, not at start (ADR 0034; src/server/lazy-node.ts): it brings node:net and crypto. */
const tls = () => require("node:tls") as typeof NodeTls;

export const MEMBER_TIMEOUT_MS = 4_000;
/** The largest answer read from a member: a template's plan of thousands of objects fits. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export type MemberFailure = "pin" | "auth" | "unreachable" | "answer";

/** A member call that failed; the message is safe to show (no token in it). */
export class FleetMemberError extends Error {
  constructor(
    readonly reason: MemberFailure,
    message: string,
    /** The member's HTTP status, when it answered. */
    readonly status?: number,
    /** The fingerprint the member presented, when it is not the pinned one. */
    readonly presented?: string,
    /** The member's error answer (JSON), when it sent one: e.g. a plan's refusals at their paths. */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

export interface MemberTarget {
  /** https://host[:port] */
  url: string;
  /** The pinned SHA-256 fingerprint (AA:BB:…), or null at first contact: whatever answers is read and returned. */
  pin: string | null;
  token: string;
}

export interface MemberCall {
  method?: "GET" | "POST";
  /** Path and query, e.g. `/api/fleet/self`. */
  path: string;
  body?: unknown;
  timeoutMs?: number;
  /** The operation's overall deadline (clients/http.ts `deadline()`). */
  signal?: AbortSignal;
}

export interface MemberAnswer {
  status: number;
  json: unknown;
  /** The certificate's SHA-256 fingerprint this connection saw. */
  fingerprint: string;
}

/** An IPv4 or IPv6 address (never sent as SNI, which names hosts only). */
const isAddress = (host: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");

const normalPin = (pin: string) => pin.trim().toUpperCase();

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

function target(url: string): { host: string; port: number; hostHeader: string; display: string } {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const port = u.port ? Number(u.port) : 443;
  return { host, port, hostHeader: u.host, display: u.host };
}

/** The status, headers and body of a whole HTTP/1.1 answer, or null while it is not complete. */
function parseAnswer(buf: Buffer, ended: boolean): { status: number; body: Buffer } | null {
  const headEnd = buf.indexOf("\r\n\r\n");
  if (headEnd < 0) {
    if (ended) throw new Error("the answer ended before its headers");
    return null;
  }
  const head = buf.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? "")?.[1]);
  if (!Number.isInteger(status)) throw new Error("the answer is not HTTP");
  const headers = new Map<string, string>();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = buf.subarray(headEnd + 4);
  if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf("\r\n", at);
      if (lineEnd < 0) break;
      const size = Number.parseInt(rest.subarray(at, lineEnd).toString("latin1"), 16);
      if (!Number.isFinite(size)) throw new Error("a chunk's size is not a number");
      if (size === 0) return { status, body: Buffer.concat(parts) };
      const start = lineEnd + 2;
      if (rest.length < start + size + 2) break;
      parts.push(rest.subarray(start, start + size));
      at = start + size + 2;
    }
    if (ended) throw new Error("the answer ended inside a chunk");
    return null;
  }
  const length = headers.get("content-length");
  if (length !== undefined) {
    const n = Number(length);
    if (rest.length >= n) return { status, body: rest.subarray(0, n) };
    if (ended) throw new Error("the answer ended before its length");
    return null;
  }
  return ended ? { status, body: rest } : null;
}

/** The member's own error text (`{error: {message}}`), when it sent one. */
function errorText(json: unknown): string | undefined {
  const message = (json as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === "string" ? message.slice(0, 300) : undefined;
}

/**
 * One request to a member. With a pin, the connection's certificate must match it, checked before the
 * request is written (a mismatch sends nothing and fails with reason `pin`). A non-2xx answer fails with
 * the member's own message (`auth` for 401/403).
 */
export async function memberRequest(member: MemberTarget, call: MemberCall): Promise<MemberAnswer> {
  const timeoutMs = call.timeoutMs ?? MEMBER_TIMEOUT_MS;
  const { host, port, hostHeader, display } = target(member.url);
  const secrets = [member.token];
  const late = deadlineMessage(call.signal);
  if (late) throw new FleetMemberError("unreachable", late);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
  const body = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));

  return await new Promise<MemberAnswer>((resolve, reject) => {
    let settled = false;
    let fingerprint = "";
    const chunks: Buffer[] = [];
    let size = 0;
    const socket = tls().connect({
      host,
      port,
      // SNI is a name; an address is not sent as one.
      servername: isAddress(host) ? undefined : host,
      // The pin decides, below; the chain and the name cannot (self-signed, or issued for another name).
      rejectUnauthorized: false,
      ALPNProtocols: ["http/1.1"],
    });
    const finish = (err: FleetMemberError | null, answer?: MemberAnswer) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      socket.destroy();
      if (err)
        reject(new FleetMemberError(err.reason, redact(err.message, secrets), err.status, err.presented, err.body));
      else resolve(answer as MemberAnswer);
    };
    const onAbort = () => {
      const reason = signal.reason as unknown;
      const message =
        reason instanceof DeadlineExceeded ? reason.message : `${display} did not answer within ${seconds(timeoutMs)}`;
      finish(new FleetMemberError("unreachable", message));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });

    socket.once("secureConnect", () => {
      const cert = socket.getPeerCertificate();
      fingerprint = typeof cert?.fingerprint256 === "string" ? normalPin(cert.fingerprint256) : "";
      if (!fingerprint)
        return finish(new FleetMemberError("pin", `${display} presented no certificate: nothing was sent`));
      if (member.pin !== null && fingerprint !== normalPin(member.pin)) {
        return finish(
          new FleetMemberError(
            "pin",
            `The certificate at ${display} is not the pinned one (it is ${fingerprint.slice(0, 23)}…, pinned ${normalPin(member.pin).slice(0, 23)}…): nothing was sent. Repin only if the change was expected.`,
            undefined,
            fingerprint,
          ),
        );
      }
      const lines = [
        `${call.method ?? "GET"} ${call.path} HTTP/1.1`,
        `Host: ${hostHeader}`,
        "Accept: application/json",
        `Authorization: Bearer ${member.token}`,
        "User-Agent: pbx-console-fleet",
        "Connection: close",
      ];
      if (body) lines.push("Content-Type: application/json", `Content-Length: ${body.length}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (body) socket.write(body);
    });
    const tryParse = (ended: boolean) => {
      let parsed: { status: number; body: Buffer } | null;
      try {
        parsed = parseAnswer(Buffer.concat(chunks), ended);
      } catch (err) {
        return finish(new FleetMemberError("answer", `${display} sent a broken answer: ${(err as Error).message}`));
      }
      if (!parsed) return;
      const text = parsed.body.toString("utf8");
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      const { status } = parsed;
      if (status >= 200 && status < 300) return finish(null, { status, json, fingerprint });
      const detail = errorText(json);
      const prefix =
        status === 401 || status === 403
          ? `${display} refused the token (${status})`
          : status === 404
            ? `${display} answered 404: is it a pbx-console with the fleet API?`
            : `${display} answered ${status}`;
      finish(
        new FleetMemberError(
          status === 401 || status === 403 ? "auth" : "answer",
          detail ? `${prefix}: ${detail}` : prefix,
          status,
          undefined,
          json,
        ),
      );
    };
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES)
        return finish(new FleetMemberError("answer", `${display} sent more than ${MAX_ANSWER_BYTES} bytes`));
      chunks.push(chunk);
      tryParse(false);
    });
    socket.once("end", () => tryParse(true));
    socket.once("close", () => {
      if (!settled) tryParse(true);
      if (!settled) finish(new FleetMemberError("unreachable", `${display} closed the connection without an answer`));
    });
    socket.once("error", (err: Error & { code?: string }) => {
      const code = err.code ?? "";
      const message =
        code === "ECONNREFUSED" || code === "ConnectionRefused"
          ? `Cannot reach ${display}: connection refused`
          : code === "ENOTFOUND"
            ? `Cannot reach ${display}: host not found`
            : `Cannot reach ${display}: ${err.message || code || "network error"}`;
      finish(new FleetMemberError("unreachable", message));
    });
  });
}

/** The SHA-256 fingerprint of the certificate `url` presents: a handshake only, nothing is sent. */
export async function readFingerprint(url: string, timeoutMs = MEMBER_TIMEOUT_MS): Promise<string> {
  const { host, port, display } = target(url);
  return await new Promise<string>((resolve, reject) => {
    const socket = tls().connect({
      host,
      port,
      servername: isAddress(host) ? undefined : host,
      rejectUnauthorized: false,
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new FleetMemberError("unreachable", `${display} did not answer within ${seconds(timeoutMs)}`));
    }, timeoutMs);
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      const fp = socket.getPeerCertificate()?.fingerprint256;
      socket.destroy();
      if (typeof fp === "string" && fp) resolve(normalPin(fp));
      else reject(new FleetMemberError("pin", `${display} presented no certificate`));
    });
    socket.once("error", (err: Error & { code?: string }) => {
      clearTimeout(timer);
      socket.destroy();
      reject(
        new FleetMemberError(
          "unreachable",
          `Cannot reach ${display}: ${err.code === "ECONNREFUSED" ? "connection refused" : err.message}`,
        ),
      );
    });
  });
}
