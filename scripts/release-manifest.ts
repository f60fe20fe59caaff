/**
 * Writes a release's signed manifest (docs/decisions/0065-self-update.md): `manifest.json` and
 * `manifest.json.sig` (base64 Ed25519 over the manifest's exact bytes) for the given binaries.
 *
 *   bun scripts/release-manifest.ts --version 0.2.0 --key ~/offline/release-ed25519.pem \
 *     [--notes-file NOTES.md] [--base-url https://…/download/v0.2.0/] --out release/ \
 *     linux-x64=dist/pbx-console-linux-x64 [linux-arm64=dist/pbx-console-linux-arm64]
 *
 * Each binary's URL is its file name (relative to the manifest) unless --base-url is given. The key is an
 * Ed25519 private key in PEM (`openssl genpkey -algorithm ed25519`); the script refuses one whose public half is
 * not the key built into the binary (src/server/update/release-key.ts), since such a release would be refused.
 */
import { createHash, createPrivateKey, createPublicKey, sign } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { RELEASE_PUBLIC_KEY } from "../src/server/update/release-key";
import { isSemver } from "../src/shared/update";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    version: { type: "string" },
    key: { type: "string" },
    "notes-file": { type: "string" },
    "base-url": { type: "string" },
    out: { type: "string", default: "release" },
  },
});
const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};
if (!values.version || !isSemver(values.version)) fail("--version must be a release version like 1.2.3");
if (!values.key) fail("--key names the Ed25519 private key (PEM)");
if (positionals.length === 0) fail("name at least one binary as <platform>=<file>, e.g. linux-x64=dist/pbx-console");

const key = createPrivateKey(readFileSync(values.key as string));
const publicRaw = (createPublicKey(key).export({ format: "der", type: "spki" }) as Buffer)
  .subarray(12)
  .toString("base64");
if (publicRaw !== RELEASE_PUBLIC_KEY) fail(`This key's public half (${publicRaw}) is not the binary's release key`);

const platforms: Record<string, { url: string; sha256: string; size: number }> = {};
for (const item of positionals) {
  const [platform, file] = item.split("=", 2);
  if (!platform || !file) fail(`not <platform>=<file>: ${item}`);
  const bytes = readFileSync(file as string);
  const name = basename(file as string);
  platforms[platform as string] = {
    url: values["base-url"] ? new URL(name, values["base-url"]).href : name,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    size: bytes.length,
  };
}
const manifest = {
  product: "pbx-console",
  version: values.version,
  released: new Date().toISOString(),
  notes: values["notes-file"] ? readFileSync(values["notes-file"], "utf8").trim() : "",
  platforms,
};
const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
mkdirSync(values.out as string, { recursive: true });
writeFileSync(join(values.out as string, "manifest.json"), bytes);
writeFileSync(join(values.out as string, "manifest.json.sig"), `${sign(null, bytes, key).toString("base64")}\n`);
console.log(
  `wrote ${join(values.out as string, "manifest.json")} and its signature for ${Object.keys(platforms).join(", ")}`,
);
