/**
 * An SFTP server through ssh2's SFTP client: the off-site backups' uploads, downloads, deletes and the connection
 * test (ADR 0064). The server's host key is checked as the PBX host's is (clients/ssh.ts): against the pinned
 * SHA-256 fingerprint, any other key refused; the key seen is reported so the first contact can pin it. Every
 * request runs under a timeout and the operation's deadline; either ends the connection. A file is written under
 * a temporary name and renamed when complete, so a half-sent copy never carries a copy's name.
 */
import type { Client, SFTPWrapper } from "ssh2";
import { deadlineMessage, redact, ServiceError } from "./http";
import { type HostKeySeen, pinnedConnectConfig } from "./ssh";

const SERVICE = "SFTP";
/** One request (a write, a read, a rename) must answer within this. */
export const SFTP_CALL_TIMEOUT_MS = 60_000;
/** Writes and reads go in requests of this size, many in flight at once (as `fastPut` does). */
const SLICE = 32 * 1024;
/** How much of a download is asked for at once. */
const READ_WINDOW = 1024 * 1024;

export interface SftpSettings {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  /** Pinned host key "SHA256:…"; when set, any other key is refused. */
  hostKeyFingerprint?: string | null;
}

/** Why ssh2 cannot use a pasted private key (null when it can): a key with a passphrase, or not a key. */
export async function privateKeyProblem(key: string): Promise<string | null> {
  const { utils } = await import("ssh2");
  const parsed = utils.parseKey(key);
  if (!(parsed instanceof Error)) return null;
  return /passphrase/i.test(parsed.message)
    ? "The key is protected by a passphrase: use a key without one, kept for this purpose"
    : "Not a private key the console can read (OpenSSH or PEM: RSA, ECDSA or Ed25519)";
}

interface SftpError extends Error {
  code?: number | string;
  level?: string;
}

const where = (s: SftpSettings) => `${s.host}:${s.port}`;

function connectMessage(s: SftpSettings, err: SftpError, mismatch: boolean, seen: string, timeoutMs: number): string {
  if (mismatch) {
    return `The host key of ${where(s)} changed: expected ${s.hostKeyFingerprint}, got ${seen}. If the server was reinstalled, forget its host key in the target's settings.`;
  }
  if (err.level === "client-authentication") return `SFTP ${where(s)} rejected the credentials for user ${s.username}`;
  if (err.code === "ECONNREFUSED") return `Cannot reach SFTP ${where(s)}: connection refused`;
  if (err.code === "ENOTFOUND" || err.code === "EAI_AGAIN") return `Cannot reach SFTP: host ${s.host} not found`;
  if (/timed out/i.test(err.message))
    return `SFTP ${where(s)} did not answer the SSH handshake within ${Math.round(timeoutMs / 1000)} s`;
  if (/passphrase/i.test(err.message)) return "The private key is protected by a passphrase: use a key without one";
  if (/privateKey|parse/i.test(err.message)) return `The private key is not usable: ${err.message}`;
  return `SFTP to ${where(s)} failed: ${err.message}`;
}

/** ssh2's SFTP status codes in words. */
function statusMessage(err: SftpError): string {
  if (err.code === 2) return "no such file or directory";
  if (err.code === 3) return "permission denied";
  if (err.code === 4) return `the server refused (${err.message})`;
  return err.message;
}

/** One SFTP session to a target; `close()` it when done. */
export class SftpSession {
  private ended = false;
  private onEnd: (() => void) | null = null;

  private constructor(
    private readonly client: Client,
    private readonly sftp: SFTPWrapper,
    private readonly s: SftpSettings,
    /** The host key seen ("SHA256:…"): the pin to keep when none was set. */
    readonly hostKey: string,
    private readonly signal: AbortSignal | undefined,
  ) {
    if (signal) {
      const abort = () => this.close();
      signal.addEventListener("abort", abort, { once: true });
      this.onEnd = () => signal.removeEventListener("abort", abort);
    }
    client.on("close", () => {
      this.ended = true;
    });
  }

