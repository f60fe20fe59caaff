/**
 * An S3-compatible bucket through Bun's built-in S3 client (`Bun.S3Client`): the off-site backups' uploads,
 * downloads, deletes and the connection test (ADR 0064). Bun's client takes no abort signal, so every call here
 * runs under a timeout of its own and the operation's deadline; a call given up on is left to end by itself, its
 * result ignored. Failures become one line that names the bucket and host and never the secret.
 */
import type { S3Client } from "bun";
import { deadlineMessage, redact, ServiceError } from "./http";

const SERVICE = "S3";
/** One call (a part of an upload, a read, a delete) must answer within this. */
export const S3_CALL_TIMEOUT_MS = 120_000;
/** An upload is sent in parts of this size (S3's minimum part is 5 MiB); at most two are in flight. */
const PART_BYTES = 8 * 1024 * 1024;

export interface S3Settings {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The bucket as part of the host name (`https://bucket.s3.example.com`) rather than the path. */
  virtualHostedStyle: boolean;
}

export interface S3CallOptions {
  /** The operation's overall deadline (`deadline()` of clients/http.ts). */
  signal?: AbortSignal;
  timeoutMs?: number;
}

const hostOf = (endpoint: string) => {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
};

/** The bucket, its host and the operation in the service's own words, without the secret. */
function s3Message(s: S3Settings, err: unknown, what: string): string {
  const e = err as { name?: string; code?: string; message?: string };
  const code = e?.code ?? "";
  const host = hostOf(s.endpoint);
  const text = e?.message ?? String(err);
  let message: string;
  if (["InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidToken", "ExpiredToken"].includes(code))
    message = `S3 at ${host} rejected the credentials for bucket ${s.bucket} (${code}: ${text})`;
  else if (code === "NoSuchBucket") message = `The bucket ${s.bucket} does not exist at ${host}`;
  else if (code === "NoSuchKey") message = `${what}: the object is not in bucket ${s.bucket}`;
  else if (code === "ConnectionRefused" || code === "ECONNREFUSED")
    message = `Cannot reach S3 at ${host}: connection refused`;
  else if (/ENOTFOUND|DNS|resolve/i.test(`${code} ${text}`)) message = `Cannot reach S3: host ${host} not found`;
  else if (/certificate|TLS|SSL/i.test(`${code} ${text}`)) message = `Cannot reach S3 at ${host}: TLS error (${text})`;
  else if (code.startsWith("ERR_S3_")) message = `The S3 settings are not usable: ${text}`;
  else message = `${what} at S3 ${host} (bucket ${s.bucket}) failed: ${code ? `${code}: ` : ""}${text}`;
  return redact(message, [s.secretAccessKey]).slice(0, 500);
}

/** `promise` within `ms` and before the deadline; a late result is dropped (Bun's S3 calls cannot be aborted). */
function timed<T>(s: S3Settings, promise: Promise<T>, what: string, opts: S3CallOptions): Promise<T> {
  const ms = opts.timeoutMs ?? S3_CALL_TIMEOUT_MS;
  const late = deadlineMessage(opts.signal);
  if (late) {
    promise.catch(() => {});
    return Promise.reject(new ServiceError(SERVICE, late));
  }
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
    };
    const timer = setTimeout(() => {
      done();
      reject(new ServiceError(SERVICE, `${what}: S3 at ${hostOf(s.endpoint)} did not answer within ${ms / 1000} s`));
    }, ms);
    const onAbort = () => {
      done();
      reject(new ServiceError(SERVICE, deadlineMessage(opts.signal) ?? `${what} was stopped`));
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        done();
        resolve(v);
      },
      (err) => {
        done();
        reject(err instanceof ServiceError ? err : new ServiceError(SERVICE, s3Message(s, err, what)));
      },
    );
  });
}

/** One bucket (Bun's client, made per store: its settings, never the process environment's `S3_*`). */
export class S3Store {
  private readonly client: S3Client;

  constructor(private readonly s: S3Settings) {
    let endpoint = s.endpoint;
    if (s.virtualHostedStyle) {
      // Bun reads a virtual-hosted endpoint as already naming the bucket: put it in the host here.
      const u = new URL(s.endpoint);
      if (!u.hostname.startsWith(`${s.bucket}.`)) u.hostname = `${s.bucket}.${u.hostname}`;
      endpoint = u.origin;
    }
    this.client = new Bun.S3Client({
      endpoint,
      region: s.region,
      bucket: s.bucket,
      accessKeyId: s.accessKeyId,
      secretAccessKey: s.secretAccessKey,
      virtualHostedStyle: s.virtualHostedStyle,
    });
  }

  /**
   * Writes `key` from `chunks` as they come (a multipart upload in 8 MiB parts once it is that large, a single
   * PUT below), each part under its timeout; answers the bytes sent. On a failure the upload is ended with the
   * error, so no partial object is kept.
   */
  async put(key: string, chunks: AsyncIterable<Uint8Array>, opts: S3CallOptions = {}): Promise<number> {
    const what = `Uploading ${key}`;
    const writer = this.client.file(key).writer({
      partSize: PART_BYTES,
      queueSize: 2,
      retry: 2,
      type: "application/octet-stream",
    });
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let total = 0;
    const send = async () => {
      if (!pendingBytes) return;
      const part = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      await timed(this.s, Promise.resolve(writer.write(part)), what, opts);
      await timed(this.s, Promise.resolve(writer.flush()), what, opts);
    };
    try {
      for await (const piece of chunks) {
        const late = deadlineMessage(opts.signal);
        if (late) throw new ServiceError(SERVICE, late);
        pending.push(piece);
        pendingBytes += piece.length;
        total += piece.length;
        if (pendingBytes >= PART_BYTES) await send();
      }
      await send();
      await timed(this.s, Promise.resolve(writer.end()), what, opts);
      return total;
    } catch (err) {
      try {
        Promise.resolve(writer.end(err instanceof Error ? err : new Error(String(err)))).catch(() => {});
      } catch {
        // Already ended.
      }
      if (err instanceof ServiceError) throw err;
      throw new ServiceError(SERVICE, s3Message(this.s, err, what));
    }
  }

  /** Reads `key` as it arrives, each read under its timeout. */
  async *get(key: string, opts: S3CallOptions = {}): AsyncGenerator<Uint8Array> {
    const what = `Downloading ${key}`;
    const reader = this.client.file(key).stream().getReader();
    try {
      for (;;) {
        const { done, value } = await timed(this.s, reader.read(), what, opts);
        if (done) return;
        yield value;
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  /** Deletes `key` (S3 answers the same whether it was there or not). */
  async remove(key: string, opts: S3CallOptions = {}): Promise<void> {
    await timed(this.s, this.client.unlink(key), `Deleting ${key}`, opts);
  }

  /**
   * The connection test: lists under `prefix` (the bucket and the credentials), then writes and deletes a small
   * object there (the console may write and delete). Answers what was proved.
   */
  async probe(prefix: string, opts: S3CallOptions = {}): Promise<string> {
    await timed(this.s, this.client.list({ prefix, maxKeys: 1 }), "Listing the bucket", opts);
    const key = `${prefix}.pbx-console-test-${crypto.randomUUID()}`;
    await timed(this.s, this.client.write(key, "pbx-console connection test\n"), "Writing a test object", opts);
    await timed(this.s, this.client.unlink(key), "Deleting the test object", opts);
    return `Bucket ${this.s.bucket} at ${hostOf(this.s.endpoint)}: the console can list, write and delete there`;
  }
}
