// Self-update (docs/decisions/0065-self-update.md): the signed manifest (good, bad signature, tampered, wrong
// key, downgrade and same version refused), the download (bad hash, too big, ends early), the swap and its
// roll-back, the database around an update, the updater's install and roll-back against a stub console, and
// GET/POST /api/update against the fake release server. The built binary's update is test/smoke/update.test.ts.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { migrationJournal } from "../../src/db/migrations.gen";
import { shownUrl } from "../../src/server/clients/releases";
import { loadConfig } from "../../src/server/config";
import { applyStaged, type UpdaterContext } from "../../src/server/update/apply";
import { backupBeforeUpdate, databaseIsNewer, restoreAfterRollback } from "../../src/server/update/database";
import { downloadRelease } from "../../src/server/update/download";
import { healthUrl } from "../../src/server/update/health";
import {
  isNewer,
  MAX_BINARY_BYTES,
  parseManifest,
  readSignedManifest,
  releaseFor,
  releaseKeys,
  requireNewer,
  UpdateError,
} from "../../src/server/update/manifest";
import { ed25519PublicKey } from "../../src/server/update/release-key";
import type { Restarter } from "../../src/server/update/restart";
import { ensureUpdateDir, readStatus, updatePaths, writeJson } from "../../src/server/update/state";
import { binaryPaths, rollBack, swapIn } from "../../src/server/update/swap";
import type { WsEvent } from "../../src/shared/ws-events";
import { rawPublicKey, startFakeReleases } from "../fakes/releases";
import { signedInServer } from "../helpers/server";

const releases = await startFakeReleases();
const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "pbx-update-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  releases.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const keys = [ed25519PublicKey(releases.publicKey) as NonNullable<ReturnType<typeof ed25519PublicKey>>];
const binary = new TextEncoder().encode("#!/bin/sh\necho 0.2.0\n");
const BASE = "https://releases.example/pbx-console/manifest.json";

/** The refusal `fn` throws: its reason and message. */
function refusal(fn: () => unknown): { reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof UpdateError) return { reason: err.reason, message: err.message };
    throw err;
  }
  throw new Error("not refused");
}

