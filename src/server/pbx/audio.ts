/**
 * Audio on the PBX host (call recordings, voicemail) for a browser: what a file is (its header sniffed, its
 * length), and one SSH session kept open between reads (`PbxFileSessions`): a player seeks with a run of range
 * requests, and a new session per request would cost a key exchange and FreePBX's configuration each time.
 * Bytes are streamed from the host as they come; a file is never held whole. The HTTP side (ranges, headers,
 * the audit of a play) is transport/audio.ts.
 */
import { ServiceError } from "../clients/http";
import type { Deps } from "../core/deps";
import { NotFound, Unavailable } from "../core/errors";
import { openPbxHost, type PbxRemote } from "./host/host";
import { sniffAudio as sniffUpload } from "./recordings/sniff";

/** How long an unused session stays open. */
const IDLE_MS = 30_000;

export type AudioFormat = "wav" | "gsm" | "mp3" | "ogg";

const CONTENT_TYPES: Record<AudioFormat, string> = {
  wav: "audio/wav",
  gsm: "audio/x-gsm",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
};

/** The file names the console plays: Asterisk's recording formats (`WAV` is wav49, GSM inside a WAV). */
export const AUDIO_NAME = /\.(wav|WAV|gsm|mp3|ogg)$/;

export interface AudioKind {
  format: AudioFormat;
  contentType: string;
  /** Seconds of audio, null when the header does not tell (mp3, ogg). */
  durationS: number | null;
}

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));
const u16 = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u32 = (b: Uint8Array, at: number) => (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;

/**
 * What a file holds, from its first bytes and its size; null when it is not audio the console plays (the
 * file name's extension alone is never trusted). WAV: its `fmt ` byte rate and `data` size give the length
 * (a `data` size of 0 or past the file, as a recording still being written has, counts to the file's end).
 * Raw GSM: 33-byte frames of 20 ms, each starting with the 0xD signature.
 */
export function audioKind(head: Uint8Array, bytes: number, name: string): AudioKind | null {
  const kind = (format: AudioFormat, durationS: number | null): AudioKind => ({
    format,
    contentType: CONTENT_TYPES[format],
    durationS: durationS === null ? null : Math.round(durationS * 100) / 100,
  });
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 4) === "WAVE") {
    let at = 12;
    let byteRate = 0;
    while (at + 8 <= head.length) {
      const id = ascii(head, at, 4);
      const size = u32(head, at + 4);
      if (id === "fmt ") byteRate = u32(head, at + 16);
      if (id === "data") {
        if (byteRate <= 0) return kind("wav", null);
        const left = bytes - (at + 8);
        const data = size > 0 && size <= left ? size : Math.max(0, left);
        return kind("wav", data / byteRate);
      }
      at += 8 + size + (size % 2);
    }
    return byteRate > 0 ? kind("wav", null) : null;
  }
  if (ascii(head, 0, 4) === "OggS") return kind("ogg", null);
  if (sniffUpload(head) === "mp3") return kind("mp3", null);
  if (/\.gsm$/i.test(name) && bytes % 33 === 0 && bytes > 0) {
    for (let at = 0; at < Math.min(head.length, 33 * 8); at += 33) if (((head[at] ?? 0) & 0xf0) !== 0xd0) return null;
    return kind("gsm", (bytes / 33) * 0.02);
  }
  return null;
}

/** An audio file found on the PBX, ready to be sent. */
export interface AudioFile {
  root: string;
  name: string;
  bytes: number;
  kind: AudioKind;
}

/** What a play or download route sends: the file, the name the browser saves it under, and whether to save it. */
export interface AudioAnswer {
  file: AudioFile;
  filename: string;
  download: boolean;
}

/**
 * Finds an audio file under `root` and reads what it is: `NotFound` when there is no such file, or when its
 * name is not a plain one, leads outside `root` or its content is not audio (each said in `what`'s words).
 */
