/**
 * The compiled binary copied alone into an empty temp folder for one test file (hooks registered here):
 * what an administrator gets after `install.sh`, with nothing of the repository beside it.
 * Needs `npm run build` first (the test command does it).
 */
import { afterAll, beforeAll } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const built = join(import.meta.dir, "../../dist/pbx-console");
if (!existsSync(built)) throw new Error("dist/pbx-console is missing: run `npm run build` first");

export function copiedBinary(prefix: string) {
  const paths = { dir: "", bin: "", dataDir: "" };
  beforeAll(() => {
    paths.dir = mkdtempSync(join(tmpdir(), prefix));
    paths.bin = join(paths.dir, "pbx-console");
    copyFileSync(built, paths.bin);
    Bun.spawnSync(["chmod", "755", paths.bin]);
    paths.dataDir = join(paths.dir, "state");
  });
  afterAll(() => rmSync(paths.dir, { recursive: true, force: true }));
  return {
    /** The temp folder holding only the binary (and `state/`, its DATA_DIR, once it ran). */
    get dir() {
      return paths.dir;
    },
    get bin() {
      return paths.bin;
    },
    get dataDir() {
      return paths.dataDir;
    },
    /** A minimal environment: PATH and DATA_DIR, plus `extra`. */
    env: (extra: Record<string, string> = {}) => ({
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      DATA_DIR: paths.dataDir,
      ...extra,
    }),
  };
}
