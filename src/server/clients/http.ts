/**
 * The one HTTP helper every outside-service client uses: a timeout on each
 * call (and the operation's overall deadline, when it has one), failures
 * mapped to messages a person can act on, secrets redacted (in every encoding,
 * `../redact.ts`) from anything that could reach a log or a response.
 */
import { redact } from "../redact";

export { redact };

export const DEFAULT_TIMEOUT_MS = 10_000;

/** Why an operation's overall deadline aborted it; the message names the operation. */
export class DeadlineExceeded extends Error {}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

/**
 * An overall deadline for an operation made of several calls (pagination, a
 * push to every extension, a token then a query): a signal every call of the
 * operation passes to `httpRequest`; once it fires, the call in flight and every
 * later one fail with "<operation> did not finish within N s".
 */
export function deadline(operation: string, ms: number): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DeadlineExceeded(`${operation} did not finish within ${seconds(ms)}`)),
    ms,
  );
  (timer as { unref?: () => void }).unref?.();
  return controller.signal;
}

/** The deadline's message when `signal` fired for it, else null. */
export function deadlineMessage(signal: AbortSignal | undefined): string | null {
  return signal?.aborted && signal.reason instanceof DeadlineExceeded ? signal.reason.message : null;
}

export class ServiceError extends Error {
  constructor(
    readonly service: string,
    message: string,
    /** The outside service's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface RequestOptions {
  service: string;
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** JSON-encoded unless a string (sent as is). */
  body?: unknown;
  timeoutMs?: number;
  /** The operation's overall deadline (`deadline()`), on top of this call's own timeout. */
  signal?: AbortSignal;
  /** Values that must never appear in an error message (API keys, passwords). */
  secrets?: (string | undefined)[];
  /** Pulls the service's own error text out of an error body. */
  errorMessage?: (body: unknown) => string | undefined;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  json: unknown;
}

function networkMessage(service: string, url: string, err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") {
    return `${service} did not answer within ${seconds(timeoutMs)}`;
  }
  let host = url;
  try {
    host = new URL(url).host;
  } catch {}
  const code = e?.code ?? "";
  if (code === "ConnectionRefused" || code === "ECONNREFUSED")
    return `Cannot reach ${service} at ${host}: connection refused`;
  if (code === "ENOTFOUND" || /resolve|DNS/i.test(e?.message ?? ""))
    return `Cannot reach ${service}: host ${host} not found`;
  if (/certificate|TLS|SSL/i.test(e?.message ?? ""))
    return `Cannot reach ${service} at ${host}: TLS error (${e?.message})`;
  return `Cannot reach ${service} at ${host}: ${e?.message ?? "network error"}`;
}

/** Sends the request; any non-2xx answer becomes a ServiceError with the service's own message. */
export async function httpRequest(opts: RequestOptions): Promise<HttpResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headers: Record<string, string> = { Accept: "application/json", ...opts.headers };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers["Content-Type"] ??= "application/json";
  }
  const late = deadlineMessage(opts.signal);
  if (late) throw new ServiceError(opts.service, late);
  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(opts.url, {
      method: opts.method ?? "GET",
      headers,
      body,
      signal: opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout,
      redirect: "error",
    });
    text = await res.text();
  } catch (err) {
    const message = deadlineMessage(opts.signal) ?? networkMessage(opts.service, opts.url, err, timeoutMs);
    throw new ServiceError(opts.service, redact(message, opts.secrets));
  }
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    // Redact the whole body before cutting it: a secret cut in half would escape redaction.
    const detail =
      (json !== undefined && opts.errorMessage?.(json)) ||
      redact(text, opts.secrets).slice(0, 200).trim() ||
      res.statusText;
    const prefix =
      res.status === 401 || res.status === 403
        ? `${opts.service} rejected the credentials (${res.status})`
        : res.status === 429
          ? `${opts.service} is rate-limiting requests (429)`
          : `${opts.service} answered ${res.status}`;
    const message = redact(detail ? `${prefix}: ${detail}` : prefix, opts.secrets).slice(0, 500);
    throw new ServiceError(opts.service, message, res.status);
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The JSON body, or a ServiceError saying the answer was not what the API documents. */
export function expectJson<T>(service: string, result: HttpResult, check: (v: unknown) => boolean): T {
  if (result.json === undefined || !check(result.json)) {
    throw new ServiceError(service, `${service} sent an unexpected answer (not the documented JSON)`, result.status);
  }
  return result.json as T;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
