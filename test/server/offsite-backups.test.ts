// Off-site backups (ADR 0064) against real servers: s3rver (S3 REST API) and the machine's OpenSSH sshd (SFTP).
// Each copy is checked at the target: not the plaintext, decrypts with the key shown once to the very bytes sent.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, spyOn, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configBackups } from "../../src/db/schema";
import { scheduledBackupTick } from "../../src/server/backup/snapshot";
import { restoreCommand } from "../../src/server/cli/restore";
import { decryptStream, encryptStream, parseKeyText } from "../../src/server/offsite/envelope";
import { afterPbxBackup } from "../../src/server/offsite/hooks";
import { offsiteQueue } from "../../src/server/offsite/queue";
import { uploadCopy } from "../../src/server/offsite/uploads";
import type { BackupTarget, BackupUpload, CreatedOffsiteKey } from "../../src/shared/offsite-backups";
import { freePort, S3_ACCESS_KEY_ID, S3_SECRET, startS3Server, startSshd } from "../helpers/offsite-servers";
import { signedInServer } from "../helpers/server";

setDefaultTimeout(60_000);

const SQLITE = "SQLite format 3\0";
let s3: Awaited<ReturnType<typeof startS3Server>>;
let sshd: Awaited<ReturnType<typeof startSshd>>;
const s = signedInServer();

beforeAll(async () => {
  [s3, sshd] = await Promise.all([startS3Server(), startSshd()]);
});
afterAll(async () => {
  await Promise.all([s3?.stop(), sshd?.stop()]);
});

const idle = () => offsiteQueue(s.db).idle();
const text = (b: Uint8Array) => Buffer.from(b).toString("latin1");

async function* once(b: Uint8Array) {
  yield b;
}
async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}
/** Decrypts a copy with only the key text the administrator was shown. */
const decrypt = (copy: Uint8Array, keyTextShown: string) => {
  const key = parseKeyText(keyTextShown);
  return collect(decryptStream(once(copy), (id) => (id === key.id ? key.bytes : null)));
};

const s3Body = (over: Record<string, unknown> = {}) => ({
  kind: "s3",
  name: `bucket-${Math.random().toString(36).slice(2, 8)}`,
  endpoint: s3.endpoint,
  bucket: s3.bucket,
  prefix: `t-${Math.random().toString(36).slice(2, 8)}`,
  accessKeyId: S3_ACCESS_KEY_ID,
  secretAccessKey: S3_SECRET,
  keep: 5,
  ...over,
});
const sftpBody = (over: Record<string, unknown> = {}) => ({
  kind: "sftp",
  name: `sftp-${Math.random().toString(36).slice(2, 8)}`,
  host: sshd.host,
  port: sshd.port,
  username: sshd.username,
  directory: join(sshd.uploads, Math.random().toString(36).slice(2, 8)),
  auth: "key",
  privateKey: sshd.privateKey,
  keep: 5,
  ...over,
});

async function addTarget(body: Record<string, unknown>): Promise<BackupTarget> {
  const res = await s.call("POST", "/api/backups/targets", body);
  expect(res.status).toBe(201);
  return res.json;
}
const target = async (id: number): Promise<BackupTarget> =>
  ((await s.call("GET", "/api/backups/targets")).json as BackupTarget[]).find((t) => t.id === id) as BackupTarget;
const uploads = async (targetId: number): Promise<BackupUpload[]> =>
  (await s.call("GET", `/api/backups/uploads?targetId=${targetId}`)).json;
async function uploadNow(id: number): Promise<BackupUpload> {
  const res = await s.call("POST", `/api/backups/targets/${id}/upload`, {});
  expect(res.status).toBe(202);
  await idle();
  return (await uploads(id))[0] as BackupUpload;
}
async function drill(id: number, body: Record<string, unknown> = {}) {
  const res = await s.call("POST", `/api/backups/targets/${id}/drill`, body);
  expect(res.status).toBe(202);
  await idle();
  return (await target(id)).lastDrill;
}

let key: CreatedOffsiteKey;

