/**
 * The web app's codings come from the build (ADR 0028): the binary, copied alone into an empty folder,
 * answers the very first request of its largest script after a start in brotli, or in gzip, from the copy
 * embedded in it, and that body decodes to exactly what an identity request gets.
 * Needs `npm run build` first (the test command does it).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { staticChunkImports } from "../../src/server/transport/page";
import { freePort, waitForHealth } from "../browser/harness";
import { copiedBinary } from "./copied-binary";

const box = copiedBinary("pbx-smoke-precompressed-");

/** Starts the copied binary from its own folder, runs `fn` against it, and stops it. */
async function started<T>(fn: (base: string) => Promise<T>): Promise<T> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([box.bin], {
    cwd: box.dir,
    env: box.env({
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "silent",
      // The PBX host's own files are absent (see test/helpers/server.ts).
      ASTERISK_MANAGER_CONF: join(box.dir, "absent-manager.conf"),
      FREEPBX_CONF: join(box.dir, "absent-freepbx.conf"),
    }),
    stdout: "ignore",
    stderr: "ignore",
  });
  try {
    await waitForHealth(base, proc);
    return await fn(base);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

/** A request whose body comes back as sent (fetch would otherwise decode it). */
async function get(base: string, path: string, acceptEncoding: string) {
  const start = performance.now();
  const res = await fetch(base + path, { headers: { "accept-encoding": acceptEncoding }, decompress: false });
  const body = Buffer.from(await res.arrayBuffer());
  return { res, body, ms: performance.now() - start };
}

describe("precompressed assets", () => {
  /** The largest script and its identity body, found in a run of its own: the runs below start fresh. */
  let largest: { path: string; body: Buffer } = { path: "", body: Buffer.alloc(0) };

  test("the largest script is found among every chunk the page reaches", async () => {
    largest = await started(async (base) => {
      const html = await (await fetch(`${base}/`)).text();
      const pending = [...html.matchAll(/<script[^>]*\ssrc="(\/chunk-[a-z0-9]+\.js)"/g)].map((m) => m[1] as string);
      const seen = new Map<string, Buffer>();
      while (pending.length) {
        const path = pending.pop() as string;
        if (seen.has(path)) continue;
        const { body } = await get(base, path, "identity");
        seen.set(path, body);
        const code = body.toString();
        const lazy = [...code.matchAll(/\bimport\(\s*["'](\/chunk-[a-z0-9]+\.js)["']\s*\)/g)].map(
          (m) => m[1] as string,
        );
        pending.push(...staticChunkImports(code), ...lazy);
      }
      expect(seen.size).toBeGreaterThan(5);
      const [path, body] = [...seen].sort((a, b) => b[1].length - a[1].length)[0] as [string, Buffer];
      return { path, body };
    });
    expect(largest.body.length).toBeGreaterThan(100_000);
  });

  for (const [coding, decode] of [
    ["br", brotliDecompressSync],
    ["gzip", gunzipSync],
  ] as const) {
    test(`the first request after a start is answered in ${coding}, and decodes to the identity body`, async () => {
      expect(largest.path).not.toBe("");
      await started(async (base) => {
        // Nothing of the page or the script has been asked for in this process yet.
        const first = await get(base, largest.path, coding);
        expect(first.res.status).toBe(200);
        expect(first.res.headers.get("content-encoding")).toBe(coding);
        expect(first.res.headers.get("vary")).toBe("Accept-Encoding");
        expect(first.res.headers.get("etag")).toMatch(coding === "br" ? /-br"$/ : /-gz"$/);
        expect(Number(first.res.headers.get("content-length"))).toBe(first.body.length);
        expect(first.body.length).toBeLessThan(largest.body.length / 2);
        expect(decode(first.body).equals(largest.body)).toBe(true);
        // Identity is still served, the same bytes as in the earlier run.
        const identity = await get(base, largest.path, "identity");
        expect(identity.res.headers.get("content-encoding")).toBeNull();
        expect(identity.body.equals(largest.body)).toBe(true);
        console.log(
          `precompressed: ${largest.path} ${largest.body.length} B, first request in ${coding} ` +
            `${first.body.length} B in ${first.ms.toFixed(1)} ms`,
        );
      });
    });
  }

  test("the folder holds the binary and its data folder only: every asset came from inside the binary", () => {
    expect(readdirSync(box.dir).sort()).toEqual(["pbx-console", "state"]);
  });
});
