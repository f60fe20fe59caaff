/**
 * Where the console's backups tell the off-site uploads that a new backup exists (ADR 0064): the daily backup
 * (backup/snapshot.ts) and a deployment's PBX backup (pbx/backups/take.ts) call these; the running console
 * registers what they start (offsite/uploads.ts). Nothing registered (the CLI, a test without a console): nothing
 * happens. Kept apart so those modules depend on this one small file, not on the uploads.
 */
import type { Db } from "../../db/client";

export interface OffsiteHooks {
  consoleBackup(file: string): void;
  pbxBackup(backupId: number): void;
}

const hooks = new WeakMap<Db, OffsiteHooks>();

/** Registers the running console's hooks; returns the function that removes them. */
export function registerOffsiteHooks(db: Db, h: OffsiteHooks): () => void {
  hooks.set(db, h);
  return () => {
    if (hooks.get(db) === h) hooks.delete(db);
  };
}

/** A scheduled console backup was written to `file`. */
export function afterConsoleBackup(db: Db, file: string): void {
  hooks.get(db)?.consoleBackup(file);
}

/** A deployment stored the PBX backup `backupId` (config_backups). */
export function afterPbxBackup(db: Db, backupId: number): void {
  hooks.get(db)?.pbxBackup(backupId);
}
