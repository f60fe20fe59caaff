/**
 * One assistant's calls over time (GET /api/ai/assistants/:id/stats?days=N, ADR 0070): per UTC day (of the
 * call's start) the calls it answered, their stored cost, the p50/p95 over all of that day's turn latencies,
 * and how many its post-call analysis judged and found successful; the same over the whole period; and what it
 * spent today (stored costs plus its calls in progress) against its daily cap.
 */
import { and, asc, eq, gte } from "drizzle-orm";
import { aiAssistants, aiCallLogs } from "../../db/schema";
import {
  type AssistantStats,
  type AssistantStatsDay,
  type AssistantStatsQuery,
  percentile,
} from "../../shared/ai/measures";
import type { AppContext } from "../context";
import { NotFound } from "../core/errors";
import { parseId } from "../core/validate";
import { othersRunning, storedSpentToday, utcDayStart } from "./caps";

const DAY_MS = 86_400_000;
/** Sums of stored costs are rounded to 10⁻⁸ USD so float noise does not show. */
const round = (v: number) => Math.round(v * 1e8) / 1e8;

interface Bucket {
  calls: number;
  cost: number;
  ms: number[];
  succeeded: number;
  judged: number;
}
const bucket = (): Bucket => ({ calls: 0, cost: 0, ms: [], succeeded: 0, judged: 0 });

export function assistantStats(
  app: Pick<AppContext, "db" | "now" | "aiCalls">,
  rawId: string | undefined,
  q: AssistantStatsQuery,
): AssistantStats {
  const id = parseId(rawId, "AI assistant");
  const known = app.db.select({ id: aiAssistants.id }).from(aiAssistants).where(eq(aiAssistants.id, id)).get();
  if (!known) throw new NotFound("AI assistant");
  const today = utcDayStart(app.now());
  const from = today - (q.days - 1) * DAY_MS;
  const rows = app.db
    .select({
      createdAt: aiCallLogs.createdAt,
      costUsd: aiCallLogs.costUsd,
      latencyTurns: aiCallLogs.latencyTurns,
      analysis: aiCallLogs.analysis,
    })
    .from(aiCallLogs)
    .where(
      and(eq(aiCallLogs.assistantId, id), eq(aiCallLogs.outcome, "accept"), gte(aiCallLogs.createdAt, new Date(from))),
    )
    .orderBy(asc(aiCallLogs.createdAt))
    .all();
  const days = new Map<string, Bucket>();
  const all = bucket();
  for (const r of rows) {
    const day = new Date(utcDayStart(r.createdAt.getTime())).toISOString().slice(0, 10);
    const b = days.get(day) ?? bucket();
    days.set(day, b);
    for (const x of [b, all]) {
      x.calls++;
      x.cost += r.costUsd ?? 0;
      for (const t of r.latencyTurns ?? []) x.ms.push(t.ms);
      const verdict = r.analysis?.success;
      if (typeof verdict === "boolean") {
        x.judged++;
        if (verdict) x.succeeded++;
      }
    }
  }
  const figures = (b: Bucket) => ({
    calls: b.calls,
    costUsd: round(b.cost),
    p50Ms: percentile(b.ms, 50),
    p95Ms: percentile(b.ms, 95),
    succeeded: b.succeeded,
    judged: b.judged,
  });
  const list: AssistantStatsDay[] = [...days].map(([day, b]) => ({ day, ...figures(b) }));
  const live = othersRunning(app.aiCalls.list(), { assistant: { id } });
  return {
    assistantId: id,
    days: list,
    totals: figures(all),
    spentTodayUsd: round(storedSpentToday(app, id) + live),
  };
}
