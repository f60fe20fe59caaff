/**
 * Is this file a pbx-console database this binary can run on? Used by `pbx-console restore` before
 * anything is replaced (docs/decisions/0019). Each refusal is an `Invalid` with a one-line reason.
 */
import { Database } from "bun:sqlite";
import { closeSync, openSync, readSync } from "node:fs";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { openDatabase } from "../../db/client";
import { embeddedMigrations } from "../../db/migrate";
import * as schema from "../../db/schema";
import { Invalid } from "../core/errors";

const HEADER = "SQLite format 3\0";

/** Every table of this binary's schema (src/db/schema.ts). */
export function expectedTables(): string[] {
  return Object.values(schema)
    .filter((value) => is(value, SQLiteTable))
    .map((table) => getTableName(table as SQLiteTable))
    .sort();
}

function readHeader(file: string): string {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(100);
    const n = readSync(fd, buf, 0, 100, 0);
    return n === 100 ? buf.subarray(0, 16).toString("latin1") : "";
  } finally {
    closeSync(fd);
  }
}

export interface DatabaseSummary {
  /** Migrations recorded in the file, and how many the start-up will add (an older backup). */
  migrations: number;
  upgraded: number;
  /** Row counts of a few tables, for the report. */
  users: number;
  extensions: number;
}

/**
 * Checks `file` in place: the SQLite header, `PRAGMA integrity_check`, the `__drizzle_migrations`
 * table, every recorded migration one this binary knows (none newer), then applies the missing
 * migrations of an older backup (as the start-up would) and checks that every table of the schema is
 * there. Call it on a private copy: the file is upgraded. Throws `Invalid` with the reason.
 */
export function inspectDatabaseFile(file: string): DatabaseSummary {
  if (readHeader(file) !== HEADER) throw new Invalid("not an SQLite database (the SQLite file header is missing)");
  const known = embeddedMigrations();
  const knownHashes = new Set(known.map((m) => m.hash));
  const latest = Math.max(...known.map((m) => m.folderMillis));
  let recorded: { hash: string; created_at: number }[];
  let raw: Database | null = null;
  try {
    raw = new Database(file, { readwrite: true, create: false, strict: true });
    const check = raw.query("PRAGMA integrity_check").values() as string[][];
    if (check[0]?.[0] !== "ok") throw new Invalid(`the database is corrupt (integrity check: ${check[0]?.[0] ?? "?"})`);
    const table = raw.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
    if (!table) throw new Invalid("not a pbx-console database (it has no __drizzle_migrations table)");
    recorded = raw.query("SELECT hash, created_at FROM __drizzle_migrations").all() as typeof recorded;
  } catch (err) {
    if (err instanceof Invalid) throw err;
    throw new Invalid(`the database is corrupt or unreadable (${(err as Error).message})`);
  } finally {
    raw?.close();
  }
  if (recorded.length === 0) throw new Invalid("not a pbx-console database (no migration is recorded)");
  const unknown = recorded.filter((m) => !knownHashes.has(m.hash));
  if (unknown.some((m) => Number(m.created_at) > latest)) {
    throw new Invalid(
      `the backup was made by a newer pbx-console (its schema has migrations this binary does not know): upgrade pbx-console first`,
    );
  }
  if (unknown.length > 0) {
    throw new Invalid("not a pbx-console database (its migration history does not match this pbx-console)");
  }
  let summary: DatabaseSummary;
  try {
    let upgraded = 0;
    const db = openDatabase(file, (n) => {
      upgraded = n;
    });
    try {
      const present = new Set(
        (db.$client.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
          (r) => r.name,
        ),
      );
      const missing = expectedTables().filter((name) => !present.has(name));
      if (missing.length) throw new Invalid(`not a pbx-console database (tables missing: ${missing.join(", ")})`);
      const count = (name: string) => (db.$client.query(`SELECT count(*) AS n FROM ${name}`).get() as { n: number }).n;
      summary = { migrations: recorded.length, upgraded, users: count("users"), extensions: count("extensions") };
    } finally {
      db.$client.close();
    }
  } catch (err) {
    if (err instanceof Invalid) throw err;
    throw new Invalid(`the database cannot be brought up to this version (${(err as Error).message})`);
  }
  return summary;
}
