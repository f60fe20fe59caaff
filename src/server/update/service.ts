/**
 * Self-update from the console (GET/POST /api/update; docs/decisions/0065-self-update.md). The console checks
 * the signed manifest (cached for hours), and on an administrator's request downloads the release into
 * DATA_DIR/update, checks its hash, and asks the updater to install it by writing `request.json`
 * (pbx-console-update.path starts `pbx-console update --apply` as root). It never replaces its own binary:
 * it may not (the binary is root's), and the updater trusts nothing it staged. It follows the updater's steps
 * in `status.json` until the restart ends this process; the next one reads the outcome from the same file.
 */
import { rmSync, writeFileSync } from "node:fs";
import type { SessionUser } from "../../shared/auth";
import type {
  LatestRelease,
  UpdateProgress,
  UpdateQuery,
  UpdateResult,
  UpdateStart,
  UpdateStarted,
  UpdateStatus,
} from "../../shared/update";
import { ServiceError } from "../clients/http";
import { fetchManifest, shownUrl } from "../clients/releases";
import type { Config } from "../config";
import type { Deps } from "../core/deps";
import { Conflict, Unavailable } from "../core/errors";
import { downloadRelease } from "./download";
import {
  isNewer,
  MAX_MANIFEST_BYTES,
  MAX_SIGNATURE_BYTES,
  type ReleaseManifest,
  readSignedManifest,
  releaseFor,
  releaseKeys,
  UpdateError,
} from "./manifest";
import { auditOutcomes } from "./startup";
import {
  clearStaged,
  ensureUpdateDir,
  readJson,
  readStatus,
  requestPending,
  type UpdateRequest,
  updatePaths,
  writeJson,
  writeResult,
} from "./state";

export type UpdateDeps = Pick<Deps, "db" | "config" | "events" | "now"> & { version: string };

/** How long a check of the manifest is reused. */
export const CHECK_TTL_MS = 6 * 60 * 60_000;
/** How long the staged release waits for the updater to pick it up. */
export const PICKUP_MS = 60_000;
/** How long the console follows the updater's steps before it stops looking (the restart ends it sooner). */
const FOLLOW_MS = 5 * 60_000;
/** A step in status.json older than this is an updater that died, not one in progress. */
const STALE_STEP_MS = 10 * 60_000;

interface Check {
  manifest: ReleaseManifest;
  bytes: Uint8Array;
  signature: string;
}

interface UpdateState {
  latest: LatestRelease | null;
  checkedAt: number | null;
  checkError: string | null;
  progress: UpdateProgress | null;
  checking: Promise<Check> | null;
}

