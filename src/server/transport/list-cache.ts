/**
 * Lists answered with an `ETag` (ADR 0029). A list route declares the tables its answer is made of
 * (`RouteDef.etag`); SQLite triggers (migration 0012) add one to a table's row in `table_versions` on
 * every insert, update and delete, whoever writes. The ETag is a hash of those versions, the URL, the
 * caller's role and this process's start: a matching `If-None-Match` is answered 304 without building
 * the list, and the serialised body is kept per (role, URL) for its versions, so a repeat costs a lookup.
 * The kept body is also kept in each coding a client asked for (brotli, gzip; ADR 0031), each with its
 * own ETag, made once per version.
 */
import type { Db } from "../../db/client";
import { type LIST_TABLES, tableVersions } from "../../db/table-versions";
import { acceptedCodings, COMPRESS_MIN_BYTES, type Coding, compressBytes } from "./encoding";

export { VERSIONED_TABLES } from "../../db/table-versions";
/** The tables a list's answer may be made of (each has a version row and its triggers: migration 0012). */
export type VersionedTable = (typeof LIST_TABLES)[number];

/** How many (role, URL) bodies are kept; the oldest goes first (a query string is the client's to vary). */
const MAX_ENTRIES = 64;

interface Entry {
  tag: string;
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  /** The body in each coding, made at the first request that accepts it (null: not smaller, never offered). */
  coded: Map<Coding, Promise<Uint8Array<ArrayBuffer> | null>>;
}

/** What of the request the cache looks at. */
export interface ListRequest {
  ifNoneMatch: string | null;
  acceptEncoding: string | null;
  /** HEAD: the same headers, no body. */
  head?: boolean;
  /** The answer may go compressed (ADR 0031); false keeps it identity whatever the client accepts. */
  compress?: boolean;
}

const SUFFIX: Record<Coding, string> = { br: "-br", gzip: "-gz" };
/** The ETag of a coding of the answer tagged `tag`: each representation has its own (ADR 0031). */
export const codedTag = (tag: string, coding: Coding | null) =>
  coding ? `${tag.slice(0, -1)}${SUFFIX[coding]}"` : tag;

/** Whether an `If-None-Match` header names this tag (weak comparison, RFC 9110 §13.1.2; `*` matches any). */
export function ifNoneMatchHits(header: string | null, tag: string): boolean {
  return matchingTag(header, [tag]) !== null;
}

/** The first of `tags` that `If-None-Match` names (weak comparison; `*` names the first), else null. */
export function matchingTag(header: string | null, tags: readonly string[]): string | null {
  if (!header) return null;
  for (const part of header.split(",")) {
    const candidate = part.trim().replace(/^W\//, "");
    if (candidate === "*") return tags[0] ?? null;
    if (tags.includes(candidate)) return candidate;
  }
  return null;
}

export class ListCache {
  /** A restored database starts its versions again: a new process (restore needs the console stopped) never reuses a tag. */
  private readonly boot = crypto.randomUUID();
  private readonly entries = new Map<string, Entry>();
  /** The last tag made per key and what it was made of: hashing it again for every request shows in a kept list's CPU. */
  private readonly tags = new Map<string, { tables: readonly VersionedTable[]; versions: string; tag: string }>();

  constructor(private readonly db: Db) {}

  /**
   * The ETag of the answer at `key` (role and URL) now, made of every table in `tables` (one answer may be
   * made of several, e.g. the Dashboard's counts); null when a table has no version (never cached then).
   */
  tag(tables: readonly VersionedTable[], key: string): string | null {
    const versions = tableVersions(this.db).read();
    let stamp = "";
    for (const table of tables) {
      const version = versions.get(table);
      if (version === undefined) return null;
      stamp += `${version},`;
    }
    const kept = this.tags.get(key);
    if (kept && kept.tables === tables && kept.versions === stamp) return kept.tag;
    const tag = `"${Bun.hash(`${this.boot}\n${key}\n${tables.join(",")}\n${stamp}`).toString(36)}"`;
    if (this.tags.size >= MAX_ENTRIES) this.tags.delete(this.tags.keys().next().value as string);
    this.tags.set(key, { tables, versions: stamp, tag });
    return tag;
  }

  /**
   * Answers a list route: 304 when `If-None-Match` names the current tag (of any coding), the kept body
   * (in the best coding the client accepts, made once per version and coding) when its tag is current,
   * else `answer()` (a 200 is kept). Call it once the caller is authenticated and authorised.
   */
  async respond(
    tables: readonly VersionedTable[],
    key: string,
    req: ListRequest,
    answer: () => Response | Promise<Response>,
  ): Promise<Response> {
    // The versions are read before the list: a write in between gives a newer body under the older tag,
    // which the next request replaces; never an older body under the newer tag.
    const tag = this.tag(tables, key);
    if (tag === null) return answer();
    const vary: Record<string, string> = req.compress ? { Vary: "Accept-Encoding" } : {};
    // Every coding of one version is the same content: the tag of whichever the client holds is a 304.
    const hit = matchingTag(req.ifNoneMatch, [tag, codedTag(tag, "br"), codedTag(tag, "gzip")]);
    if (hit) return new Response(null, { status: 304, headers: { ETag: hit, ...vary } });
    let entry = this.entries.get(key);
    let fresh: Response | null = null;
    if (entry?.tag !== tag) {
      fresh = await answer();
      if (fresh.status !== 200) return fresh;
      const body = new Uint8Array(await fresh.arrayBuffer());
      const contentType = fresh.headers.get("Content-Type") ?? "application/json;charset=utf-8";
      entry = { tag, body, contentType, coded: new Map() };
      this.entries.delete(key);
      this.entries.set(key, entry);
      if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    }
    const { coding, body } = await this.representation(entry, req);
    const headers = new Headers(fresh?.headers);
    headers.set("Content-Type", entry.contentType);
    headers.set("ETag", codedTag(tag, coding));
    if (req.compress) headers.set("Vary", "Accept-Encoding");
    if (coding) headers.set("Content-Encoding", coding);
    headers.set("Content-Length", String(body.byteLength));
    return new Response(req.head ? null : body, { status: 200, headers });
  }

  /** The best representation of a kept body the client accepts: a coding only for a body worth it. */
  private async representation(
    entry: Entry,
    req: ListRequest,
  ): Promise<{ coding: Coding | null; body: Uint8Array<ArrayBuffer> }> {
    if (!req.compress || entry.body.byteLength < COMPRESS_MIN_BYTES) return { coding: null, body: entry.body };
    for (const coding of acceptedCodings(req.acceptEncoding)) {
      let coded = entry.coded.get(coding);
      if (!coded) {
        coded = compressBytes(entry.body, coding, "answer");
        entry.coded.set(coding, coded);
      }
      const body = await coded;
      if (body) return { coding, body };
    }
    return { coding: null, body: entry.body };
  }
}