describe("the signed manifest", () => {
  test("a manifest signed by the release key is read: version, notes, this platform's binary (relative URL resolved)", () => {
    const { bytes, signature } = releases.publish({ version: "0.2.0", binary, notes: "Faster start" });
    const manifest = readSignedManifest(bytes, signature, BASE, keys);
    expect(manifest.version).toBe("0.2.0");
    expect(manifest.notes).toBe("Faster start");
    const release = releaseFor(manifest);
    expect(release.url).toBe(`https://releases.example/pbx-console/pbx-console-${process.platform}-${process.arch}`);
    expect(release.size).toBe(binary.length);
    expect(release.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(refusal(() => releaseFor(manifest, "plan9-mips")).reason).toBe("platform");
  });

  test("a bad signature, a tampered manifest and another key's signature are refused before the manifest is read", () => {
    const { bytes, signature } = releases.publish({ version: "0.2.0", binary });
    const flipped = Buffer.from(signature, "base64");
    flipped[0] = (flipped[0] as number) ^ 1;
    const bad = refusal(() => readSignedManifest(bytes, flipped.toString("base64"), BASE, keys));
    expect(bad).toEqual({
      reason: "signature",
      message: "Bad signature: the manifest is not signed by the pbx-console release key",
    });
    expect(refusal(() => readSignedManifest(bytes, "not base64!", BASE, keys)).message).toContain(
      "not a base64 Ed25519 signature",
    );
    const tampered = new TextEncoder().encode(new TextDecoder().decode(bytes).replace("0.2.0", "0.2.1"));
    expect(refusal(() => readSignedManifest(tampered, signature, BASE, keys)).reason).toBe("signature");
    const other = generateKeyPairSync("ed25519");
    const wrong = releases.publish({ version: "0.2.0", binary, signWith: other.privateKey });
    expect(refusal(() => readSignedManifest(wrong.bytes, wrong.signature, BASE, keys)).reason).toBe("signature");
    // The same signature checks out against its own key: the refusal is the key's, not the format's.
    const otherKey = ed25519PublicKey(rawPublicKey(other.publicKey));
    expect(readSignedManifest(wrong.bytes, wrong.signature, BASE, [otherKey as never]).version).toBe("0.2.0");
  });

  test("the built-in key is always one; a test key is added from the environment only where that grants nothing", () => {
    expect(releaseKeys({}).length).toBe(1);
    // From source, the override is honoured (whoever runs it controls the code).
    expect(releaseKeys({ PBX_CONSOLE_TEST_RELEASE_KEY: releases.publicKey }).length).toBe(2);
    expect(refusal(() => releaseKeys({ PBX_CONSOLE_TEST_RELEASE_KEY: "c2hvcnQ=" })).reason).toBe("signature");
  });

  test("a signed manifest that is not a valid one is refused with what is wrong", () => {
    const sign = (value: unknown) => {
      const bytes = new TextEncoder().encode(JSON.stringify(value));
      return () => readSignedManifest(bytes, releases.sign(bytes), BASE, keys);
    };
    const good = {
      product: "pbx-console",
      version: "1.2.3",
      released: "2026-12-01T10:00:00Z",
      notes: "",
      platforms: { "linux-x64": { url: "https://x.example/b", sha256: "a".repeat(64), size: 10 } },
    };
    expect(refusal(sign({ ...good, product: "other" })).message).toContain('"product" must be "pbx-console"');
    expect(refusal(sign({ ...good, version: "v1" })).message).toContain('"version" must be a version');
    expect(refusal(sign({ ...good, platforms: {} })).message).toContain('"platforms" must name at least one');
    const entry = (e: object) => ({ ...good, platforms: { "linux-x64": { ...good.platforms["linux-x64"], ...e } } });
    expect(refusal(sign(entry({ sha256: "abc" }))).message).toContain("sha256 must be 64 hex digits");
    expect(refusal(sign(entry({ url: "file:///etc/passwd" }))).message).toContain("must be an http(s) URL");
    expect(refusal(sign(entry({ size: MAX_BINARY_BYTES + 1 })))).toEqual({
      reason: "size",
      message: `The release's binary is too big: ${MAX_BINARY_BYTES + 1} bytes (at most ${MAX_BINARY_BYTES})`,
    });
    expect(refusal(() => parseManifest(new TextEncoder().encode("[1]"), BASE)).message).toContain("not a JSON object");
  });

  test("only a newer version is installed: the same version and a downgrade are refused (semantic versioning's order)", () => {
    expect(isNewer("0.9.0", "0.10.0")).toBe(true);
    expect(isNewer("1.0.0-rc.1", "1.0.0")).toBe(true);
    expect(isNewer("1.0.0", "1.0.0-rc.2")).toBe(false);
    expect(refusal(() => requireNewer("0.2.0", "0.2.0")).message).toBe(
      "Refused: 0.2.0 is the same version (this is 0.2.0); updates only go forward",
    );
    expect(refusal(() => requireNewer("0.10.0", "0.9.9")).message).toBe(
      "Refused: 0.9.9 is a downgrade (this is 0.10.0); updates only go forward",
    );
    expect(() => requireNewer("0.2.0", "0.2.1")).not.toThrow();
  });
});

describe("the download", () => {
  const releaseOf = (opts: Parameters<typeof releases.publish>[0]) =>
    releaseFor(parseManifest(releases.publish(opts).bytes, releases.manifestUrl));

  test("follows the release server's redirect, writes the binary 0600 and reports progress up to its size", async () => {
    const target = join(tmp(), "bin");
    const seen: number[] = [];
    const release = releaseOf({ version: "0.2.0", binary });
    await downloadRelease(release, target, { onProgress: (received) => seen.push(received) });
    expect(readFileSync(target)).toEqual(Buffer.from(binary));
    expect(seen.at(-1)).toBe(binary.length);
  });

  test("a bad hash: refused, naming both hashes, and nothing is left", async () => {
    const target = join(tmp(), "bin");
    const release = releaseOf({
      version: "0.2.0",
      binary,
      serveInstead: new TextEncoder().encode("#!/bin/sh\necho 0.2.X\n"),
    });
    const err = await downloadRelease(release, target).catch((e) => e);
    expect(err).toBeInstanceOf(UpdateError);
    expect(err.reason).toBe("hash");
    expect(err.message).toMatch(
      /^Bad hash: the binary's SHA-256 is [0-9a-f]{64}, the signed manifest says [0-9a-f]{64}$/,
    );
    expect(existsSync(target)).toBe(false);
  });

  test("bigger than the manifest says (by its Content-Length or by what arrives), or ending early: refused", async () => {
    const dir = tmp();
    const big = releaseOf({ version: "0.2.0", binary, serveInstead: new Uint8Array(binary.length + 1) });
    const tooBig = await downloadRelease(big, join(dir, "a")).catch((e) => e);
    expect([tooBig.reason, tooBig.message]).toEqual([
      "size",
      `The binary at ${shownUrl(big.url.replace("latest/download", "download/v0.2.0"))} is ${binary.length + 1} bytes, the signed manifest says ${binary.length}: refused`,
    ]);
    // A server that sends no length: the transfer is stopped at the announced size.
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            pull(c) {
              c.enqueue(new Uint8Array(64 * 1024));
            },
          }),
        ),
    });
    try {
      const endless = { url: `http://127.0.0.1:${server.port}/b`, sha256: "0".repeat(64), size: 100_000 };
      const stopped = await downloadRelease(endless, join(dir, "b")).catch((e) => e);
      expect([stopped.reason, stopped.message]).toEqual([
        "size",
        "The binary is bigger than the signed manifest says (more than 100000 bytes): refused",
      ]);
    } finally {
      server.stop(true);
    }
    const short = releaseOf({ version: "0.2.0", binary, size: binary.length + 5, serveInstead: binary });
    const early = await downloadRelease(short, join(dir, "c")).catch((e) => e);
    expect(early.reason).toBe("size");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a server that stops sending: the idle timeout ends it", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new Uint8Array(10));
            },
          }),
          { headers: { "content-length": "100" } },
        ),
    });
    try {
      const release = { url: `http://127.0.0.1:${server.port}/b`, sha256: "0".repeat(64), size: 100 };
      const err = await downloadRelease(release, join(tmp(), "b"), { idleTimeoutMs: 200 }).catch((e) => e);
      expect([err.reason, err.message]).toEqual(["download", "The download stalled: no data for 0.2 s"]);
    } finally {
      server.stop(true);
    }
  });
});

