import { Database } from "bun:sqlite";
import { chmodSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { runMigrations } from "./migrate";
import * as schema from "./schema";

export type Db = ReturnType<typeof drizzle<typeof schema>> & { $client: Database };

/** Drops group and other permissions: DATA_DIR 0700, every file in it 0600 (only the service user reads them). */
function ownerOnly(path: string, mode: number): void {
  try {
    const st = statSync(path);
    if ((st.mode & 0o077) !== 0) chmodSync(path, mode);
  } catch {
    // Not there (yet), or not ours to change: the service's own umask (install.sh) still applies.
  }
}

/**
 * DATA_DIR (the database's folder) 0700, and the database with its -wal, -shm
 * and -journal 0600 (secret.key is made 0600 by the SecretBox). SQLite creates
 * -wal/-shm with the database file's mode, so the database is made 0600 before
 * WAL mode creates them; files from an older install are tightened here too.
 */
export function restrictDataFiles(dbFile: string): void {
  ownerOnly(dirname(dbFile), 0o700);
  for (const suffix of ["", "-wal", "-shm", "-journal"]) ownerOnly(`${dbFile}${suffix}`, 0o600);
}

/**
 * Opens (creating if needed) the console database at `file`, sets the pragmas
 * every connection needs and applies the embedded migrations. On disk, the
 * folder is 0700 and the database files 0600 (`restrictDataFiles`).
 */
export function openDatabase(file: string, onMigrated?: (applied: number) => void): Db {
  const onDisk = file !== ":memory:" && !file.startsWith("file::memory:");
  const sqlite = new Database(file, { create: true, strict: true });
  if (onDisk) restrictDataFiles(file);
  sqlite.exec("PRAGMA journal_mode = WAL;");
  sqlite.exec("PRAGMA foreign_keys = ON;");
  sqlite.exec("PRAGMA busy_timeout = 5000;");
  sqlite.exec("PRAGMA synchronous = NORMAL;");
  const db = drizzle(sqlite, { schema }) as Db;
  const applied = runMigrations(db);
  if (onDisk) restrictDataFiles(file);
  onMigrated?.(applied);
  return db;
}
