import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { runMigrations } from "./migrate";
import * as schema from "./schema";

export type Db = ReturnType<typeof drizzle<typeof schema>> & { $client: Database };

/**
 * Opens (creating if needed) the console database at `file`, sets the pragmas
 * every connection needs and applies the embedded migrations.
 */
export function openDatabase(file: string, onMigrated?: (applied: number) => void): Db {
  const sqlite = new Database(file, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL;");
  sqlite.exec("PRAGMA foreign_keys = ON;");
  sqlite.exec("PRAGMA busy_timeout = 5000;");
  sqlite.exec("PRAGMA synchronous = NORMAL;");
  const db = drizzle(sqlite, { schema }) as Db;
  const applied = runMigrations(db);
  onMigrated?.(applied);
  return db;
}
