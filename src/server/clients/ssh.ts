import type { Client, ClientChannel, ConnectConfig } from "ssh2";
import { nodeCrypto } from "../lazy-node";
import { ServiceError } from "./http";

const SERVICE = "PBX host (SSH)";

export interface SshSettings {
  host: string;
  port: number;
  username: string;
  privateKey?: string;
  password?: string;
  /** Pinned host key "SHA256:…"; when set, any other key is refused. */
  hostKeyFingerprint?: string;
}

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** OpenSSH-style fingerprint of a raw host key: "SHA256:" + unpadded base64 of its SHA-256. */
export const fingerprint = (key: Buffer) =>
  `SHA256:${nodeCrypto().createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`;

/** What the server showed while connecting: its host key's fingerprint, and whether it was not the pinned one. */
export interface HostKeySeen {
  seen: string;
  mismatch: boolean;
}

/**
 * ssh2's connection options for a host with a pinned key (the PBX host, an SFTP backup target): any key but the
 * pinned fingerprint is refused; `hostKey` records the key seen, so a first contact can pin it and a refusal can
 * say which key came.
 */
export function pinnedConnectConfig(
  s: Omit<SshSettings, "hostKeyFingerprint"> & { hostKeyFingerprint?: string | null },
  timeoutMs: number,
  hostKey: HostKeySeen,
): ConnectConfig {
  return {
    host: s.host,
    port: s.port,
    username: s.username,
    privateKey: s.privateKey || undefined,
    password: s.password || undefined,
    readyTimeout: timeoutMs,
    tryKeyboard: false,
    hostVerifier: (key: Buffer) => {
      hostKey.seen = fingerprint(key);
      hostKey.mismatch = Boolean(s.hostKeyFingerprint) && hostKey.seen !== s.hostKeyFingerprint;
      return !hostKey.mismatch;
    },
  };
}

/**
 * One SSH session to the PBX host (ssh2). The host key is checked against the
 * pinned fingerprint; the one seen is reported so the first successful test can pin it.
 */
export class SshSession {
  private closed = false;

  private constructor(
    private readonly client: Client,
    readonly hostKey: string,
  ) {}

  static async connect(s: SshSettings, timeoutMs = 10_000): Promise<SshSession> {
    // ssh2 is loaded at the first connection, not at start: it is the largest module the server
    // imports and was ~half of the binary's start-up evaluation (ADR 0034).
    const { Client } = await import("ssh2");
    return new Promise((resolve, reject) => {
      const client = new Client();
      const hostKey: HostKeySeen = { seen: "", mismatch: false };
      const config = pinnedConnectConfig(s, timeoutMs, hostKey);
      let settled = false;
      client.once("ready", () => {
        settled = true;
        const session = new SshSession(client, hostKey.seen);
        client.once("close", () => {
          session.closed = true;
        });
        resolve(session);
      });
      // A listener stays for the whole life of the client: ssh2 can emit more than one
      // error (e.g. ECONNRESET after an auth failure), and an unhandled one would crash the process.
      client.on("error", (err: Error & { code?: string; level?: string }) => {
        if (settled) return;
        settled = true;
        client.end();
        reject(new ServiceError(SERVICE, sshMessage(s, err, hostKey.mismatch, hostKey.seen, timeoutMs)));
      });
      try {
        client.connect(config);
      } catch (err) {
        reject(new ServiceError(SERVICE, `SSH settings are not usable: ${(err as Error).message}`));
      }
    });
  }

