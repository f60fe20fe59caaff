/**
 * The key that signs pbx-console releases (docs/decisions/0065-self-update.md): an Ed25519 public key, its
 * 32 raw bytes in base64. A release manifest is accepted only with a valid signature by this key (or, where
 * it grants nothing, a test key: `./test-hooks.ts`). Rotating it means a release signed by the old key that
 * carries the new one here.
 */
import type { KeyObject } from "node:crypto";
import { nodeCrypto } from "../lazy-node";

export const RELEASE_PUBLIC_KEY = "cTuya1jBInYagWYdt3O9M84cAL7Yok84VOUQ/uhHKh4=";

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow it. */
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** A raw 32-byte Ed25519 public key (base64) as a key object, or null when it is not one. */
export function ed25519PublicKey(base64: string): KeyObject | null {
  const raw = Buffer.from(base64.trim(), "base64");
  if (raw.length !== 32 || raw.toString("base64") !== base64.trim()) return null;
  return nodeCrypto().createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: "der", type: "spki" });
}
