/**
 * One AI call as its page shows it (GET /api/ai/calls/:callId, ADR 0070): the call's log row with its measures
 * (usage, cost, latency, end reason; stored when the call ends), its post-call analysis, its transcript and its
 * assistant. A call in progress shows the measures so far from its session in memory.
 */
import { desc, eq } from "drizzle-orm";
import { aiAssistants, aiCallLogs, callTranscripts } from "../../db/schema";
import { type AiCallDetail, latencyOf } from "../../shared/ai/measures";
import type { AppContext } from "../context";
import { Invalid, NotFound } from "../core/errors";
import { toCallLog } from "./records";

/** OpenAI's call ids (`rtc_…`) and the like: letters, digits, `_ - . :`. */
const CALL_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

type DetailDeps = Pick<AppContext, "db" | "aiCalls">;

export function aiCallDetail(app: DetailDeps, callId: string | undefined = ""): AiCallDetail {
  if (!CALL_ID_RE.test(callId))
    throw new Invalid("That is not an AI call id", { callId: "Use the call id of an AI call, such as rtc_…" });
  const { db } = app;
  // The accepted row when there is one (an error row may come before a redelivery that was answered).
  const rows = db.select().from(aiCallLogs).where(eq(aiCallLogs.callId, callId)).orderBy(desc(aiCallLogs.id)).all();
  const row = rows.find((r) => r.outcome === "accept") ?? rows[0];
  if (!row) throw new NotFound("AI call");
  const assistantName =
    row.assistantId === null
      ? null
      : (db.select({ name: aiAssistants.name }).from(aiAssistants).where(eq(aiAssistants.id, row.assistantId)).get()
          ?.name ?? null);
  const transcript = db
    .select({ id: callTranscripts.id })
    .from(callTranscripts)
    .where(eq(callTranscripts.callId, callId))
    .orderBy(desc(callTranscripts.id))
    .get();
  const base = {
    ...toCallLog(row),
    assistantName,
    analysis: row.analysis ?? null,
    analysisError: row.analysisError ?? null,
    transcriptId: transcript?.id ?? null,
  };
  const session = app.aiCalls.get(callId);
  if (session && row.outcome === "accept") {
    // In progress: the measures so far, at the price the call started with.
    const usage = session.measures.usage();
    return {
      ...base,
      endedAt: null,
      usage,
      costUsd: session.runningCost,
      price: usage ? session.price : null,
      latency: session.measures.latency(),
      end: null,
      live: true,
    };
  }
  return {
    ...base,
    endedAt: row.endedAt ? row.endedAt.toISOString() : null,
    usage: row.usage ?? null,
    costUsd: row.costUsd ?? null,
    price: row.price ?? null,
    latency: latencyOf(row.latencyTurns ?? []),
    end: row.endReason ?? null,
    live: false,
  };
}
