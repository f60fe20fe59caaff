/**
 * HOTP (RFC 4226) and TOTP (RFC 6238) with node:crypto: HMAC-SHA-1, 30-second steps, 6 digits in the
 * product (8 only for the RFC's test vectors), one step of clock skew either way. Secrets are 20 random
 * bytes, written in base32 (RFC 4648, no padding) as authenticator apps expect.
 */
import { nodeCrypto } from "../lazy-node";

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now that are still accepted (clock skew between the phone and the server). */
export const TOTP_SKEW_STEPS = 1;
export const TOTP_ISSUER = "pbx-console";

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 (case, spaces and `=` padding ignored); throws on any other character. */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, "").toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const index = BASE32.indexOf(ch);
    if (index < 0) throw new Error("not base32");
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new TOTP secret: 20 random bytes (the HMAC-SHA-1 key length), base32. */
export const newTotpSecret = () => base32Encode(nodeCrypto().randomBytes(20));

/** RFC 4226: the HOTP value of `counter` under `key`, `digits` long (zero-padded). */
export function hotp(key: Uint8Array, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = nodeCrypto().createHmac("sha1", key).update(message).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The TOTP time step of a moment (milliseconds since the epoch). */
export const timeStep = (nowMs: number) => Math.floor(nowMs / 1000 / TOTP_PERIOD_SECONDS);

/** RFC 6238: the TOTP value at `nowMs` for a base32 secret. */
export function totp(secret: string, nowMs: number, digits = TOTP_DIGITS): string {
  return hotp(base32Decode(secret), timeStep(nowMs), digits);
}

/**
 * The time step whose code `code` is, within `TOTP_SKEW_STEPS` of now and after `lastStep` (a code
 * already accepted, or an earlier one, cannot be used again); null when none matches.
 */
export function matchTotp(secret: string, code: string, nowMs: number, lastStep: number | null = null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const key = base32Decode(secret);
  const now = timeStep(nowMs);
  let found: number | null = null;
  // Every candidate is computed and compared, so the time taken does not say which one matched.
  for (let step = now - TOTP_SKEW_STEPS; step <= now + TOTP_SKEW_STEPS; step++) {
    const same = nodeCrypto().timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code));
    if (same && found === null && (lastStep === null || step > lastStep)) found = step;
  }
  return found;
}

/** The `otpauth://` link authenticator apps read (usually from a QR code). */
export function otpauthUrl(username: string, secret: string): string {
  const label = `${TOTP_ISSUER}:${encodeURIComponent(username)}`;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${TOTP_ISSUER}&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD_SECONDS}`;
}
