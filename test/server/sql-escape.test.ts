/**
 * The SQL literal's fast path (a value that needs nothing is returned as it is, after one regex test) and
 * its escaping path give byte for byte what the character-by-character escaping gave, over many random
 * strings made of the characters that matter (quotes, backslashes, NUL, line breaks, ^Z) and unicode.
 */
import { describe, expect, test } from "bun:test";
import { str } from "../../src/server/pbx/host/sql";

/** The literal as sql.ts built it before the fast path, verbatim. */
function reference(value: string): string {
  let out = "'";
  for (const ch of value) {
    switch (ch) {
      case "'":
        out += "''";
        break;
      case "\\":
        out += "\\\\";
        break;
      case "\0":
        out += "\\0";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\x1a":
        out += "\\Z";
        break;
      default:
        out += ch;
    }
  }
  return `${out}'`;
}

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = [
  "'",
  "\\",
  "\0",
  "\n",
  "\r",
  "\x1a",
  '"',
  "`",
  "%",
  "_",
  ";",
  "-",
  " ",
  "\t",
  "a",
  "Z",
  "0",
  "9",
  "é",
  "ß",
  "中",
  "🎧",
  "\u2028",
  "\ud83d", // a lone surrogate
  "\u0000x",
];

describe("str: the fast path and the escaping path", () => {
  test("equal the character-by-character escaping over 20,000 random strings", () => {
    const next = random(15);
    let escaped = 0;
    for (let i = 0; i < 20_000; i++) {
      const length = Math.floor(next() * 24);
      let value = "";
      // Half the strings from plain characters only, so the fast path is exercised as much as the other.
      const pool = i % 2 === 0 ? ALPHABET.slice(6) : ALPHABET;
      for (let j = 0; j < length; j++) value += pool[Math.floor(next() * pool.length)];
      const expected = reference(value);
      if (expected !== `'${value}'`) escaped++;
      expect(str(value)).toBe(expected);
    }
    // Both paths were taken many times.
    expect(escaped).toBeGreaterThan(5_000);
    expect(escaped).toBeLessThan(15_000);
  });

  test("a value that needs nothing is returned as it is; null and undefined are NULL", () => {
    expect(str("Alice 🎧 ü")).toBe("'Alice 🎧 ü'");
    expect(str("")).toBe("''");
    expect(str(null)).toBe("NULL");
    expect(str(undefined)).toBe("NULL");
    expect(str("O'Brien \\ \0\n\r\x1a")).toBe("'O''Brien \\\\ \\0\\n\\r\\Z'");
  });
});
