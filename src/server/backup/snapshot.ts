/**
 * Console backups (docs/decisions/0019): a consistent snapshot of the SQLite database taken while the
 * console keeps serving, with every secret still sealed (the data key, DATA_DIR/secret.key, is never in
 * a backup). Used by `GET /api/backup` (a download) and by the daily schedule into DATA_DIR/backups.
 */
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
} from "node:fs";
import { basename, join } from "node:path";
import { recordAudit, SYSTEM_ACTOR } from "../accounts/audit";
import type { Deps } from "../core/deps";
import { Unavailable } from "../core/errors";
import { afterConsoleBackup } from "../offsite/hooks";

/** Where the daily backups go, under DATA_DIR (0700, files 0600). */
export const BACKUP_FOLDER = "backups";
/** A day: the schedule's period, and when its first backup is taken after start. */
export const BACKUP_INTERVAL_MS = 24 * 60 * 60 * 1000;

const NAME = /^pbx-console-\d{8}T\d{6}Z\.db$/;

/** `20260124T061148Z`: a UTC timestamp that sorts as it reads and is safe in a file name. */
export function utcStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");
}

/** `pbx-console-<UTC timestamp>.db`: the name of a download and of a scheduled backup. */
export function backupFileName(ms: number): string {
  return `pbx-console-${utcStamp(ms)}.db`;
}

/**
 * Writes a consistent snapshot of the open database to `target` (which must not exist) with
 * `VACUUM INTO`: it reads inside one read transaction, so under WAL it sees exactly the
 * transactions committed when it started and none of a writer's later or unfinished work, while
 * other connections go on reading and writing. The result is a single compact file without -wal.
 */
export function vacuumInto(deps: Pick<Deps, "db">, target: string): void {
  try {
    deps.db.$client.run("VACUUM INTO ?", [target]);
    chmodSync(target, 0o600);
  } catch (err) {
    rmSync(target, { force: true });
    throw new Unavailable(`The backup could not be written: ${(err as Error).message}`);
  }
}

export interface BackupDownload {
  filename: string;
  /** The snapshot's bytes; the temp file is already gone (read through its open descriptor). */
  stream: ReadableStream<Uint8Array>;
}

/**
 * Takes a snapshot for a download: `VACUUM INTO` a temp file under DATA_DIR, open it, delete its
 * name at once (nothing is left behind whatever happens to the download), then stream it from the
 * open descriptor, closed at the end or when the client goes away.
 */
export function backupForDownload(deps: Pick<Deps, "db" | "config" | "now">): BackupDownload {
  const temp = join(deps.config.dataDir, `.backup-${crypto.randomUUID()}.tmp`);
  vacuumInto(deps, temp);
  let fd: number;
  try {
    fd = openSync(temp, "r");
  } finally {
    unlinkSync(temp);
  }
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    closeSync(fd);
  };
  const chunk = 64 * 1024;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      try {
        const buf = new Uint8Array(chunk);
        const n = readSync(fd, buf, 0, chunk, null);
        if (n === 0) {
          close();
          controller.close();
        } else controller.enqueue(n === chunk ? buf : buf.subarray(0, n));
      } catch (err) {
        close();
        controller.error(err);
      }
    },
    cancel: close,
  });
  return { filename: backupFileName(deps.now()), stream };
}

export interface ScheduledBackup {
  /** The backup written. */
  file: string;
  /** Older backups deleted to keep the newest `backupKeep`. */
  removed: string[];
}

/**
 * One scheduled backup: a snapshot into DATA_DIR/backups (0700) as `pbx-console-<UTC>.db` (0600),
 * written under a temp name and renamed, so a half-written file is never taken for a backup; then
 * only the newest `config.backupKeep` backups are kept. Files not named like a backup are left alone.
 */
export function runScheduledBackup(deps: Pick<Deps, "db" | "config" | "now">): ScheduledBackup {
  const keep = deps.config.backupKeep;
  if (keep < 1) throw new Unavailable("Scheduled backups are off (BACKUP_KEEP=0)");
  const folder = join(deps.config.dataDir, BACKUP_FOLDER);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const file = join(folder, backupFileName(deps.now()));
  const temp = join(folder, `.backup-${crypto.randomUUID()}.tmp`);
  vacuumInto(deps, temp);
  renameSync(temp, file);
  const backups = readdirSync(folder)
    .filter((name) => NAME.test(name))
    .sort();
  const removed = backups.slice(0, Math.max(0, backups.length - keep)).map((name) => join(folder, name));
  for (const old of removed) rmSync(old, { force: true });
  return { file, removed };
}

type ScheduleDeps = Pick<Deps, "db" | "config" | "now"> & Partial<Pick<Deps, "events">>;

/**
 * One tick of the daily schedule: the backup, logged, and recorded in the audit trail as `system`
 * (a failure too, with its message; the next day's is tried).
 */
export function scheduledBackupTick(deps: ScheduleDeps): void {
  try {
    const { file, removed } = runScheduledBackup(deps);
    afterConsoleBackup(deps.db, file);
    const detail = `${basename(file)} written${removed.length ? `, ${removed.length} older removed` : ""}`;
    recordAudit(deps, { actor: SYSTEM_ACTOR, action: "backup.scheduled", outcome: "ok", detail });
    if (deps.config.logRequests) console.log(`backup ${detail}`);
  } catch (err) {
    console.error(`scheduled backup failed: ${(err as Error).message}`);
    recordAudit(deps, {
      actor: SYSTEM_ACTOR,
      action: "backup.scheduled",
      outcome: "failed",
      detail: (err as Error).message,
    });
  }
}

/**
 * Starts the daily schedule (nothing when BACKUP_KEEP=0): the first backup a day after start, then
 * every day. Returns the function that stops it.
 */
export function startBackupSchedule(deps: ScheduleDeps): () => void {
  if (deps.config.backupKeep < 1) return () => {};
  const timer = setInterval(() => scheduledBackupTick(deps), BACKUP_INTERVAL_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}
