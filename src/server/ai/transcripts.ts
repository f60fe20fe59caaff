/**
 * Call transcripts: the voice bridge stores finished calls (with an API token),
 * the console lists and deletes them. Search runs in the browser over the
 * whole list (`transcriptMatches` in src/shared/ai.ts).
 */
import { desc, eq } from "drizzle-orm";
import type { z } from "zod";
import { callTranscripts } from "../../db/schema";
import type { CallTranscript, callTranscriptSchema } from "../../shared/ai";
import { recordApiTokenUse } from "../accounts/tokens";
import type { Deps } from "../domain/deps";
import { Conflict, NotFound } from "../domain/errors";
import { parseId } from "../domain/validate";
import { toTranscript } from "./records";

export type TranscriptInput = z.output<typeof callTranscriptSchema>;

/** Newest first. */
export const listTranscripts = (deps: Pick<Deps, "db">): CallTranscript[] =>
  deps.db
    .select()
    .from(callTranscripts)
    .orderBy(desc(callTranscripts.createdAt), desc(callTranscripts.id))
    .all()
    .map(toTranscript);

/**
 * Stores one call's transcript; a call id already stored is a conflict, so a retrying bridge stores it once.
 * `apiTokenId`: the token the bridge sent; its use is recorded only once the transcript is stored.
 */
export function storeTranscript(
  deps: Pick<Deps, "db" | "events" | "now">,
  input: TranscriptInput,
  apiTokenId?: number | null,
): CallTranscript {
  if (input.callId) {
    const clash = deps.db
      .select({ id: callTranscripts.id })
      .from(callTranscripts)
      .where(eq(callTranscripts.callId, input.callId))
      .get();
    if (clash)
      throw new Conflict(`A transcript for call ${input.callId} is already stored (#${clash.id})`, {
        callId: "A transcript for this call is already stored",
      });
  }
  const row = deps.db
    .insert(callTranscripts)
    .values({ ...input, createdAt: new Date(deps.now()) })
    .returning()
    .get();
  recordApiTokenUse(deps, apiTokenId);
  deps.events.publish({ type: "ai-transcripts-updated", data: { id: row.id, action: "created" } });
  return toTranscript(row);
}

export function deleteTranscript(deps: Pick<Deps, "db" | "events">, rawId: string | undefined): void {
  const id = parseId(rawId, "Transcript");
  const row = deps.db.select({ id: callTranscripts.id }).from(callTranscripts).where(eq(callTranscripts.id, id)).get();
  if (!row) throw new NotFound("Transcript");
  deps.db.delete(callTranscripts).where(eq(callTranscripts.id, id)).run();
  deps.events.publish({ type: "ai-transcripts-updated", data: { id, action: "deleted" } });
}
