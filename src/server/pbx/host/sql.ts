/**
 * MySQL text building for FreePBX's tables. Every value is a quoted, escaped
 * string literal (or a validated integer); every identifier-like value
 * (extension numbers, dial patterns, trunk ids) is allow-listed first. No
 * user text is ever spliced any other way (FreePBX's 2025 CVEs were SQLi).
 * The rules of what FreePBX can hold are the shared ones (src/shared/inventory.ts).
 */
import { dialPatternProblem, lengthProblem, numberProblem } from "../../../shared/inventory";

export class UnsafeValueError extends Error {}

/** The characters a MySQL string literal must escape. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and ^Z are exactly what must be escaped
const NEEDS_ESCAPE = /['\\\0\n\r\x1a]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above
const ESCAPE_ALL = /['\\\0\n\r\x1a]/g;
const ESCAPED: Record<string, string> = {
  "'": "''",
  "\\": "\\\\",
  "\0": "\\0",
  "\n": "\\n",
  "\r": "\\r",
  "\x1a": "\\Z",
};
const escapeChar = (ch: string) => ESCAPED[ch] as string;

/** A MySQL string literal: quotes doubled, backslash/NUL/newlines/^Z escaped. */
export function str(value: string | null | undefined): string {
  if (value === null || value === undefined) return "NULL";
  // Fast path: almost every value (names, numbers, keywords) needs nothing, and is returned as it is.
  if (!NEEDS_ESCAPE.test(value)) return `'${value}'`;
  return `'${value.replace(ESCAPE_ALL, escapeChar)}'`;
}

export function int(value: number): string {
  if (!Number.isSafeInteger(value)) throw new UnsafeValueError(`not an integer: ${value}`);
  return String(value);
}

/** Throws the shared rule's message (src/shared/inventory.ts: the forms refuse the same values with it). */
export function must(problem: string | null): void {
  if (problem) throw new UnsafeValueError(problem);
}

export function extensionNumber(value: string, what = "Extension number"): string {
  must(numberProblem(value, what));
  return value;
}

export function dialPattern(value: string): string {
  const p = value.toUpperCase();
  must(dialPatternProblem(p));
  return p;
}

/** FreePBX's column limits; a value that does not fit is refused rather than cut. */
export function fits(value: string | null | undefined, max: number, what: string): void {
  must(lengthProblem(value, max, what));
}
