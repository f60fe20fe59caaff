// API JSON compressed when large and accepted (ADR 0031): brotli or gzip by Accept-Encoding, decoding to
// the same bytes as identity; small answers, refused codings and secret-carrying reads as they are; each
// coding of a list with its own ETag, kept per version, and a 304 to any of them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { extensions } from "../../src/db/schema";
import { json } from "../../src/server/http";
import { apiRoutes } from "../../src/server/routes";
import { acceptedCodings, COMPRESS_MIN_BYTES, compressAnswer, compressible } from "../../src/server/transport/encoding";
import { codedTag, ListCache } from "../../src/server/transport/list-cache";
import { startTestServer, type TestServer } from "../helpers/server";

let s: TestServer;

/** A request as a browser sends it, the body left as it came (no automatic decoding). */
async function raw(path: string, headers: Record<string, string> = {}, method = "GET") {
  const res = await fetch(s.base + path, {
    method,
    headers: { cookie: s.cookie, ...headers },
    decompress: false,
  } as RequestInit);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const decode = (bytes: Uint8Array, coding: string | null) =>
  coding === "br" ? brotliDecompressSync(bytes) : coding === "gzip" ? gunzipSync(bytes) : Buffer.from(bytes);

beforeAll(async () => {
  s = await startTestServer();
  await s.setup();
  s.db.transaction((tx) => {
    for (let i = 0; i < 5000; i++) {
      tx.insert(extensions)
        .values({ extension: String(10000 + i), name: `User ${i}`, secret: `secret-${i}-0000000000` })
        .run();
    }
  });
});
afterAll(() => s?.stop());

describe("a large list (5,000 extensions)", () => {
  test("gzip and br decode to the same bytes as identity; each coding has its own ETag and Vary", async () => {
    const identity = await raw("/api/extensions", { "accept-encoding": "identity" });
    expect(identity.res.status).toBe(200);
    expect(identity.res.headers.get("content-encoding")).toBeNull();
    expect(identity.res.headers.get("vary")).toBe("Accept-Encoding");
    expect(identity.bytes.byteLength).toBeGreaterThan(500_000);
    const tag = identity.res.headers.get("etag") as string;
    for (const [accept, coding] of [
      ["gzip", "gzip"],
      ["br", "br"],
      ["gzip, deflate, br, zstd", "br"],
      ["br;q=0, gzip", "gzip"],
      ["gzip;q=0.5, br;q=0.9", "br"],
    ] as const) {
      const { res, bytes } = await raw("/api/extensions", { "accept-encoding": accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-encoding"), accept).toBe(coding);
      expect(res.headers.get("vary")).toBe("Accept-Encoding");
      expect(res.headers.get("cache-control")).toBe("no-cache, private");
      expect(res.headers.get("etag")).toBe(codedTag(tag, coding));
      expect(Number(res.headers.get("content-length"))).toBe(bytes.byteLength);
      // Far smaller: the list is repetitive JSON.
      expect(bytes.byteLength).toBeLessThan(identity.bytes.byteLength / 10);
      expect(decode(bytes, coding).equals(Buffer.from(identity.bytes)), accept).toBe(true);
    }
  });

  test("Accept-Encoding identity, or every coding at q=0: sent as it is", async () => {
    for (const accept of ["identity", "gzip;q=0, br;q=0", "br;q=0"]) {
      const { res } = await raw("/api/extensions", { "accept-encoding": accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-encoding"), accept).toBeNull();
    }
  });

  test("a 304 for the ETag of every coding, carrying the tag the client holds", async () => {
    for (const accept of ["identity", "gzip", "br"]) {
      const first = await raw("/api/extensions", { "accept-encoding": accept });
      const tag = first.res.headers.get("etag") as string;
      const again = await raw("/api/extensions", { "accept-encoding": accept, "if-none-match": tag });
      expect(again.res.status, accept).toBe(304);
      expect(again.bytes.byteLength).toBe(0);
      expect(again.res.headers.get("etag")).toBe(tag);
      expect(again.res.headers.get("vary")).toBe("Accept-Encoding");
    }
    // After a write no coding's old tag matches, and the new body is the new list in the asked coding.
    const old = (await raw("/api/extensions", { "accept-encoding": "br" })).res.headers.get("etag") as string;
    const made = await s.call("POST", "/api/extensions", {
      extension: "2001",
      name: "New",
      email: "",
      voicemail: false,
      secret: "",
    });
    expect(made.status, made.text).toBe(201);
    const after = await raw("/api/extensions", { "accept-encoding": "br", "if-none-match": old });
    expect(after.res.status).toBe(200);
    expect(after.res.headers.get("etag")).not.toBe(old);
    expect(after.res.headers.get("content-encoding")).toBe("br");
    const list = JSON.parse(decode(after.bytes, "br").toString()) as { extension: string }[];
    expect(list.map((e) => e.extension)).toContain("2001");
  });

  test("HEAD: the same headers as GET, no body", async () => {
    const get = await raw("/api/extensions", { "accept-encoding": "gzip" });
    const head = await raw("/api/extensions", { "accept-encoding": "gzip" }, "HEAD");
    expect(head.res.status).toBe(200);
    expect(head.bytes.byteLength).toBe(0);
    expect(head.res.headers.get("etag")).toBe(get.res.headers.get("etag"));
    expect(head.res.headers.get("content-encoding")).toBe("gzip");
    expect(head.res.headers.get("content-length")).toBe(get.res.headers.get("content-length"));
  });
});

describe("other JSON answers", () => {
  test("a large read without an ETag (the API contract) goes compressed, no-store", async () => {
    const identity = await raw("/api/openapi.json", { "accept-encoding": "identity" });
    expect(identity.bytes.byteLength).toBeGreaterThan(COMPRESS_MIN_BYTES);
    for (const coding of ["br", "gzip"]) {
      const { res, bytes } = await raw("/api/openapi.json", { "accept-encoding": coding });
      expect(res.headers.get("content-encoding")).toBe(coding);
      expect(res.headers.get("vary")).toBe("Accept-Encoding");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("etag")).toBeNull();
      expect(decode(bytes, coding).equals(Buffer.from(identity.bytes))).toBe(true);
    }
  });

  test("a small answer goes as it is whatever the client accepts", async () => {
    for (const path of ["/api/dashboard/summary", "/api/info", "/api/trunks"]) {
      const { res, bytes } = await raw(path, { "accept-encoding": "br, gzip" });
      expect(res.status, path).toBe(200);
      expect(bytes.byteLength, path).toBeLessThan(COMPRESS_MIN_BYTES);
      expect(res.headers.get("content-encoding"), path).toBeNull();
      expect(JSON.parse(new TextDecoder().decode(bytes))).toBeDefined();
    }
  });

  test("reads that carry a secret and every write are never compressed", async () => {
    const secretReads = apiRoutes.filter((r) => r.method === "GET" && r.minRole === "operator");
    expect(secretReads.map((r) => r.path)).toContain("/api/extensions/:id/provisioning");
    expect(secretReads.map((r) => r.path)).toContain("/api/telnyx/credentials/:id/password");
    for (const r of secretReads) expect(compressible(r), r.path).toBe(false);
    for (const r of apiRoutes.filter((r) => r.method !== "GET")) expect(compressible(r), r.path).toBe(false);
    // The generated configuration of 5,000 extensions (megabytes, SIP secrets inside) goes as it is.
    const generated = await raw("/api/config/generate", { "accept-encoding": "br, gzip" });
    expect(generated.res.status).toBe(200);
    expect(generated.bytes.byteLength).toBeGreaterThan(COMPRESS_MIN_BYTES);
    expect(generated.res.headers.get("content-encoding")).toBeNull();
  });

  test("only answers made by json() are read and coded: a JSON stream a handler built goes as it is", async () => {
    const big = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `User ${i}` }));
    const whole = await compressAnswer(json(big), "br", false);
    expect(whole.headers.get("content-encoding")).toBe("br");
    expect(JSON.parse(brotliDecompressSync(new Uint8Array(await whole.arrayBuffer())).toString())).toEqual(big);
    const text = new TextEncoder().encode(JSON.stringify(big));
    const streamed = new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(text);
          c.close();
        },
      }),
      { headers: { "Content-Type": "application/json;charset=utf-8" } },
    );
    expect(await compressAnswer(streamed, "br", false)).toBe(streamed);
    expect(streamed.bodyUsed).toBe(false);
  });

  test("an error answer is never compressed", async () => {
    const { res } = await raw("/api/extensions/99999999/provisioning", { "accept-encoding": "br, gzip" });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-encoding")).toBeNull();
  });
});