const states = new WeakMap<Config, UpdateState>();
function stateOf(config: Config): UpdateState {
  let state = states.get(config);
  if (!state) {
    state = { latest: null, checkedAt: null, checkError: null, progress: null, checking: null };
    states.set(config, state);
  }
  return state;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Reads and verifies the manifest (one read at a time per console), remembering the answer or the failure. */
function check(deps: UpdateDeps): Promise<Check> {
  const state = stateOf(deps.config);
  state.checking ??= (async () => {
    try {
      const got = await fetchManifest(deps.config.updateUrl, {
        manifest: MAX_MANIFEST_BYTES,
        signature: MAX_SIGNATURE_BYTES,
      });
      const manifest = readSignedManifest(got.bytes, got.signature, got.url, releaseKeys(deps.config.env));
      state.latest = { version: manifest.version, released: manifest.released, notes: manifest.notes };
      state.checkError = null;
      return { manifest, bytes: got.bytes, signature: got.signature };
    } catch (err) {
      state.checkError = message(err);
      throw err;
    } finally {
      state.checkedAt = deps.now();
      state.checking = null;
    }
  })();
  return state.checking;
}

function publish(deps: UpdateDeps, progress: UpdateProgress | null): void {
  deps.events.publish({ type: "update-updated", data: { progress } });
}

/**
 * GET /api/update: the cached check, progress, outcome. `refresh` reads the manifest now and answers after it;
 * otherwise a check older than `CHECK_TTL_MS` (or none yet) is started in the background and its end published,
 * so opening Settings never waits on the release server.
 */
export async function updateStatus(deps: UpdateDeps, query: UpdateQuery | undefined): Promise<UpdateStatus> {
  const state = stateOf(deps.config);
  const refresh = query?.refresh === "1" || query?.refresh === "true";
  if (refresh) await check(deps).catch(() => {});
  else if (state.checking === null && (state.checkedAt === null || deps.now() - state.checkedAt > CHECK_TTL_MS)) {
    const done = () => publish(deps, stateOf(deps.config).progress);
    check(deps).then(done, done);
  }
  const file = readStatus(deps.config.dataDir);
  // An outcome written after this console started (a roll-back's): into the audit trail now.
  if (file.history.length) auditOutcomes(deps, deps.config.dataDir);
  const fileProgress = file.progress && deps.now() - file.progress.at < STALE_STEP_MS ? file.progress : null;
  return {
    current: deps.version,
    // Without its query: a signed link's token is not for the screen.
    manifestUrl: shownUrl(deps.config.updateUrl),
    latest: state.latest,
    newer: state.latest !== null && isNewer(deps.version, state.latest.version),
    checkedAt: state.checkedAt,
    checkError: state.checkError,
    checking: state.checking !== null,
    progress: state.progress ?? fileProgress,
    lastResult: file.result,
  };
}

/**
 * POST /api/update: refuses (409) while an update runs, when this is the latest version, or when the latest is
 * no longer the one the administrator saw; else starts staging it and answers at once.
 */
export async function startUpdate(deps: UpdateDeps, user: SessionUser, body: UpdateStart): Promise<UpdateStarted> {
  const state = stateOf(deps.config);
  const request = readJson<UpdateRequest>(updatePaths(deps.config.dataDir).request);
  // A request nobody picked up before this console restarted is dropped, not a lock for ever.
  if (request && state.progress === null && !(deps.now() - request.at < 2 * PICKUP_MS))
    clearStaged(deps.config.dataDir);
  const busy = state.progress?.version ?? (requestPending(deps.config.dataDir) ? (request?.version ?? "?") : null);
  if (busy) throw new Conflict(`An update to ${busy} is already in progress`);
  // Held from here: a second request while the manifest is read is refused, not run beside this one.
  state.progress = {
    phase: "checking",
    version: body.version,
    percent: null,
    message: "Reading the manifest",
    at: deps.now(),
  };
  let latest: Check;
  let release: ReturnType<typeof releaseFor>;
  try {
    try {
      latest = await check(deps);
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      throw new Unavailable(`The release manifest was refused: ${message(err)}`);
    }
    const { manifest } = latest;
    if (!isNewer(deps.version, manifest.version)) {
      throw new Conflict(`This console is up to date: ${deps.version} (the latest release is ${manifest.version})`);
    }
    if (manifest.version !== body.version) {
      throw new Conflict(`The latest release is now ${manifest.version}, not ${body.version}: check again`);
    }
    try {
      release = releaseFor(manifest);
    } catch (err) {
      throw new Conflict(message(err));
    }
  } catch (err) {
    state.progress = null;
    throw err;
  }
  const { manifest } = latest;
  const progress: UpdateProgress = {
    phase: "downloading",
    version: manifest.version,
    percent: 0,
    message: `Downloading ${manifest.version}`,
    at: deps.now(),
  };
  state.progress = progress;
  publish(deps, progress);
  void stage(deps, latest, release, user).catch((err) => fail(deps, manifest.version, message(err)));
  return { version: manifest.version, progress };
}

function setProgress(deps: UpdateDeps, progress: UpdateProgress | null): void {
  stateOf(deps.config).progress = progress;
  publish(deps, progress);
}

/** Ends an update that did not reach the updater: the outcome is kept as the updater's would be. */
function fail(deps: UpdateDeps, to: string, why: string): void {
  clearStaged(deps.config.dataDir);
  const result: UpdateResult = {
    outcome: "failed",
    from: deps.version,
    to,
    message: `Not updated: ${why}`,
    at: deps.now(),
  };
  try {
    writeResult(deps.config.dataDir, result);
  } catch (err) {
    console.error(`update: could not record the outcome: ${message(err)}`);
  }
  console.error(`update: ${result.message}`);
  setProgress(deps, null);
}

/** Downloads and checks the release into DATA_DIR/update, asks the updater, then follows it. */
async function stage(
  deps: UpdateDeps,
  latest: Check,
  release: ReturnType<typeof releaseFor>,
  user: SessionUser,
): Promise<void> {
  const to = latest.manifest.version;
  const { dataDir } = deps.config;
  const paths = updatePaths(dataDir);
  ensureUpdateDir(dataDir);
  clearStaged(dataDir);
  writeFileSync(paths.manifest, latest.bytes, { mode: 0o600 });
  writeFileSync(paths.signature, latest.signature, { mode: 0o600 });
  let shown = 0;
  try {
    await downloadRelease(release, paths.binary, {
      onProgress: (received, total) => {
        const percent = Math.floor((received / total) * 100);
        if (percent - shown < 2 && received < total) return;
        shown = percent;
        setProgress(deps, { phase: "downloading", version: to, percent, message: `Downloading ${to}`, at: deps.now() });
      },
    });
  } catch (err) {
    if (err instanceof UpdateError || err instanceof ServiceError) return fail(deps, to, err.message);
    throw err;
  }
  setProgress(deps, {
    phase: "verifying",
    version: to,
    percent: null,
    message: `${to} downloaded; its size and SHA-256 match the signed manifest`,
    at: deps.now(),
  });
  const request: UpdateRequest = { version: to, by: user.username, at: deps.now() };
  writeJson(paths.request, request, dataDir);
  setProgress(deps, {
    phase: "staged",
    version: to,
    percent: null,
    message: "Waiting for the updater (pbx-console-update.service) to install it",
    at: deps.now(),
  });
  await follow(deps, to);
}

/** Follows the updater's steps in status.json; gives up when it never picks the request up. */
async function follow(deps: UpdateDeps, to: string): Promise<void> {
  const { dataDir } = deps.config;
  const started = Date.now();
  let seen = "";
  while (Date.now() - started < FOLLOW_MS) {
    await Bun.sleep(250);
    const pending = requestPending(dataDir);
    if (pending && Date.now() - started > PICKUP_MS) {
      rmSync(updatePaths(dataDir).request, { force: true });
      return fail(
        deps,
        to,
        `the updater did not start within ${PICKUP_MS / 1000} s (is pbx-console-update.path enabled? Or run: sudo pbx-console update)`,
      );
    }
    if (pending) continue;
    const file = readStatus(dataDir);
    if (file.result && file.result.to === to && file.result.at >= started - 1000) {
      // The updater finished without restarting this console (it refused the release).
      setProgress(deps, null);
      return;
    }
    const key = file.progress ? `${file.progress.phase}:${file.progress.at}` : "";
    if (file.progress && key !== seen) {
      seen = key;
      setProgress(deps, file.progress);
    }
  }
  setProgress(deps, null);
}
