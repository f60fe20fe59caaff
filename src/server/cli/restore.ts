import { Database } from "bun:sqlite";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { inspectDatabaseFile } from "../backup/inspect";
import { runningConsole } from "../backup/pid-file";
import { utcStamp } from "../backup/snapshot";
import { Invalid } from "../core/errors";
import {
  decryptStream,
  looksEncrypted,
  OffsiteFormatError,
  type OffsiteKey,
  parseKeyText,
  readChunks,
} from "../offsite/envelope";
import { readFirstLine } from "./prompt";

const USAGE = "Usage: pbx-console restore FILE [--key-file KEYFILE] [--yes]";

export interface RestoreTarget {
  dataDir: string;
  /** DATA_DIR/pbx-console.db */
  dbFile: string;
}

/** Merges a WAL left by the last console into the database file, so the kept copy is whole. */
/** The restore itself, in the restored database's audit trail (the trail before it is the backup's). */
function recordRestore(dbFile: string, detail: string): void {
  const db = new Database(dbFile);
  try {
    db.prepare(
      "INSERT INTO audit_log (at, actor, action, outcome, detail) VALUES (?, 'cli', 'backup.restore', 'ok', ?)",
    ).run(Date.now(), detail);
  } catch (err) {
    console.error(`The restore was not recorded in the audit trail: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

function checkpoint(dbFile: string): void {
  try {
    const db = new Database(dbFile, { readwrite: true, create: false });
    try {
      db.exec("PRAGMA busy_timeout = 5000;");
      db.exec("PRAGMA wal_checkpoint(TRUNCATE);");
    } finally {
      db.close();
    }
  } catch {
    // Unreadable (that may be why it is being restored): its -wal/-shm are kept beside it below.
  }
}

/** Whether the file starts like an off-site copy (ADR 0064). */
function startsEncrypted(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(8);
    return readSync(fd, buf, 0, 8, 0) === 8 && looksEncrypted(buf);
  } finally {
    closeSync(fd);
  }
}

/**
 * Decrypts an off-site copy of the console's database into `staged` (0600) with the key the administrator kept;
 * answers why not (another key, a PBX backup, damaged or altered) or null.
 */
async function decryptCopy(source: string, key: OffsiteKey, staged: string): Promise<string | null> {
  const fd = openSync(staged, "wx", 0o600);
  let content = "";
  try {
    const chunks = decryptStream(
      readChunks(Bun.file(source).stream()),
      (id) => (id === key.id ? key.bytes : null),
      (h) => {
        content = h.content;
      },
    );
    for await (const c of chunks) {
      if (content !== "console") return "it is a PBX backup (JSON), not the console's database";
      writeSync(fd, c);
    }
    return null;
  } catch (err) {
    if (err instanceof OffsiteFormatError) return err.message;
    throw err;
  } finally {
    closeSync(fd);
  }
}

/**
 * `pbx-console restore FILE [--key-file KEYFILE] [--yes]` (docs/decisions/0019): replaces DATA_DIR/pbx-console.db with a
 * backup. Refuses while a console serves this DATA_DIR (its pid file names a live process) and any
 * file that is not a pbx-console database this binary can run (corrupt, another SQLite file, a newer
 * schema): exit 2 with one line, nothing changed. Asks for confirmation on a terminal unless --yes.
 * The previous database is kept as pbx-console.db.before-restore-<UTC> (0600), with its -wal/-shm
 * moved beside it, so no stale WAL is replayed onto the restored file. DATA_DIR/secret.key is not
 * touched: the backup's sealed secrets open only with the key they were sealed with. An off-site copy (ADR 0064)
 * is decrypted into the private copy with the off-site key file given by --key-file, then checked the same way.
 */
export async function restoreCommand(
  prepare: () => RestoreTarget,
  argv: string[],
  now: () => number = Date.now,
): Promise<number> {
  let positionals: string[];
  let yes: boolean | undefined;
  let keyFile: string | undefined;
  try {
    ({
      positionals,
      values: { yes, "key-file": keyFile },
    } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { yes: { type: "boolean", short: "y" }, "key-file": { type: "string" } },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (positionals.length !== 1) {
    console.error(`restore needs exactly one backup file\n${USAGE}`);
    return 2;
  }
  const source = resolve(positionals[0] as string);
  try {
    if (!statSync(source).isFile()) throw new Error("not a regular file");
  } catch (err) {
    console.error(`Not restored: cannot read ${source}: ${(err as Error).message}`);
    return 2;
  }
  let key: OffsiteKey | null = null;
  if (startsEncrypted(source)) {
    if (!keyFile) {
      console.error(
        `Not restored: ${source} is an encrypted off-site copy: give the key you kept with --key-file KEYFILE\n${USAGE}`,
      );
      return 2;
    }
    try {
      key = parseKeyText(readFileSync(resolve(keyFile), "utf8"));
    } catch (err) {
      console.error(`Not restored: ${keyFile}: ${(err as Error).message}`);
      return 2;
    }
  }
  const { dataDir, dbFile } = prepare();
  const refuseIfRunning = () => {
    const pid = runningConsole(dataDir);
    if (pid === null) return false;
    console.error(
      `Not restored: the console is running on ${dataDir} (pid ${pid}); stop it first (systemctl stop pbx-console).`,
    );
    return true;
  };
  if (refuseIfRunning()) return 1;

  // Checked and upgraded on a private copy in DATA_DIR: the backup itself is never modified, and the
  // bytes that were checked are the bytes that are put in place (by a rename on the same disk).
  const stamp = utcStamp(now());
  const staged = join(dataDir, `.restore-${stamp}-${process.pid}.db`);
  const discard = () => {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${staged}${suffix}`, { force: true });
  };
  try {
    if (key) {
      const problem = await decryptCopy(source, key, staged);
      if (problem) {
        console.error(`Not restored: ${source}: ${problem}`);
        return 2;
      }
    } else copyFileSync(source, staged);
    chmodSync(staged, 0o600);
    let summary: ReturnType<typeof inspectDatabaseFile>;
    try {
      summary = inspectDatabaseFile(staged);
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      console.error(`Not restored: ${source}: ${err.message}`);
      return 2;
    }
    const what = `${summary.users} user(s), ${summary.extensions} extension(s)`;
    if (!yes) {
      if (!process.stdin.isTTY) {
        console.error("Not restored: confirm on a terminal, or pass --yes.");
        return 2;
      }
      process.stderr.write(`Replace ${dbFile} with ${source} (${what})? Type "yes" to restore: `);
      const answer = await readFirstLine();
      if (answer?.trim().toLowerCase() !== "yes") {
        console.error("Not restored.");
        return 1;
      }
    }
    // Started while we were asking?
    if (refuseIfRunning()) return 1;
    let kept: string | null = null;
    if (existsSync(dbFile)) {
      checkpoint(dbFile);
      kept = `${dbFile}.before-restore-${stamp}`;
      renameSync(dbFile, kept);
      chmodSync(kept, 0o600);
      // Never left beside the restored file (SQLite would replay a stale WAL onto it): kept with their database.
      for (const suffix of ["-wal", "-shm", "-journal"]) {
        if (existsSync(`${dbFile}${suffix}`)) {
          renameSync(`${dbFile}${suffix}`, `${kept}${suffix}`);
          chmodSync(`${kept}${suffix}`, 0o600);
        }
      }
    }
    renameSync(staged, dbFile);
    chmodSync(dbFile, 0o600);
    recordRestore(
      dbFile,
      `${basename(source)} restored${kept ? `; the previous database is kept as ${basename(kept)}` : ""}`,
    );
    const upgraded = summary.upgraded ? `, brought up to date with ${summary.upgraded} migration(s)` : "";
    console.log(`Restored ${source} into ${dbFile} (${what}${upgraded}).`);
    console.log(kept ? `The previous database is kept as ${kept}.` : "There was no previous database.");
    console.log(
      `${join(dataDir, "secret.key")} was not changed: the backup's stored secrets open only with the key they were sealed with.`,
    );
    console.log("Start the console again (systemctl start pbx-console).");
    return 0;
  } finally {
    discard();
  }
}
