// Console backups (docs/decisions/0019): the download over HTTP under concurrent writes, the daily
// schedule's retention, the configuration. The restore CLI is tested on the binary (test/smoke/backup.test.ts).
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BACKUP_FOLDER,
  runScheduledBackup,
  scheduledBackupTick,
  startBackupSchedule,
} from "../../src/server/backup/snapshot";
import { ConfigError, loadConfig } from "../../src/server/config";
import { signedInServer } from "../helpers/server";

const s = signedInServer({ clean: ["extensions"] });

const ext = (extension: string, extra: Record<string, unknown> = {}) =>
  s.call("POST", "/api/extensions", { extension, name: `User ${extension}`, voicemail: false, ...extra });

/** Downloads a backup into a temp file; returns the response and the opened database. */
async function download(cookie = s.cookie) {
  const res = await fetch(`${s.base}/api/backup`, { headers: { cookie } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const dir = mkdtempSync(join(tmpdir(), "pbx-backup-"));
  const file = join(dir, "backup.db");
  writeFileSync(file, bytes);
  return { res, bytes, file, dir };
}

function openBackup(file: string) {
  const db = new Database(file, { readonly: true });
  expect(db.query("PRAGMA integrity_check").values()).toEqual([["ok"]]);
  return db;
}

describe("GET /api/backup", () => {
  test("a signed-in user downloads an SQLite file with the data, secrets still sealed, never cached", async () => {
    expect((await ext("1001", { secret: "plain-secret-0001" })).status).toBe(201);
    const { res, bytes, file, dir } = await download();
    try {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="pbx-console-\d{8}T\d{6}Z\.db"$/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("content-type")).toBe("application/vnd.sqlite3");
      expect(new TextDecoder("latin1").decode(bytes.subarray(0, 16))).toBe("SQLite format 3\0");
      expect(Buffer.from(bytes).includes("plain-secret-0001")).toBe(false);
      const db = openBackup(file);
      const row = db.query("SELECT extension, secret FROM extensions").get() as { extension: string; secret: string };
      expect(row.extension).toBe("1001");
      expect(row.secret.startsWith("v1:")).toBe(true);
      expect((db.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBeGreaterThan(0);
      db.close();
      // No temp file is left in DATA_DIR.
      expect(readdirSync(s.dir).filter((f) => f.includes(".backup-"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("401 without a session, and nothing is written", async () => {
    const before = readdirSync(s.dir).sort();
    const res = await fetch(`${s.base}/api/backup`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe("Sign in required");
    expect(readdirSync(s.dir).sort()).toEqual(before);
  });

  test("taken while another loop writes: each backup opens and has every row committed before it was asked for", async () => {
    const committed: string[] = [];
    let writing = true;
    let writerEnded = false;
    const writer = (async () => {
      try {
        for (let n = 2000; writing && n < 2400; n++) {
          const res = await ext(String(n));
          expect(res.status).toBe(201);
          committed.push(String(n));
        }
      } finally {
        writerEnded = true;
      }
    })();
    const checks: Promise<void>[] = [];
    for (let i = 0; i < 8; i++) {
      // Each backup is asked for once the writer has committed one more row: backups and writes interleave
      // however fast the machine is.
      const seen = committed.length;
      while (committed.length === seen && !writerEnded) await Bun.sleep(1);
      expect(writerEnded).toBe(false);
      const before = [...committed];
      checks.push(
        download().then(({ res, file, dir }) => {
          try {
            expect(res.status).toBe(200);
            const db = openBackup(file);
            const rows = db.query("SELECT extension, name FROM extensions").all() as {
              extension: string;
              name: string;
            }[];
            db.close();
            const inBackup = new Set(rows.map((r) => r.extension));
            for (const n of before) expect(inBackup.has(n)).toBe(true);
            // Whole rows only: each is one the writer created.
            for (const r of rows) expect(r.name).toBe(`User ${r.extension}`);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }),
      );
    }
    await Promise.all(checks);
    writing = false;
    await writer;
    expect(committed.length).toBeGreaterThanOrEqual(8);
    const { file, dir } = await download();
    const db = openBackup(file);
    expect((db.query("SELECT count(*) AS n FROM extensions").get() as { n: number }).n).toBe(committed.length);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a write transaction open on another connection is not in the backup; what it commits is in the next", async () => {
    const other = new Database(s.dbFile);
    other.exec("PRAGMA busy_timeout = 5000;");
    other.exec("BEGIN IMMEDIATE");
    other.run(
      "INSERT INTO extensions (extension, name, voicemail, status) VALUES ('3001', 'Uncommitted', 0, 'available')",
    );
    const during = await download();
    other.exec("COMMIT");
    const after = await download();
    other.close();
    try {
      expect(during.res.status).toBe(200);
      const a = openBackup(during.file);
      expect(a.query("SELECT 1 FROM extensions WHERE extension = '3001'").get()).toBeNull();
      a.close();
      const b = openBackup(after.file);
      expect(b.query("SELECT name FROM extensions WHERE extension = '3001'").get()).toEqual({ name: "Uncommitted" });
      b.close();
    } finally {
      rmSync(during.dir, { recursive: true, force: true });
      rmSync(after.dir, { recursive: true, force: true });
    }
  });
});

describe("the daily backup", () => {
  const DAY = 24 * 60 * 60 * 1000;
  const deps = (dataDir: string, backupKeep: number, at: () => number) => ({
    db: s.db,
    config: { ...loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }, false), backupKeep },
    now: at,
  });

  test("writes DATA_DIR/backups (0700) files (0600) and keeps the newest BACKUP_KEEP", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pbx-sched-"));
    try {
      let clock = Date.UTC(2026, 0, 1, 3, 0, 0);
      const d = deps(dataDir, 3, () => clock);
      const folder = join(dataDir, BACKUP_FOLDER);
      // Not a backup: never pruned.
      await ext("1500");
      const written: string[] = [];
      for (let day = 0; day < 5; day++) {
        const { file, removed } = runScheduledBackup(d);
        written.push(file);
        expect(removed.length).toBe(day < 3 ? 0 : 1);
        if (day === 0) writeFileSync(join(folder, "notes.txt"), "mine");
        clock += DAY;
      }
      expect(statSync(folder).mode & 0o777).toBe(0o700);
      expect(readdirSync(folder).sort()).toEqual([
        "notes.txt",
        "pbx-console-20260103T030000Z.db",
        "pbx-console-20260104T030000Z.db",
        "pbx-console-20260105T030000Z.db",
      ]);
      for (const file of written.slice(2)) {
        expect(statSync(file).mode & 0o777).toBe(0o600);
        const db = openBackup(file);
        expect(db.query("SELECT name FROM extensions WHERE extension = '1500'").get()).toEqual({ name: "User 1500" });
        db.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("each scheduled backup is in the audit trail as `system`, a failed one with its reason", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pbx-sched-"));
    try {
      const rows = () =>
        s.db.$client
          .query("SELECT actor, outcome, detail FROM audit_log WHERE action = 'backup.scheduled' ORDER BY id")
          .all() as { actor: string; outcome: string; detail: string }[];
      const before = rows().length;
      scheduledBackupTick(deps(dataDir, 2, () => Date.UTC(2026, 0, 2, 3, 0, 0)));
      // A file where the backups folder should be: the backup cannot be written.
      const blocked = mkdtempSync(join(tmpdir(), "pbx-sched-"));
      writeFileSync(join(blocked, BACKUP_FOLDER), "not a folder");
      scheduledBackupTick(deps(blocked, 2, () => Date.UTC(2026, 0, 3, 3, 0, 0)));
      rmSync(blocked, { recursive: true, force: true });
      // Rows wait in order while an earlier test's other connection held the lock: give them a moment.
      for (let i = 0; i < 40 && rows().length < before + 2; i++) await Bun.sleep(50);
      const added = rows().slice(before);
      expect(added.map((r) => [r.actor, r.outcome])).toEqual([
        ["system", "ok"],
        ["system", "failed"],
      ]);
      expect(added[0]?.detail).toBe("pbx-console-20260102T030000Z.db written");
      expect(added[1]?.detail).toMatch(/EEXIST|ENOTDIR|not a directory|exists/i);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("BACKUP_KEEP=0 turns the schedule off; the timer is cleared on stop", () => {
    const off = deps("/nonexistent", 0, Date.now);
    expect(() => runScheduledBackup(off)).toThrow("BACKUP_KEEP=0");
    const stop = startBackupSchedule(off);
    stop();
    const dataDir = mkdtempSync(join(tmpdir(), "pbx-sched-"));
    const stopOn = startBackupSchedule(deps(dataDir, 2, Date.now));
    stopOn();
    // The first backup is a day after start: nothing yet.
    expect(readdirSync(dataDir)).toEqual([]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("BACKUP_KEEP: default 7, 0 is off, anything but a whole number 0-1000 stops start-up", () => {
    expect(loadConfig({}, false).backupKeep).toBe(7);
    expect(loadConfig({ BACKUP_KEEP: "0" }, false).backupKeep).toBe(0);
    expect(loadConfig({ BACKUP_KEEP: "30" }, false).backupKeep).toBe(30);
    for (const bad of ["-1", "seven", "1.5", "1001"]) {
      expect(() => loadConfig({ BACKUP_KEEP: bad }, false)).toThrow(ConfigError);
      expect(() => loadConfig({ BACKUP_KEEP: bad }, false)).toThrow("BACKUP_KEEP: must be a whole number");
    }
  });
});