describe("the swap and the database around it", () => {
  test("the swap keeps the running binary as .previous; the roll-back puts it back", () => {
    const dir = tmp();
    const target = join(dir, "pbx-console");
    writeFileSync(target, "old");
    const candidate = binaryPaths(target).candidate;
    writeFileSync(candidate, "new");
    swapIn(candidate, target);
    expect(readFileSync(target, "utf8")).toBe("new");
    expect(readFileSync(`${target}.previous`, "utf8")).toBe("old");
    expect(existsSync(candidate)).toBe(false);
    rollBack(target);
    expect(readFileSync(target, "utf8")).toBe("old");
  });

  test("a snapshot before the update; a database a newer binary migrated is put back at the next start", () => {
    const dir = tmp();
    const dbFile = join(dir, "pbx-console.db");
    const db = openDatabase(dbFile);
    db.$client.run("INSERT INTO console_settings (key, value, updated_at) VALUES ('before', '1', 0)");
    const backup = backupBeforeUpdate(dir, dbFile, "0.2.0", Date.UTC(2026, 0, 2, 3, 4, 5)) as string;
    expect(backup).toBe(join(dir, "backups", "pbx-console-before-0.2.0-20260102T030405Z.db"));
    expect(databaseIsNewer(dir, dbFile)).toBe(false);
    // The new binary migrates, then writes.
    const newest = migrationJournal.entries.at(-1)?.when ?? 0;
    db.$client.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('next', ?)", [newest + 1]);
    db.$client.run("INSERT INTO console_settings (key, value, updated_at) VALUES ('after', '1', 0)");
    expect(databaseIsNewer(dir, dbFile)).toBe(true);
    db.$client.close();
    expect(restoreAfterRollback(dir, dbFile)).toBeNull();
    ensureUpdateDir(dir);
    writeJson(updatePaths(dir).restoreDb, { backup, from: "0.1.0", to: "0.2.0" }, dir);
    expect(restoreAfterRollback(dir, dbFile, Date.UTC(2026, 0, 2, 3, 5, 0))).toContain("is back");
    const restored = new Database(dbFile, { readonly: true });
    expect(restored.query("SELECT key FROM console_settings ORDER BY key").values()).toEqual([["before"]]);
    restored.close();
    expect(existsSync(`${dbFile}.after-failed-update-20260102T030500Z`)).toBe(true);
    expect(existsSync(updatePaths(dir).restoreDb)).toBe(false);
    // A marker naming a file outside DATA_DIR/backups is not followed.
    writeJson(updatePaths(dir).restoreDb, { backup: "/etc/passwd", from: "0.1.0", to: "0.2.0" }, dir);
    expect(restoreAfterRollback(dir, dbFile)).toContain("skipped");
  });

  test("pre-update snapshots keep the newest three", () => {
    const dir = tmp();
    const dbFile = join(dir, "pbx-console.db");
    openDatabase(dbFile).$client.close();
    for (let i = 0; i < 5; i++) backupBeforeUpdate(dir, dbFile, `0.${i}.0`, Date.UTC(2026, 0, 1 + i));
    expect(readdirSync(join(dir, "backups")).sort()).toEqual([
      "pbx-console-before-0.2.0-20260103T000000Z.db",
      "pbx-console-before-0.3.0-20260104T000000Z.db",
      "pbx-console-before-0.4.0-20260105T000000Z.db",
    ]);
  });
});

