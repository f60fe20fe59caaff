/**
 * The encrypted file an off-site copy is (ADR 0064): a 48-byte header, then the plaintext in chunks, each sealed
 * with AES-256-GCM under a key derived for this file from the administrator's off-site key. It is written and read
 * as a stream, one chunk at a time, so a large database is never held whole; a copy decrypts with only the key the
 * administrator kept (this module, `pbx-console restore --key-file`, or the ADR's description).
 *
 *   offset size
 *   0      8    magic "PBXCOFFS"
 *   8      1    format version (1)
 *   9      1    content: 1 = console database (SQLite), 2 = PBX backup (JSON)
 *   10     2    reserved (0)
 *   12     4    chunk size: plaintext bytes per chunk, big-endian
 *   16     8    key id: the first 8 bytes of HMAC-SHA256(key, "pbx-console off-site key id")
 *   24     16   salt (random)
 *   40     7    nonce prefix (random)
 *   47     1    reserved (0)
 *
 * File key: HKDF-SHA256(key, salt, "pbx-console off-site backup v1", 32 bytes). Chunk i (from 0): every chunk but
 * the last holds exactly `chunk size` plaintext bytes, the last 0 to `chunk size`; sealed with nonce = prefix ‖
 * uint32-BE(i) ‖ (1 for the last chunk, else 0), the whole header as associated data, written as ciphertext ‖
 * 16-byte tag. A copy cut short, reordered or altered (header included) fails a tag.
 */
import { nodeCrypto } from "../lazy-node";

export const OFFSITE_MAGIC = "PBXCOFFS";
export const OFFSITE_VERSION = 1;
export const HEADER_BYTES = 48;
const TAG_BYTES = 16;
/** Plaintext bytes per chunk: what the encryption holds in memory at once. */
export const OFFSITE_CHUNK = 1024 * 1024;
const MIN_CHUNK = 1024;
const MAX_CHUNK = 64 * 1024 * 1024;
const KEY_BYTES = 32;
const KEY_ID_INFO = "pbx-console off-site key id";
const FILE_KEY_INFO = "pbx-console off-site backup v1";
/** How a key is written for the administrator: a prefix that names what it is, then base64url. */
const KEY_TEXT_PREFIX = "pbxk1-";

export type OffsiteContent = "console" | "pbx";
const CONTENT_CODE: Record<OffsiteContent, number> = { console: 1, pbx: 2 };

/** A copy that is not ours, damaged, altered, cut short, or for another key; the message says which. */
export class OffsiteFormatError extends Error {}

export interface OffsiteKey {
  bytes: Buffer;
  /** 16 hex digits, in each file's header and beside each upload. */
  id: string;
}

export interface OffsiteHeader {
  version: number;
  content: OffsiteContent;
  chunkSize: number;
  keyId: string;
}

/** The id a key is known by (never the key: an HMAC of a fixed text under it). */
export function keyIdOf(bytes: Buffer): string {
  return nodeCrypto().createHmac("sha256", bytes).update(KEY_ID_INFO).digest().subarray(0, 8).toString("hex");
}

/** A new random 256-bit key. */
export function newOffsiteKey(): OffsiteKey {
  const bytes = nodeCrypto().randomBytes(KEY_BYTES);
  return { bytes, id: keyIdOf(bytes) };
}

/** The key as the administrator keeps it: `pbxk1-` and 43 base64url characters. */
export function keyText(key: OffsiteKey): string {
  return KEY_TEXT_PREFIX + key.bytes.toString("base64url");
}

/**
 * A key from what the administrator kept: the key line alone or the downloaded key file (its `#` lines are
 * comments). Throws `OffsiteFormatError` when there is no key in it.
 */
export function parseKeyText(text: string): OffsiteKey {
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("#"));
  const body = line?.startsWith(KEY_TEXT_PREFIX) ? line.slice(KEY_TEXT_PREFIX.length) : line;
  const bytes = body && /^[A-Za-z0-9_-]{43}$/.test(body) ? Buffer.from(body, "base64url") : null;
  if (!bytes || bytes.length !== KEY_BYTES) {
    throw new OffsiteFormatError(
      `not an off-site backup key (expected ${KEY_TEXT_PREFIX} followed by 43 letters, digits, - or _)`,
    );
  }
  return { bytes, id: keyIdOf(bytes) };
}

function fileKey(key: Buffer, salt: Buffer): Buffer {
  return Buffer.from(nodeCrypto().hkdfSync("sha256", key, salt, FILE_KEY_INFO, KEY_BYTES));
}