describe("the off-site key", () => {
  test("uploads need a key; it is shown once, never read back; rotating needs rotate: true", async () => {
    const t = await addTarget(s3Body());
    const refused = await s.call("POST", `/api/backups/targets/${t.id}/upload`, {});
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toContain("No off-site key");
    expect((await s.call("GET", "/api/backups/key")).json).toEqual({ keyId: null, createdAt: null, previous: [] });

    const made = await s.call("POST", "/api/backups/key", {});
    expect(made.status).toBe(201);
    key = made.json;
    expect(key.key).toMatch(/^pbxk1-[A-Za-z0-9_-]{43}$/);
    expect(parseKeyText(key.key).id).toBe(key.keyId);
    const view = await s.call("GET", "/api/backups/key");
    expect(view.json.keyId).toBe(key.keyId);
    expect(view.text).not.toContain(key.key.slice(6));

    const again = await s.call("POST", "/api/backups/key", {});
    expect(again.status).toBe(409);
    expect((await s.call("GET", "/api/backups/key")).json.keyId).toBe(key.keyId);
    // The key is stored sealed (its bytes in no form the database shows) and is in no audit record.
    const stored = JSON.stringify(s.db.$client.query("SELECT value FROM console_settings").all());
    expect(stored).not.toContain(key.key.slice(6));
    expect(stored).not.toContain(Buffer.from(parseKeyText(key.key).bytes).toString("base64"));
    expect(JSON.stringify(s.db.$client.query("SELECT * FROM audit_log").all())).not.toContain(key.key.slice(6));
    await s.call("DELETE", `/api/backups/targets/${t.id}`);
  });
});

