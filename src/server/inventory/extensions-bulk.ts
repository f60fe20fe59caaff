/**
 * Bulk actions of the Extensions table (ADR 0041). A bulk delete applies the one-extension delete's
 * dependency rule (`extensionDependents`: a PTT group member or an inbound route's destination stays)
 * to each id inside one transaction, and reports the blocked ones with that rule's own message;
 * a bulk update sets the shared fields on every id at once. Each publishes one `extensions-updated`.
 */
import { inArray } from "drizzle-orm";
import { extensions } from "../../db/schema";
import type {
  ExtensionBlocked,
  ExtensionBulkDeleteResult,
  ExtensionBulkPatch,
  ExtensionBulkUpdateResult,
} from "../../shared/extensions-bulk";
import type { Deps } from "../core/deps";
import { extensionDependents } from "./extensions";

const storedRows = (deps: Pick<Deps, "db">, ids: readonly number[]) =>
  deps.db
    .select()
    .from(extensions)
    .where(inArray(extensions.id, [...ids]))
    .all();

/**
 * Deletes every deletable extension of `ids` in one transaction; with `check`, deletes nothing (what a
 * delete would do, for the confirmation). The blocked ones carry the reason the single delete gives.
 */
export function bulkDeleteExtensions(
  deps: Pick<Deps, "db" | "events">,
  ids: readonly number[],
  check = false,
): ExtensionBulkDeleteResult {
  const deleted: number[] = [];
  const blocked: ExtensionBlocked[] = [];
  let missing: number[] = [];
  deps.db.$client.transaction(() => {
    const stored = storedRows(deps, ids);
    const found = new Set(stored.map((r) => r.id));
    missing = ids.filter((id) => !found.has(id));
    for (const row of stored) {
      const { blockedBecause } = extensionDependents(deps.db, row);
      if (blockedBecause) blocked.push({ id: row.id, extension: row.extension, reason: blockedBecause });
      else deleted.push(row.id);
    }
    if (!check && deleted.length) deps.db.delete(extensions).where(inArray(extensions.id, deleted)).run();
  })();
  if (!check && deleted.length) {
    deps.events.publish({ type: "extensions-updated", data: { ids: deleted, action: "deleted" } });
  }
  return { deleted, blocked, missing };
}

/** Sets the patch's fields (already checked by the shared schema) on every stored extension of `ids`. */
export function bulkUpdateExtensions(
  deps: Pick<Deps, "db" | "events">,
  ids: readonly number[],
  patch: ExtensionBulkPatch,
): ExtensionBulkUpdateResult {
  const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as ExtensionBulkPatch;
  const updated = deps.db.$client.transaction(() => {
    const stored = storedRows(deps, ids).map((r) => r.id);
    if (stored.length) deps.db.update(extensions).set(set).where(inArray(extensions.id, stored)).run();
    return stored;
  })();
  const kept = new Set(updated);
  if (updated.length) deps.events.publish({ type: "extensions-updated", data: { ids: updated, action: "updated" } });
  return { updated, missing: ids.filter((id) => !kept.has(id)) };
}
