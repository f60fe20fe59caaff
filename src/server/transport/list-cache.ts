/**
 * Lists answered with an `ETag` (ADR 0029). A list route declares the tables its answer is made of
 * (`RouteDef.etag`); SQLite triggers (migration 0012) add one to a table's row in `table_versions` on
 * every insert, update and delete, whoever writes. The ETag is a hash of those versions, the URL, the
 * caller's role and this process's start: a matching `If-None-Match` is answered 304 without building
 * the list, and the serialised body is kept per (role, URL) for its versions, so a repeat costs a lookup.
 */
import type { Statement } from "bun:sqlite";
import type { Db } from "../../db/client";

/** The tables that have a version row and its triggers (migrations/0012_table_versions.sql). */
export const VERSIONED_TABLES = [
  "extensions",
  "trunks",
  "inbound_routes",
  "outbound_routes",
  "ptt_groups",
  "ai_assistants",
  "ai_routing_rules",
] as const;
export type VersionedTable = (typeof VERSIONED_TABLES)[number];

/** How many (role, URL) bodies are kept; the oldest goes first (a query string is the client's to vary). */
const MAX_ENTRIES = 64;

interface Entry {
  tag: string;
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
}

/** Whether an `If-None-Match` header names this tag (weak comparison, RFC 9110 §13.1.2; `*` matches any). */
export function ifNoneMatchHits(header: string | null, tag: string): boolean {
  if (!header) return false;
  for (const part of header.split(",")) {
    const candidate = part.trim();
    if (candidate === "*" || candidate === tag || candidate === `W/${tag}`) return true;
  }
  return false;
}

export class ListCache {
  /** A restored database starts its versions again: a new process (restore needs the console stopped) never reuses a tag. */
  private readonly boot = crypto.randomUUID();
  private readonly entries = new Map<string, Entry>();
  private statement: Statement<{ name: string; version: number }> | null = null;

  constructor(private readonly db: Db) {}

  /** The tables' versions now (one prepared statement over a table of a few rows). */
  private versions(): Map<string, number> {
    this.statement ??= this.db.$client.prepare<{ name: string; version: number }, []>(
      "SELECT name, version FROM table_versions",
    );
    return new Map(this.statement.all().map((r) => [r.name, r.version]));
  }

  /** The ETag of the answer at `key` (role and URL) now; null when a table has no version (never cached then). */
  tag(tables: readonly VersionedTable[], key: string): string | null {
    const versions = this.versions();
    const parts: number[] = [];
    for (const table of tables) {
      const version = versions.get(table);
      if (version === undefined) return null;
      parts.push(version);
    }
    return `"${Bun.hash(`${this.boot}\n${key}\n${tables.join(",")}\n${parts.join(",")}`).toString(36)}"`;
  }

  /**
   * Answers a list route: 304 when `If-None-Match` names the current tag, the kept body when its tag is
   * current, else `answer()` (a 200 is kept). Call it once the caller is authenticated and authorised.
   */
  async respond(
    tables: readonly VersionedTable[],
    key: string,
    ifNoneMatch: string | null,
    answer: () => Response | Promise<Response>,
  ): Promise<Response> {
    // The versions are read before the list: a write in between gives a newer body under the older tag,
    // which the next request replaces; never an older body under the newer tag.
    const tag = this.tag(tables, key);
    if (tag === null) return answer();
    if (ifNoneMatchHits(ifNoneMatch, tag)) return new Response(null, { status: 304, headers: { ETag: tag } });
    const kept = this.entries.get(key);
    if (kept?.tag === tag) {
      return new Response(kept.body, { headers: { "Content-Type": kept.contentType, ETag: tag } });
    }
    const res = await answer();
    if (res.status !== 200) return res;
    const body = new Uint8Array(await res.arrayBuffer());
    const contentType = res.headers.get("Content-Type") ?? "application/json;charset=utf-8";
    this.entries.delete(key);
    this.entries.set(key, { tag, body, contentType });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    const headers = new Headers(res.headers);
    headers.set("ETag", tag);
    return new Response(body, { status: 200, headers });
  }
}
