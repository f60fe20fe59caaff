/**
 * The one fetch helper: cookies always sent, JSON content-type on every
 * state-changing request, a body only when given, and a non-ok response thrown
 * as an ApiError "<status>: <body text or statusText>". Only the features'
 * api.ts modules (and the default query function) call it; components use those.
 */
import type { ApiErrorBody } from "../../shared/api";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    readonly status: number,
    message: string,
    /** The parsed `{error: {message, fields}}` body, when the server sent one. */
    readonly body: ApiErrorBody | null,
  ) {
    super(message);
  }

  /** Field name → message, for showing server validation errors under inputs. */
  get fields(): Record<string, string> | undefined {
    return this.body?.error.fields;
  }

  /** The server's own message (without the status prefix), if it sent one. */
  get serverMessage(): string | undefined {
    return this.body?.error.message;
  }
}

function parseErrorBody(text: string): ApiErrorBody | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || !("error" in value)) return null;
    const error = (value as { error: unknown }).error;
    if (typeof error !== "object" || error === null) return null;
    if (typeof (error as { message?: unknown }).message !== "string") return null;
    return value as ApiErrorBody;
  } catch {
    return null;
  }
}

let unauthorizedHandler: (() => void) | null = null;

/** Called on a 401 from any session-guarded /api call (not sign-in, set-up, `me` or sign-out). */
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  unauthorizedHandler = handler;
}

function pathOf(url: string): string {
  return url.startsWith("http://") || url.startsWith("https://") ? new URL(url).pathname : (url.split("?")[0] ?? url);
}

/** Where a 401 is an answer about the request (wrong password), not about the session. */
const SESSIONLESS = new Set(["/api/auth/login", "/api/auth/setup", "/api/auth/me", "/api/auth/logout"]);

function isGuardedApiPath(url: string): boolean {
  const path = pathOf(url);
  return path.startsWith("/api/") && !SESSIONLESS.has(path);
}

/** A body sent as it is with its own type (a CSV import), not as JSON. */
export class RawBody {
  constructor(
    readonly text: string,
    readonly type: "text/csv",
  ) {}
}

export async function apiRequest(method: HttpMethod, url: string, body?: unknown, signal?: AbortSignal) {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (method !== "GET") headers["Content-Type"] = body instanceof RawBody ? body.type : "application/json";
  const res = await fetch(url, {
    method,
    headers,
    credentials: "include",
    body: body === undefined ? undefined : body instanceof RawBody ? body.text : JSON.stringify(body),
    signal,
  });
  if (!res.ok) {
    const text = await res.text().catch(() => "");
    if (res.status === 401 && isGuardedApiPath(url)) unauthorizedHandler?.();
    throw new ApiError(res.status, `${res.status}: ${text || res.statusText}`, parseErrorBody(text));
  }
  return res;
}

/** Parses a JSON response; an empty body (e.g. 204) reads as undefined. */
export async function readJson<T>(res: Response): Promise<T> {
  const text = await res.text();
  return (text === "" ? undefined : JSON.parse(text)) as T;
}

export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  return readJson<T>(await apiRequest("GET", url, undefined, signal));
}

/** A request whose JSON answer is wanted (POST/PUT/PATCH/DELETE with an optional body). */
export async function sendJson<T>(method: Exclude<HttpMethod, "GET">, url: string, body?: unknown): Promise<T> {
  return readJson<T>(await apiRequest(method, url, body));
}

/**
 * A multipart form (a file upload) with its upload's progress, which `fetch` does not report: sent with
 * XMLHttpRequest, with the cookies, the 401 handling and the `ApiError` of `apiRequest`; the browser sets the
 * multipart boundary. A network failure rejects with a TypeError, as `fetch` does. Answers the parsed JSON.
 */
export function uploadForm<T>(url: string, form: FormData, onProgress?: (fraction: number) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.withCredentials = true;
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress?.(e.loaded / e.total);
    };
    xhr.onload = () => {
      const text = xhr.responseText;
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve((text === "" ? undefined : JSON.parse(text)) as T);
        return;
      }
      if (xhr.status === 401 && isGuardedApiPath(url)) unauthorizedHandler?.();
      reject(new ApiError(xhr.status, `${xhr.status}: ${text || xhr.statusText}`, parseErrorBody(text)));
    };
    xhr.onerror = () => reject(new TypeError("The upload did not reach the console"));
    xhr.onabort = () => reject(new TypeError("The upload was cancelled"));
    xhr.send(form);
  });
}