describe("S3 (s3rver)", () => {
  test("the daily backup goes encrypted; the copy decrypts with the shown key to the very file", async () => {
    const t = await addTarget(s3Body({ includePbx: false }));
    scheduledBackupTick(s.app);
    await idle();
    const u = (await uploads(t.id))[0] as BackupUpload;
    expect(u.state).toBe("ok");
    expect(u.keyId).toBe(key.keyId);
    const local = join(s.dir, "backups", (u.name.split("/").at(-1) as string).replace(/\.enc$/, ""));
    const copy = await s3.bytes(u.name);
    expect(copy.length).toBe(u.bytes as number);
    expect(new Bun.CryptoHasher("sha256").update(copy).digest("hex")).toBe(u.sha256 as string);
    expect(text(copy)).not.toContain(SQLITE);
    expect(text(copy.subarray(0, 8))).toBe("PBXCOFFS");
    const plain = await decrypt(copy, key.key);
    expect(plain.equals(readFileSync(local))).toBe(true);
    expect((await target(t.id)).lastSuccessAt).toBe(u.finishedAt as string);
  });

  test("retention deletes the oldest copies beyond keep, only the console's own", async () => {
    const t = await addTarget(s3Body({ keep: 2 }));
    const prefix = t.kind === "s3" ? t.settings.prefix : "";
    await s3.put(`${prefix}not-ours.txt`, new TextEncoder().encode("someone else's file"));
    const sent: BackupUpload[] = [];
    for (let i = 0; i < 3; i++) sent.push(await uploadNow(t.id));
    expect(sent.map((u) => u.state)).toEqual(["ok", "ok", "ok"]);
    expect(new Set(sent.map((u) => u.name)).size).toBe(3);
    const rows = await uploads(t.id);
    expect(rows.find((r) => r.id === sent[0]?.id)?.state).toBe("deleted");
    expect(await s3.keys(prefix)).toEqual(
      [`${prefix}not-ours.txt`, sent[1]?.name as string, sent[2]?.name as string].sort(),
    );
  });

  test("a wrong credential and an unreachable endpoint fail with a clear message, recorded as failed", async () => {
    const wrong = await addTarget(s3Body({ accessKeyId: "NOT-A-KEY", secretAccessKey: "wrong-secret-9d8f7e" }));
    const tested = await s.call("POST", `/api/backups/targets/${wrong.id}/test`, {});
    expect(tested.status).toBe(200);
    expect(tested.json.ok).toBe(false);
    expect(tested.json.message).toContain("rejected the credentials");
    const failed = await uploadNow(wrong.id);
    expect(failed.state).toBe("failed");
    expect(failed.error).toContain("rejected the credentials");

    const closed = await freePort();
    const down = await addTarget(s3Body({ endpoint: `http://127.0.0.1:${closed}` }));
    const u = await uploadNow(down.id);
    expect(u.state).toBe("failed");
    expect(u.error).toContain("connection refused");
    expect((await target(down.id)).lastUpload?.state).toBe("failed");

    // The secret is sealed at rest, and in no answer, row or audit record.
    const secrets = s.db.$client.query("SELECT secret FROM backup_targets").all() as { secret: string }[];
    expect(secrets.every((r) => r.secret.startsWith("v1:"))).toBe(true);
    const all = [
      (await s.call("GET", "/api/backups/targets")).text,
      (await s.call("GET", "/api/backups/uploads")).text,
      tested.text,
      JSON.stringify(s.db.$client.query("SELECT * FROM audit_log").all()),
      JSON.stringify(s.db.$client.query("SELECT * FROM backup_uploads").all()),
    ].join("\n");
    expect(all).not.toContain("wrong-secret-9d8f7e");
  });

  test("the drill passes on a good copy and fails on one altered at the target (hash, then AES-GCM tag)", async () => {
    const t = await addTarget(s3Body());
    const u = await uploadNow(t.id);
    const passed = await drill(t.id);
    expect(passed?.ok).toBe(true);
    expect(passed?.message).toContain("a pbx-console database this version can run");
    expect(passed?.lastPassedAt).toBe(passed?.at as string);
    expect(existsSync(join(s.dir, "pbx-console.db"))).toBe(true);

    const copy = await s3.bytes(u.name);
    const altered = Uint8Array.from(copy);
    const i = 48 + Math.floor((copy.length - 48) / 2);
    altered[i] = (altered[i] as number) ^ 1;
    await s3.put(u.name, altered);
    const byHash = await drill(t.id);
    expect(byHash?.ok).toBe(false);
    expect(byHash?.message).toContain("is not the one sent");
    expect(byHash?.lastPassedAt).toBe(passed?.at as string);
    // With the altered copy's own hash recorded, the chunk's tag still refuses it.
    const sha = new Bun.CryptoHasher("sha256").update(altered).digest("hex");
    s.db.$client.run("UPDATE backup_uploads SET sha256 = ? WHERE id = ?", [sha, u.id]);
    const byTag = await drill(t.id);
    expect(byTag?.ok).toBe(false);
    expect(byTag?.message).toContain("failed its check (AES-GCM tag)");
    // No temp file of a drill is left behind.
    expect(Array.from(new Bun.Glob(".drill-*").scanSync({ cwd: s.dir, dot: true }))).toEqual([]);
  });

  test("a deployment's PBX backup goes as one JSON document where PBX backups are included", async () => {
    const withPbx = await addTarget(s3Body({ includePbx: true }));
    const without = await addTarget(s3Body({ includePbx: false }));
    const row = s.db
      .insert(configBackups)
      .values({
        createdBy: "admin",
        target: "extensions",
        objects: ["extension 1001"],
        rows: { version: 1, objects: [], tables: [] },
      })
      .returning()
      .get();
    afterPbxBackup(s.db, row.id);
    await idle();
    const [u] = await uploads(withPbx.id);
    expect(u?.source).toBe("pbx");
    expect(u?.state).toBe("ok");
    expect(u?.name).toMatch(new RegExp(`pbx-backup-${row.id}-\\d{8}T\\d{6}Z\\.json\\.enc$`));
    expect(await uploads(without.id)).toEqual([]);
    const doc = JSON.parse((await decrypt(await s3.bytes(u?.name as string), key.key)).toString("utf8"));
    expect(doc).toMatchObject({ format: "pbx-console PBX backup", version: 1, id: row.id, target: "extensions" });
    expect((await drill(withPbx.id))?.message).toContain("a PBX backup of 1 object(s)");
  });
});

