/**
 * Bulk actions of the Extensions table (ADR 0041). A bulk delete applies the one-extension delete's
 * dependency rule (`extensionDependents`: a PTT group member or an inbound route's destination stays; a
 * ring group member or queue agent leaves the group or queue unless it is its last) to each id in turn
 * inside one transaction, and reports the blocked ones with that rule's own message; a bulk update sets the shared fields on every id at once. Each publishes one `extensions-updated`.
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
import { leaveQueues, queueAgents } from "./queues";
import { leaveRingGroups, ringGroupMembers } from "./ring-groups";

/** Thrown inside a check's transaction to roll back what the check did to see each delete in turn. */
const CHECK_ONLY = Symbol("check only");

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
  const groupsChanged = new Set<number>();
  const queuesChanged = new Set<number>();
  try {
    deps.db.$client.transaction(() => {
      const stored = storedRows(deps, ids);
      // Only a ring group member has groups to leave: the rest skip that query.
      const members = ringGroupMembers(deps.db);
      const agents = queueAgents(deps.db);
      const found = new Set(stored.map((r) => r.id));
      missing = ids.filter((id) => !found.has(id));
      for (const row of stored) {
        // Each in turn: two extensions that are a ring group's last members cannot both leave it.
        const { blockedBecause } = extensionDependents(deps.db, row);
        if (blockedBecause) blocked.push({ id: row.id, extension: row.extension, reason: blockedBecause });
        else {
          deleted.push(row.id);
          if (members.has(row.extension))
            for (const g of leaveRingGroups(deps.db, row.extension)) groupsChanged.add(g.id);
          if (agents.has(row.extension)) for (const q of leaveQueues(deps.db, row.extension)) queuesChanged.add(q.id);
        }
      }
      if (check) throw CHECK_ONLY;
      if (deleted.length) deps.db.delete(extensions).where(inArray(extensions.id, deleted)).run();
    })();
  } catch (err) {
    if (err !== CHECK_ONLY) throw err;
  }
  if (!check && deleted.length) {
    deps.events.publish({ type: "extensions-updated", data: { ids: deleted, action: "deleted" } });
    for (const id of groupsChanged)
      deps.events.publish({ type: "ring-groups-updated", data: { id, action: "updated" } });
    for (const id of queuesChanged) deps.events.publish({ type: "queues-updated", data: { id, action: "updated" } });
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
