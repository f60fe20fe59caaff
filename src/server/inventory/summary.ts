/**
 * The Dashboard's counts (ADR 0031): one COUNT(*) per table, not the lists. The route answers it with an
 * ETag made of these tables' versions, so an open Dashboard revalidates with 304s.
 */
import { count } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import {
  aiAssistants,
  extensions,
  inboundRoutes,
  outboundRoutes,
  pttGroups,
  queues,
  ringGroups,
  trunks,
} from "../../db/schema";
import type { DashboardSummary } from "../../shared/dashboard";
import type { Deps } from "../core/deps";

/** Every table the summary counts (its route's `etag` names the same: a write to any makes a new one). */
export const SUMMARY_TABLES = [
  "extensions",
  "trunks",
  "inbound_routes",
  "outbound_routes",
  "ptt_groups",
  "ring_groups",
  "queues",
  "ai_assistants",
] as const;

export function dashboardSummary(deps: Pick<Deps, "db">): DashboardSummary {
  // One read transaction: the counts are of one moment, even while a sync import writes.
  return deps.db.transaction(
    (tx) => {
      const rows = (table: SQLiteTable) => tx.select({ n: count() }).from(table).get()?.n ?? 0;
      return {
        extensions: rows(extensions),
        trunks: rows(trunks),
        inboundRoutes: rows(inboundRoutes),
        outboundRoutes: rows(outboundRoutes),
        pttGroups: rows(pttGroups),
        ringGroups: rows(ringGroups),
        queues: rows(queues),
        aiAssistants: rows(aiAssistants),
      };
    },
    { behavior: "deferred" },
  );
}
