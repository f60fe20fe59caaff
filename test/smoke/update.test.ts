/**
 * Self-update of the built binary (docs/decisions/0065-self-update.md), against a local release server with
 * its own key (given as PBX_CONSOLE_TEST_RELEASE_KEY, honoured because the test's user may write the binary's
 * folder) and a supervisor that does what systemd does (./supervisor.ts). `update --check` names the newer
 * release; a bad signature and a bad hash exit 1 with the reason and change nothing; a new binary that never
 * comes up is rolled back within the window (shortened through the test override) with the old one serving;
 * the Update button's path (POST /api/update → staged → `update --apply`) restarts the console as the new
 * version. The new version is a copy of the built binary run by a two-line script with PBX_CONSOLE_TEST_VERSION
 * (a second build would take as long as this whole file); the failing one is a script that exits at start.
 * Needs `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json";
import { startFakeReleases } from "../fakes/releases";
import { copiedBinary } from "./copied-binary";
import { type Supervised, supervise } from "./supervisor";

const box = copiedBinary("pbx-smoke-update-");
const releases = await startFakeReleases();
const PASSWORD = "a long enough password";
const HEALTH_WINDOW_MS = 8_000;

const [major, minor, patch] = pkg.version.split(".").map(Number) as [number, number, number];
const NEXT = `${major}.${minor}.${patch + 1}`;
const BROKEN = `${major}.${minor + 1}.0`;

const port = 20000 + Math.floor(Math.random() * 20000);
const base = `http://127.0.0.1:${port}`;
const env = () =>
  box.env({
    PORT: String(port),
    LOG_LEVEL: "silent",
    UPDATE_URL: releases.manifestUrl,
    UPDATE_RESTART: "signal",
    PBX_CONSOLE_TEST_RELEASE_KEY: releases.publicKey,
    PBX_CONSOLE_TEST_HEALTH_WINDOW_MS: String(HEALTH_WINDOW_MS),
  });

/** Runs the binary; never spawnSync: the release server answers from this process. */
async function run(args: string[], stdin?: string) {
  const proc = Bun.spawn([box.bin, ...args], {
    cwd: box.dir,
    env: env(),
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out, err] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, out, err };
}

/** The binary in place, to prove a refused update changed nothing. */
const installed = () => new Bun.CryptoHasher("sha256").update(readFileSync(box.bin)).digest("hex");
let original = "";
/** What the binary's folder holds besides the binary and DATA_DIR. */
const leftovers = () => readdirSync(box.dir).filter((f) => !["pbx-console", "state", "real", "releases"].includes(f));

/** The new release: the built binary (a hard link, so it survives the swap) run with another version. */
function nextRelease(): Uint8Array {
  mkdirSync(join(box.dir, "real"), { recursive: true });
  const real = join(box.dir, "real", "pbx-console");
  if (!existsSync(real)) linkSync(box.bin, real);
  return new TextEncoder().encode(`#!/bin/sh\nPBX_CONSOLE_TEST_VERSION=${NEXT} exec "${real}" "$@"\n`);
}