function nonceOf(prefix: Buffer, index: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  prefix.copy(nonce, 0, 0, 7);
  nonce.writeUInt32BE(index, 7);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

function buildHeader(content: OffsiteContent, chunkSize: number, key: OffsiteKey, salt: Buffer, prefix: Buffer) {
  const h = Buffer.alloc(HEADER_BYTES);
  h.write(OFFSITE_MAGIC, 0, "latin1");
  h[8] = OFFSITE_VERSION;
  h[9] = CONTENT_CODE[content];
  h.writeUInt32BE(chunkSize, 12);
  Buffer.from(key.id, "hex").copy(h, 16);
  salt.copy(h, 24);
  prefix.copy(h, 40, 0, 7);
  return h;
}

/** Whether these bytes start like an off-site copy (the magic), e.g. for `restore` to ask for the key. */
export function looksEncrypted(start: Uint8Array): boolean {
  return Buffer.from(start.subarray(0, OFFSITE_MAGIC.length)).toString("latin1") === OFFSITE_MAGIC;
}

/** Reads and checks a header (the first `HEADER_BYTES` bytes). */
export function parseHeader(h: Buffer): OffsiteHeader {
  if (h.length < HEADER_BYTES || !looksEncrypted(h)) {
    throw new OffsiteFormatError("not an off-site backup of pbx-console (its header is missing)");
  }
  if (h[8] !== OFFSITE_VERSION) {
    throw new OffsiteFormatError(`an off-site backup in format ${h[8]}, which this pbx-console cannot read`);
  }
  const content = (Object.keys(CONTENT_CODE) as OffsiteContent[]).find((c) => CONTENT_CODE[c] === h[9]);
  const chunkSize = h.readUInt32BE(12);
  if (!content || chunkSize < MIN_CHUNK || chunkSize > MAX_CHUNK) {
    throw new OffsiteFormatError("the off-site backup's header is damaged");
  }
  return { version: h[8], content, chunkSize, keyId: h.subarray(16, 24).toString("hex") };
}

/** A byte stream as chunks; stopping early (a failure further on) cancels it, so its file is closed. */
export async function* readChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) reader.cancel().catch(() => {});
  }
}

/**
 * Encrypts `source` as one off-site copy: yields the header, then each sealed chunk as soon as it is known not to
 * be the last (at most one chunk of plaintext is held).
 */
export async function* encryptStream(
  source: AsyncIterable<Uint8Array>,
  key: OffsiteKey,
  content: OffsiteContent,
  chunkSize = OFFSITE_CHUNK,
): AsyncGenerator<Uint8Array> {
  const crypto = nodeCrypto();
  const salt = crypto.randomBytes(16);
  const prefix = crypto.randomBytes(7);
  const header = buildHeader(content, chunkSize, key, salt, prefix);
  const k = fileKey(key.bytes, salt);
  const seal = (plain: Uint8Array, index: number, last: boolean): Uint8Array => {
    const cipher = crypto.createCipheriv("aes-256-gcm", k, nonceOf(prefix, index, last));
    cipher.setAAD(header);
    return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  };
  yield header;
  const chunk = Buffer.allocUnsafe(chunkSize);
  let fill = 0;
  let index = 0;
  for await (const piece of source) {
    let off = 0;
    while (off < piece.length) {
      if (fill === chunkSize) {
        yield seal(chunk, index++, false);
        fill = 0;
      }
      const n = Math.min(chunkSize - fill, piece.length - off);
      chunk.set(piece.subarray(off, off + n), fill);
      fill += n;
      off += n;
    }
  }
  yield seal(chunk.subarray(0, fill), index, true);
}

/**
 * Decrypts an off-site copy: checks the header, finds its key with `keyFor` (by the header's key id; null when
 * this key is not known), then yields each chunk's plaintext once its tag has passed. Throws `OffsiteFormatError`
 * for anything that is not a whole, unaltered copy for a known key.
 */
export async function* decryptStream(
  source: AsyncIterable<Uint8Array>,
  keyFor: (id: string) => Buffer | null,
  onHeader?: (header: OffsiteHeader) => void,
): AsyncGenerator<Uint8Array> {
  const crypto = nodeCrypto();
  const it = source[Symbol.asyncIterator]();
  let header: Buffer = Buffer.alloc(0);
  let rest: Buffer = Buffer.alloc(0);
  while (header.length < HEADER_BYTES) {
    const next = await it.next();
    if (next.done) throw new OffsiteFormatError("not an off-site backup of pbx-console (its header is missing)");
    const joined = Buffer.concat([header, next.value]);
    header = joined.subarray(0, HEADER_BYTES);
    rest = joined.subarray(HEADER_BYTES);
  }
  header = Buffer.from(header);
  const info = parseHeader(header);
  const key = keyFor(info.keyId);
  if (!key) {
    throw new OffsiteFormatError(`it is encrypted with the off-site key ${info.keyId}: only that key decrypts it`);
  }
  onHeader?.(info);
  const k = fileKey(key, header.subarray(24, 40));
  const prefix = header.subarray(40, 47);
  const frame = info.chunkSize + TAG_BYTES;
  const open = (sealed: Buffer, index: number, last: boolean): Buffer => {
    const decipher = crypto.createDecipheriv("aes-256-gcm", k, nonceOf(prefix, index, last));
    decipher.setAAD(header);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new OffsiteFormatError(
        `the copy is damaged, altered or cut short: part ${index + 1} failed its check (AES-GCM tag)`,
      );
    }
  };
  const held = Buffer.allocUnsafe(frame);
  let fill = 0;
  let index = 0;
  const take = function* (piece: Uint8Array): Generator<Buffer> {
    let off = 0;
    while (off < piece.length) {
      if (fill === frame) {
        yield open(held, index++, false);
        fill = 0;
      }
      const n = Math.min(frame - fill, piece.length - off);
      held.set(piece.subarray(off, off + n), fill);
      fill += n;
      off += n;
    }
  };
  yield* take(rest);
  for (let next = await it.next(); !next.done; next = await it.next()) yield* take(next.value);
  if (fill < TAG_BYTES) throw new OffsiteFormatError("the copy is cut short (its last part is missing)");
  yield open(held.subarray(0, fill), index, true);
}
