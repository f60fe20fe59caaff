/**
 * The first request of the page's entry script after a start, as a browser asks for it, on the binary
 * (its codings embedded by the build, ADR 0028), beside the same script through the same handler
 * (`pageRoutes`) in this process twice: once without the build's copies, compressed at its first request
 * as the binary did before it embedded them (gzip at once, brotli later in the background), once with
 * copies made here. Each handler answers its first request only once, so each figure is one request.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HTMLBundle } from "bun";
import { CODING_SUFFIX, COMPILE_HINT } from "../../src/server/transport/assets";
import { compressBytes } from "../../src/server/transport/encoding";
import { pageRoutes } from "../../src/server/transport/page";

export interface FirstScript {
  path: string;
  /** Bytes as served (identity) and as sent to a browser. */
  identityBytes: number;
  sentBytes: number;
  coding: string;
  /** The binary: its first request after a start, and the median of 20 later ones. */
  firstMs: number;
  laterMs: number;
  /** The same bytes compressed at the first request: what came (gzip), in how long, and when brotli was ready. */
  before: { coding: string; firstMs: number; brotliReadyMs: number };
  /** The same bytes with the build's copies, through the same handler here. */
  after: { coding: string; firstMs: number };
}

async function timed(ask: () => Promise<Response>): Promise<{ ms: number; coding: string; bytes: number }> {
  const start = performance.now();
  const res = await ask();
  const bytes = (await res.arrayBuffer()).byteLength;
  return { ms: performance.now() - start, coding: res.headers.get("content-encoding") ?? "identity", bytes };
}

/** Run right after the console started: nothing may have asked for the entry script yet. */
export async function firstScript(base: string, acceptEncoding: string): Promise<FirstScript> {
  const html = await (await fetch(`${base}/`)).text();
  const path = html.match(/<script[^>]*\ssrc="(\/chunk-[a-z0-9]+\.js)"/)?.[1];
  if (!path) throw new Error("the page names no script");
  const headers = { "accept-encoding": acceptEncoding };
  const first = await timed(() => fetch(base + path, { headers, decompress: false }));
  const later: number[] = [];
  for (let i = 0; i < 20; i++) later.push((await timed(() => fetch(base + path, { headers, decompress: false }))).ms);
  later.sort((a, b) => a - b);
  const served = new Uint8Array(
    await (await fetch(base + path, { headers: { "accept-encoding": "identity" } })).arrayBuffer(),
  );

  // The chunk as built (the handler adds the compile hint again), in a folder of its own.
  const dir = mkdtempSync(join(tmpdir(), "pbx-bench-first-"));
  try {
    const name = path.slice(1);
    const file = join(dir, name);
    const index = join(dir, "index.html");
    writeFileSync(index, "<!doctype html>");
    writeFileSync(file, served.subarray(COMPILE_HINT.length));
    const routes = (precompressed?: ("br" | "gzip")[]) =>
      pageRoutes(
        {
          index,
          files: [
            { path: index, loader: "html", isEntry: true, headers: { etag: "i", "content-type": "text/html" } },
            {
              path: file,
              loader: "js",
              isEntry: false,
              headers: { etag: "c", "content-type": "text/javascript;charset=utf-8" },
              precompressed,
            },
          ],
        } as HTMLBundle,
        { tls: false, dev: false },
      );
    const ask = (r: ReturnType<typeof routes>) => () =>
      r[path](new Request(`http://h${path}`, { headers })) as Promise<Response>;

    const runtime = routes();
    const start = performance.now();
    const beforeFirst = await timed(ask(runtime));
    let brotliReadyMs = Number.NaN;
    while (performance.now() - start < 30_000) {
      if ((await timed(ask(runtime))).coding === "br") {
        brotliReadyMs = performance.now() - start;
        break;
      }
      await Bun.sleep(5);
    }

    for (const coding of ["br", "gzip"] as const) {
      const coded = await compressBytes(served, coding, "file");
      if (coded) writeFileSync(file + CODING_SUFFIX[coding], coded);
    }
    const afterFirst = await timed(ask(routes(["br", "gzip"])));
    return {
      path,
      identityBytes: served.byteLength,
      sentBytes: first.bytes,
      coding: first.coding,
      firstMs: first.ms,
      laterMs: later[later.length >> 1] as number,
      before: { coding: beforeFirst.coding, firstMs: beforeFirst.ms, brotliReadyMs },
      after: { coding: afterFirst.coding, firstMs: afterFirst.ms },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { startConsole } = await import("./console");
  const con = await startConsole();
  try {
    console.log(JSON.stringify(await firstScript(con.base, "gzip, deflate, br, zstd"), null, 2));
  } finally {
    await con.stop();
  }
}
