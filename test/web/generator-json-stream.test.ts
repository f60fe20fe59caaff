// The generator's sliced JSON reader (src/web/features/generator/json-stream.ts): plain code, no DOM.
// Whatever the pieces the text arrives in, and however often it stops for time, it gives JSON.parse's value.
import { describe, expect, test } from "bun:test";
import { JsonStreamParser, readJsonInSlices } from "../../src/web/features/generator/json-stream";

function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHARS = ['"', "\\", "'", "\n", "\u0000", "a", " ", ",", "]", "}", "{", "[", ":", "é", "🎧", "\\\\"];

function value(next: () => number, depth = 0): unknown {
  const r = next();
  if (depth > 3 || r < 0.3) {
    let s = "";
    const n = Math.floor(next() * 12);
    for (let i = 0; i < n; i++) s += CHARS[Math.floor(next() * CHARS.length)];
    return s;
  }
  if (r < 0.4) return Math.round((next() - 0.5) * 1e6) / 100;
  if (r < 0.45) return [true, false, null][Math.floor(next() * 3)];
  if (r < 0.7) return Array.from({ length: Math.floor(next() * 5) }, () => value(next, depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(next() * 5) }, (_, i) => [`k${i}"\\${i}`, value(next, depth + 1)]),
  );
}

describe("JsonStreamParser", () => {
  test("equals JSON.parse for 2,000 random values cut into random pieces, with time stops", () => {
    const next = random(32);
    for (let i = 0; i < 2_000; i++) {
      const text = JSON.stringify(value(next), null, i % 3 === 0 ? 1 : undefined);
      const parser = new JsonStreamParser();
      for (let at = 0; at < text.length; ) {
        const len = 1 + Math.floor(next() * 8);
        parser.push(text.slice(at, at + len));
        at += len;
        while (!parser.parse(false, i % 2 === 0 ? 0 : Number.POSITIVE_INFINITY));
      }
      parser.parse(true);
      expect(parser.result()).toEqual(JSON.parse(text));
    }
  });

  test("a top-level number is complete only at the end; a cut text is an error", () => {
    const p = new JsonStreamParser();
    p.push("12");
    p.parse(false);
    p.push("3");
    p.parse(true);
    expect(p.result()).toBe(123);
    const cut = new JsonStreamParser();
    cut.push('{"a":[1,2');
    cut.parse(true);
    expect(() => cut.result()).toThrow(SyntaxError);
  });

  test("readJsonInSlices reads a byte stream split inside multi-byte characters", async () => {
    const data = { sql: { extensions: ["INSERT 'ü🎧'", "x".repeat(100_000)] }, summary: { total: 2 } };
    const bytes = new TextEncoder().encode(JSON.stringify(data));
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
        c.close();
      },
    });
    expect(await readJsonInSlices(body, 1)).toEqual(data);
  });
});
