/**
 * The updater (docs/decisions/0065-self-update.md): installs a release over the binary this process runs.
 * `pbx-console update` fetches and downloads it itself; `pbx-console update --apply` (pbx-console-update.service,
 * started when the console asks) takes the release the console staged in DATA_DIR/update and trusts none of it:
 * the manifest's signature is checked again with this binary's key, the version again against this binary's,
 * and the binary's hash on the copy made beside the target, where the console's user cannot reach it.
 * Then: the new binary must print its version, the database is backed up, the binary swapped (the old kept as
 * `.previous`), the console restarted, and unless it answers /healthz with the new version within the window,
 * the old binary goes back (with the database from before, when the new one migrated it) and is restarted.
 */
import { chmodSync, readFileSync, rmSync } from "node:fs";
import type { UpdateProgress, UpdateResult } from "../../shared/update";
import { ServiceError } from "../clients/http";
import { fetchManifest } from "../clients/releases";
import type { Config } from "../config";
import { backupBeforeUpdate, databaseIsNewer } from "./database";
import { downloadRelease, verifyFile } from "./download";
import { HEALTH_WINDOW_MS, healthUrl, waitForHealth } from "./health";
import {
  MAX_MANIFEST_BYTES,
  MAX_SIGNATURE_BYTES,
  type PlatformRelease,
  type ReleaseManifest,
  readSignedManifest,
  releaseFor,
  releaseKeys,
  requireNewer,
  UpdateError,
  type UpdateFailure,
} from "./manifest";
import type { Restarter } from "./restart";
import {
  clearStaged,
  readJson,
  takeApplyLock,
  type UpdateRequest,
  updatePaths,
  writeJson,
  writeProgress,
  writeResult,
} from "./state";
import { binaryPaths, checkRuns, placeCandidate, requireWritable, rollBack, swapIn } from "./swap";
import { TEST_HEALTH_WINDOW, testOverride } from "./test-hooks";

export interface UpdaterContext {
  config: Config;
  /** This binary's version: the one being replaced. */
  version: string;
  dbFile: string;
  /** The binary to replace (the one this process runs). */
  target: string;
  restart: Restarter;
  /** How long the restarted console has to answer /healthz (`healthWindowMs()`). */
  healthWindowMs: number;
  log: (line: string) => void;
  now: () => number;
}

/** The health window: 30 s, shorter only through the test override (./test-hooks.ts). */
export function healthWindowMs(): number {
  const test = Number(testOverride(TEST_HEALTH_WINDOW));
  return Number.isSafeInteger(test) && test > 0 ? test : HEALTH_WINDOW_MS;
}

/** Records a step in DATA_DIR/update/status.json (the console shows it) and in the log. */
function step(ctx: UpdaterContext, phase: UpdateProgress["phase"], to: string, message: string): void {
  ctx.log(message);
  writeProgress(ctx.config.dataDir, { phase, version: to, percent: null, message, at: ctx.now() });
}

function finish(ctx: UpdaterContext, result: Omit<UpdateResult, "at">): UpdateResult {
  const done = { ...result, at: ctx.now() };
  writeResult(ctx.config.dataDir, done);
  ctx.log(done.message);
  return done;
}

/** A refusal before anything was changed, recorded as the outcome. */
export function refused(ctx: UpdaterContext, to: string, err: unknown): UpdateResult & { reason: UpdateFailure } {
  const reason = err instanceof UpdateError ? err.reason : err instanceof ServiceError ? "download" : "install";
  const message = err instanceof Error ? err.message : String(err);
  return { ...finish(ctx, { outcome: "failed", from: ctx.version, to, message: `Not updated: ${message}` }), reason };
}

