// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell commands; ${…} is their parameter expansion
/**
 * System recordings' sound files on the PBX host (`<ASTVARLIBDIR>/sounds/<language>/<file>.<format>`), through
 * fixed commands: every path, name and option travels on stdin (checked again by the command itself), and an
 * upload's bytes follow those lines on stdin, never a command line.
 *
 * The store converts an upload to what Asterisk's `wav` format is: 8 kHz, mono, 16-bit signed PCM. FreePBX's
 * Media class does the same with sox (SoxShell, `sox <in> -r <rate> -b 16 -c 1 <out>`), decoding MP3 with sox
 * or, when its sox cannot, mpg123 (Mpg123Shell, `mpg123 -r 48000 -m -w <out> <in>`); here sox resamples to 8 kHz
 * itself rather than through FreePBX's 48 kHz intermediate and Asterisk's `file convert`.
 */
import { UnsafeValueError } from "./sql";

/** A directory or file under the sounds directory: no `..`, nothing but plain characters. */
const PLAIN_PATH = /^\/[A-Za-z0-9._/-]+$/;
/** A language directory (`en`, `en_GB`, `fr_CA`): FreePBX's soundlang codes. */
export const LANGUAGE_RE = /^[A-Za-z0-9_-]{1,20}$/;
/** A recording's file as FreePBX's `filename` names it (`custom/welcome`, `en/1-for-am`…), that commands may touch. */
export const SOUND_FILE_RE = /^[A-Za-z0-9_][A-Za-z0-9_-]*(\/[A-Za-z0-9_][A-Za-z0-9_-]*)*$/;
/** A system user or group (AMPASTERISKUSER / AMPASTERISKGROUP). */
export const ACCOUNT_RE = /^[a-z_][a-z0-9_-]{0,31}$/;

/** Checks of the stdin lines, repeated in the commands so a wrong value never reaches a path. */
const DIR_CHECK = [
  'case $d in /*) ;; *) echo "the sounds directory is not an absolute path" >&2; exit 2 ;; esac',
  'case $d in *[!A-Za-z0-9._/-]*|*..*) echo "the sounds directory is not a plain path" >&2; exit 2 ;; esac',
];
const FILE_CHECK = (v: string) =>
  `case $${v} in ""|/*|*[!A-Za-z0-9_/-]*|*//*) echo "not a plain sound file name" >&2; exit 2 ;; esac`;

/**
 * Lists the sound files of recordings: stdin is the sounds directory, then one file per line (`custom/welcome`).
 * Prints `<line index>\t<language>\t<format>\t<bytes>` for each `<dir>/<language>/<file>.<format>` found.
 */
export const SOUND_FILES_COMMAND = [
  "IFS= read -r d || exit 2",
  ...DIR_CHECK,
  'if [ ! -d "$d" ]; then exit 0; fi',
  "i=0",
  "while IFS= read -r f; do",
  `  ${FILE_CHECK("f")}`,
  '  for p in "$d"/*/"$f".*; do',
  '    [ -f "$p" ] || continue',
  '    rest=${p#"$d"/}',
  "    ext=${p##*.}",
  // `welcome.old.wav` is not a format of `welcome`.
  '    [ "${rest#*/}" = "$f.$ext" ] || continue',
  '    size=$(stat -c %s -- "$p") || exit 1',
  '    printf \'%s\\t%s\\t%s\\t%s\\n\' "$i" "${rest%%/*}" "$ext" "$size"',
  "  done",
  "  i=$((i + 1))",
  "done",
].join("\n");

/** Exit codes of `SOUND_STORE_COMMAND`, and what each means. */
export const STORE_EXIT = { badInput: 2, missingTool: 3, exists: 4, notAudio: 5 } as const;

/**
 * The part of a store command that converts an upload: `$format` (`wav` or `mp3`, checked before) names what
 * stdin's remaining bytes are; they end up in `$t/out.wav` (8 kHz mono 16-bit signed PCM, in a temp directory
 * `$t` removed on exit), with `$samples`, `$rate` and `$channels` read back by sox. Exit 3: sox (or an MP3
 * decoder) is missing, its name on stderr; exit 5: not audio sox reads, or no samples in it.
 */
