/**
 * MySQL text building for FreePBX's tables. Every value is a quoted, escaped
 * string literal (or a validated integer); every identifier-like value
 * (extension numbers, dial patterns, trunk ids) is allow-listed first. No
 * user text is ever spliced any other way (FreePBX's 2025 CVEs were SQLi).
 * The rules of what FreePBX can hold are the shared ones (src/shared/inventory.ts).
 */
import { dialPatternProblem, lengthProblem, numberProblem } from "../../shared/inventory";

export class UnsafeValueError extends Error {}

/** A MySQL string literal: quotes doubled, backslash/NUL/newlines/^Z escaped. */
export function str(value: string | null | undefined): string {
  if (value === null || value === undefined) return "NULL";
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