describe("the list cache keeps each coding per version", () => {
  test("a repeat is a lookup: the list is built once per version, in any coding", async () => {
    const cache = new ListCache(s.db);
    let built = 0;
    const list = () => {
      built++;
      return Response.json(Array.from({ length: 500 }, (_, i) => ({ id: i, name: `User ${i}` })));
    };
    const ask = (acceptEncoding: string, ifNoneMatch: string | null = null) =>
      cache.respond(["extensions"], "viewer /x", { ifNoneMatch, acceptEncoding, compress: true }, list);
    const first = await ask("br");
    const second = await ask("br");
    expect(built).toBe(1);
    expect(first.headers.get("content-encoding")).toBe("br");
    expect(Buffer.from(await second.arrayBuffer()).equals(Buffer.from(await first.arrayBuffer()))).toBe(true);
    const gz = await ask("gzip");
    expect(built).toBe(1);
    expect(gz.headers.get("etag")).toBe(codedTag(first.headers.get("etag")?.replace("-br", "") as string, "gzip"));
    // A write to the table: a new version, a new tag, built again.
    s.db.$client.run("UPDATE extensions SET name = 'Renamed' WHERE extension = '10000'");
    const third = await ask("br", first.headers.get("etag"));
    expect(third.status).toBe(200);
    expect(built).toBe(2);
    expect(third.headers.get("etag")).not.toBe(first.headers.get("etag"));
  });

  test("compress: false keeps identity whatever is accepted", async () => {
    const cache = new ListCache(s.db);
    const res = await cache.respond(
      ["trunks"],
      "viewer /y",
      { ifNoneMatch: null, acceptEncoding: "br, gzip", compress: false },
      () => Response.json(Array.from({ length: 500 }, (_, i) => ({ id: i }))),
    );
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("vary")).toBeNull();
  });
});

test("acceptedCodings lives in the shared transport helper (the page uses the same)", () => {
  expect(acceptedCodings("gzip, deflate, br, zstd")).toEqual(["br", "gzip"]);
  expect(acceptedCodings("br;q=0, gzip")).toEqual(["gzip"]);
  expect(acceptedCodings("identity")).toEqual([]);
});

test("a header parsed once is answered the same every time, and the kept answer cannot be changed", () => {
  const first = acceptedCodings("gzip;q=0.5, br");
  expect(first).toEqual(["br", "gzip"]);
  expect(() => (first as string[]).pop()).toThrow();
  expect(acceptedCodings("gzip;q=0.5, br")).toEqual(["br", "gzip"]);
  // Many different values (a client may send anything) keep each answer right as the kept ones turn over.
  for (let i = 0; i < 100; i++)
    expect(acceptedCodings(`gzip;q=0.${(i % 9) + 1}, br;q=0.${9 - (i % 9)}, x${i}`)).toHaveLength(2);
  expect(acceptedCodings("br;q=0.1, gzip;q=0.9")).toEqual(["gzip", "br"]);
  expect(acceptedCodings(null)).toEqual([]);
});