export const CONVERT_UPLOAD = [
  'command -v sox >/dev/null 2>&1 || { echo "sox" >&2; exit 3; }',
  "t=$(mktemp -d) || exit 1",
  "trap 'rm -rf \"$t\"' EXIT",
  'cat > "$t/in" || exit 1',
  'if [ "$format" = mp3 ]; then',
  "  if sox -h 2>/dev/null | grep -Eq '^AUDIO FILE FORMATS:.* mp3( |$)'; then",
  '    sox -V1 -t mp3 "$t/in" -r 8000 -c 1 -b 16 -e signed-integer "$t/out.wav" 2>"$t/err" || { cat "$t/err" >&2; exit 5; }',
  "  elif command -v mpg123 >/dev/null 2>&1; then",
  '    mpg123 -q -r 48000 -m -w "$t/mid.wav" "$t/in" 2>"$t/err" || { cat "$t/err" >&2; exit 5; }',
  '    sox -V1 -t wav "$t/mid.wav" -r 8000 -c 1 -b 16 -e signed-integer "$t/out.wav" 2>"$t/err" || { cat "$t/err" >&2; exit 5; }',
  "  else",
  '    echo "mp3" >&2; exit 3',
  "  fi",
  "else",
  '  sox -V1 -t wav "$t/in" -r 8000 -c 1 -b 16 -e signed-integer "$t/out.wav" 2>"$t/err" || { cat "$t/err" >&2; exit 5; }',
  "fi",
  'samples=$(sox --i -s "$t/out.wav" 2>/dev/null) || { echo "the converted file cannot be read" >&2; exit 5; }',
  'case $samples in ""|0|*[!0-9]*) echo "the file holds no audio" >&2; exit 5 ;; esac',
  'rate=$(sox --i -r "$t/out.wav") || exit 1',
  'channels=$(sox --i -c "$t/out.wav") || exit 1',
];

/**
 * Converts and stores one upload: stdin is the sounds directory, the language, the name (the file becomes
 * `<dir>/<language>/custom/<name>.wav`), the format (`wav` or `mp3`), the owner (`user:group`, or `-` to keep
 * the login user's), then the upload's bytes. Refuses (exit 4) when any `<language>/custom/<name>.*` exists, in
 * any language: Asterisk would mix that file's other formats with this one. Writes into a temp file beside the
 * target and links it into place, so a file is either whole or absent. Prints `stored <samples> <rate>
 * <channels>`.
 */
export const SOUND_STORE_COMMAND = [
  "umask 022",
  "IFS= read -r d || exit 2",
  "IFS= read -r lang || exit 2",
  "IFS= read -r name || exit 2",
  "IFS= read -r format || exit 2",
  "IFS= read -r owner || exit 2",
  ...DIR_CHECK,
  'case $lang in ""|*[!A-Za-z0-9_-]*) echo "not a plain language code" >&2; exit 2 ;; esac',
  'case $name in ""|-*|*[!A-Za-z0-9_-]*) echo "not a plain recording name" >&2; exit 2 ;; esac',
  'case $format in wav|mp3) ;; *) echo "not wav or mp3" >&2; exit 2 ;; esac',
  'case $owner in -) ;; *[!a-z0-9_:-]*|:*|*:) echo "not a user:group" >&2; exit 2 ;; esac',
  ...CONVERT_UPLOAD,
  'for p in "$d"/*/custom/"$name".*; do',
  '  [ -e "$p" ] || continue',
  '  case ${p##*/} in "$name".*.*) continue ;; esac',
  '  echo "${p#"$d"/}" >&2; exit 4',
  "done",
  'c="$d/$lang/custom"',
  // Only the directories made here get the owner: an existing one is left as it is.
  'made=""',
  '[ -d "$d/$lang" ] || made="$d/$lang"',
  '[ -d "$c" ] || made="$made $c"',
  'mkdir -p "$c" || exit 1',
  'if [ "$owner" != - ] && [ "$(id -u)" = 0 ] && [ -n "$made" ]; then chown "$owner" $made || exit 1; fi',
  'u=$(mktemp "$c/.upload.XXXXXX") || exit 1',
  'trap \'rm -rf "$t" "$u"\' EXIT',
  'cat "$t/out.wav" > "$u" || exit 1',
  'chmod 0644 "$u" || exit 1',
  'if [ "$owner" != - ] && [ "$(id -u)" = 0 ]; then chown "$owner" "$u" || exit 1; fi',
  // A link never replaces a file: a store that raced another of the same name fails here instead.
  'ln "$u" "$c/$name.wav" 2>/dev/null || { echo "$lang/custom/$name.wav" >&2; exit 4; }',
  'echo "stored $samples $rate $channels"',
].join("\n");

