/**
 * The database around an update (docs/decisions/0065-self-update.md). Migrations only go forward and the new
 * binary applies them at its first start, so the old binary (the updater) takes a snapshot before the swap.
 * When the new binary fails and is rolled back after it migrated the database, the old binary would run on a
 * schema it does not know: the updater then leaves a marker, and the old binary's next start puts the
 * snapshot back before it opens the database (the migrated file is kept beside it).
 */
import { Database } from "bun:sqlite";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { migrationJournal } from "../../db/migrations.gen";
import { BACKUP_FOLDER, utcStamp, vacuumInto } from "../backup/snapshot";
import type { Deps } from "../core/deps";
import { UpdateError } from "./manifest";
import { giveToOwner, type RestoreDbMarker, readJson, updatePaths } from "./state";

/** How many pre-update snapshots DATA_DIR/backups keeps (besides the daily ones, which are named differently). */
export const UPDATE_BACKUPS_KEPT = 3;
const NAME = /^pbx-console-before-.+-\d{8}T\d{6}Z\.db$/;

/** A read-only connection; -wal/-shm it may create are given to DATA_DIR's owner afterwards (the updater is root). */
function withReadOnly<T>(dbFile: string, dataDir: string, work: (db: Database) => T): T {
  const db = new Database(dbFile, { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000;");
    return work(db);
  } finally {
    db.close();
    for (const suffix of ["-wal", "-shm"]) if (existsSync(dbFile + suffix)) giveToOwner(dbFile + suffix, dataDir);
  }
}

/**
 * A consistent snapshot of the database into DATA_DIR/backups as `pbx-console-before-<to>-<UTC>.db` (0600),
 * taken while the console keeps serving; the oldest beyond `UPDATE_BACKUPS_KEPT` are removed. Null when there
 * is no database yet.
 */
export function backupBeforeUpdate(dataDir: string, dbFile: string, to: string, now = Date.now()): string | null {
  if (!existsSync(dbFile)) return null;
  const folder = join(dataDir, BACKUP_FOLDER);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    giveToOwner(folder, dataDir);
    const file = join(folder, `pbx-console-before-${to}-${utcStamp(now)}.db`);
    const temp = join(folder, `.update-backup-${process.pid}.tmp`);
    rmSync(temp, { force: true });
    withReadOnly(dbFile, dataDir, (db) => vacuumInto({ db: { $client: db } } as unknown as Pick<Deps, "db">, temp));
    giveToOwner(temp, dataDir);
    renameSync(temp, file);
    const kept = readdirSync(folder)
      .filter((name) => NAME.test(name))
      // By the UTC stamp at the end (`<stamp>.db`), whatever the versions in the names.
      .sort((a, b) => a.slice(-19).localeCompare(b.slice(-19)));
    for (const old of kept.slice(0, Math.max(0, kept.length - UPDATE_BACKUPS_KEPT))) rmSync(join(folder, old));
    return file;
  } catch (err) {
    throw new UpdateError("backup", `Not updated: the backup before the update failed: ${(err as Error).message}`);
  }
}

/** Whether the database records a migration newer than every one this binary carries (a newer binary's). */
export function databaseIsNewer(dataDir: string, dbFile: string): boolean {
  if (!existsSync(dbFile)) return false;
  const newest = migrationJournal.entries.at(-1)?.when ?? 0;
  try {
    return withReadOnly(dbFile, dataDir, (db) => {
      const row = db.query("SELECT max(created_at) AS last FROM __drizzle_migrations").get() as {
        last: number | null;
      } | null;
      return row?.last !== null && row?.last !== undefined && Number(row.last) > newest;
    });
  } catch {
    return false;
  }
}

/**
 * At start, before the database is opened: when a roll-back left DATA_DIR/update/restore-db.json, the
 * migrated database (with its -wal/-shm) is moved aside as `pbx-console.db.after-failed-update-<UTC>` and the
 * pre-update snapshot is copied into its place. Returns what was done, for the log; null when nothing was due.
 */
export function restoreAfterRollback(dataDir: string, dbFile: string, now = Date.now()): string | null {
  const { restoreDb } = updatePaths(dataDir);
  if (!existsSync(restoreDb)) return null;
  const marker = readJson<RestoreDbMarker>(restoreDb);
  const backups = resolve(dataDir, BACKUP_FOLDER) + sep;
  const backup = marker?.backup ? resolve(marker.backup) : "";
  if (!backup.startsWith(backups) || !existsSync(backup)) {
    rmSync(restoreDb, { force: true });
    return `the roll-back's database restore was skipped: its backup ${marker?.backup ?? "(none)"} is not in ${backups}`;
  }
  const aside = `${dbFile}.after-failed-update-${utcStamp(now)}`;
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    if (existsSync(dbFile + suffix)) renameSync(dbFile + suffix, aside + suffix);
  }
  copyFileSync(backup, dbFile);
  chmodSync(dbFile, 0o600);
  rmSync(restoreDb, { force: true });
  return `the database from before the update to ${marker?.to} is back (${backup}); the one ${marker?.to} migrated is kept as ${aside}`;
}