describe("the updater against a stub console", () => {
  /** A console stand-in: /healthz answers with the version the binary in place prints, unless it is broken. */
  async function stub(withDb = true) {
    const dir = tmp();
    const dataDir = join(dir, "data");
    mkdirSync(dataDir);
    const target = join(dir, "pbx-console");
    const script = (version: string, broken = false) => `#!/bin/sh\n${broken ? "# broken\n" : ""}echo ${version}\n`;
    writeFileSync(target, script("0.1.0"));
    chmodSync(target, 0o755);
    const dbFile = join(dataDir, "pbx-console.db");
    if (withDb) openDatabase(dbFile).$client.close();
    let answering: string | null = "0.1.0";
    let restarts = 0;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        answering === null
          ? new Response("down", { status: 503 })
          : Response.json({ status: "ok", version: answering }),
    });
    const restart: Restarter = {
      mode: "signal",
      check() {},
      async restart() {
        restarts++;
        const text = readFileSync(target, "utf8");
        answering = text.includes("broken") ? null : (text.match(/echo (\S+)/)?.[1] ?? null);
      },
    };
    const config = loadConfig(
      {
        DATA_DIR: dataDir,
        PORT: String(server.port),
        UPDATE_URL: releases.manifestUrl,
        LOG_LEVEL: "silent",
        PBX_CONSOLE_TEST_RELEASE_KEY: releases.publicKey,
      },
      false,
    );
    const lines: string[] = [];
    const ctx: UpdaterContext = {
      config,
      version: "0.1.0",
      dbFile,
      target,
      restart,
      healthWindowMs: 500,
      log: (l) => lines.push(l),
      now: Date.now,
    };
    /** Stages a release as the console does: manifest, signature, binary, request. */
    const stage = (version: string, opts: { broken?: boolean; tamper?: boolean } = {}) => {
      const bin = new TextEncoder().encode(script(version, opts.broken));
      const { bytes, signature } = releases.publish({ version, binary: bin });
      const p = updatePaths(dataDir);
      mkdirSync(p.dir, { recursive: true });
      writeFileSync(p.manifest, bytes);
      writeFileSync(p.signature, signature);
      writeFileSync(p.binary, opts.tamper ? new TextEncoder().encode(script("9.9.9")) : bin);
      writeJson(p.request, { version, by: "admin", at: Date.now() }, dataDir);
    };
    return { dir, dataDir, target, ctx, stage, lines, restarts: () => restarts, stop: () => server.stop(true) };
  }

  test("a staged release: verified again, backed up, swapped, restarted, healthy; the staged files are gone", async () => {
    const s = await stub();
    try {
      s.stage("0.2.0");
      const result = await applyStaged(s.ctx);
      expect(result).toMatchObject({
        outcome: "updated",
        from: "0.1.0",
        to: "0.2.0",
        message: "Updated from 0.1.0 to 0.2.0",
      });
      expect(readFileSync(s.target, "utf8")).toContain("echo 0.2.0");
      expect(readFileSync(`${s.target}.previous`, "utf8")).toContain("echo 0.1.0");
      expect(readdirSync(join(s.dataDir, "backups"))).toEqual([expect.stringMatching(/^pbx-console-before-0\.2\.0-/)]);
      expect(readdirSync(updatePaths(s.dataDir).dir).sort()).toEqual(["status.json"]);
      expect(readStatus(s.dataDir)).toMatchObject({ progress: null, result: { outcome: "updated" } });
      expect(await applyStaged(s.ctx)).toBeNull();
    } finally {
      s.stop();
    }
  });

  test("a new binary that never answers /healthz: rolled back within the window, the old one answering again", async () => {
    const s = await stub();
    try {
      s.stage("0.2.0", { broken: true });
      const started = Date.now();
      const result = await applyStaged(s.ctx);
      expect(result?.outcome).toBe("rolled-back");
      expect(result?.message).toBe(
        "Rolled back to 0.1.0: 0.2.0 did not answer /healthz within 0.5 s (/healthz answered 503)",
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(readFileSync(s.target, "utf8")).toContain("echo 0.1.0");
      expect(s.restarts()).toBe(2);
      // It did not migrate the database: nothing to put back.
      expect(existsSync(updatePaths(s.dataDir).restoreDb)).toBe(false);
    } finally {
      s.stop();
    }
  }, 60_000);

  test("a staged binary that does not match the signed manifest (changed after staging): refused, nothing swapped", async () => {
    const s = await stub();
    try {
      s.stage("0.2.0", { tamper: true });
      const result = await applyStaged(s.ctx);
      expect(result?.outcome).toBe("failed");
      expect(result?.message).toMatch(/^Not updated: Bad hash: /);
      expect(readFileSync(s.target, "utf8")).toContain("echo 0.1.0");
      expect(existsSync(`${s.target}.previous`)).toBe(false);
      expect(s.restarts()).toBe(0);
      expect(readdirSync(s.dir).sort()).toEqual(["data", "pbx-console"]);
    } finally {
      s.stop();
    }
  });

  test("a staged downgrade is refused by the updater whatever the console asked", async () => {
    const s = await stub(false);
    try {
      s.ctx.version = "0.3.0";
      s.stage("0.2.0");
      expect((await applyStaged(s.ctx))?.message).toBe(
        "Not updated: Refused: 0.2.0 is a downgrade (this is 0.3.0); updates only go forward",
      );
    } finally {
      s.stop();
    }
  });
});