/**
 * Removes recordings' sound files: stdin is the sounds directory, then one file per line (`custom/welcome`);
 * every `<dir>/<language>/<file>.<format>` goes. Prints each removed file relative to the directory.
 */
export const SOUND_REMOVE_COMMAND = [
  "IFS= read -r d || exit 2",
  ...DIR_CHECK,
  'if [ ! -d "$d" ]; then exit 0; fi',
  "while IFS= read -r f; do",
  `  ${FILE_CHECK("f")}`,
  '  for p in "$d"/*/"$f".*; do',
  '    [ -f "$p" ] || continue',
  '    rest=${p#"$d"/}',
  "    ext=${p##*.}",
  '    [ "${rest#*/}" = "$f.$ext" ] || continue',
  '    rm -f -- "$p" || exit 1',
  "    printf '%s\\n' \"$rest\"",
  "  done",
  "done",
].join("\n");

/** Prints one sound file's bytes: stdin is its absolute path under the sounds directory. */
export const SOUND_READ_COMMAND = [
  "IFS= read -r f || exit 2",
  'case $f in /*) ;; *) echo "not an absolute path" >&2; exit 2 ;; esac',
  'case $f in *[!A-Za-z0-9._/-]*|*..*) echo "not a plain file path" >&2; exit 2 ;; esac',
  'exec cat -- "$f"',
].join("\n");

/** The sounds directory (`<ASTVARLIBDIR>/sounds`), checked as the commands check it. */
export function soundsDirOf(astVarLibDir: string): string {
  const dir = `${astVarLibDir.replace(/\/+$/, "")}/sounds`;
  if (!PLAIN_PATH.test(dir) || dir.includes("..")) throw new UnsafeValueError("ASTVARLIBDIR is not a plain path");
  return dir;
}

const line = (value: string, ok: boolean, what: string) => {
  if (!ok) throw new UnsafeValueError(`not a plain ${what}: ${value}`);
  return `${value}\n`;
};

/** The stdin of `SOUND_FILES_COMMAND` / `SOUND_REMOVE_COMMAND`: files that are not plain names are not asked for. */
export function soundFilesInput(soundsDir: string, files: readonly string[]): string {
  return (
    line(soundsDir, PLAIN_PATH.test(soundsDir), "directory") +
    files.map((f) => line(f, SOUND_FILE_RE.test(f), "sound file")).join("")
  );
}

/** The stdin of `SOUND_STORE_COMMAND`, before the upload's bytes. */
export function soundStoreInput(o: {
  soundsDir: string;
  language: string;
  name: string;
  format: "wav" | "mp3";
  owner: { user: string; group: string } | null;
}): string {
  const owner = o.owner ? `${o.owner.user}:${o.owner.group}` : "-";
  return [
    line(o.soundsDir, PLAIN_PATH.test(o.soundsDir) && !o.soundsDir.includes(".."), "directory"),
    line(o.language, LANGUAGE_RE.test(o.language), "language"),
    line(o.name, /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(o.name), "recording name"),
    line(o.format, o.format === "wav" || o.format === "mp3", "format"),
    line(owner, !o.owner || (ACCOUNT_RE.test(o.owner.user) && ACCOUNT_RE.test(o.owner.group)), "owner"),
  ].join("");
}

/** The stdin of `SOUND_READ_COMMAND`. */
export function soundReadInput(path: string): string {
  return line(path, PLAIN_PATH.test(path) && !path.includes(".."), "file path");
}

/** One file found by `SOUND_FILES_COMMAND`. */
export interface SoundFile {
  /** Which of the asked files (its line index). */
  index: number;
  language: string;
  format: string;
  bytes: number;
}

export function parseSoundFiles(stdout: string): SoundFile[] {
  const out: SoundFile[] = [];
  for (const l of stdout.split("\n")) {
    const [index, language, format, bytes] = l.split("\t");
    if (index === undefined || language === undefined || format === undefined || bytes === undefined) continue;
    out.push({ index: Number(index), language, format, bytes: Number(bytes) });
  }
  return out;
}

/** `stored <samples> <rate> <channels>` → the stored file's figures, or null. */
export function parseStored(stdout: string): { samples: number; rate: number; channels: number } | null {
  const m = stdout.match(/^stored (\d+) (\d+) (\d+)$/m);
  return m ? { samples: Number(m[1]), rate: Number(m[2]), channels: Number(m[3]) } : null;
}
