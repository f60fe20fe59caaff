/**
 * Bulk actions on extensions (the Extensions table's selection, ADR 0041): delete many at once (those a
 * PTT group or inbound route uses are reported, not deleted) and set shared fields on many at once.
 * The fields are checked by the very validators of `extensionSchema` (`extensionPatchSchema`), so a bulk edit
 * accepts exactly what the one-extension form accepts.
 */
import { z } from "zod";
import { extensionPatchSchema } from "./inventory";
import { lazySchema } from "./lazy-schema";

/** At most this many extensions in one bulk call (the console is sized for 5,000). */
export const EXTENSION_BULK_MAX = 10_000;

const ids = lazySchema(() =>
  z
    .array(z.number({ error: "Each id must be a number" }).int("Each id must be a whole number").positive(), {
      error: "ids must be a list of extension ids",
    })
    .min(1, "Select at least one extension")
    .max(EXTENSION_BULK_MAX, `At most ${EXTENSION_BULK_MAX} extensions at once`)
    .transform((list) => [...new Set(list)]),
);

export const extensionBulkDeleteSchema = lazySchema(() => z.object({ ids }));

/** The fields that make sense to set on many extensions at once (never the number, name, email or secret). */
export const extensionBulkPatchSchema = lazySchema(() =>
  z
    .strictObject(
      { voicemail: extensionPatchSchema.shape.voicemail, position: extensionPatchSchema.shape.position },
      { error: "Only voicemail and position can be set on many extensions at once" },
    )
    .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "Choose at least one field to set" }),
);

export const extensionBulkUpdateSchema = lazySchema(() => z.object({ ids, patch: extensionBulkPatchSchema }));

export type ExtensionBulkPatch = z.output<typeof extensionBulkPatchSchema>;

/** An extension a bulk delete left alone, and why (the one-extension delete's own message). */
export interface ExtensionBlocked {
  id: number;
  extension: string;
  reason: string;
}

/** POST /api/extensions/bulk-delete (and its `/check`, which deletes nothing). */
export interface ExtensionBulkDeleteResult {
  /** Ids deleted (with `/check`: those that would be). */
  deleted: number[];
  blocked: ExtensionBlocked[];
  /** Ids that are not (or no longer) stored. */
  missing: number[];
}

/** POST /api/extensions/bulk-update */
export interface ExtensionBulkUpdateResult {
  updated: number[];
  missing: number[];
}
