/**
 * The HTTP edge of the API: JSON responses, request parsing, and the one
 * mapping from errors to status codes. Domain code throws the errors of
 * `core/errors.ts`; only the transport (app.ts) throws `HttpError` itself.
 */
import type { z } from "zod";
import type { ApiErrorBody } from "../shared/api";
import { ServiceError } from "./clients/http";
import {
  Conflict,
  DomainError,
  Forbidden,
  Gone,
  Invalid,
  NotFound,
  RateLimited,
  Unauthenticated,
  Unavailable,
} from "./core/errors";
import { validate } from "./core/validate";

export { fieldErrors, parseId, validate } from "./core/validate";

/** A transport-level refusal (unknown path, wrong method, wrong content type, foreign origin). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields?: Record<string, string>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** The answers made by `json()`: a whole body in memory, which the transport may compress (ADR 0031). */
const wholeJson = new WeakSet<Response>();

export function json(data: unknown, status = 200, headers?: HeadersInit): Response {
  const res = Response.json(data, { status, headers });
  wholeJson.add(res);
  return res;
}

/** Made by `json()` (not a stream a handler built itself, e.g. the generated configuration's). */
export const isWholeJson = (res: Response): boolean => wholeJson.has(res);

export const noContent = () => new Response(null, { status: 204 });

/** A file download (`Content-Disposition: attachment`), never cached. `filename` must be plain ASCII without quotes. */
export function download(body: ReadableStream<Uint8Array>, file: { filename: string; contentType: string }): Response {
  // Streamed (chunked): Bun does not send a Content-Length with a stream body.
  return new Response(body, {
    headers: {
      "Content-Type": file.contentType,
      "Content-Disposition": `attachment; filename="${file.filename}"`,
      "Cache-Control": "no-store",
    },
  });
}

/** The HTTP form of a domain error, or null for an unexpected error (answered with a fixed 500). */
export function toHttpError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof ServiceError) return new HttpError(502, err.message);
  if (!(err instanceof DomainError)) return null;
  if (err instanceof NotFound) return new HttpError(404, err.message, err.fields);
  if (err instanceof Conflict) return new HttpError(409, err.message, err.fields);
  if (err instanceof Gone) return new HttpError(410, err.message, err.fields);
  if (err instanceof Invalid) return new HttpError(400, err.message, err.fields);
  if (err instanceof Unauthenticated) {
    const headers = err.scheme ? { "WWW-Authenticate": `${err.scheme} realm="pbx-console"` } : undefined;
    return new HttpError(401, err.message, err.fields, headers);
  }
  if (err instanceof Forbidden) return new HttpError(403, err.message, err.fields);
  if (err instanceof RateLimited) {
    return new HttpError(429, err.message, err.fields, { "Retry-After": String(err.retryAfterSeconds) });
  }
  if (err instanceof Unavailable) return new HttpError(503, err.message, err.fields);
  return null;
}

export function errorResponse(err: HttpError): Response {
  const body: ApiErrorBody = { error: { message: err.message } };
  if (err.fields && Object.keys(err.fields).length > 0) body.error.fields = err.fields;
  return json(body, err.status, err.headers);
}

/** Parses JSON text that must be an object; an empty text reads as `{}`. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let body: unknown = {};
  if (text.trim() !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      throw new Invalid("Malformed JSON in request body");
    }
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Invalid("Request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/** The largest request body a route accepts unless its `RouteDef` declares `maxBody` (1 MiB). */
export const MAX_JSON_BODY = 1024 * 1024;

const tooLarge = (limit: number) =>
  new HttpError(413, `Request body too large (at most ${limit} bytes)`, undefined, { Connection: "close" });

/** Refuses at once a request whose declared `Content-Length` is over `limit` (before any other work). */
export function checkContentLength(req: Request, limit: number): void {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
}

/**
 * The body as text, read as a stream and refused with 413 as soon as it passes `limit` bytes: a huge or
 * endless body is never held in memory. Use it instead of `req.text()` wherever a body is read.
 */
export async function readBodyText(req: Request, limit = MAX_JSON_BODY): Promise<string> {
  checkContentLength(req, limit);
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      chunks.length = 0;
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}

/**
 * The request with its body limited to `limit` bytes while it is read: for handlers that read the body
 * themselves (e.g. a signature over the raw bytes). Reading past the limit rejects with the 413 `HttpError`.
 */
export function limitBody(req: Request, limit = MAX_JSON_BODY): Request {
  if (!req.body) return req;
  let size = 0;
  const body = req.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > limit) controller.error(tooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body,
    signal: req.signal,
    duplex: "half",
  } as RequestInit);
}

/** Reads (at most `limit` bytes) and validates the body with a shared schema; field-level 400 on failure. */
export async function parseBody<S extends z.ZodType>(
  req: Request,
  schema: S,
  limit = MAX_JSON_BODY,
): Promise<z.output<S>> {
  return validate(schema, parseJsonObject(await readBodyText(req, limit)));
}

/** The query string as an object (the last value of a repeated key wins). */
export const queryObject = (url: URL): Record<string, string> => Object.fromEntries(url.searchParams);