test("the health URL: a wildcard address is asked through loopback, TLS through https", () => {
  expect(healthUrl({ host: "0.0.0.0", port: 3000, tls: null })).toBe("http://127.0.0.1:3000/healthz");
  expect(healthUrl({ host: "::", port: 443, tls: { cert: "c", key: "k" } })).toBe("https://[::1]:443/healthz");
  expect(healthUrl({ host: "192.0.2.7", port: 8443, tls: null })).toBe("http://192.0.2.7:8443/healthz");
});

describe("GET and POST /api/update", () => {
  const s = signedInServer({
    env: { UPDATE_URL: releases.manifestUrl, PBX_CONSOLE_TEST_RELEASE_KEY: releases.publicKey },
  });
  const published: WsEvent[] = [];
  const watch = () => {
    const hub = s.app.events;
    const send = hub.publish.bind(hub);
    hub.publish = (event: WsEvent) => {
      published.push(event);
      send(event);
    };
  };
  const until = async (fn: () => boolean, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!fn()) {
      if (Date.now() > end) throw new Error("timed out");
      await Bun.sleep(20);
    }
  };

  test("the latest release, cached until asked again; a bad signature is the check's error", async () => {
    releases.publish({ version: "0.3.0", binary, notes: "Notes of 0.3.0" });
    // Opening Settings never waits on the release server: the first check runs in the background.
    watch();
    const opened = await s.call("GET", "/api/update");
    expect(opened.json).toMatchObject({ latest: null, checking: true });
    await until(() => published.some((e) => e.type === "update-updated"));
    const first = await s.call("GET", "/api/update");
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      current: "test",
      manifestUrl: releases.manifestUrl,
      latest: { version: "0.3.0", notes: "Notes of 0.3.0" },
      newer: true,
      checkError: null,
      checking: false,
      progress: null,
      lastResult: null,
    });
    releases.publish({ version: "0.3.1", binary, signature: releases.sign(new TextEncoder().encode("other")) });
    expect((await s.call("GET", "/api/update")).json.latest.version).toBe("0.3.0");
    const checked = await s.call("GET", "/api/update?refresh=1");
    expect(checked.json.latest.version).toBe("0.3.0");
    expect(checked.json.checkError).toBe("Bad signature: the manifest is not signed by the pbx-console release key");
    expect((await s.call("GET", "/api/update?refresh=maybe")).status).toBe(400);
  });

  test("POST stages the release (download progress events), asks the updater; a second POST is refused", async () => {
    published.length = 0;
    releases.publish({ version: "0.4.0", binary });
    expect((await s.call("POST", "/api/update", { version: "0.3.0" })).json.error.message).toBe(
      "The latest release is now 0.4.0, not 0.3.0: check again",
    );
    expect((await s.call("POST", "/api/update", { version: "latest" })).status).toBe(400);
    const res = await s.call("POST", "/api/update", { version: "0.4.0" });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ version: "0.4.0", progress: { phase: "downloading", percent: 0 } });
    const p = updatePaths(s.dir);
    await until(() => existsSync(p.request));
    expect(readFileSync(p.binary)).toEqual(Buffer.from(binary));
    expect(JSON.parse(readFileSync(p.request, "utf8"))).toMatchObject({ version: "0.4.0", by: "admin" });
    // What the updater verifies again: the exact signed bytes.
    expect(readSignedManifest(readFileSync(p.manifest), readFileSync(p.signature, "utf8"), BASE, keys).version).toBe(
      "0.4.0",
    );
    const phases = published.filter((e) => e.type === "update-updated").map((e) => (e.data as any).progress?.phase);
    expect(phases).toEqual(["downloading", "downloading", "verifying", "staged"]);
    expect((await s.call("GET", "/api/update")).json.progress).toMatchObject({ phase: "staged", version: "0.4.0" });
    const again = await s.call("POST", "/api/update", { version: "0.4.0" });
    expect([again.status, again.json.error.message]).toEqual([409, "An update to 0.4.0 is already in progress"]);
  });

  test("the updater's steps and outcome in status.json are what GET shows", async () => {
    const p = updatePaths(s.dir);
    // The updater picks the request up and moves on.
    rmSync(p.request);
    writeJson(
      p.status,
      {
        progress: { phase: "swapping", version: "0.4.0", percent: null, message: "Installing", at: Date.now() },
        result: null,
      },
      s.dir,
    );
    await until(() => published.some((e) => (e.data as any)?.progress?.phase === "swapping"));
    const result = {
      outcome: "rolled-back",
      from: "test",
      to: "0.4.0",
      message: "Rolled back to test: …",
      at: Date.now(),
    };
    writeJson(p.status, { progress: null, result }, s.dir);
    const last = () => published.at(-1);
    await until(() => last()?.type === "update-updated" && (last()?.data as any)?.progress === null);
    expect((await s.call("GET", "/api/update")).json).toMatchObject({ progress: null, lastResult: result });
  });

  test("a download whose hash is bad ends the update with the reason; nothing is staged", async () => {
    releases.publish({ version: "0.5.0", binary, serveInstead: new TextEncoder().encode("#!/bin/sh\necho 6.6.6\n") });
    await s.call("GET", "/api/update?refresh=1");
    // Two at once: one runs, the other is refused while the first reads the manifest.
    const both = await Promise.all([0, 1].map(() => s.call("POST", "/api/update", { version: "0.5.0" })));
    expect(both.map((r) => r.status).sort()).toEqual([202, 409]);
    await until(() => readStatus(s.dir).result?.to === "0.5.0");
    expect(readStatus(s.dir).result).toMatchObject({
      outcome: "failed",
      message: expect.stringMatching(/^Not updated: Bad hash: /),
    });
    expect(readdirSync(updatePaths(s.dir).dir).sort()).toEqual(["status.json"]);
  });
});
