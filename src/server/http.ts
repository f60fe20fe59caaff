import type { z } from "zod";
import type { ApiErrorBody } from "../shared/api";

/** An error that becomes a JSON response with this status (never a stack trace). */
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

export function json(data: unknown, status = 200, headers?: HeadersInit): Response {
  return Response.json(data, { status, headers });
}

export function errorResponse(err: HttpError): Response {
  const body: ApiErrorBody = { error: { message: err.message } };
  if (err.fields && Object.keys(err.fields).length > 0) body.error.fields = err.fields;
  return json(body, err.status, err.headers);
}

export const noContent = () => new Response(null, { status: 204 });

/** Turns zod issues into `{field: message}` (first message per field). */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.map(String).join(".") : "_";
    if (!(key in fields)) fields[key] = issue.message;
  }
  return fields;
}

/** Reads the JSON body; an empty body reads as `{}`. Malformed JSON → 400. */
export async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "Malformed JSON in request body");
  }
}

/** Reads and validates the body with a shared schema; field-level 400 on failure. */
export async function parseBody<S extends z.ZodType>(req: Request, schema: S): Promise<z.output<S>> {
  const body = await readJson(req);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpError(400, "Request body must be a JSON object");
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    const fields = fieldErrors(result.error);
    const first = Object.values(fields)[0] ?? "Invalid request";
    throw new HttpError(400, `Invalid request: ${first}`, fields);
  }
  return result.data;
}

/** Parses a positive integer id from a path parameter (404 for anything else). */
export function parseId(raw: string | undefined, what: string): number {
  const id = Number(raw);
  if (!raw || !/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id <= 0) {
    throw new HttpError(404, `${what} not found`);
  }
  return id;
}