  /** Runs one command; `stdin` (text or bytes) is written and closed. Times out after `timeoutMs`. */
  exec(command: string, opts: { stdin?: string | Uint8Array; timeoutMs?: number } = {}): Promise<ExecResult> {
    const timeoutMs = opts.timeoutMs ?? 60_000;
    return new Promise((resolve, reject) => {
      this.run(command, reject, (stream) => {
        let stdout = "";
        let stderr = "";
        const timer = setTimeout(() => {
          stream.close();
          reject(new ServiceError(SERVICE, `The command did not finish within ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
        stream.on("data", (d: Buffer) => {
          stdout += d.toString("utf8");
        });
        stream.stderr.on("data", (d: Buffer) => {
          stderr += d.toString("utf8");
        });
        stream.on("error", (e: Error) => {
          clearTimeout(timer);
          reject(new ServiceError(SERVICE, `The SSH channel failed: ${e.message}`));
        });
        stream.on("close", (code: number | null) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
        if (opts.stdin !== undefined) stream.end(opts.stdin);
        else stream.end();
      });
    });
  }

  /**
   * Runs one command (`stdin` written and closed) whose stdout is bytes to pass on as they come (a file sent
   * to a browser), never held whole. The stream ends when the command does and fails when it exits non-zero (with its stderr) or runs
   * past `timeoutMs`; cancelling the stream closes the channel.
   */
  execStream(command: string, opts: { stdin?: string; timeoutMs: number }): Promise<ReadableStream<Uint8Array>> {
    return new Promise((resolve, reject) => {
      this.run(command, reject, (channel) => {
        if (opts.stdin !== undefined) channel.end(opts.stdin);
        else channel.end();
        let stderr = "";
        let timer: ReturnType<typeof setTimeout> | undefined;
        // Set once the stream is closed, failed or cancelled: a chunk or an end arriving after that is dropped (an
        // enqueue on a cancelled stream throws inside ssh2's handler, which would end the whole connection).
        let finished = false;
        channel.stderr.on("data", (d: Buffer) => {
          if (stderr.length < 4096) stderr += d.toString("utf8");
        });
        resolve(
          new ReadableStream<Uint8Array>({
            start(controller) {
              const fail = (message: string) => {
                clearTimeout(timer);
                if (!finished) controller.error(new ServiceError(SERVICE, message));
                finished = true;
              };
              timer = setTimeout(() => {
                channel.close();
                fail(`The command did not finish within ${Math.round(opts.timeoutMs / 1000)} s`);
              }, opts.timeoutMs);
              channel.on("data", (d: Buffer) => {
                if (finished) return;
                controller.enqueue(d);
                // Backpressure: the channel waits while the reader is behind.
                if ((controller.desiredSize ?? 1) <= 0) channel.pause();
              });
              channel.on("error", (e: Error) => fail(`The SSH channel failed: ${e.message}`));
              channel.on("close", (code: number | null) => {
                clearTimeout(timer);
                if (code !== 0) fail(stderr.trim().split("\n").at(-1) || `The command exited with ${code}`);
                else if (!finished) {
                  finished = true;
                  controller.close();
                }
              });
            },
            pull() {
              channel.resume();
            },
            cancel() {
              finished = true;
              clearTimeout(timer);
              channel.close();
            },
          }),
        );
      });
    });
  }

  /**
   * Opens a channel for `command`; a refusal, or a connection that is gone (ssh2 throws "Not connected" then),
   * rejects with a `ServiceError`.
   */
  private run(command: string, reject: (err: ServiceError) => void, use: (channel: ClientChannel) => void): void {
    const failed = (message: string) => reject(new ServiceError(SERVICE, `Cannot run a command over SSH: ${message}`));
    try {
      this.client.exec(command, (err, channel) => (err ? failed(err.message) : use(channel)));
    } catch (err) {
      this.closed = true;
      failed((err as Error).message);
    }
  }

  /** Whether the connection is still up (a session kept for reuse is dropped once it is not). */
  get isOpen(): boolean {
    return !this.closed;
  }

  close(): void {
    this.closed = true;
    this.client.end();
  }
}

function sshMessage(
  s: SshSettings,
  err: Error & { code?: string; level?: string },
  mismatch: boolean,
  seen: string,
  timeoutMs: number,
) {
  const where = `${s.host}:${s.port}`;
  if (mismatch) {
    return `Host key of ${where} changed: expected ${s.hostKeyFingerprint}, got ${seen}. If the host was reinstalled, forget the pinned key in API Settings.`;
  }
  if (err.level === "client-authentication") return `SSH to ${where} rejected the credentials for user ${s.username}`;
  if (err.code === "ECONNREFUSED") return `Cannot reach ${where}: connection refused`;
  if (err.code === "ENOTFOUND" || err.code === "EAI_AGAIN") return `Cannot reach ${s.host}: host not found`;
  if (/timed out/i.test(err.message))
    return `${where} did not answer the SSH handshake within ${Math.round(timeoutMs / 1000)} s`;
  return `SSH to ${where} failed: ${err.message}`;
}
