/**
 * Static assets of the compiled binary (ADR 0028): the HTML is revalidated every time, the
 * content-hashed assets are cached for a year, and text goes brotli or gzip by Accept-Encoding with one
 * ETag per coding, the assets' codings made by the build (test/smoke/precompressed.test.ts: from the first
 * request), the page's here. Needs `npm run build` first (the test command does it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, constants as zlibConstants } from "node:zlib";
import type { HTMLBundle } from "bun";
import { acceptedCodings, COMPILE_HINT, pageRoutes } from "../../src/server/transport/page";
import { type Binary, startBinary } from "../security/binary";

const IMMUTABLE = "public, max-age=31536000, immutable";

let bin: Binary;
let assets: string[];
let js: string;

/** A request whose body comes back exactly as sent (fetch would otherwise decode it). */
function raw(path: string, acceptEncoding: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  return fetch(bin.base + path, {
    method: init.method ?? "GET",
    headers: { "accept-encoding": acceptEncoding, ...init.headers },
    decompress: false,
  });
}

async function bytes(res: Response): Promise<Buffer> {
  return Buffer.from(await res.arrayBuffer());
}

/**
 * The page's brotli (quality 11) is made once, in the background, on its first request (ADR 0028); until
 * it is ready a brotli client gets gzip. Ask until brotli comes (bounded), so the comparisons below see it.
 * An asset's comes from the build and is there at once.
 */
async function brotliReady(path: string): Promise<Response> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await raw(path, "br, gzip");
    if (res.headers.get("content-encoding") === "br" || Date.now() > deadline) return res;
    await res.arrayBuffer();
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  bin = await startBinary({ logRequests: false });
  const html = await (await fetch(`${bin.base}/`)).text();
  // The files the page names (not the API answers it preloads: ADR 0030).
  assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)]
    .map((m) => m[1] as string)
    .filter((path) => !path.startsWith("/api/"));
  js = assets.find((a) => a.endsWith(".js")) as string;
});
afterAll(() => bin.stop());

