/**
 * The per-table versions SQLite keeps with triggers (`table_versions`, migrations 0012 and 0013): every
 * insert, update and delete of a versioned table, by any connection or process, adds one to its row inside
 * the writer's transaction. What was read from those tables is still true while their versions are the same.
 *
 * Read with one prepared statement, and shared for the rest of the event loop's turn (dropped by
 * `setImmediate`, which runs before the server polls its sockets again): every SQLite read is a transaction
 * with WAL-index locks (system calls), and under load each signed-in request would pay for it. Every
 * request handled in that turn had reached the server before the turn began, so answering it from versions
 * read during the turn is answering it as of a moment after it arrived. A write by this process is seen at
 * once: the share holds only while this connection's `total_changes()` (no lock, no file access) is the
 * same, and the triggers' own update counts in it. ADR 0029 (lists), ADR 0035 (the session check).
 */
import type { Db } from "./client";

/** The lists with an ETag (ADR 0029). */
export const LIST_TABLES = [
  "extensions",
  "trunks",
  "inbound_routes",
  "outbound_routes",
  "ptt_groups",
  "ring_groups",
  "queues",
  "ivrs",
  "announcements",
  "time_groups",
  "time_conditions",
  "ai_assistants",
  "ai_routing_rules",
  "call_transcripts",
  "ai_messages",
] as const;

/** What the session and two-factor checks read on every signed-in request (ADR 0035). */
export const AUTH_TABLES = ["sessions", "users", "user_totp", "console_settings"] as const;

export const VERSIONED_TABLES = [...LIST_TABLES, ...AUTH_TABLES] as const;
export type VersionedTable = (typeof VERSIONED_TABLES)[number];

export class TableVersions {
  private statement: ReturnType<Db["$client"]["prepare"]> | null = null;
  private changesStatement: ReturnType<Db["$client"]["prepare"]> | null = null;
  private shared: ReadonlyMap<string, number> | null = null;
  private sharedChanges = -1;
  private dropScheduled = false;

  constructor(private readonly db: Db) {}

  /** Every table's version now (shared for this turn of the event loop while this connection writes nothing). */
  read(): ReadonlyMap<string, number> {
    this.changesStatement ??= this.db.$client.prepare("SELECT total_changes() AS n");
    const changes = (this.changesStatement.get() as { n: number }).n;
    if (this.shared && changes === this.sharedChanges) return this.shared;
    this.statement ??= this.db.$client.prepare("SELECT name, version FROM table_versions");
    const rows = this.statement.all() as { name: string; version: number }[];
    const versions = new Map(rows.map((r) => [r.name, r.version]));
    this.shared = versions;
    this.sharedChanges = changes;
    if (!this.dropScheduled) {
      this.dropScheduled = true;
      setImmediate(() => {
        this.shared = null;
        this.dropScheduled = false;
      });
    }
    return versions;
  }

  /**
   * One string for the versions of `tables` (equal strings: none of them was written in between), or null
   * when one has no version (a database without the row: never cache then).
   */
  stamp(tables: readonly VersionedTable[]): string | null {
    const versions = this.read();
    let out = "";
    for (const table of tables) {
      const version = versions.get(table);
      if (version === undefined) return null;
      out += `${version},`;
    }
    return out;
  }
}

const byDb = new WeakMap<Db, TableVersions>();

/** The versions reader of this database (one per connection, so one prepared statement). */
export function tableVersions(db: Db): TableVersions {
  let reader = byDb.get(db);
  if (!reader) {
    reader = new TableVersions(db);
    byDb.set(db, reader);
  }
  return reader;
}
