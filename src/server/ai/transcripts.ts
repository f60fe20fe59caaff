/**
 * Call transcripts: the voice bridge stores finished calls (with an API token), the console lists them
 * a page at a time (keyset on created_at, id; ADR 0033), opens one and deletes them. Search runs in
 * SQL: transcript text and summary with LIKE (case-insensitive for ASCII letters), phone number and
 * extension as substrings.
 */
import { and, desc, eq, getTableColumns, lt, or, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { z } from "zod";
import { callTranscripts } from "../../db/schema";
import {
  type CallTranscript,
  type callTranscriptSchema,
  TRANSCRIPT_PAGE_DEFAULT,
  TRANSCRIPT_PREVIEW_CHARS,
  type TranscriptPage,
  type TranscriptQuery,
} from "../../shared/ai";
import { recordApiTokenUse } from "../accounts/tokens";
import type { Deps } from "../domain/deps";
import { Conflict, NotFound } from "../domain/errors";
import { parseId } from "../domain/validate";
import { toTranscript } from "./records";

export type TranscriptInput = z.output<typeof callTranscriptSchema>;

const likeAnywhere = (column: AnySQLiteColumn, text: string): SQL =>
  sql`${column} LIKE ${`%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`;
const hasSubstring = (column: AnySQLiteColumn, text: string): SQL => sql`instr(${column}, ${text}) > 0`;

/** The search (blank matches all): text and summary case-insensitively (ASCII), number and extension as substrings. */
function matching(q: string | undefined): SQL | undefined {
  const text = q?.trim();
  if (!text) return undefined;
  return or(
    likeAnywhere(callTranscripts.transcript, text),
    likeAnywhere(callTranscripts.summary, text),
    hasSubstring(callTranscripts.phoneNumber, text),
    hasSubstring(callTranscripts.extensionId, text),
  );
}

const newestFirst = [desc(callTranscripts.createdAt), desc(callTranscripts.id)] as const;

/** GET /api/ai/transcripts without `limit`/`cursor`: every (matching) transcript with its text, newest first. */
export const listTranscripts = (deps: Pick<Deps, "db">, query: Pick<TranscriptQuery, "q"> = {}): CallTranscript[] =>
  deps.db
    .select()
    .from(callTranscripts)
    .where(matching(query.q))
    .orderBy(...newestFirst)
    .all()
    .map(toTranscript);

/** The keyset of a page's last item: its creation time (ms) and id, which break ties. */
const cursorOf = (t: { createdAt: Date; id: number }) => `${t.createdAt.getTime()}.${t.id}`;

function olderThan(cursor: string | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const [ms, id] = cursor.split(".").map(Number) as [number, number];
  const at = new Date(ms);
  return or(lt(callTranscripts.createdAt, at), and(eq(callTranscripts.createdAt, at), lt(callTranscripts.id, id)));
}

const count = (deps: Pick<Deps, "db">, where?: SQL) =>
  deps.db.select({ n: sql<number>`count(*)` }).from(callTranscripts).where(where).get()?.n ?? 0;

/**
 * GET /api/ai/transcripts?limit=&cursor=&q=: `limit` transcripts older than the cursor, newest first,
 * each without its text but its first characters; with the counts for the screen's badge.
 */
export function pageTranscripts(deps: Pick<Deps, "db">, query: TranscriptQuery): TranscriptPage {
  const limit = query.limit ?? TRANSCRIPT_PAGE_DEFAULT;
  const search = matching(query.q);
  const { transcript: _text, ...listed } = getTableColumns(callTranscripts);
  const rows = deps.db
    .select({ ...listed, preview: sql<string>`substr(${callTranscripts.transcript}, 1, ${TRANSCRIPT_PREVIEW_CHARS})` })
    .from(callTranscripts)
    .where(and(search, olderThan(query.cursor)))
    .orderBy(...newestFirst)
    .limit(limit + 1)
    .all();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const total = count(deps);
  return {
    items: page.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
    nextCursor: rows.length > limit && last ? cursorOf(last) : null,
    total,
    matched: search ? count(deps, search) : total,
  };
}

/** One transcript with its whole text, or null when there is none with this id (the audit's before). */
export function findTranscript(deps: Pick<Deps, "db">, rawId: string | undefined): CallTranscript | null {
  const id = Number(rawId);
  if (!Number.isSafeInteger(id) || id < 1) return null;
  const row = deps.db.select().from(callTranscripts).where(eq(callTranscripts.id, id)).get();
  return row ? toTranscript(row) : null;
}

/** GET /api/ai/transcripts/:id: one transcript with its whole text. */
export function getTranscript(deps: Pick<Deps, "db">, rawId: string | undefined): CallTranscript {
  const found = findTranscript(deps, String(parseId(rawId, "Transcript")));
  if (!found) throw new NotFound("Transcript");
  return found;
}

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
