/**
 * The web app in chunks (ADR 0030), on the built binary: the HTML names the entry and preloads
 * exactly the chunks the entry imports statically (and, for a screen's path, that screen's chunks and
 * first data); every screen is behind a dynamic import (one chunk per group of screens); every chunk is
 * served hashed, cached for a year and compressed; the initial JavaScript stays within its budget.
 * Needs `npm run build` first (the test command does it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync, gzipSync } from "node:zlib";
import { screenChunks, staticChunkImports, withModulePreloads } from "../../src/server/transport/page";
import { SCREEN_DATA } from "../../src/shared/screens";
import { NAV_ITEMS } from "../../src/web/lib/nav";
import { type Binary, startBinary } from "../security/binary";

const IMMUTABLE = "public, max-age=31536000, immutable";
/** The goal for the JavaScript a first visit must load before anything shows. */
const INITIAL_JS_BUDGET = 150 * 1024;
/** The router's screens (src/web/router.tsx), one per sidebar link, in five lazy groups. */
const SCREENS = NAV_ITEMS.map((item) => item.url);
const GROUPS = 5;
const preloadsOf = (page: string) =>
  [...page.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1] as string);
const fetchPreloadsOf = (page: string) =>
  [...page.matchAll(/<link rel="preload" as="fetch" crossorigin="use-credentials" href="([^"]+)">/g)].map(
    (m) => m[1] as string,
  );

let bin: Binary;
let html: string;
let entry: string;
/** Every JavaScript chunk reachable from the entry, static or dynamic, with its text. */
const code = new Map<string, string>();

