/**
 * A pbx-console's own REST API reached with a REST token (ADR 0074), as `pbx-console export | plan | apply` call
 * it (ADR 0075): one request with a timeout, its failure as a message without the token. A console on this
 * machine (loopback) often has a certificate for its public name only: there the certificate is not checked.
 */
import { isLoopback, parseIp } from "../../shared/ip";
import { redact } from "../redact";

/** How long one request may take: a plan of 5,000 extensions is well inside it. */
export const CONSOLE_API_TIMEOUT_MS = 120_000;

export interface ConsoleApi {
  /** The console's origin, e.g. https://pbx.example.com:3000 */
  url: string;
  token: string;
}

/** What the console answered: its status, its text and the text as JSON (null when it is not JSON). */
export interface ConsoleAnswer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the console's JSON, read by the command that asked
  json: any;
}

/** The console could not be reached, or did not answer in time. */
export class ConsoleUnreachable extends Error {}

export async function consoleRequest(
  api: ConsoleApi,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  timeoutMs = CONSOLE_API_TIMEOUT_MS,
): Promise<ConsoleAnswer> {
  const target = new URL(api.url + path);
  const ip = parseIp(target.hostname.replace(/^\[|\]$/g, ""));
  const local = target.hostname === "localhost" || (ip !== null && isLoopback(ip));
  let res: Response;
  try {
    res = await fetch(target, {
      method,
      headers: {
        authorization: `Bearer ${api.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
      ...(local ? { tls: { rejectUnauthorized: false } } : {}),
    } as RequestInit);
  } catch (err) {
    const e = err as { name?: string; message?: string };
    throw new ConsoleUnreachable(
      e.name === "TimeoutError"
        ? `${api.url} did not answer within ${timeoutMs / 1000} s`
        : `Cannot reach ${api.url}: ${redact(e.message ?? "no answer", [api.token])}`,
    );
  }
  const text = await res.text();
  let json: ConsoleAnswer["json"] = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, text, json };
}
