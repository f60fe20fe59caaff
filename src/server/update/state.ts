/**
 * What an update leaves in DATA_DIR/update (docs/decisions/0065-self-update.md), shared by the console (which
 * stages a release and asks for it), the updater (`pbx-console update --apply`, which installs it) and the
 * console's next start:
 * - `manifest.json`, `manifest.json.sig`, `pbx-console`: the staged release, exactly as downloaded;
 * - `request.json`: the console's request; its appearance starts the updater (systemd's pbx-console-update.path);
 * - `status.json`: the step the updater is at, then the outcome (read by GET /api/update after the restart);
 * - `restore-db.json`: after a roll-back from a binary that migrated the database, the backup the old binary
 *   puts back before it opens the database;
 * - `apply.lock`: one updater at a time.
 * The updater runs as root: every file it writes here is given to DATA_DIR's owner, the service user.
 */
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { UpdateProgress, UpdateResult } from "../../shared/update";
import { UpdateError } from "./manifest";

export const UPDATE_FOLDER = "update";

export function updatePaths(dataDir: string) {
  const dir = join(dataDir, UPDATE_FOLDER);
  return {
    dir,
    manifest: join(dir, "manifest.json"),
    signature: join(dir, "manifest.json.sig"),
    binary: join(dir, "pbx-console"),
    request: join(dir, "request.json"),
    status: join(dir, "status.json"),
    restoreDb: join(dir, "restore-db.json"),
    lock: join(dir, "apply.lock"),
  };
}

/** Gives `path` to the owner of `dataDir` when this process is root (the updater), so the console can read it. */
export function giveToOwner(path: string, dataDir: string): void {
  if (process.getuid?.() !== 0) return;
  try {
    const owner = statSync(dataDir);
    chownSync(path, owner.uid, owner.gid);
  } catch {
    // Not ours to fix: the console then cannot read it and says the outcome is unknown.
  }
}

/** DATA_DIR/update, 0700, the service user's. */
export function ensureUpdateDir(dataDir: string): string {
  const { dir } = updatePaths(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  giveToOwner(dir, dataDir);
  return dir;
}

/** Writes JSON under a temp name and renames it into place (0600), given to DATA_DIR's owner. */
export function writeJson(path: string, value: unknown, dataDir: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  giveToOwner(temp, dataDir);
  renameSync(temp, path);
}

export function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    return null;
  }
}

export interface StatusFile {
  progress: UpdateProgress | null;
  /** The last outcome. */
  result: UpdateResult | null;
  /** The last outcomes, oldest first (the console audits the ones it has not yet). */
  history: UpdateResult[];
}

const HISTORY_KEPT = 20;

export function readStatus(dataDir: string): StatusFile {
  const status = readJson<Partial<StatusFile>>(updatePaths(dataDir).status);
  return {
    progress: status?.progress ?? null,
    result: status?.result ?? null,
    history: Array.isArray(status?.history) ? status.history : [],
  };
}

/** Records the step in progress (null: none), keeping the outcomes. */
export function writeProgress(dataDir: string, progress: UpdateProgress | null): void {
  ensureUpdateDir(dataDir);
  writeJson(updatePaths(dataDir).status, { ...readStatus(dataDir), progress }, dataDir);
}

/** Records an outcome: the last one, and in the history. */
export function writeResult(dataDir: string, result: UpdateResult): void {
  ensureUpdateDir(dataDir);
  const history = [...readStatus(dataDir).history, result].slice(-HISTORY_KEPT);
  writeJson(updatePaths(dataDir).status, { progress: null, result, history }, dataDir);
}

export interface UpdateRequest {
  version: string;
  /** Who asked (a console user's name), for the log. */
  by: string;
  at: number;
}

export interface RestoreDbMarker {
  /** The pre-update backup, under DATA_DIR/backups. */
  backup: string;
  from: string;
  to: string;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes DATA_DIR/update/apply.lock (its content is the holder's pid; a lock whose process is gone is taken
 * over). Returns the release function; refuses with `busy` while another updater holds it.
 */
export function takeApplyLock(dataDir: string): () => void {
  ensureUpdateDir(dataDir);
  const { lock } = updatePaths(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      giveToOwner(lock, dataDir);
      return () => rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number(readFileSync(lock, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && pidAlive(holder)) {
        throw new UpdateError("busy", `Another update is being installed (pid ${holder})`);
      }
      rmSync(lock, { force: true });
    }
  }
  throw new UpdateError("busy", "Another update is being installed");
}

/** Removes the staged release and the request (after the updater is done with them, either way). */
export function clearStaged(dataDir: string): void {
  const p = updatePaths(dataDir);
  for (const file of [p.request, p.binary, p.manifest, p.signature]) rmSync(file, { force: true });
}

export const requestPending = (dataDir: string) => existsSync(updatePaths(dataDir).request);