  /** Connects and opens the SFTP subsystem, checking the host key; fails with a clear `ServiceError`. */
  static async connect(s: SftpSettings, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<SftpSession> {
    const timeoutMs = opts.timeoutMs ?? 20_000;
    const late = deadlineMessage(opts.signal);
    if (late) throw new ServiceError(SERVICE, late);
    // ssh2 is loaded at the first connection, not at start (ADR 0034).
    const { Client } = await import("ssh2");
    const secrets = [s.password, s.privateKey];
    return new Promise((resolve, reject) => {
      const client = new Client();
      const hostKey: HostKeySeen = { seen: "", mismatch: false };
      let settled = false;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        client.end();
        reject(new ServiceError(SERVICE, redact(message, secrets)));
      };
      const onAbort = () => fail(deadlineMessage(opts.signal) ?? "The SFTP operation was stopped");
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      client.once("ready", () => {
        client.sftp((err, sftp) => {
          opts.signal?.removeEventListener("abort", onAbort);
          if (err) return fail(`SFTP ${where(s)} refused the SFTP subsystem: ${err.message}`);
          if (settled) return;
          settled = true;
          resolve(new SftpSession(client, sftp, s, hostKey.seen, opts.signal));
        });
      });
      // One listener for the client's whole life: ssh2 can emit more than one error, and an unhandled one
      // would end the process.
      client.on("error", (err: SftpError) => fail(connectMessage(s, err, hostKey.mismatch, hostKey.seen, timeoutMs)));
      try {
        client.connect(pinnedConnectConfig(s, timeoutMs, hostKey));
      } catch (err) {
        fail(connectMessage(s, err as SftpError, false, hostKey.seen, timeoutMs));
      }
    });
  }

