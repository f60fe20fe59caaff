import { parseArgs } from "node:util";
import { ServiceError } from "../clients/http";
import type { Config } from "../config";
import { applyStaged, healthWindowMs, latestManifest, type UpdaterContext, updateFromServer } from "../update/apply";
import { isNewer, UpdateError } from "../update/manifest";
import { restarter } from "../update/restart";
import { runningBinary } from "../update/swap";

const USAGE = "Usage: pbx-console update [--check | --apply]";

export interface UpdateCli {
  /** The configuration alone (`--check` writes nothing, so DATA_DIR need not exist). */
  readConfig: () => Config;
  /** The configuration with DATA_DIR made, and DATA_DIR/pbx-console.db. */
  prepare: () => { config: Config; dbFile: string };
  version: string;
  /** Whether this runs as the compiled binary (from source there is no binary to replace). */
  standalone: boolean;
}

function failed(err: unknown): number {
  if (err instanceof UpdateError || err instanceof ServiceError) {
    console.error(err.message);
    return 1;
  }
  throw err;
}

/**
 * `pbx-console update [--check | --apply]` (docs/decisions/0065-self-update.md):
 * - `--check` reads the signed manifest at UPDATE_URL: exit 0 printing "up to date" or the newer version;
 *   1 with the reason when the manifest cannot be read or its signature is bad.
 * - no option installs the newer release over this binary (as root on an installed console): download, hash,
 *   backup, swap, restart, /healthz within 30 s or roll back. Exit 0 when updated or already up to date; 1 with
 *   the reason when refused (bad signature or hash: nothing changed) or rolled back.
 * - `--apply` installs what the console staged in DATA_DIR/update (pbx-console-update.service runs it).
 */
export async function updateCommand(cli: UpdateCli, argv: string[]): Promise<number> {
  const { version, standalone } = cli;
  let values: { check?: boolean; apply?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { check: { type: "boolean" }, apply: { type: "boolean" } },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.check && values.apply) {
    console.error(`--check and --apply go alone\n${USAGE}`);
    return 2;
  }
  if (values.check) {
    const config = cli.readConfig();
    try {
      const manifest = await latestManifest(config);
      if (!isNewer(version, manifest.version)) {
        console.log(`pbx-console ${version} is up to date (the latest release is ${manifest.version})`);
      } else {
        console.log(`${manifest.version} is available (this is ${version}; released ${manifest.released})`);
        if (manifest.notes) console.log(manifest.notes);
      }
      return 0;
    } catch (err) {
      return failed(err);
    }
  }
  if (!standalone) {
    console.error("update replaces the installed binary: run it from the binary (pbx-console update), not from source");
    return 2;
  }
  const { config, dbFile } = cli.prepare();
  let ctx: UpdaterContext;
  try {
    ctx = {
      config,
      version,
      dbFile,
      target: runningBinary(),
      restart: restarter(config),
      healthWindowMs: healthWindowMs(),
      log: (line) => console.log(line),
      now: Date.now,
    };
  } catch (err) {
    return failed(err);
  }
  if (values.apply) {
    const result = await applyStaged(ctx);
    if (!result) {
      console.log("No update is staged");
      return 0;
    }
    return result.outcome === "updated" ? 0 : 1;
  }
  try {
    let shown = -10;
    const done = await updateFromServer(ctx, (received, total) => {
      const percent = Math.floor((received / total) * 100);
      if (percent - shown < 10 && received < total) return;
      shown = percent;
      console.log(`downloaded ${percent}%`);
    });
    if (!done) {
      console.log(`pbx-console ${version} is up to date`);
      return 0;
    }
    return done.result.outcome === "updated" ? 0 : 1;
  } catch (err) {
    return failed(err);
  }
}
