/**
 * A release's binary, streamed to a file: never more bytes than the signed manifest says (the transfer stops
 * there), its SHA-256 computed on the way, an idle timeout between chunks and the operation's deadline.
 * A file that fails any check is deleted.
 */
import { open, rm } from "node:fs/promises";
import { DeadlineExceeded, deadline, ServiceError } from "../clients/http";
import { releaseGet, shownUrl } from "../clients/releases";
import { type PlatformRelease, UpdateError } from "./manifest";

/** Time allowed between two chunks of a download. */
export const DOWNLOAD_IDLE_MS = 30_000;
/** The whole download's deadline. */
export const DOWNLOAD_DEADLINE_MS = 15 * 60_000;

export interface DownloadOptions {
  signal?: AbortSignal;
  idleTimeoutMs?: number;
  /** Called as bytes arrive (received, the manifest's size). */
  onProgress?: (received: number, total: number) => void;
}

const hashMismatch = (actual: string, expected: string) =>
  new UpdateError("hash", `Bad hash: the binary's SHA-256 is ${actual}, the signed manifest says ${expected}`);

/** Downloads `release` into `target` (created, must not exist; 0600) and checks its size and SHA-256. */
export async function downloadRelease(
  release: PlatformRelease,
  target: string,
  opts: DownloadOptions = {},
): Promise<void> {
  const signal = opts.signal ?? deadline("The download of the release", DOWNLOAD_DEADLINE_MS);
  const idleMs = opts.idleTimeoutMs ?? DOWNLOAD_IDLE_MS;
  const file = await open(target, "wx", 0o600);
  let ok = false;
  try {
    let res: Awaited<ReturnType<typeof releaseGet>>;
    try {
      res = await releaseGet(release.url, { signal });
    } catch (err) {
      if (err instanceof ServiceError) throw new UpdateError("download", err.message);
      throw err;
    }
    if (res.length !== null && res.length !== release.size) {
      await res.body.cancel();
      throw new UpdateError(
        "size",
        `The binary at ${shownUrl(res.url)} is ${res.length} bytes, the signed manifest says ${release.size}: refused`,
      );
    }
    const hasher = new Bun.CryptoHasher("sha256");
    const reader = res.body.getReader();
    let received = 0;
    let idle = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        res.abort();
      }, idleMs);
    };
    try {
      arm();
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (idle) throw new UpdateError("download", `The download stalled: no data for ${idleMs / 1000} s`);
          if (signal.aborted && signal.reason instanceof DeadlineExceeded) {
            throw new UpdateError("download", signal.reason.message);
          }
          throw new UpdateError("download", `The download failed: ${(err as Error).message}`);
        }
        if (chunk.done) break;
        arm();
        received += chunk.value.byteLength;
        if (received > release.size) {
          await reader.cancel().catch(() => {});
          throw new UpdateError(
            "size",
            `The binary is bigger than the signed manifest says (more than ${release.size} bytes): refused`,
          );
        }
        hasher.update(chunk.value);
        await file.write(chunk.value);
        opts.onProgress?.(received, release.size);
      }
    } finally {
      clearTimeout(timer);
    }
    if (received !== release.size) {
      throw new UpdateError("size", `The download ended early: ${received} of ${release.size} bytes`);
    }
    const actual = hasher.digest("hex");
    if (actual !== release.sha256) throw hashMismatch(actual, release.sha256);
    await file.sync();
    ok = true;
  } finally {
    await file.close();
    if (!ok) await rm(target, { force: true });
  }
}

/** A file's size and SHA-256, read in chunks. */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  const reader = Bun.file(path).stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hasher.update(value);
    size += value.byteLength;
  }
  return { sha256: hasher.digest("hex"), size };
}

/** Checks a file (a staged copy) against the signed manifest's size and SHA-256. */
export async function verifyFile(path: string, release: PlatformRelease): Promise<void> {
  const { sha256, size } = await hashFile(path);
  if (size !== release.size) {
    throw new UpdateError("size", `The binary is ${size} bytes, the signed manifest says ${release.size}: refused`);
  }
  if (sha256 !== release.sha256) throw hashMismatch(sha256, release.sha256);
}
