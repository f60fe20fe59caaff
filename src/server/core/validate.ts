/** Checking input against the shared schemas, for domain code and the HTTP edge alike. */
import type { z } from "zod";
import { Invalid, NotFound } from "./errors";

/** Turns zod issues into `{field: message}` (first message per field). */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.map(String).join(".") : "_";
    if (!(key in fields)) fields[key] = issue.message;
  }
  return fields;
}

/** Validates data with a shared schema; `Invalid` with field messages on failure. */
export function validate<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const result = schema.safeParse(data);
  if (!result.success) {
    const fields = fieldErrors(result.error);
    const first = Object.values(fields)[0] ?? "Invalid request";
    throw new Invalid(`Invalid request: ${first}`, fields);
  }
  return result.data;
}

/** Parses a positive integer id from a path parameter (404 for anything else). */
export function parseId(raw: string | undefined, what: string): number {
  const id = Number(raw);
  if (!raw || !/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id <= 0) throw new NotFound(what);
  return id;
}