describe("SFTP (OpenSSH)", () => {
  test("pins the host key on first contact, uploads encrypted, keeps the newest; a changed host key is refused", async () => {
    const t = await addTarget(sftpBody({ keep: 1 }));
    expect(t.kind === "sftp" && t.settings.hostKeyFingerprint).toBeNull();
    const tested = await s.call("POST", `/api/backups/targets/${t.id}/test`, {});
    expect(tested.json).toMatchObject({ ok: true, hostKeyFingerprint: sshd.hostKeyFingerprint });
    const pinned = await target(t.id);
    expect(pinned.kind === "sftp" && pinned.settings.hostKeyFingerprint).toBe(sshd.hostKeyFingerprint);

    const first = await uploadNow(t.id);
    expect(first.state).toBe("ok");
    const file = readFileSync(first.name);
    expect(text(file)).not.toContain(SQLITE);
    expect(text(await decrypt(file, key.key)).startsWith(SQLITE)).toBe(true);
    const second = await uploadNow(t.id);
    expect(second.state).toBe("ok");
    expect(existsSync(first.name)).toBe(false);
    expect(existsSync(second.name)).toBe(true);
    expect((await drill(t.id))?.ok).toBe(true);

    await sshd.newHostKey();
    const refused = await s.call("POST", `/api/backups/targets/${t.id}/test`, {});
    expect(refused.json.ok).toBe(false);
    expect(refused.json.message).toContain("host key");
    expect(refused.json.message).toContain("changed");
    const failed = await uploadNow(t.id);
    expect(failed.state).toBe("failed");
    expect(failed.error).toContain("changed");
    // Forgetting the pin (a reinstalled server) pins the new key at the next contact.
    const {
      id,
      kind,
      createdAt,
      updatedAt,
      hasSecret,
      where,
      lastSuccessAt,
      lastUpload,
      lastDrill,
      busy,
      settings,
      ...rest
    } = pinned;
    const put = await s.call("PUT", `/api/backups/targets/${t.id}`, {
      kind,
      ...rest,
      ...settings,
      forgetHostKey: true,
    });
    expect(put.status).toBe(200);
    expect((await s.call("POST", `/api/backups/targets/${t.id}/test`, {})).json.hostKeyFingerprint).toBe(
      sshd.hostKeyFingerprint,
    );
  });

  test("a wrong password is refused with a clear message and a failed row, the password in no answer", async () => {
    const t = await addTarget(sftpBody({ auth: "password", privateKey: undefined, password: "not-the-password-5c1" }));
    const u = await uploadNow(t.id);
    expect(u.state).toBe("failed");
    expect(u.error).toContain(`rejected the credentials for user ${sshd.username}`);
    const texts = [(await s.call("GET", "/api/backups/targets")).text, JSON.stringify(u)].join("\n");
    expect(texts).not.toContain("not-the-password-5c1");
  });
});

describe("a large copy", () => {
  test("goes in parts (S3 multipart, SFTP requests in flight) and comes back byte for byte", async () => {
    const file = join(s.dir, "large.db");
    const size = 20 * 1024 * 1024 + 12345;
    writeFileSync(file, crypto.getRandomValues(new Uint8Array(size)));
    const bucket = await addTarget(s3Body());
    const server = await addTarget(sftpBody());
    for (const t of [bucket, server]) {
      const u = await uploadCopy(s.app, t.id, { source: "console", file }, "test");
      expect(u?.state, u?.error ?? "").toBe("ok");
      const copy = t.kind === "s3" ? await s3.bytes(u?.name as string) : readFileSync(u?.name as string);
      expect((await decrypt(copy, key.key)).equals(readFileSync(file))).toBe(true);
    }
    rmSync(file);
  });
});

