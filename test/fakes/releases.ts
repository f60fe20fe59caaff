/**
 * A fake release server laid out like GitHub releases, where the console's UPDATE_URL points by default
 * (docs/decisions/0065-self-update.md): `/<owner>/<repo>/releases/latest/download/<asset>` answers 302 to
 * `/<owner>/<repo>/releases/download/v<version>/<asset>`, which serves the asset (`manifest.json`,
 * `manifest.json.sig`, the binaries). It signs manifests with its own Ed25519 key (`publicKey`: give it to the
 * binary as PBX_CONSOLE_TEST_RELEASE_KEY). The fake's own choices: no ETags, no `application/octet-stream`
 * negotiation, assets served from memory or from a file.
 */
import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { readFileSync } from "node:fs";

const REPO = "/pbx-console/pbx-console/releases";

export interface PublishOptions {
  version: string;
  /** The binary's bytes, or a file served as it is. */
  binary: Uint8Array | { path: string };
  notes?: string;
  released?: string;
  /** The platform key (default this machine's `linux-x64`…). */
  platform?: string;
  /** Announced instead of the real hash / size. */
  sha256?: string;
  size?: number;
  /** Serve these bytes as the binary instead (after the manifest was made from `binary`). */
  serveInstead?: Uint8Array;
  /** Sign with another key (a manifest not signed by the release key). */
  signWith?: KeyObject;
  /** Change the manifest's bytes after signing (a tampered manifest). */
  tamper?: (bytes: Uint8Array) => Uint8Array;
  /** Replace the signature file's text. */
  signature?: string;
  /** The binary's URL in the manifest (default: its asset path, relative to the manifest). */
  binaryUrl?: string;
}

type Asset = Uint8Array | { path: string };

export function rawPublicKey(key: KeyObject): string {
  return (key.export({ format: "der", type: "spki" }) as Buffer).subarray(12).toString("base64");
}

export function fileSha256(path: string): { sha256: string; size: number } {
  const bytes = readFileSync(path);
  return { sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.length };
}

export async function startFakeReleases() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const state = {
    /** version → asset name → content */
    releases: new Map<string, Map<string, Asset>>(),
    latest: null as string | null,
    /** Requests for each path. */
    hits: new Map<string, number>(),
  };
  const platform = `${process.platform}-${process.arch}`;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      state.hits.set(path, (state.hits.get(path) ?? 0) + 1);
      if (req.method !== "GET") return new Response("Method Not Allowed", { status: 405 });
      const latest = path.match(/^\/pbx-console\/pbx-console\/releases\/latest\/download\/([^/]+)$/);
      if (latest) {
        if (!state.latest) return new Response("Not Found", { status: 404 });
        return new Response(null, {
          status: 302,
          headers: { location: `${REPO}/download/v${state.latest}/${latest[1]}` },
        });
      }
      const m = path.match(/^\/pbx-console\/pbx-console\/releases\/download\/v([^/]+)\/([^/]+)$/);
      const asset = m ? state.releases.get(m[1] as string)?.get(m[2] as string) : undefined;
      if (!asset) return new Response("Not Found", { status: 404 });
      if (!(asset instanceof Uint8Array)) return new Response(Bun.file(asset.path));
      return new Response(new Uint8Array(asset), { headers: { "content-type": "application/octet-stream" } });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;

  function publish(opts: PublishOptions) {
    const name = `pbx-console-${opts.platform ?? platform}`;
    const real =
      opts.binary instanceof Uint8Array
        ? { sha256: createHash("sha256").update(opts.binary).digest("hex"), size: opts.binary.length }
        : fileSha256(opts.binary.path);
    const manifest = {
      product: "pbx-console",
      version: opts.version,
      released: opts.released ?? new Date().toISOString(),
      notes: opts.notes ?? `Release ${opts.version}`,
      platforms: {
        [opts.platform ?? platform]: {
          url: opts.binaryUrl ?? name,
          sha256: opts.sha256 ?? real.sha256,
          size: opts.size ?? real.size,
        },
      },
    };
    const signed = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
    const signature = sign(null, signed, opts.signWith ?? privateKey).toString("base64");
    const assets = new Map<string, Asset>([
      ["manifest.json", opts.tamper ? opts.tamper(signed) : signed],
      ["manifest.json.sig", new TextEncoder().encode(`${opts.signature ?? signature}\n`)],
      [name, opts.serveInstead ?? opts.binary],
    ]);
    state.releases.set(opts.version, assets);
    state.latest = opts.version;
    return { manifest, bytes: signed, signature };
  }

  return {
    url,
    /** Where UPDATE_URL points: the latest release's manifest. */
    manifestUrl: `${url}${REPO}/latest/download/manifest.json`,
    /** The fake's release key, 32 raw bytes in base64. */
    publicKey: rawPublicKey(publicKey),
    privateKey,
    state,
    publish,
    /** Signs bytes with the fake's key (base64). */
    sign: (bytes: Uint8Array) => sign(null, bytes, privateKey).toString("base64"),
    stop: () => server.stop(true),
  };
}

export type FakeReleases = Awaited<ReturnType<typeof startFakeReleases>>;