/** A release that knows its version but never comes up: it exits at every start. */
const brokenRelease = () =>
  new TextEncoder().encode(
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo ${BROKEN}; exit 0; fi\necho "cannot start" >&2\nexit 1\n`,
  );

async function health(): Promise<string | null> {
  try {
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1000) });
    return res.ok ? ((await res.json()) as { version: string }).version : null;
  } catch {
    return null;
  }
}

async function until<T>(fn: () => Promise<T | null | false> | T | null | false, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(100);
  }
}

let console_: Supervised | null = null;
beforeAll(() => {
  original = installed();
});
afterAll(async () => {
  await console_?.stop();
  releases.stop();
});

describe("pbx-console update without a console running", () => {
  test("--check: the newer release and its notes, exit 0; the same version is up to date", async () => {
    releases.publish({ version: NEXT, binary: nextRelease(), notes: "Faster call history" });
    const check = await run(["update", "--check"]);
    expect(check.err).toBe("");
    expect(check.code).toBe(0);
    expect(check.out).toStartWith(`${NEXT} is available (this is ${pkg.version}; released `);
    expect(check.out).toContain("Faster call history");
    releases.publish({ version: pkg.version, binary: nextRelease() });
    const same = await run(["update", "--check"]);
    expect([same.code, same.out.trim()]).toEqual([
      0,
      `pbx-console ${pkg.version} is up to date (the latest release is ${pkg.version})`,
    ]);
  });

  test("a bad signature: exit 1 with the reason, for --check and for update; nothing changes", async () => {
    const other = generateKeyPairSync("ed25519");
    releases.publish({ version: NEXT, binary: nextRelease(), signWith: other.privateKey });
    for (const args of [["update", "--check"], ["update"]]) {
      const r = await run(args);
      expect([r.code, r.err.trim()]).toEqual([
        1,
        "Bad signature: the manifest is not signed by the pbx-console release key",
      ]);
    }
    expect(installed()).toBe(original);
    expect(leftovers()).toEqual([]);
  });

  test("a bad hash: exit 1 with the reason, nothing swapped, nothing left beside the binary", async () => {
    const good = nextRelease();
    const evil = new TextEncoder().encode(new TextDecoder().decode(good).replace("exec", "eval"));
    releases.publish({ version: NEXT, binary: good, serveInstead: evil });
    const r = await run(["update"]);
    expect(r.code).toBe(1);
    expect(r.err.trim()).toMatch(
      /^Bad hash: the binary's SHA-256 is [0-9a-f]{64}, the signed manifest says [0-9a-f]{64}$/,
    );
    expect(installed()).toBe(original);
    expect(leftovers()).toEqual([]);
  });
});

describe("under a supervisor", () => {
  let cookie = "";
  const call = (method: string, path: string, body?: unknown) =>
    fetch(base + path, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    expect((await run(["create-admin", "--username", "admin"], `${PASSWORD}\n`)).code).toBe(0);
    console_ = supervise(box.bin, env(), { dataDir: box.dataDir, cwd: box.dir });
    expect(await until(health)).toBe(pkg.version);
    const login = await call("POST", "/api/auth/login", { username: "admin", password: PASSWORD });
    expect(login.status).toBe(200);
    cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
  });

  test("a new binary that never answers /healthz is rolled back within the window: the old one in place and serving", async () => {
    releases.publish({ version: BROKEN, binary: brokenRelease() });
    const started = Date.now();
    const { code, out, err } = await run(["update"]);
    const took = Date.now() - started;
    expect(code, out + err + console_?.log.join("")).toBe(1);
    expect(out).toContain(`Installing ${BROKEN} as ${box.bin}`);
    expect(out).toContain(
      `Rolled back to ${pkg.version}: ${BROKEN} did not answer /healthz within ${HEALTH_WINDOW_MS / 1000} s`,
    );
    // Well inside the production window of 30 s: the shortened window, then the old one's start.
    expect(took).toBeLessThan(30_000);
    expect(installed()).toBe(original);
    expect(await health()).toBe(pkg.version);
    expect(readdirSync(join(box.dataDir, "backups"))).toEqual([
      expect.stringMatching(new RegExp(`^pbx-console-before-${BROKEN}-`)),
    ]);
    // The broken one did start (and exit) under the supervisor before the roll-back.
    expect(console_?.log.join("")).toContain("cannot start");
  }, 60_000);

  test("the Update button's path: staged by the console, installed by `update --apply`, restarted as the new version", async () => {
    releases.publish({ version: NEXT, binary: nextRelease(), notes: "Faster call history" });
    const status = await (await call("GET", "/api/update?refresh=1")).json();
    expect(status).toMatchObject({ current: pkg.version, latest: { version: NEXT }, newer: true });
    expect(status.lastResult).toMatchObject({ outcome: "rolled-back", to: BROKEN });
    const res = await call("POST", "/api/update", { version: NEXT });
    expect(res.status).toBe(202);
    expect(await until(async () => ((await health()) === NEXT ? NEXT : null), 40_000)).toBe(NEXT);
    // The updater exits once it saw the new version answer.
    await until(() => console_?.updates.length === 1);
    expect(console_?.updates.map((u) => u.code)).toEqual([0]);
    expect(console_?.updates[0]?.out).toContain(`Updated from ${pkg.version} to ${NEXT}`);
    expect(readFileSync(`${box.bin}.previous`)).toEqual(readFileSync(join(box.dir, "real", "pbx-console")));
    // The same session, on the new version: the outcome and its audit row.
    const after = await (await call("GET", "/api/update")).json();
    expect(after).toMatchObject({ current: NEXT, progress: null, lastResult: { outcome: "updated", to: NEXT } });
    const audit = await (await call("GET", "/api/audit?action=update.")).json();
    // Newest first: this update, its start, the roll-back and the bad hash (each outcome once).
    const line = (e: { action: string; outcome: string; detail: string }) =>
      `${e.action} ${e.outcome} ${e.detail.split(":")[0]}`;
    expect(audit.items.map(line)).toEqual([
      `update.install ok Updated from ${pkg.version} to ${NEXT}`,
      `update.start ok ${NEXT}`,
      `update.install failed Rolled back to ${pkg.version}`,
      "update.install failed Not updated",
    ]);
    expect(readdirSync(join(box.dataDir, "update"))).toEqual(["status.json"]);
  }, 60_000);
});
