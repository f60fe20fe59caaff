/**
 * Messages AI assistants took during calls (the `take_message` tool run by the sideband, ADR 0042):
 * stored once, listed newest first, announced as `ai-messages-updated`.
 */
import { desc, getTableColumns, sql } from "drizzle-orm";
import { aiMessages } from "../../db/schema";
import { AI_MESSAGES_LIST_MAX, type AiMessage } from "../../shared/ai/messages";
import type { Deps } from "../core/deps";

type MessageRow = typeof aiMessages.$inferSelect;

const toMessage = (r: MessageRow & { transcriptId?: number | null }): AiMessage => ({
  ...r,
  transcriptId: r.transcriptId ?? null,
  createdAt: r.createdAt.toISOString(),
});

export interface NewAiMessage {
  callId: string | null;
  assistantId: number | null;
  callerNumber: string | null;
  callerName: string | null;
  recipient: string;
  message: string;
  callbackNumber: string | null;
}

/** GET /api/ai/messages: the newest messages first (at most `AI_MESSAGES_LIST_MAX`). */
export const listAiMessages = (deps: Pick<Deps, "db">): AiMessage[] =>
  deps.db
    .select({
      ...getTableColumns(aiMessages),
      // The call's transcript, once the call has ended and it is stored (the Messages screen links to it).
      // Qualified by hand: drizzle writes the outer table's column unqualified inside the subquery.
      transcriptId: sql<number | null>`(select "call_transcripts"."id" from "call_transcripts"
        where "call_transcripts"."call_id" = "ai_messages"."call_id" order by "call_transcripts"."id" desc limit 1)`,
    })
    .from(aiMessages)
    .orderBy(desc(aiMessages.createdAt), desc(aiMessages.id))
    .limit(AI_MESSAGES_LIST_MAX)
    .all()
    .map(toMessage);

/** Stores one message taken on a call and announces it. */
export function storeAiMessage(deps: Pick<Deps, "db" | "events" | "now">, input: NewAiMessage): AiMessage {
  const row = deps.db
    .insert(aiMessages)
    .values({ ...input, createdAt: new Date(deps.now()) })
    .returning()
    .get();
  deps.events.publish({ type: "ai-messages-updated", data: { id: row.id, action: "created" } });
  return toMessage(row);
}
