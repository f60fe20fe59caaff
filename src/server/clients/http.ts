/**
 * The one HTTP helper every outside-service client uses: a timeout on each
 * call, failures mapped to messages a person can act on, secrets redacted from
 * anything that could reach a log or a response.
 */
export const DEFAULT_TIMEOUT_MS = 10_000;

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

export function redact(text: string, secrets: (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join("•••");
  return out;
}

function networkMessage(service: string, url: string, err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") {
    return `${service} did not answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`;
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
  let res: Response;
  let text: string;
  try {
    res = await fetch(opts.url, {
      method: opts.method ?? "GET",
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
    text = await res.text();
  } catch (err) {
    throw new ServiceError(opts.service, redact(networkMessage(opts.service, opts.url, err, timeoutMs), opts.secrets));
  }
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const detail = (json !== undefined && opts.errorMessage?.(json)) || text.slice(0, 200).trim() || res.statusText;
    const prefix =
      res.status === 401 || res.status === 403
        ? `${opts.service} rejected the credentials (${res.status})`
        : res.status === 429
          ? `${opts.service} is rate-limiting requests (429)`
          : `${opts.service} answered ${res.status}`;
    throw new ServiceError(opts.service, redact(detail ? `${prefix}: ${detail}` : prefix, opts.secrets), res.status);
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