describe("bad input", () => {
  test("4xx with field messages, nothing stored", async () => {
    const refuse = async (body: unknown, field: string, status = 400) => {
      const err = await s.refused("backup_targets", () => s.call("POST", "/api/backups/targets", body), status);
      expect(Object.keys(err.fields ?? {})).toContain(field);
    };
    await refuse({ ...s3Body(), kind: "ftp" }, "kind");
    await refuse(s3Body({ endpoint: "ftp://example.com" }), "endpoint");
    await refuse(s3Body({ endpoint: "https://user:pw@example.com" }), "endpoint");
    await refuse(s3Body({ secretAccessKey: "" }), "secretAccessKey");
    await refuse(s3Body({ keep: 0 }), "keep");
    await refuse(s3Body({ prefix: "../up" }), "prefix");
    await refuse(sftpBody({ hostKeyFingerprint: "MD5:aa" }), "hostKeyFingerprint");
    await refuse(
      sftpBody({ privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----" }),
      "privateKey",
    );
    await refuse(sftpBody({ port: 70000 }), "port");
    const t = await addTarget(s3Body({ name: "taken" }));
    await refuse(s3Body({ name: "taken" }), "name", 409);
    // Pointing the stored secret elsewhere needs it typed again.
    const moved = await s.call("PUT", `/api/backups/targets/${t.id}`, {
      ...s3Body({ name: "taken" }),
      endpoint: "https://s3.example.com",
      secretAccessKey: undefined,
    });
    expect(moved.status).toBe(400);
    expect(moved.json.error.fields.secretAccessKey).toContain("again");
    const kind = await s.call("PUT", `/api/backups/targets/${t.id}`, sftpBody());
    expect(kind.status).toBe(400);
    expect((await s.call("POST", "/api/backups/targets/999999/drill", {})).status).toBe(404);
    expect((await s.call("POST", `/api/backups/targets/${t.id}/drill`, { uploadId: "x" })).status).toBe(400);
    expect((await s.call("GET", "/api/backups/uploads?limit=0")).status).toBe(400);
  });
});

describe("restore from an off-site copy", () => {
  test("pbx-console restore takes the encrypted copy with the kept key file; a wrong key is refused", async () => {
    const t = await addTarget(s3Body());
    const u = await uploadNow(t.id);
    const dir = mkdtempSync(join(tmpdir(), "pbx-restore-"));
    // The command's report goes to the terminal; here it is kept out of the test's output.
    const quiet = [
      spyOn(console, "log").mockImplementation(() => {}),
      spyOn(console, "error").mockImplementation(() => {}),
    ];
    try {
      const copy = join(dir, "copy.db.enc");
      writeFileSync(copy, await s3.bytes(u.name));
      const keyFile = join(dir, "key.txt");
      writeFileSync(keyFile, `# kept\n${key.key}\n`);
      const wrongKey = join(dir, "wrong.txt");
      writeFileSync(wrongKey, `pbxk1-${Buffer.alloc(32, 7).toString("base64url")}\n`);
      const dataDir = join(dir, "data");
      mkdirSync(dataDir);
      const target = () => ({ dataDir, dbFile: join(dataDir, "pbx-console.db") });
      expect(await restoreCommand(target, [copy, "--yes"])).toBe(2);
      expect(await restoreCommand(target, [copy, "--key-file", wrongKey, "--yes"])).toBe(2);
      expect(existsSync(join(dataDir, "pbx-console.db"))).toBe(false);
      expect(await restoreCommand(target, [copy, "--key-file", keyFile, "--yes"])).toBe(0);
      expect(text(readFileSync(join(dataDir, "pbx-console.db")).subarray(0, 16))).toBe(SQLITE);
      expect(quiet[1]?.mock.calls.flat().join("\n")).toContain("--key-file");
    } finally {
      for (const spy of quiet) spy.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Debian's Python, with the `cryptography` package the ADR's script uses (scripts/ensure-system-deps.sh). */
const PYTHON = "/usr/bin/python3";

describe("the envelope", () => {
  test("the ADR's description decrypts a copy without the console (its Python script)", async () => {
    const adr = readFileSync(join(import.meta.dir, "../../docs/decisions/0064-off-site-backups.md"), "utf8");
    const script = /```python\n([\s\S]*?)```/.exec(adr)?.[1]?.replace(/^ {2}/gm, "") as string;
    const dir = mkdtempSync(join(tmpdir(), "pbx-py-"));
    try {
      const plain = crypto.getRandomValues(new Uint8Array(3 * 1024 * 1024 + 5));
      const k = parseKeyText(key.key);
      writeFileSync(join(dir, "copy"), await collect(encryptStream(once(plain), k, "console")));
      writeFileSync(join(dir, "key.txt"), `# a comment\n${key.key}\n`);
      writeFileSync(join(dir, "decrypt.py"), script);
      const run = Bun.spawnSync([
        PYTHON,
        join(dir, "decrypt.py"),
        join(dir, "key.txt"),
        join(dir, "copy"),
        join(dir, "out"),
      ]);
      expect(run.exitCode, run.stderr.toString()).toBe(0);
      expect(readFileSync(join(dir, "out")).equals(Buffer.from(plain))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("streams in chunks: any length round-trips; a cut-short copy is refused", async () => {
    const k = parseKeyText(key.key);
    const keyFor = (id: string) => (id === k.id ? k.bytes : null);
    for (const n of [0, 1, 1023, 1024, 1025, 4096 + 7]) {
      const plain = crypto.getRandomValues(new Uint8Array(n));
      const sealed = await collect(encryptStream(once(plain), k, "console", 1024));
      expect((await collect(decryptStream(once(sealed), keyFor))).equals(Buffer.from(plain))).toBe(true);
    }
    const sealed = await collect(encryptStream(once(new Uint8Array(3000)), k, "console", 1024));
    // Cut at a chunk boundary: the last chunk left was not sealed as the last.
    await expect(collect(decryptStream(once(sealed.subarray(0, 48 + 2 * 1040)), keyFor))).rejects.toThrow(
      "AES-GCM tag",
    );
    await expect(collect(decryptStream(once(sealed.subarray(0, 20)), keyFor))).rejects.toThrow("header");
  });
});