describe("caching", () => {
  test("the HTML is revalidated every time and keeps its security headers and a 304", async () => {
    for (const path of ["/", "/extensions"]) {
      const res = await raw(path, "identity");
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      const etag = res.headers.get("etag") as string;
      expect(etag).toMatch(/^".+"$/);
      const again = await raw(path, "identity", { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(again.headers.get("cache-control")).toBe("no-cache");
    }
  });

  test("every asset the HTML names has a content hash in its name and is cached for a year", async () => {
    expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
    expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
    for (const path of assets) {
      expect(path).toMatch(/-[a-z0-9]{8}\.[a-z0-9]+$/);
      const res = await raw(path, "gzip");
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe(IMMUTABLE);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  test("API answers stay uncacheable", async () => {
    expect((await bin.call("GET", "/api/auth/me")).headers.get("cache-control")).toBe("no-store");
  });
});

describe("compression", () => {
  test("br, gzip and identity decode to exactly the same bytes, for every asset and the HTML", async () => {
    for (const path of [...assets, "/"]) {
      const identity = await raw(path, "identity");
      expect(identity.headers.get("content-encoding")).toBeNull();
      const plain = await bytes(identity);
      const gz = await raw(path, "gzip");
      expect(gz.headers.get("content-encoding")).toBe("gzip");
      expect(gz.headers.get("vary")).toBe("Accept-Encoding");
      const gzBody = await bytes(gz);
      expect(Number(gz.headers.get("content-length"))).toBe(gzBody.length);
      expect(gunzipSync(gzBody).equals(plain)).toBe(true);
      const br = await brotliReady(path);
      expect(br.headers.get("content-encoding")).toBe("br");
      expect(br.headers.get("vary")).toBe("Accept-Encoding");
      const brBody = await bytes(br);
      expect(brotliDecompressSync(brBody).equals(plain)).toBe(true);
      // On a few hundred bytes brotli's overhead can outweigh its gain over gzip; on anything larger it wins.
      if (plain.length >= 1024) expect(brBody.length).toBeLessThan(gzBody.length);
      if (path === js) {
        console.log(
          `assets: ${path} raw ${plain.length} B, gzip ${gzBody.length} B (${pct(gzBody, plain)}), ` +
            `br ${brBody.length} B (${pct(brBody, plain)})`,
        );
      }
    }
  });

  test("every script starts with V8's compile hint, once, and then the chunk", async () => {
    const scripts = assets.filter((a) => a.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(1);
    for (const path of scripts) {
      const text = await (await raw(path, "identity")).text();
      expect(text.startsWith(COMPILE_HINT)).toBe(true);
      // Once, on a line of its own: the chunk as built follows (the app running is the browser tests' business).
      expect(text.split(COMPILE_HINT.trim()).length).toBe(2);
      expect(text.length).toBeGreaterThan(COMPILE_HINT.length + 100);
    }
  });

  test("brotli is preferred, q=0 refuses a coding, and refusing both gives identity", async () => {
    await (await brotliReady(js)).arrayBuffer();
    const cases: [string, string | null][] = [
      ["gzip, deflate, br, zstd", "br"],
      ["br;q=0, gzip", "gzip"],
      ["gzip;q=1, br;q=0.5", "gzip"],
      ["*", "br"],
      ["gzip;q=0, br;q=0", null],
      ["", null],
    ];
    for (const [accept, coding] of cases) {
      const res = await raw(js, accept);
      await res.arrayBuffer();
      expect([accept, res.headers.get("content-encoding")]).toEqual([accept, coding]);
    }
  });

  test("each coding has its own ETag: it gives 304 for that coding only", async () => {
    await (await brotliReady(js)).arrayBuffer();
    const tags: Record<string, string> = {};
    for (const accept of ["br", "gzip", "identity"]) {
      const res = await raw(js, accept);
      await res.arrayBuffer();
      tags[accept] = res.headers.get("etag") as string;
    }
    expect(new Set(Object.values(tags)).size).toBe(3);
    for (const [accept, etag] of Object.entries(tags)) {
      const same = await raw(js, accept, { headers: { "if-none-match": etag } });
      expect(same.status).toBe(304);
      expect(same.headers.get("etag")).toBe(etag);
      expect(same.headers.get("cache-control")).toBe(IMMUTABLE);
      expect((await same.arrayBuffer()).byteLength).toBe(0);
      // Another coding's ETag must not validate this one: the cache would keep bytes it cannot decode.
      for (const [other, otherTag] of Object.entries(tags)) {
        if (other === accept) continue;
        const res = await raw(js, accept, { headers: { "if-none-match": otherTag } });
        await res.arrayBuffer();
        expect([accept, otherTag, res.status]).toEqual([accept, otherTag, 200]);
      }
    }
  });

  test("HEAD carries the GET headers and no body", async () => {
    await (await brotliReady(js)).arrayBuffer();
    for (const path of [js, "/"]) {
      for (const accept of ["br", "gzip", "identity"]) {
        const get = await raw(path, accept);
        const getLength = (await get.arrayBuffer()).byteLength;
        const head = await raw(path, accept, { method: "HEAD" });
        expect(head.status).toBe(200);
        expect((await head.arrayBuffer()).byteLength).toBe(0);
        for (const name of ["content-encoding", "content-type", "etag", "cache-control", "vary"])
          expect(head.headers.get(name)).toBe(get.headers.get(name));
        expect(Number(head.headers.get("content-length"))).toBe(getLength);
      }
    }
  });

  test("other methods on an asset are refused", async () => {
    const res = await raw(js, "identity", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("the built page's routes, on files the binary does not have", () => {
  const dir = mkdtempSync(join(tmpdir(), "pbx-assets-"));
  const file = (name: string, content: string | Uint8Array, type: string) => {
    writeFileSync(join(dir, name), content);
    return {
      path: join(dir, name),
      loader: name.endsWith(".html") ? "html" : "file",
      headers: { etag: `e-${name}`, "content-type": type },
    };
  };
  const files = [
    file("index.html", "<!doctype html><title>x</title>", "text/html;charset=utf-8"),
    file("logo.svg", `<svg xmlns="http://www.w3.org/2000/svg">${"<g/>".repeat(500)}</svg>`, "image/svg+xml"),
    file("font-abcd1234.woff2", new Uint8Array(4096).fill(7), "font/woff2"),
  ];
  const page = { index: files[0]?.path, files } as unknown as HTMLBundle;
  const routes = pageRoutes(page, { tls: false, dev: false });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a name without a content hash is revalidated, not cached for a year", async () => {
    const res: Response = await routes["/logo.svg"](
      new Request("http://h/logo.svg", { headers: { "accept-encoding": "gzip" } }),
    );
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("fonts and images go uncompressed, without Vary, and are cached for a year when hashed", async () => {
    const res: Response = await routes["/font-abcd1234.woff2"](
      new Request("http://h/font-abcd1234.woff2", { headers: { "accept-encoding": "br, gzip" } }),
    );
    expect(res.headers.get("cache-control")).toBe(IMMUTABLE);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("vary")).toBeNull();
    expect(res.headers.get("etag")).toBe('"e-font-abcd1234.woff2"');
    expect((await res.arrayBuffer()).byteLength).toBe(4096);
  });

  test("a file with the build's copies is answered from them at the first request; a coding it lacks is not offered", async () => {
    const code = `export const x = "${"abc".repeat(400)}";`;
    const served = Buffer.from(COMPILE_HINT + code);
    // A copy the server would not make itself (quality 1, not 11): what comes back must be this copy.
    const copy = brotliCompressSync(served, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 } });
    const built = { ...file("app-abcd1234.js", code, "text/javascript;charset=utf-8"), precompressed: ["br"] };
    writeFileSync(`${built.path}.br`, copy);
    const withCopies = pageRoutes({ index: files[0]?.path, files: [files[0], built] } as unknown as HTMLBundle, {
      tls: false,
      dev: false,
    });
    const ask = (accept: string): Promise<Response> =>
      withCopies["/app-abcd1234.js"](
        new Request("http://h/app-abcd1234.js", { headers: { "accept-encoding": accept } }),
      );
    const br = await ask("br, gzip");
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toBe("Accept-Encoding");
    expect(br.headers.get("cache-control")).toBe(IMMUTABLE);
    expect(Buffer.from(await br.arrayBuffer()).equals(copy)).toBe(true);
    const identity = await ask("identity");
    expect(br.headers.get("etag")).toBe(`${(identity.headers.get("etag") as string).slice(0, -1)}-br"`);
    expect(Buffer.from(await identity.arrayBuffer()).equals(served)).toBe(true);
    // The build made no gzip copy (it would not have been smaller): gzip is not offered, not made here.
    const gzip = await ask("gzip");
    expect(gzip.headers.get("content-encoding")).toBeNull();
    expect(Buffer.from(await gzip.arrayBuffer()).equals(served)).toBe(true);
  });

  test("Accept-Encoding: q-values order the codings and q=0 refuses one", () => {
    expect(acceptedCodings("gzip, deflate, br, zstd")).toEqual(["br", "gzip"]);
    expect(acceptedCodings("gzip;q=1.0, br;q=0.8")).toEqual(["gzip", "br"]);
    expect(acceptedCodings("br;q=0, gzip")).toEqual(["gzip"]);
    expect(acceptedCodings("*;q=0.5, br;q=0")).toEqual(["gzip"]);
    expect(acceptedCodings("x-gzip")).toEqual(["gzip"]);
    expect(acceptedCodings("gzip;q=0, br;q=0")).toEqual([]);
    expect(acceptedCodings("identity")).toEqual([]);
    expect(acceptedCodings(null)).toEqual([]);
  });
});

function pct(part: Buffer, whole: Buffer): string {
  return `${Math.round((100 * part.length) / whole.length)} %`;
}
