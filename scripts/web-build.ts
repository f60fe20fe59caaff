/**
 * The web app as build.ts embeds it (ADR 0055): built on its own into a directory, each hashed text file
 * compressed beside it (`<file>.br` at brotli quality 11, `<file>.gz` at gzip level 9, each only when
 * smaller), and given to the server build in place of its HTML import. Bun's HTML import embeds its outputs
 * as they are, with no step between bundling and embedding, so the files are built first and the
 * directory is embedded whole (`compile.assets`); the server then serves every coding from the binary
 * from its first request instead of compressing at run time.
 */
import { basename, join, relative, resolve } from "node:path";
import type { BunPlugin } from "bun";
import { type BuiltFile, CODING_SUFFIX, precompressible, servedBytes } from "../src/server/transport/assets";
import { type Coding, compressBytes } from "../src/server/transport/encoding";
import { webBuildOptions } from "./build-options";

/** The embedded directory's name: `compile.assets` embeds a directory under its basename. */
export const WEB_DIR = "web";

/** The built web app: its files as the server lists them, paths relative to the directory. */
export interface WebBuild {
  index: string;
  files: BuiltFile[];
}

const LOADERS: Record<string, BuiltFile["loader"]> = { ".html": "html", ".js": "js", ".css": "css" };

/** Builds the web app into `dir` (whose basename is `WEB_DIR`) with each coding of its hashed text files. */
export async function buildWeb(dir: string): Promise<WebBuild> {
  if (basename(dir) !== WEB_DIR) throw new Error(`the web app's directory must be named ${WEB_DIR}`);
  const result = await Bun.build({ ...webBuildOptions, outdir: dir });
  if (!result.success) throw new AggregateError(result.logs, "the web app did not build");
  const html = result.outputs.find((o) => o.path.endsWith(".html"));
  if (!html) throw new Error("the web app's build has no HTML");
  const files = await Promise.all(
    result.outputs.map(async (out): Promise<BuiltFile> => {
      const path = relative(dir, out.path);
      const name = basename(path);
      const bytes = new Uint8Array(await out.arrayBuffer());
      const file: BuiltFile = {
        path,
        loader: LOADERS[name.slice(name.lastIndexOf("."))] ?? "file",
        isEntry: out.kind === "entry-point",
        headers: { etag: Bun.hash(bytes).toString(36), "content-type": out.type },
      };
      if (!precompressible(name, out.type)) return file;
      const served = servedBytes(name, bytes);
      const codings = await Promise.all(
        (["br", "gzip"] as const).map(async (coding): Promise<Coding | null> => {
          const coded = await compressBytes(served, coding, "file");
          if (!coded) return null;
          await Bun.write(out.path + CODING_SUFFIX[coding], coded);
          return coding;
        }),
      );
      return { ...file, precompressed: codings.filter((c) => c !== null) };
    }),
  );
  return { index: relative(dir, html.path), files };
}

/**
 * The server's `import page from "../web/index.html"` becomes the built web app: the same shape as Bun's
 * HTML bundle (`index`, `files`), with paths inside the embedded directory and each file's codings.
 */
export function builtPage(web: WebBuild): BunPlugin {
  const html = resolve("src/web/index.html");
  const module = `import { join } from "node:path";
const dir = join(import.meta.dir, ${JSON.stringify(WEB_DIR)});
const web = ${JSON.stringify(web)};
export default { index: join(dir, web.index), files: web.files.map((f) => ({ ...f, path: join(dir, f.path) })) };
`;
  return {
    name: "built-web-app",
    setup(build) {
      build.onResolve({ filter: /\.html$/ }, (args) =>
        resolve(args.resolveDir, args.path) === html ? { path: html, namespace: "built-web-app" } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "built-web-app" }, () => ({ contents: module, loader: "js" }));
    },
  };
}

/** The files of `dir` the build wrote beside the outputs, for its size in the binary. */
export function copiesSize(dir: string, web: WebBuild): number {
  return web.files
    .flatMap((f) => (f.precompressed ?? []).map((c) => Bun.file(join(dir, f.path + CODING_SUFFIX[c])).size))
    .reduce((a, b) => a + b, 0);
}
