import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nodeCrypto } from "./lazy-node";

const KEY_FILE = "secret.key";
const PREFIX = "v1:";

/**
 * AES-256-GCM encryption of stored secrets. The 32-byte key lives in
 * DATA_DIR/secret.key (mode 0600), created on first start, so the database
 * file alone reveals no secret. Format: "v1:" + base64(iv ‖ ciphertext ‖ tag).
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static fromKey(key: Buffer): SecretBox {
    if (key.length !== 32) throw new Error("secret key must be 32 bytes");
    return new SecretBox(key);
  }

  /** Loads DATA_DIR/secret.key, creating it (0600) when missing. */
  static open(dataDir: string): SecretBox {
    const file = join(dataDir, KEY_FILE);
    if (!existsSync(file)) {
      writeFileSync(file, nodeCrypto().randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" });
    }
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    const key = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
    if (key.length !== 32) throw new Error(`${file} is not a valid key (expected 32 bytes, base64)`);
    return new SecretBox(key);
  }

  encrypt(plain: string): string {
    const iv = nodeCrypto().randomBytes(12);
    const cipher = nodeCrypto().createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64");
  }

  /** Whether a stored value is in the sealed format (a clear value never is after the start-up sweep). */
  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }

  /** Seals an optional stored secret (null stays null). */
  seal(plain: string): string;
  seal(plain: string | null | undefined): string | null;
  seal(plain: string | null | undefined): string | null {
    return plain === null || plain === undefined ? null : this.encrypt(plain);
  }

  /**
   * Opens an optional stored secret. A value not in the sealed format is
   * returned as it is: only rows written before sealing (sealed by the start-up
   * sweep) or written by hand into the database look like that.
   */
  open(stored: string): string;
  open(stored: string | null | undefined): string | null;
  open(stored: string | null | undefined): string | null {
    if (stored === null || stored === undefined) return null;
    return SecretBox.isSealed(stored) ? this.decrypt(stored) : stored;
  }

  decrypt(sealed: string): string {
    if (!sealed.startsWith(PREFIX)) throw new Error("not an encrypted value");
    const raw = Buffer.from(sealed.slice(PREFIX.length), "base64");
    const iv = raw.subarray(0, 12);
    const tag = raw.subarray(raw.length - 16);
    const decipher = nodeCrypto().createDecipheriv("aes-256-gcm", this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
  }
}
