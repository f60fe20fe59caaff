/**
 * The release server (UPDATE_URL, docs/decisions/0065-self-update.md): the signed manifest and the binaries it
 * names. Plain GETs, no credentials; redirects are followed (release hosts answer downloads with one) up to five,
 * http(s) only and never from https down to http, because what is fetched is trusted only through the
 * manifest's signature and the binary's hash, not the connection. A URL's query (a signed download link's
 * token) never appears in a message.
 */
import { DeadlineExceeded, deadlineMessage, redact, ServiceError } from "./http";

export const RELEASES_SERVICE = "The release server";
const MAX_REDIRECTS = 5;
/** Each call's time to answer (headers); reading a manifest's body has the same again. */
export const RELEASES_TIMEOUT_MS = 15_000;

/** A URL as messages show it: scheme, host and path, without query or credentials. */
export function shownUrl(url: string): string {
  const u = URL.parse(url);
  return u ? `${u.protocol}//${u.host}${u.pathname}` : "(not a URL)";
}

const secretsOf = (url: string) => {
  const u = URL.parse(url);
  return u ? [u.search.slice(1), u.password, ...u.searchParams.values()] : [];
};

function failure(url: string, message: string, status?: number): ServiceError {
  return new ServiceError(RELEASES_SERVICE, redact(message, secretsOf(url)).slice(0, 500), status);
}

function networkMessage(url: string, err: unknown, timeoutMs: number, signal?: AbortSignal): string {
  const late = deadlineMessage(signal);
  if (late) return late;
  const e = err as { name?: string; code?: string; message?: string };
  const where = shownUrl(url);
  if (e?.name === "TimeoutError") return `${RELEASES_SERVICE} did not answer within ${timeoutMs / 1000} s (${where})`;
  const code = e?.code ?? "";
  if (code === "ConnectionRefused" || code === "ECONNREFUSED")
    return `Cannot reach ${RELEASES_SERVICE} at ${where}: connection refused`;
  if (code === "ENOTFOUND" || /resolve|DNS/i.test(e?.message ?? ""))
    return `Cannot reach ${RELEASES_SERVICE}: host ${URL.parse(url)?.host ?? "?"} not found`;
  return `Cannot reach ${RELEASES_SERVICE} at ${where}: ${e?.message ?? "network error"}`;
}

export interface ReleaseResponse {
  /** The final URL (after redirects). */
  url: string;
  body: ReadableStream<Uint8Array>;
  /** Content-Length, when the server sent one. */
  length: number | null;
  /** Stops the transfer (the body errors). */
  abort: () => void;
}

/**
 * GETs `url`, following redirects, until a 2xx answer's headers arrive (each hop within `timeoutMs`). The
 * caller reads the body; `signal` (an operation's deadline) aborts it at any time.
 */
export async function releaseGet(
  url: string,
  opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<ReleaseResponse> {
  const timeoutMs = opts.timeoutMs ?? RELEASES_TIMEOUT_MS;
  let current = url;
  for (let hop = 0; ; hop++) {
    const parsed = URL.parse(current);
    if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
      throw failure(url, `${RELEASES_SERVICE}: ${shownUrl(current)} is not an http(s) URL`);
    }
    const late = deadlineMessage(opts.signal);
    if (late) throw failure(url, late);
    const controller = new AbortController();
    const timer = setTimeout(() => {
      const err = new Error("timeout");
      err.name = "TimeoutError";
      controller.abort(err);
    }, timeoutMs);
    let res: Response;
    try {
      res = await fetch(current, {
        redirect: "manual",
        headers: { Accept: "application/json, application/octet-stream, */*" },
        signal: opts.signal ? AbortSignal.any([controller.signal, opts.signal]) : controller.signal,
      });
    } catch (err) {
      const reason = controller.signal.aborted ? controller.signal.reason : err;
      throw failure(url, networkMessage(current, reason, timeoutMs, opts.signal));
    } finally {
      clearTimeout(timer);
    }
    if (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw failure(url, `${RELEASES_SERVICE} redirected more than ${MAX_REDIRECTS} times`);
      const next = URL.parse(res.headers.get("location") as string, current);
      if (!next || (next.protocol !== "https:" && next.protocol !== "http:")) {
        throw failure(url, `${RELEASES_SERVICE} redirected to something that is not an http(s) URL`);
      }
      if (parsed.protocol === "https:" && next.protocol === "http:") {
        throw failure(url, `${RELEASES_SERVICE} redirected from https to http (${shownUrl(next.href)}): refused`);
      }
      current = next.href;
      continue;
    }
    if (!res.ok || !res.body) {
      const detail = (await res.text().catch(() => "")).slice(0, 200).trim();
      throw failure(
        url,
        `${RELEASES_SERVICE} answered ${res.status} for ${shownUrl(current)}${detail ? `: ${detail}` : ""}`,
        res.status,
      );
    }
    const length = Number(res.headers.get("content-length"));
    return {
      url: current,
      body: res.body,
      length: Number.isSafeInteger(length) && length >= 0 && res.headers.has("content-length") ? length : null,
      abort: () => controller.abort(new DeadlineExceeded("aborted")),
    };
  }
}

/** Reads a small file whole: refused beyond `maxBytes`, and when its body does not come within the timeout. */
export async function releaseFile(
  url: string,
  maxBytes: number,
  opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<{ url: string; bytes: Uint8Array }> {
  const timeoutMs = opts.timeoutMs ?? RELEASES_TIMEOUT_MS;
  const res = await releaseGet(url, opts);
  if (res.length !== null && res.length > maxBytes) {
    await res.body.cancel();
    throw failure(url, `${shownUrl(res.url)} is too big (${res.length} bytes, at most ${maxBytes})`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void reader.cancel().catch(() => {});
  }, timeoutMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut)
        throw failure(url, `${RELEASES_SERVICE} did not send ${shownUrl(res.url)} within ${timeoutMs / 1000} s`);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw failure(url, `${shownUrl(res.url)} is too big (more than ${maxBytes} bytes)`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw failure(url, networkMessage(res.url, err, timeoutMs, opts.signal));
  } finally {
    clearTimeout(timer);
  }
  if (res.length !== null && total !== res.length) {
    throw failure(url, `${shownUrl(res.url)} ended early (${total} of ${res.length} bytes)`);
  }
  return { url: res.url, bytes: Buffer.concat(chunks) };
}

/** The manifest and its detached signature (`<url>.sig`). */
export async function fetchManifest(
  url: string,
  limits: { manifest: number; signature: number },
  opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<{ url: string; bytes: Uint8Array; signature: string }> {
  const sigUrl = new URL(url);
  sigUrl.pathname += ".sig";
  const [manifest, signature] = await Promise.all([
    releaseFile(url, limits.manifest, opts),
    releaseFile(sigUrl.href, limits.signature, opts),
  ]);
  return { url: manifest.url, bytes: manifest.bytes, signature: new TextDecoder().decode(signature.bytes) };
}
