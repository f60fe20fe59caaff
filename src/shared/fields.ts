/** Field builders the shared schemas are made of: one wording of each validation message. */
import { z } from "zod";

export const required = (label: string, max: number) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} must be at most ${max} characters`);

export const optionalText = (label: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, `${label} must be at most ${max} characters`)
    .optional()
    .nullable()
    .transform((v) => (v ? v : null));

export const stringList = (label: string, max: number) =>
  z.array(z.string().trim().min(1).max(max, `Each ${label} must be at most ${max} characters`));

/** An extension (1001), a full number (+15551234567) or a feature code: what the SIP user part can be. */
export const dialable = (label: string) =>
  optionalText(label, 50).refine((v) => v === null || /^\+?[0-9*#]+$/.test(v), {
    message: `${label} must be digits, optionally starting with +`,
  });

export const percent = (label: string, fallback: number) =>
  z
    .number({ error: `${label} must be 0-100` })
    .int(`${label} must be a whole number`)
    .min(0, `${label} must be 0-100`)
    .max(100, `${label} must be 0-100`)
    .default(fallback);

/** A list's `?limit=` (a query string, so coerced): a whole number from 1 to `max`, optional. */
export const limitParam = (max: number) =>
  z.coerce
    .number({ error: "The limit must be a number" })
    .int("The limit must be a whole number")
    .min(1, "The limit is at least 1")
    .max(max, `The limit is at most ${max}`)
    .optional();

/** A field without its top-level default (also under a transform), so an absent value stays absent. */
function withoutDefault(field: z.ZodType): z.ZodType {
  if (field instanceof z.ZodDefault) return field.unwrap() as z.ZodType;
  if (field instanceof z.ZodPipe && field.in instanceof z.ZodDefault) {
    return z.pipe(field.in.unwrap() as z.ZodType, field.out as z.ZodType);
  }
  return field;
}

/**
 * The PATCH form of an object schema: every field optional and without its
 * default, so a field left out stays as stored (the server then validates the
 * merged record with the full schema).
 */
export function patchOf<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>) {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape)) shape[key] = withoutDefault(field as z.ZodType).optional();
  return z.object(shape) as unknown as z.ZodObject<{ [K in keyof Shape]: z.ZodOptional<Shape[K]> }>;
}
