/**
 * Backup and restore on the compiled binary (docs/decisions/0019): a backup downloaded from the
 * running console, restored with `pbx-console restore FILE --yes` after more data was made, brings back
 * exactly the backed-up data; restore refuses while the console runs, and refuses corrupt, foreign and
 * newer-schema files with nothing changed. Needs `npm run build` first.
 */
import { Database } from "bun:sqlite";
import { beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copiedBinary } from "./copied-binary";

let backupFile: string;
const dbFile = () => join(box.dataDir, "pbx-console.db");
const PASSWORD = "a long enough password";

const box = copiedBinary("pbx-smoke-backup-");
beforeAll(() => {
  backupFile = join(box.dir, "download.db");
});

const env = box.env;

function run(args: string[], stdin?: string) {
  const r = Bun.spawnSync([box.bin, ...args], {
    cwd: box.dir,
    env: env(),
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

/** A serving console on a random port, signed in. */
async function start() {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([box.bin], {
    cwd: box.dir,
    env: env({ PORT: String(port), LOG_LEVEL: "silent" }),
    stdout: "pipe",
  });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {}
    await Bun.sleep(100);
  }
  const login = await fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: PASSWORD }),
  });
  expect(login.status).toBe(200);
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(base + path, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const ext = async (extension: string) =>
    expect((await call("POST", "/api/extensions", { extension, name: `User ${extension}` })).status).toBe(201);
  const extensions = async () =>
    ((await (await call("GET", "/api/extensions")).json()) as { extension: string }[]).map((e) => e.extension).sort();
  const stop = async () => {
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  };
  return { call, ext, extensions, stop, proc };
}

/** Everything in DATA_DIR with its bytes, to prove a refused restore changed nothing. */
function dataDirState() {
  return readdirSync(box.dataDir)
    .filter((f) => statSync(join(box.dataDir, f)).isFile())
    .sort()
    .map((f) => `${f}:${Bun.hash(readFileSync(join(box.dataDir, f)))}`);
}

describe("restore", () => {
  let running: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    expect(run(["create-admin", "--username", "admin"], `${PASSWORD}\n`).code).toBe(0);
    running = await start();
  });

  test("a backup downloaded from the running console; restore refuses while the console runs", async () => {
    await running.ext("1001");
    await running.ext("1002");
    const res = await running.call("GET", "/api/backup");
    expect(res.status).toBe(200);
    writeFileSync(backupFile, new Uint8Array(await res.arrayBuffer()));
    await running.ext("1003");
    expect(existsSync(join(box.dataDir, "pbx-console.pid"))).toBe(true);
    const before = dataDirState();
    const refused = run(["restore", backupFile, "--yes"]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`the console is running on ${box.dataDir} (pid ${running.proc.pid})`);
    expect(dataDirState()).toEqual(before);
    await running.stop();
    expect(existsSync(join(box.dataDir, "pbx-console.pid"))).toBe(false);
  });

  test("a stale pid file (the console was killed) does not block a restore", () => {
    writeFileSync(join(box.dataDir, "pbx-console.pid"), "999999 1\n");
    const noTerminal = run(["restore", backupFile]);
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.err).toContain("confirm on a terminal, or pass --yes");
  });

  test("corrupt, foreign, newer-schema or incomplete files: exit 2, one line, nothing changed", () => {
    const bad = (name: string, make: (file: string) => void) => {
      const file = join(box.dir, name);
      make(file);
      return file;
    };
    const cases: [string, string, RegExp][] = [
      [bad("text.db", (f) => writeFileSync(f, "not a database at all\n".repeat(20))), "text", /not an SQLite database/],
      [
        bad("truncated.db", (f) => writeFileSync(f, readFileSync(backupFile).subarray(0, 5000))),
        "truncated",
        /corrupt/,
      ],
      [
        bad("scrambled.db", (f) => {
          const bytes = readFileSync(backupFile);
          for (let i = 4096; i < bytes.length; i += 7) bytes[i] = (bytes[i] as number) ^ 0x5a;
          writeFileSync(f, bytes);
        }),
        "scrambled",
        /corrupt/,
      ],
      [
        bad("foreign.db", (f) => {
          const db = new Database(f);
          db.run("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)");
          db.close();
        }),
        "foreign",
        /not a pbx-console database \(it has no __drizzle_migrations table\)/,
      ],
      [
        bad("newer.db", (f) => {
          copyFileSync(backupFile, f);
          const db = new Database(f);
          db.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('f00d', ?)", [Date.UTC(2099, 0, 1)]);
          db.close();
        }),
        "newer",
        /made by a newer pbx-console/,
      ],
      [
        bad("incomplete.db", (f) => {
          copyFileSync(backupFile, f);
          const db = new Database(f);
          db.run("DROP TABLE ptt_groups");
          db.close();
        }),
        "incomplete",
        /tables missing: ptt_groups/,
      ],
    ];
    const before = dataDirState();
    for (const [file, label, reason] of cases) {
      const sourceBefore = Bun.hash(readFileSync(file));
      const r = run(["restore", file, "--yes"]);
      expect(r.code, label).toBe(2);
      expect(r.err, label).toMatch(reason);
      expect(r.err.trim().split("\n").length, label).toBe(1);
      expect(r.out, label).toBe("");
      expect(dataDirState(), label).toEqual(before);
      expect(Bun.hash(readFileSync(file)), label).toBe(sourceBefore);
    }
    const missing = run(["restore", join(box.dir, "nope.db"), "--yes"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("cannot read");
  });

  test("round trip: restore --yes, start: only the backed-up data; the previous database is kept", async () => {
    const r = run(["restore", backupFile, "--yes"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Restored ${backupFile} into ${dbFile()}`);
    const kept = readdirSync(box.dataDir).filter((f) => /^pbx-console\.db\.before-restore-\d{8}T\d{6}Z$/.test(f));
    expect(kept.length).toBe(1);
    expect(r.out).toContain(`The previous database is kept as ${join(box.dataDir, kept[0] as string)}`);
    expect(r.out).toContain("secret.key was not changed");
    expect(statSync(dbFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(box.dataDir, kept[0] as string)).mode & 0o777).toBe(0o600);
    expect(existsSync(`${dbFile()}-wal`)).toBe(false);
    expect(readdirSync(box.dataDir).filter((f) => f.startsWith(".restore-"))).toEqual([]);
    // The kept database still has what was made after the backup.
    const old = new Database(join(box.dataDir, kept[0] as string), { readonly: true });
    expect(old.query("SELECT extension FROM extensions ORDER BY extension").values()).toEqual([
      ["1001"],
      ["1002"],
      ["1003"],
    ]);
    old.close();

    const again = await start();
    expect(await again.extensions()).toEqual(["1001", "1002"]);
    await again.stop();
  });
});
