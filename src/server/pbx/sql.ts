/**
 * MySQL text building for FreePBX's tables. Every value is a quoted, escaped
 * string literal (or a validated integer); every identifier-like value
 * (extension numbers, dial patterns, trunk ids) is allow-listed first. No
 * user text is ever spliced any other way (FreePBX's 2025 CVEs were SQLi).
 */

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

const EXTENSION_RE = /^\d{1,20}$/;
/** FreePBX keeps only these characters in dial patterns (digits, * # + - . [ ] and the X N Z wildcards). */
const PATTERN_RE = /^[0-9*#+\-.[\]xXnNzZ]{1,60}$/;

export function extensionNumber(value: string, what = "Extension number"): string {
  if (!EXTENSION_RE.test(value)) throw new UnsafeValueError(`${what} must be digits only: ${JSON.stringify(value)}`);
  return value;
}

export function dialPattern(value: string): string {
  const p = value.toUpperCase();
  if (!PATTERN_RE.test(p))
    throw new UnsafeValueError(`Dial pattern has characters FreePBX does not allow: ${JSON.stringify(value)}`);
  return p;
}

/** FreePBX's column limits; a value that does not fit is refused rather than cut. */
export function fits(value: string | null | undefined, max: number, what: string): void {
  if (value && [...value].length > max) {
    throw new UnsafeValueError(`${what} is longer than FreePBX's ${max} characters`);
  }
}
