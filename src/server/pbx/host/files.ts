// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell commands; ${…} is their parameter expansion
/**
 * Audio files on the PBX host under a known directory (call recordings under FreePBX's monitor directory,
 * voicemail under the voicemail spool), through fixed commands. Every path arrives on stdin as a directory
 * and a name relative to it, is checked for plain characters here and again in the command, and is then
 * resolved with `realpath`: a name that leads outside the directory (`..`, or a symlink out) is refused
 * (exit 4), as is anything but a regular file (exit 3). Nothing of a path ever reaches a command line.
 */
import { UnsafeValueError } from "./sql";

/** A directory the commands may read under: absolute, plain characters, no `..`. */
export const PLAIN_DIR = /^\/[A-Za-z0-9._/-]+$/;
/**
 * A file's name relative to its directory: FreePBX's recording names (`out-2901-+15550100-20261207-101500-
 * 1733566500.12.wav`, a caller id may start with `+`), voicemail's `INBOX/msg0000.wav`. No `..`, no `//`.
 */
export const PLAIN_NAME = /^[A-Za-z0-9_+][A-Za-z0-9._+-]*(\/[A-Za-z0-9_+][A-Za-z0-9._+-]*)*$/;

/** Exit codes of the commands here. */
export const FILE_EXIT = { badInput: 2, missing: 3, outside: 4 } as const;

const READ_AND_CHECK = [
  "IFS= read -r root || exit 2",
  "IFS= read -r rel || exit 2",
  'case $root in /*) ;; *) echo "not an absolute directory" >&2; exit 2 ;; esac',
  'case $root in *[!A-Za-z0-9._/-]*|*..*) echo "not a plain directory" >&2; exit 2 ;; esac',
  'case $rel in ""|/*|.*|*/.*|*//*|*[!A-Za-z0-9._+/-]*) echo "not a plain file name" >&2; exit 2 ;; esac',
  'r=$(realpath -e -- "$root" 2>/dev/null) || { echo "no such directory" >&2; exit 3; }',
  'f=$(realpath -e -- "$root/$rel" 2>/dev/null) || { echo "no such file" >&2; exit 3; }',
  'case $f in "$r"/*) ;; *) echo "outside the directory" >&2; exit 4 ;; esac',
  '[ -f "$f" ] || { echo "not a file" >&2; exit 3; }',
];

/** Prints the file's size in bytes, a newline, and its first 512 bytes as hex (the audio header). */
export const FILE_INFO_COMMAND = [
  ...READ_AND_CHECK,
  'size=$(stat -c %s -- "$f") || exit 1',
  "printf '%s\\n' \"$size\"",
  "head -c 512 -- \"$f\" | od -An -v -tx1 | tr -d ' \\n'",
  "echo",
].join("\n");

/** Prints `count` bytes of the file from byte `start` (stdin lines 3 and 4, digits): a seek, never the whole file. */
export const FILE_RANGE_COMMAND = [
  ...READ_AND_CHECK,
  "IFS= read -r start || exit 2",
  "IFS= read -r count || exit 2",
  'case $start in ""|*[!0-9]*) echo "not a byte offset" >&2; exit 2 ;; esac',
  'case $count in ""|*[!0-9]*) echo "not a byte count" >&2; exit 2 ;; esac',
  'tail -c +"$((start + 1))" -- "$f" | head -c "$count"',
].join("\n");

/**
 * Lists the files under the directory (stdin line 1) last changed more than `days` days ago (line 2): one
 * `<bytes>\t<name relative to the directory>` per line, names that are not plain skipped, symlinks not followed.
 */
export const FILE_EXPIRED_COMMAND = [
  "IFS= read -r root || exit 2",
  "IFS= read -r days || exit 2",
  'case $root in /*) ;; *) echo "not an absolute directory" >&2; exit 2 ;; esac',
  'case $root in *[!A-Za-z0-9._/-]*|*..*) echo "not a plain directory" >&2; exit 2 ;; esac',
  'case $days in ""|*[!0-9]*) echo "not a number of days" >&2; exit 2 ;; esac',
  '[ -d "$root" ] || exit 0',
  "find \"$root\" -xdev -type f -mtime +\"$((days - 1))\" -printf '%s\\t%P\\n' 2>/dev/null | grep -E '^[0-9]+\t[A-Za-z0-9_+][A-Za-z0-9._+/-]*$' | grep -v -e '/\\.' -e '\\.\\.' || true",
].join("\n");