export async function findAudio(host: PbxRemote, root: string, name: string, what: string): Promise<AudioFile> {
  const info = await host.fileInfo(root, name);
  if (info === "missing") throw new NotFound(what, `The ${what.toLowerCase()} file is not on the PBX`);
  if (info === "outside")
    throw new NotFound(what, `The ${what.toLowerCase()} file is outside its directory on the PBX and is not read`);
  const kind = audioKind(info.head, info.bytes, name);
  if (!kind) throw new NotFound(what, `The ${what.toLowerCase()} file on the PBX is not audio the console plays`);
  return { root, name, bytes: info.bytes, kind };
}

/**
 * One PBX-host session shared by audio reads (`AppContext.pbxFiles`): opened at the first use, reused while
 * the SSH settings stay the same and the connection is up, closed `IDLE_MS` after its last stream ended.
 */
export class PbxFileSessions {
  private current: {
    key: string;
    host: Promise<PbxRemote>;
    busy: number;
    idle: ReturnType<typeof setTimeout> | null;
  } | null = null;

  constructor(
    private readonly deps: Pick<Deps, "credentials">,
    private readonly idleMs = IDLE_MS,
  ) {}

  private acquire() {
    const key = JSON.stringify(this.deps.credentials.values("ssh"));
    const cur = this.current;
    if (cur && cur.key === key) {
      if (cur.idle) clearTimeout(cur.idle);
      cur.idle = null;
      cur.busy += 1;
      return cur;
    }
    if (cur) this.drop(cur);
    const next = { key, host: openPbxHost(this.deps), busy: 1, idle: null as ReturnType<typeof setTimeout> | null };
    next.host.catch(() => {
      if (this.current === next) this.current = null;
    });
    this.current = next;
    return next;
  }

  private release(entry: NonNullable<PbxFileSessions["current"]>) {
    entry.busy -= 1;
    if (entry.busy > 0 || this.current !== entry) return;
    entry.idle = setTimeout(() => this.drop(entry), this.idleMs);
    (entry.idle as { unref?: () => void }).unref?.();
  }

  private drop(entry: NonNullable<PbxFileSessions["current"]>) {
    if (this.current === entry) this.current = null;
    if (entry.idle) clearTimeout(entry.idle);
    entry.host.then((h) => h.close()).catch(() => {});
  }

  /** Runs `fn` on the shared session; a connection found down is opened again once. */
  async use<T>(fn: (host: PbxRemote) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const entry = this.acquire();
      try {
        const host = await entry.host;
        if (!host.isOpen) {
          this.drop(entry);
          if (attempt === 1) continue;
        }
        return await fn(host);
      } catch (err) {
        if (err instanceof ServiceError && !(await entry.host.then((h) => h.isOpen).catch(() => false))) {
          this.drop(entry);
          if (attempt === 1) continue;
          throw new Unavailable(`The PBX host cannot be reached: ${err.message}`);
        }
        throw err;
      } finally {
        this.release(entry);
      }
    }
  }

  /** A byte range of a file, streamed; the session stays held until the stream ends or is cancelled. */
  async stream(root: string, name: string, start: number, count: number, timeoutMs: number) {
    const entry = this.acquire();
    try {
      const host = await entry.host;
      const source = await host.fileRange(root, name, start, count, timeoutMs);
      return closingWith(source, async () => this.release(entry));
    } catch (err) {
      this.release(entry);
      throw err;
    }
  }

  /** Closes the session (the console stopping). */
  close(): void {
    if (this.current) this.drop(this.current);
  }
}

/** `source` passed on as it is read; `close` runs once when it ends, fails or is cancelled. */
export function closingWith(
  source: ReadableStream<Uint8Array>,
  close: () => Promise<void>,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let closed = false;
  const end = () => {
    if (closed) return;
    closed = true;
    close().catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        end();
        controller.error(err);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => {});
      end();
    },
  });
}