/** Backs up, swaps, restarts, waits for health, and rolls back when it does not come. */
async function install(ctx: UpdaterContext, manifest: ReleaseManifest, candidate: string): Promise<UpdateResult> {
  const to = manifest.version;
  const from = ctx.version;
  await checkRuns(candidate, to);
  ctx.restart.check();
  step(ctx, "backing-up", to, "Backing up the database before the update");
  const backup = backupBeforeUpdate(ctx.config.dataDir, ctx.dbFile, to, ctx.now());
  if (backup) ctx.log(`Database backed up to ${backup}`);

  step(
    ctx,
    "swapping",
    to,
    `Installing ${to} as ${ctx.target} (the running ${from} is kept as ${ctx.target}.previous)`,
  );
  swapIn(candidate, ctx.target);
  const url = healthUrl(ctx.config);
  const window = ctx.healthWindowMs;
  let problem: string;
  try {
    step(ctx, "restarting", to, `Restarting the console (${ctx.restart.mode})`);
    await ctx.restart.restart();
    step(ctx, "checking-health", to, `Waiting up to ${window / 1000} s for ${url} to answer with ${to}`);
    const health = await waitForHealth(url, to, window);
    if (health.ok) {
      return finish(ctx, { outcome: "updated", from, to, message: `Updated from ${from} to ${to}` });
    }
    problem = `${to} did not answer /healthz within ${window / 1000} s (${health.last})`;
  } catch (err) {
    problem = (err as Error).message;
  }

  step(ctx, "rolling-back", to, `${problem}: rolling back to ${from}`);
  rollBack(ctx.target);
  if (backup && databaseIsNewer(ctx.config.dataDir, ctx.dbFile)) {
    writeJson(updatePaths(ctx.config.dataDir).restoreDb, { backup, from, to }, ctx.config.dataDir);
    ctx.log(`${to} migrated the database: ${from} puts ${backup} back when it starts`);
  }
  try {
    await ctx.restart.restart();
    const back = await waitForHealth(url, from, window);
    if (back.ok) {
      return finish(ctx, { outcome: "rolled-back", from, to, message: `Rolled back to ${from}: ${problem}` });
    }
    return finish(ctx, {
      outcome: "failed",
      from,
      to,
      message: `Rolled back to ${from}, but it does not answer either (${back.last}); first: ${problem}`,
    });
  } catch (err) {
    return finish(ctx, {
      outcome: "failed",
      from,
      to,
      message: `Rolled back to ${from}, but restarting it failed: ${(err as Error).message}; first: ${problem}`,
    });
  }
}

/** Reads and verifies the manifest at UPDATE_URL. */
export async function latestManifest(config: Pick<Config, "updateUrl" | "env">): Promise<ReleaseManifest> {
  const got = await fetchManifest(config.updateUrl, { manifest: MAX_MANIFEST_BYTES, signature: MAX_SIGNATURE_BYTES });
  return readSignedManifest(got.bytes, got.signature, got.url, releaseKeys(config.env));
}

/**
 * `pbx-console update`: the latest release from UPDATE_URL, installed here. Up to date → null. A refusal
 * (bad signature, bad hash, not newer, …) throws `UpdateError` with nothing changed.
 */
export async function updateFromServer(
  ctx: UpdaterContext,
  onProgress?: (received: number, total: number) => void,
): Promise<{ manifest: ReleaseManifest; result: UpdateResult } | null> {
  requireWritable(ctx.target);
  const manifest = await latestManifest(ctx.config);
  if (manifest.version === ctx.version) return null;
  requireNewer(ctx.version, manifest.version);
  const release: PlatformRelease = releaseFor(manifest);
  const unlock = takeApplyLock(ctx.config.dataDir);
  const { candidate } = binaryPaths(ctx.target);
  try {
    rmSync(candidate, { force: true });
    step(ctx, "downloading", manifest.version, `Downloading ${manifest.version} (${release.size} bytes)`);
    await downloadRelease(release, candidate, { onProgress });
    chmodSync(candidate, 0o755);
    return { manifest, result: await install(ctx, manifest, candidate) };
  } catch (err) {
    // Refused before the swap (a bad hash, a binary that does not run, the backup): recorded, then reported.
    refused(ctx, manifest.version, err);
    throw err;
  } finally {
    rmSync(candidate, { force: true });
    unlock();
  }
}

/**
 * `pbx-console update --apply`: installs the release the console staged. Nothing staged → null (the path unit
 * may fire once more after the request is gone).
 */
export async function applyStaged(ctx: UpdaterContext): Promise<UpdateResult | null> {
  const paths = updatePaths(ctx.config.dataDir);
  const request = readJson<UpdateRequest>(paths.request);
  if (!request) return null;
  let unlock: () => void;
  try {
    unlock = takeApplyLock(ctx.config.dataDir);
  } catch (err) {
    // Another updater has it; this request is that one's.
    ctx.log((err as Error).message);
    return null;
  }
  const { candidate } = binaryPaths(ctx.target);
  const to = typeof request.version === "string" ? request.version : "?";
  try {
    // From here the request is this run's: it goes whatever happens, so the path unit does not start it again.
    rmSync(paths.request, { force: true });
    let manifest: ReleaseManifest;
    try {
      requireWritable(ctx.target);
      manifest = readSignedManifest(
        readFileSync(paths.manifest),
        readFileSync(paths.signature, "utf8"),
        ctx.config.updateUrl,
        releaseKeys(ctx.config.env),
      );
      if (manifest.version !== to) {
        throw new UpdateError("manifest", `The staged manifest is for ${manifest.version}, the request for ${to}`);
      }
      requireNewer(ctx.version, manifest.version);
      const release = releaseFor(manifest);
      ctx.log(`Installing ${to}, staged by ${request.by}`);
      placeCandidate(paths.binary, ctx.target);
      await verifyFile(candidate, release);
    } catch (err) {
      return refused(ctx, to, err);
    }
    try {
      return await install(ctx, manifest, candidate);
    } catch (err) {
      return refused(ctx, to, err);
    }
  } finally {
    rmSync(candidate, { force: true });
    clearStaged(ctx.config.dataDir);
    unlock();
  }
}