/**
 * Removes files under the directory (stdin line 1), one name per following line, each checked as above (a name
 * outside the directory is skipped, not removed). Prints each removed name; empty day directories left go too.
 */
export const FILE_REMOVE_COMMAND = [
  "IFS= read -r root || exit 2",
  'case $root in /*) ;; *) echo "not an absolute directory" >&2; exit 2 ;; esac',
  'case $root in *[!A-Za-z0-9._/-]*|*..*) echo "not a plain directory" >&2; exit 2 ;; esac',
  'r=$(realpath -e -- "$root" 2>/dev/null) || exit 0',
  "while IFS= read -r rel; do",
  '  case $rel in ""|/*|.*|*/.*|*//*|*[!A-Za-z0-9._+/-]*) continue ;; esac',
  '  f=$(realpath -e -- "$r/$rel" 2>/dev/null) || continue',
  '  case $f in "$r"/*) ;; *) continue ;; esac',
  '  [ -f "$f" ] || continue',
  '  rm -f -- "$f" && printf \'%s\\n\' "$rel"',
  "  d=${f%/*}",
  '  while [ "$d" != "$r" ] && rmdir -- "$d" 2>/dev/null; do d=${d%/*}; done',
  "done",
].join("\n");

const line = (value: string, ok: boolean, what: string) => {
  if (!ok) throw new UnsafeValueError(`not a plain ${what}: ${value}`);
  return `${value}\n`;
};

/** Whether `name` is one the commands read (else the console refuses it before asking the PBX). */
export const plainName = (name: string) => PLAIN_NAME.test(name) && !name.includes("..");
export const plainDir = (dir: string) => PLAIN_DIR.test(dir) && !dir.includes("..");

/** The stdin of `FILE_INFO_COMMAND`. */
export function fileInfoInput(root: string, name: string): string {
  return line(root, plainDir(root), "directory") + line(name, plainName(name), "file name");
}

/** The stdin of `FILE_RANGE_COMMAND`. */
export function fileRangeInput(root: string, name: string, start: number, count: number): string {
  const n = (v: number) => Number.isSafeInteger(v) && v >= 0;
  return (
    fileInfoInput(root, name) + line(String(start), n(start), "byte offset") + line(String(count), n(count), "count")
  );
}

/** The stdin of `FILE_EXPIRED_COMMAND`. */
export function fileExpiredInput(root: string, days: number): string {
  return line(root, plainDir(root), "directory") + line(String(days), Number.isSafeInteger(days) && days >= 1, "days");
}

/** The stdin of `FILE_REMOVE_COMMAND`: names that are not plain are left out. */
export function fileRemoveInput(root: string, names: readonly string[]): string {
  return (
    line(root, plainDir(root), "directory") +
    names
      .filter(plainName)
      .map((n) => `${n}\n`)
      .join("")
  );
}

/** One file as `FILE_INFO_COMMAND` printed it. */
export interface FileInfo {
  bytes: number;
  /** The first bytes of the file (at most 512). */
  head: Uint8Array;
}

export function parseFileInfo(stdout: string): FileInfo | null {
  const [size, hex = ""] = stdout.split("\n");
  if (!size || !/^\d+$/.test(size) || !/^([0-9a-f]{2})*$/.test(hex)) return null;
  return { bytes: Number(size), head: new Uint8Array(Buffer.from(hex, "hex")) };
}

/** One line of `FILE_EXPIRED_COMMAND`. */
export function parseExpired(stdout: string): { name: string; bytes: number }[] {
  const out: { name: string; bytes: number }[] = [];
  for (const l of stdout.split("\n")) {
    const tab = l.indexOf("\t");
    if (tab < 1) continue;
    const name = l.slice(tab + 1);
    if (plainName(name)) out.push({ name, bytes: Number(l.slice(0, tab)) });
  }
  return out;
}
