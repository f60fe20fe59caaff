/**
 * The binary's replacement, in its own folder: the new binary is copied there under a temp name (so the
 * rename is atomic and nothing half-written ever has the binary's name), the running one is kept as
 * `<binary>.previous`, then the temp file is renamed over the binary. A running process keeps its old inode,
 * so the swap never disturbs the console until it restarts. Roll-back puts `.previous` back the same way.
 */
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { UpdateError } from "./manifest";

export function binaryPaths(target: string) {
  const dir = dirname(target);
  const name = basename(target);
  return {
    target,
    previous: join(dir, `${name}.previous`),
    candidate: join(dir, `.${name}.update-${process.pid}.tmp`),
  };
}

/** The binary this process runs (symlinks resolved): what an update replaces. */
export function runningBinary(): string {
  return realpathSync(process.execPath);
}

/** Refuses, before anything is downloaded, when this user cannot replace `target`. */
export function requireWritable(target: string): void {
  try {
    accessSync(dirname(target), constants.W_OK);
  } catch {
    throw new UpdateError(
      "install",
      `Cannot replace ${target}: ${dirname(target)} is not writable by this user (run the update as root: sudo pbx-console update)`,
    );
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not every filesystem lets a folder be synced; the renames are still atomic.
  }
}

/** A hard link of `from` at `to` (replacing it), else a copy when the filesystem has no links. */
function linkOrCopy(from: string, to: string): void {
  const temp = `${to}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  try {
    linkSync(from, temp);
  } catch {
    copyFileSync(from, temp);
  }
  renameSync(temp, to);
}

/** Copies `source` beside `target` as the candidate (0755, synced), owned by whoever installs it. */
export function placeCandidate(source: string, target: string): string {
  const { candidate } = binaryPaths(target);
  rmSync(candidate, { force: true });
  try {
    copyFileSync(source, candidate);
    chmodSync(candidate, 0o755);
    const fd = openSync(candidate, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    rmSync(candidate, { force: true });
    throw new UpdateError("install", `Cannot write the new binary beside ${target}: ${(err as Error).message}`);
  }
  return candidate;
}

/** Keeps the running binary as `.previous`, then renames the candidate over it. */
export function swapIn(candidate: string, target: string): void {
  const { previous } = binaryPaths(target);
  try {
    chmodSync(candidate, 0o755);
    linkOrCopy(target, previous);
    renameSync(candidate, target);
    syncDir(dirname(target));
  } catch (err) {
    throw new UpdateError("install", `Cannot swap ${target}: ${(err as Error).message}`);
  }
}

/** Puts `.previous` back as the binary (it stays as `.previous` too). */
export function rollBack(target: string): void {
  const { previous } = binaryPaths(target);
  if (!existsSync(previous)) throw new UpdateError("install", `Cannot roll back: ${previous} is missing`);
  linkOrCopy(previous, target);
  syncDir(dirname(target));
}

/**
 * Runs `<binary> --version` (within 15 s) and checks it prints `version`: a binary for another machine, a
 * truncated file or the wrong release is refused before anything is swapped.
 */
export async function checkRuns(binary: string, version: string, timeoutMs = 15_000): Promise<void> {
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn([binary, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: process.env });
  } catch (err) {
    throw new UpdateError("install", `The new binary does not run here: ${(err as Error).message}`);
  }
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const [code, out] = await Promise.all([proc.exited, Bun.readableStreamToText(proc.stdout as ReadableStream)]);
  clearTimeout(timer);
  const printed = out.trim().split("\n").at(-1)?.trim() ?? "";
  if (code !== 0 || printed !== version) {
    const what = code === 0 ? `printed "${printed.slice(0, 60)}"` : `exited with ${code ?? "a signal"}`;
    throw new UpdateError("install", `The new binary's --version ${what}, expected ${version}: refused`);
  }
}