  /** One request under its timeout; a request that times out ends the connection (its answer can no longer come). */
  private call<T>(
    what: string,
    run: (done: (err: SftpError | undefined | null, value?: T) => void) => void,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const late = deadlineMessage(this.signal);
      if (late) return reject(new ServiceError(SERVICE, late));
      if (this.ended)
        return reject(new ServiceError(SERVICE, `${what}: the SFTP connection to ${where(this.s)} is closed`));
      const timer = setTimeout(() => {
        reject(
          new ServiceError(
            SERVICE,
            `${what}: SFTP ${where(this.s)} did not answer within ${SFTP_CALL_TIMEOUT_MS / 1000} s`,
          ),
        );
        this.close();
      }, SFTP_CALL_TIMEOUT_MS);
      try {
        run((err, value) => {
          clearTimeout(timer);
          if (err) {
            const message = deadlineMessage(this.signal) ?? `${what} on SFTP ${where(this.s)}: ${statusMessage(err)}`;
            reject(new ServiceError(SERVICE, redact(message, [this.s.password, this.s.privateKey])));
          } else resolve(value as T);
        });
      } catch (err) {
        clearTimeout(timer);
        this.ended = true;
        reject(new ServiceError(SERVICE, `${what} on SFTP ${where(this.s)}: ${(err as Error).message}`));
      }
    });
  }

  private stat(path: string): Promise<{ size: number; isDirectory: boolean } | null> {
    return new Promise((resolve, reject) => {
      this.call<{ size?: number; isDirectory(): boolean }>(`Looking at ${path}`, (done) =>
        this.sftp.stat(path, (err, st) => done(err, st)),
      ).then(
        (st) => resolve({ size: st.size ?? 0, isDirectory: st.isDirectory() }),
        (err: ServiceError) => (/no such file/.test(err.message) ? resolve(null) : reject(err)),
      );
    });
  }

  /** Makes `dir` (and the folders above it) when missing. */
  async ensureDirectory(dir: string): Promise<void> {
    if (dir === "." || dir === "/" || dir === "") return;
    const st = await this.stat(dir);
    if (st?.isDirectory) return;
    if (st) throw new ServiceError(SERVICE, `${dir} on SFTP ${where(this.s)} is a file, not a directory`);
    const parent = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : ".";
    await this.ensureDirectory(parent);
    await this.call<void>(`Making the directory ${dir}`, (done) => this.sftp.mkdir(dir, { mode: 0o700 }, done));
  }

  /**
   * Writes `path` from `chunks` as they come: into `path.part` (0600), each chunk's requests in flight together,
   * then renamed to `path`. A failure removes the part file when the connection still allows it. Answers the bytes.
   */
  async put(path: string, chunks: AsyncIterable<Uint8Array>): Promise<number> {
    const part = `${path}.part`;
    const what = `Uploading ${path}`;
    const handle = await this.call<Buffer>(what, (done) =>
      this.sftp.open(part, "w", { mode: 0o600 }, (err, h) => done(err, h)),
    );
    let position = 0;
    try {
      for await (const piece of chunks) {
        const buf = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
        const writes: Promise<void>[] = [];
        for (let off = 0; off < buf.length; off += SLICE) {
          const len = Math.min(SLICE, buf.length - off);
          const at = position + off;
          writes.push(this.call<void>(what, (done) => this.sftp.write(handle, buf, off, len, at, done)));
        }
        await Promise.all(writes);
        position += buf.length;
      }
      await this.call<void>(what, (done) => this.sftp.close(handle, done));
      await this.call<void>(what, (done) => this.sftp.rename(part, path, done));
      return position;
    } catch (err) {
      if (!this.ended) {
        await this.call<void>(what, (done) => this.sftp.close(handle, done)).catch(() => {});
        await this.call<void>(what, (done) => this.sftp.unlink(part, done)).catch(() => {});
      }
      throw err;
    }
  }

  /** Reads `path` a window at a time (its requests in flight together). */
  async *get(path: string): AsyncGenerator<Uint8Array> {
    const what = `Downloading ${path}`;
    const st = await this.stat(path);
    if (!st) throw new ServiceError(SERVICE, `${what}: it is not on SFTP ${where(this.s)}`);
    const handle = await this.call<Buffer>(what, (done) => this.sftp.open(path, "r", (err, h) => done(err, h)));
    const readAt = async (at: number, len: number): Promise<Buffer> => {
      const buf = Buffer.alloc(len);
      let got = 0;
      while (got < len) {
        const n = await this.call<number>(what, (done) =>
          this.sftp.read(handle, buf, got, len - got, at + got, (err, bytes) => done(err, bytes)),
        );
        if (!n) throw new ServiceError(SERVICE, `${what}: the file on SFTP ${where(this.s)} is shorter than it was`);
        got += n;
      }
      return buf;
    };
    try {
      for (let pos = 0; pos < st.size; pos += READ_WINDOW) {
        const len = Math.min(READ_WINDOW, st.size - pos);
        const reads: Promise<Buffer>[] = [];
        for (let off = 0; off < len; off += SLICE) reads.push(readAt(pos + off, Math.min(SLICE, len - off)));
        yield Buffer.concat(await Promise.all(reads));
      }
    } finally {
      if (!this.ended) await this.call<void>(what, (done) => this.sftp.close(handle, done)).catch(() => {});
    }
  }

  /** Deletes `path`; one that is not there counts as deleted. */
  async remove(path: string): Promise<void> {
    await this.call<void>(`Deleting ${path}`, (done) => this.sftp.unlink(path, done)).catch((err: ServiceError) => {
      if (!/no such file/.test(err.message)) throw err;
    });
  }

  /** The connection test: the directory exists (made when missing), and a small file can be written and deleted there. */
  async probe(dir: string): Promise<string> {
    await this.ensureDirectory(dir);
    const path = `${dir === "." ? "" : `${dir}/`}.pbx-console-test-${crypto.randomUUID()}`;
    const handle = await this.call<Buffer>("Writing a test file", (done) =>
      this.sftp.open(path, "w", { mode: 0o600 }, (err, h) => done(err, h)),
    );
    const body = Buffer.from("pbx-console connection test\n");
    await this.call<void>("Writing a test file", (done) => this.sftp.write(handle, body, 0, body.length, 0, done));
    await this.call<void>("Writing a test file", (done) => this.sftp.close(handle, done));
    await this.remove(path);
    return `SFTP ${where(this.s)} as ${this.s.username}: the console can write and delete in ${dir}`;
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd?.();
    this.client.end();
  }
}
