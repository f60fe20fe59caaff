/**
 * The release manifest (docs/decisions/0065-self-update.md): `manifest.json`, its exact bytes signed with
 * Ed25519 by the release key, the signature in `manifest.json.sig` (base64). Read only after the signature
 * checks out; then which release is this platform's, and whether it is newer than the running version.
 */
import type { KeyObject } from "node:crypto";
import { isSemver } from "../../shared/update";
import { nodeCrypto } from "../lazy-node";
import { ed25519PublicKey, RELEASE_PUBLIC_KEY } from "./release-key";
import { TEST_RELEASE_KEY, testOverride } from "./test-hooks";

/** The largest manifest and signature file read (a manifest is a few hundred bytes). */
export const MAX_MANIFEST_BYTES = 64 * 1024;
export const MAX_SIGNATURE_BYTES = 1024;
/** The largest binary a manifest may announce (the console is ~130 MB). */
export const MAX_BINARY_BYTES = 512 * 1024 * 1024;
const MAX_NOTES = 10_000;

/** Why an update was refused or failed; `reason` is what the CLI and the API name. */
export type UpdateFailure =
  | "signature"
  | "manifest"
  | "version"
  | "platform"
  | "hash"
  | "size"
  | "download"
  | "backup"
  | "install"
  | "restart"
  | "health"
  | "busy";

export class UpdateError extends Error {
  constructor(
    readonly reason: UpdateFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface PlatformRelease {
  /** Absolute http(s) URL (a relative one in the file is resolved against the manifest's URL). */
  url: string;
  /** Lower-case hex SHA-256 of the binary. */
  sha256: string;
  size: number;
}

export interface ReleaseManifest {
  product: "pbx-console";
  version: string;
  /** ISO 8601. */
  released: string;
  notes: string;
  platforms: Record<string, PlatformRelease>;
}

/** The keys a manifest may be signed with: the built-in one, and a test key where that grants nothing. */
export function releaseKeys(env: Record<string, string | undefined> = process.env): KeyObject[] {
  const keys = [ed25519PublicKey(RELEASE_PUBLIC_KEY) as KeyObject];
  const test = testOverride(TEST_RELEASE_KEY, env);
  if (test) {
    const key = ed25519PublicKey(test);
    if (!key) throw new UpdateError("signature", `${TEST_RELEASE_KEY} is not a 32-byte Ed25519 public key in base64`);
    keys.push(key);
  }
  return keys;
}

/** Checks the detached signature (base64, whitespace around it allowed) over the manifest's exact bytes. */
export function verifyManifestSignature(bytes: Uint8Array, signatureText: string, keys: KeyObject[]): void {
  const text = signatureText.trim();
  const signature = Buffer.from(text, "base64");
  if (signature.length !== 64 || signature.toString("base64") !== text) {
    throw new UpdateError("signature", "Bad signature: manifest.json.sig is not a base64 Ed25519 signature");
  }
  if (!keys.some((key) => nodeCrypto().verify(null, bytes, key, signature))) {
    throw new UpdateError("signature", "Bad signature: the manifest is not signed by the pbx-console release key");
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function bad(message: string): never {
  throw new UpdateError("manifest", `The release manifest is not valid: ${message}`);
}

function releaseUrl(value: unknown, base: string, where: string): string {
  if (typeof value !== "string" || value === "") bad(`${where}.url is missing`);
  const url = URL.parse(value, base);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) bad(`${where}.url must be an http(s) URL`);
  return url.href;
}

/** Parses the (already verified) manifest bytes; `base` is the manifest's URL, for relative binary URLs. */
export function parseManifest(bytes: Uint8Array, base: string): ReleaseManifest {
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    bad("not JSON");
  }
  if (!isObject(data)) bad("not a JSON object");
  if (data.product !== "pbx-console") bad('"product" must be "pbx-console"');
  if (typeof data.version !== "string" || !isSemver(data.version)) bad('"version" must be a version like 1.2.3');
  if (typeof data.released !== "string" || Number.isNaN(Date.parse(data.released)))
    bad('"released" must be a date (ISO 8601)');
  const notes = data.notes ?? "";
  if (typeof notes !== "string" || notes.length > MAX_NOTES)
    bad(`"notes" must be text of at most ${MAX_NOTES} characters`);
  if (!isObject(data.platforms) || Object.keys(data.platforms).length === 0) bad('"platforms" must name at least one');
  const platforms: Record<string, PlatformRelease> = {};
  for (const [name, entry] of Object.entries(data.platforms)) {
    const where = `platforms.${name}`;
    if (!isObject(entry)) bad(`${where} must be an object`);
    if (typeof entry.sha256 !== "string" || !/^[0-9a-fA-F]{64}$/.test(entry.sha256))
      bad(`${where}.sha256 must be 64 hex digits`);
    if (typeof entry.size !== "number" || !Number.isSafeInteger(entry.size) || entry.size <= 0)
      bad(`${where}.size must be a positive whole number of bytes`);
    if (entry.size > MAX_BINARY_BYTES) {
      throw new UpdateError(
        "size",
        `The release's binary is too big: ${entry.size} bytes (at most ${MAX_BINARY_BYTES})`,
      );
    }
    platforms[name] = { url: releaseUrl(entry.url, base, where), sha256: entry.sha256.toLowerCase(), size: entry.size };
  }
  return { product: "pbx-console", version: data.version, released: data.released, notes, platforms };
}

/** Verifies, then parses: a manifest that is not signed is never read. */
export function readSignedManifest(
  bytes: Uint8Array,
  signatureText: string,
  base: string,
  keys: KeyObject[] = releaseKeys(),
): ReleaseManifest {
  verifyManifestSignature(bytes, signatureText, keys);
  return parseManifest(bytes, base);
}

/** This machine's name in a manifest's `platforms`: `linux-x64`, `linux-arm64`. */
export function platformName(): string {
  return `${process.platform}-${process.arch}`;
}

export function releaseFor(manifest: ReleaseManifest, platform = platformName()): PlatformRelease {
  const release = manifest.platforms[platform];
  if (!release) {
    throw new UpdateError("platform", `Release ${manifest.version} has no binary for ${platform}`);
  }
  return release;
}

/**
 * Whether `candidate` is newer than `current` (semantic versioning's order). A running version that is not a
 * release version (a build from source, a test's) counts as older than every release.
 */
export function isNewer(current: string, candidate: string): boolean {
  if (!isSemver(current)) return true;
  return Bun.semver.order(candidate, current) > 0;
}

/** Refuses the same version or an older one (a downgrade): the updater only goes forward. */
export function requireNewer(current: string, candidate: string): void {
  if (isNewer(current, candidate)) return;
  const what = Bun.semver.order(candidate, current) === 0 ? "the same version" : "a downgrade";
  throw new UpdateError("version", `Refused: ${candidate} is ${what} (this is ${current}); updates only go forward`);
}
