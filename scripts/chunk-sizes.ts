/**
 * The web app's chunks as build.ts makes them (its options, scripts/build-options.ts): each output's raw
 * and gzip size, and the initial JavaScript (the scripts the HTML loads plus every chunk they import
 * statically, transitively), which ADR 0030 keeps ≤ 150 KB gzipped.
 *
 *   bun scripts/chunk-sizes.ts          a table
 *   bun scripts/chunk-sizes.ts --json   {chunks: [...], initial: {raw, gzip, files}} (for the bench)
 *
 * gzip is level 9, as the build compresses them (scripts/web-build.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { gzipSync } from "node:zlib";
import type { BuildArtifact } from "bun";
import { webBuildOptions } from "./build-options";

export interface ChunkSize {
  file: string;
  kind: string;
  raw: number;
  gzip: number;
  initial: boolean;
}

const CHUNK = String.raw`["']\.?\/?((?:[\w-]+\/)*chunk-[\w]+\.js)["']`;

/** Static imports of a chunk (`import … from "./chunk-x.js"`, `import "./chunk-x.js"`), not `import()`. */
export function staticImports(code: string): string[] {
  return [
    ...new Set(
      [...code.matchAll(new RegExp(String.raw`(?:\bfrom|\bimport)\s*${CHUNK}`, "g"))].map((m) =>
        basename(m[1] as string),
      ),
    ),
  ];
}

/** Dynamic imports of a chunk (`import("./chunk-x.js")`). */
export function dynamicImports(code: string): string[] {
  return [
    ...new Set(
      [...code.matchAll(new RegExp(String.raw`\bimport\(\s*${CHUNK}\s*\)`, "g"))].map((m) => basename(m[1] as string)),
    ),
  ];
}

export async function measureChunks(): Promise<{ chunks: ChunkSize[]; initial: { raw: number; gzip: number } }> {
  const outdir = mkdtempSync(join(tmpdir(), "pbx-chunks-"));
  try {
    const result = await Bun.build({ ...webBuildOptions, outdir });
    if (!result.success) throw new AggregateError(result.logs, "build failed");
    const html = result.outputs.find((o) => o.loader === "html" && o.path.endsWith(".html"));
    if (!html) throw new Error("no HTML in the build");
    const page = await html.text();
    const outputs = new Map(result.outputs.map((o) => [basename(o.path), o]));
    const text = async (file: string) => (await outputs.get(file)?.text()) ?? "";
    // The web app's files: what the HTML names, and every chunk its scripts import, statically or not.
    const named = [...page.matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)].map((m) => basename(m[1] as string));
    const web = new Set<string>();
    const walk = [...named];
    while (walk.length) {
      const file = walk.pop() as string;
      if (web.has(file) || !outputs.has(file)) continue;
      web.add(file);
      if (file.endsWith(".js")) walk.push(...staticImports(await text(file)), ...dynamicImports(await text(file)));
    }
    const code = new Map<string, string>();
    const chunks: ChunkSize[] = [];
    for (const out of [html, ...[...web].map((f) => outputs.get(f) as BuildArtifact)]) {
      const file = basename(out.path);
      const bytes = new Uint8Array(await out.arrayBuffer());
      if (file.endsWith(".js")) code.set(file, new TextDecoder().decode(bytes));
      chunks.push({
        file,
        kind: out.kind,
        raw: bytes.byteLength,
        gzip: gzipSync(bytes, { level: 9 }).byteLength,
        initial: false,
      });
    }
    // The entry: the script the HTML loads; then what it imports statically.
    const pending = [...page.matchAll(/<script[^>]+src="\.?\/?([^"]+\.js)"/g)].map((m) => basename(m[1] as string));
    const initial = new Set<string>();
    while (pending.length) {
      const file = pending.pop() as string;
      if (initial.has(file)) continue;
      initial.add(file);
      pending.push(...staticImports(code.get(file) ?? ""));
    }
    for (const c of chunks) c.initial = initial.has(c.file);
    chunks.sort((a, b) => Number(b.initial) - Number(a.initial) || b.gzip - a.gzip);
    const js = chunks.filter((c) => c.initial);
    return {
      chunks,
      initial: { raw: js.reduce((s, c) => s + c.raw, 0), gzip: js.reduce((s, c) => s + c.gzip, 0) },
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { chunks, initial } = await measureChunks();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify({ chunks, initial }, null, 2));
  } else {
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`.padStart(10);
    console.log(`${"file".padEnd(24)} ${"raw".padStart(10)} ${"gzip".padStart(10)}  initial`);
    for (const c of chunks) console.log(`${c.file.padEnd(24)} ${kb(c.raw)} ${kb(c.gzip)}  ${c.initial ? "yes" : ""}`);
    const all = chunks.filter((c) => c.file.endsWith(".js"));
    console.log(`${chunks.length} files, ${all.length} JS chunks`);
    console.log(`initial JS: ${kb(initial.raw)} raw, ${kb(initial.gzip)} gzip`);
  }
}