const dynamicImports = (js: string) => [
  ...new Set([...js.matchAll(/\bimport\(\s*["'](\/chunk-[a-z0-9]+\.js)["']\s*\)/g)].map((m) => m[1] as string)),
];

async function text(path: string): Promise<string> {
  const res = await fetch(bin.base + path);
  expect([path, res.status]).toEqual([path, 200]);
  return res.text();
}

/** The entry and every chunk it imports statically, transitively. */
function staticClosure(from: string): Set<string> {
  const seen = new Set<string>([from]);
  const pending = [from];
  while (pending.length) {
    for (const next of staticChunkImports(code.get(pending.pop() as string) ?? "")) {
      if (!seen.has(next)) {
        seen.add(next);
        pending.push(next);
      }
    }
  }
  return seen;
}

beforeAll(async () => {
  bin = await startBinary({ logRequests: false });
  // A path that is no screen: the page with the shell's chunks only.
  html = await text("/no-such-screen");
  const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1] as string);
  expect(scripts).toHaveLength(1);
  entry = scripts[0] as string;
  const pending = [entry];
  while (pending.length) {
    const path = pending.pop() as string;
    if (code.has(path)) continue;
    const js = await text(path);
    code.set(path, js);
    pending.push(...staticChunkImports(js), ...dynamicImports(js));
  }
});
afterAll(() => bin?.stop());

describe("chunks", () => {
  test("the HTML loads the entry and preloads exactly the chunks it imports statically", () => {
    const preloaded = preloadsOf(html);
    expect(fetchPreloadsOf(html)).toEqual(["/api/auth/me"]);
    const closure = staticClosure(entry);
    closure.delete(entry);
    expect(new Set(preloaded)).toEqual(closure);
    expect(preloaded).toHaveLength(closure.size); // each once
    // Nothing else is named: no screen's chunk, no other script.
    expect([...html.matchAll(/\.js"/g)]).toHaveLength(1 + closure.size);
  });

  test("every screen is behind a dynamic import, and its chunk is not loaded at start", () => {
    const initial = staticClosure(entry);
    const lazy = new Set([...initial].flatMap((path) => dynamicImports(code.get(path) ?? "")));
    const screens = screenChunks(code.get(entry) ?? "");
    expect([...screens.keys()].sort()).toEqual([...SCREENS].sort());
    expect(new Set(screens.values()).size).toBe(GROUPS);
    for (const chunk of screens.values()) expect(lazy.has(chunk)).toBe(true);
    for (const path of lazy) expect([path, initial.has(path)]).toEqual([path, false]);
  });

  test("a screen's page also preloads that screen's chunks and its first data; the shell's stay", async () => {
    const screens = screenChunks(code.get(entry) ?? "");
    const shell = staticClosure(entry);
    shell.delete(entry);
    for (const path of ["/extensions", "/calls", "/audit"]) {
      const page = await text(path);
      const preloaded = new Set(preloadsOf(page));
      const chunk = screens.get(path) as string;
      const expected = new Set([...shell, ...staticClosure(chunk)]);
      // A screen's chunk imports what it shares with the shell from the entry, which the page loads as its
      // script: not preloaded.
      expected.delete(entry);
      expect([path, preloaded]).toEqual([path, expected]);
      expect(fetchPreloadsOf(page)).toEqual(["/api/auth/me", ...(SCREEN_DATA[path] ?? [])]);
    }
  });

  // Each file is a request, and on a 40 ms link six at a time: a screen group split into a dozen small
  // chunks costs round trips, not bytes. src/web/pages/common.ts gathers what the groups share (ADR 0030).
  test("each screen group loads in at most 8 files beside the shell (it was 22)", () => {
    const shell = staticClosure(entry);
    for (const [path, chunk] of screenChunks(code.get(entry) ?? "")) {
      const own = [...staticClosure(chunk)].filter((file) => !shell.has(file));
      expect({ path, files: own.length <= 8 ? "≤ 8" : own }).toEqual({ path, files: "≤ 8" });
    }
  });

  test(`the initial JavaScript is at most ${INITIAL_JS_BUDGET / 1024} KB gzipped`, () => {
    let gzip = 0;
    let raw = 0;
    for (const path of staticClosure(entry)) {
      const bytes = Buffer.from(code.get(path) ?? "");
      raw += bytes.length;
      gzip += gzipSync(bytes, { level: 9 }).length;
    }
    console.log(
      `initial JS: ${staticClosure(entry).size} files, ${raw} B raw, ${gzip} B gzip; ${code.size} chunks in all`,
    );
    expect(gzip).toBeLessThanOrEqual(INITIAL_JS_BUDGET);
  });

  test("every chunk is hashed, cached for a year, and compressed when that pays", async () => {
    let compressed = 0;
    for (const [path, js] of code) {
      expect(path).toMatch(/^\/chunk-[a-z0-9]{8}\.js$/);
      const res = await fetch(bin.base + path, { headers: { "accept-encoding": "gzip" }, decompress: false });
      const body = Buffer.from(await res.arrayBuffer());
      expect([path, res.status, res.headers.get("cache-control")]).toEqual([path, 200, IMMUTABLE]);
      expect(res.headers.get("content-type")).toContain("javascript");
      if (res.headers.get("content-encoding") === "gzip") {
        compressed++;
        expect(gunzipSync(body).toString()).toBe(js);
      } else {
        // Sent as it is only when gzip would not make it smaller (a few bytes of glue).
        expect([path, body.length <= gzipSync(js).length]).toEqual([path, true]);
      }
    }
    expect(compressed).toBeGreaterThan(code.size / 2);
  });
});

describe("withModulePreloads", () => {
  const files: Record<string, string> = {
    "/chunk-aaaaaaaa.js":
      'import{a}from"/chunk-bbbbbbbb.js";import"/chunk-cccccccc.js";const s=()=>import("/chunk-dddddddd.js");',
    "/chunk-bbbbbbbb.js": 'import{c}from"/chunk-cccccccc.js";export const a=1;',
    "/chunk-cccccccc.js": "export const c=1;",
    "/chunk-dddddddd.js": 'import{a}from"/chunk-bbbbbbbb.js";import"/chunk-eeeeeeee.js";',
  };
  const read = async (path: string) => files[path] ?? null;

  test("preloads the static imports of the page's scripts, transitively, each once, never a dynamic import", async () => {
    const page =
      '<html><head><script type="module" crossorigin src="/chunk-aaaaaaaa.js"></script></head><body></body></html>';
    const out = await withModulePreloads(page, read);
    expect(out).toBe(
      '<html><head><script type="module" crossorigin src="/chunk-aaaaaaaa.js"></script>' +
        '<link rel="modulepreload" crossorigin href="/chunk-bbbbbbbb.js">' +
        '<link rel="modulepreload" crossorigin href="/chunk-cccccccc.js"></head><body></body></html>',
    );
  });

  test("a page whose entry imports nothing is left as it is", async () => {
    const page = '<html><head><script type="module" src="/chunk-cccccccc.js"></script></head></html>';
    expect(await withModulePreloads(page, read)).toBe(page);
  });
});
