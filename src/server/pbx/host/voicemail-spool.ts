// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell commands; ${…} is their parameter expansion
/**
 * Voicemail's spool on the PBX host (`<ASTSPOOLDIR>/voicemail/<context>/<mailbox>/`), through fixed commands:
 * every directory, context, mailbox and greeting kind travels on stdin and is checked again by the command
 * itself; an upload's bytes follow those lines on stdin. Messages are only READ here (`<Folder>/msgNNNN.txt`
 * and its audio): moving and deleting them is app_voicemail's work over the manager interface, which
 * renumbers the files and tells the phones (MWI). Greetings (`unavail`, `busy`, `greet`, `temp`.wav) are
 * written here, converted as the system recordings' uploads are (sounds.ts `CONVERT_UPLOAD`) and put in
 * place atomically.
 */
import { type GreetingKind, VOICEMAIL_FOLDERS } from "../../../shared/voicemail";
import { plainDir } from "./files";
import { ACCOUNT_RE, CONVERT_UPLOAD } from "./sounds";
import { UnsafeValueError } from "./sql";

const CONTEXT_RE = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,49}$/;
const MAILBOX_RE = /^\d{1,10}$/;
const KIND_RE = /^(unavail|busy|greet|temp)$/;

/** The audio formats a message or greeting may be stored in, the browser's first (app_voicemail's `format=`). */
export const SPOOL_AUDIO_EXTENSIONS = ["wav", "WAV", "gsm"] as const;

/** Exit codes of the greeting store command. */
export const GREETING_STORE_EXIT = { badInput: 2, missingTool: 3, notAudio: 5 } as const;

const READ_BOX = [
  "IFS= read -r root || exit 2",
  "IFS= read -r ctx || exit 2",
  'case $root in /*) ;; *) echo "the voicemail spool is not an absolute path" >&2; exit 2 ;; esac',
  'case $root in *[!A-Za-z0-9._/-]*|*..*) echo "the voicemail spool is not a plain path" >&2; exit 2 ;; esac',
  'case $ctx in ""|.*|*[!A-Za-z0-9_.-]*) echo "not a plain voicemail context" >&2; exit 2 ;; esac',
];
const MAILBOX_CHECK = (v: string) => `case $${v} in ""|*[!0-9]*) echo "not a mailbox number" >&2; exit 2 ;; esac`;
const KIND_CHECK = 'case $kind in unavail|busy|greet|temp) ;; *) echo "not a greeting kind" >&2; exit 2 ;; esac';

/**
 * Lists mailboxes' messages and greetings: stdin is the voicemail spool, the context, then one mailbox per line.
 * For each message `<mailbox>/<Folder>/msgNNNN.txt` (the console's folders only; files and directories that are
 * symlinks skipped) prints `M\t<mailbox>\t<Folder>\t<msgNNNN>`, then its `callerchan=`, `callerid=`,
 * `origtime=`, `duration=` and `msg_id=` lines as the file has them, then `F\t<ext>\t<bytes>` for each audio
 * file of it. For each greeting file `<mailbox>/<kind>.<ext>` prints `G\t<mailbox>\t<kind>\t<ext>\t<bytes>`.
 */
export const VOICEMAIL_LIST_COMMAND = [
  ...READ_BOX,
  "while IFS= read -r mb; do",
  `  ${MAILBOX_CHECK("mb")}`,
  '  d="$root/$ctx/$mb"',
  '  [ -d "$d" ] && [ ! -L "$d" ] || continue',
  `  for folder in ${VOICEMAIL_FOLDERS.join(" ")}; do`,
  '    [ -d "$d/$folder" ] && [ ! -L "$d/$folder" ] || continue',
  '    for f in "$d/$folder"/msg[0-9][0-9][0-9][0-9].txt; do',
  '      [ -f "$f" ] && [ ! -L "$f" ] || continue',
  "      n=${f##*/}; n=${n%.txt}",
  '      printf \'M\\t%s\\t%s\\t%s\\n\' "$mb" "$folder" "$n"',
  "      grep -E '^(callerchan|callerid|origtime|duration|msg_id)=' -- \"$f\" | tr -d '\\r' || true",
  `      for ext in ${SPOOL_AUDIO_EXTENSIONS.join(" ")}; do`,
  '        a="$d/$folder/$n.$ext"',
  '        [ -f "$a" ] && [ ! -L "$a" ] || continue',
  '        printf \'F\\t%s\\t%s\\n\' "$ext" "$(stat -c %s -- "$a")"',
  "      done",
  "    done",
  "  done",
  "  for kind in unavail busy greet temp; do",
  '    for g in "$d/$kind".*; do',
  '      [ -f "$g" ] && [ ! -L "$g" ] || continue',
  '      ext=${g##*/}; ext=${ext#"$kind".}',
  '      case $ext in ""|*[!A-Za-z0-9]*) continue ;; esac',
  '      printf \'G\\t%s\\t%s\\t%s\\t%s\\n\' "$mb" "$kind" "$ext" "$(stat -c %s -- "$g")"',
  "    done",
  "  done",
  "done",
].join("\n");

/**
 * Converts and stores one greeting: stdin is the voicemail spool, the context, the mailbox, the kind, the format
 * (`wav` or `mp3`), the owner (`user:group`, or `-` to keep the login user's), then the upload's bytes. The
 * mailbox directory is made when app_voicemail has not made it yet (the directories made here get the owner).
 * The file is written beside its place and renamed over `<kind>.wav` (the old greeting or the new one, never
 * half of one); the greeting's files in other formats go, so Asterisk plays this one. Prints
 * `stored <samples> <rate> <channels>`.
 */
export const GREETING_STORE_COMMAND = [
  "umask 022",
  ...READ_BOX,
  "IFS= read -r mb || exit 2",
  "IFS= read -r kind || exit 2",
  "IFS= read -r format || exit 2",
  "IFS= read -r owner || exit 2",
  MAILBOX_CHECK("mb"),
  KIND_CHECK,
  'case $format in wav|mp3) ;; *) echo "not wav or mp3" >&2; exit 2 ;; esac',
  'case $owner in -) ;; *[!a-z0-9_:-]*|:*|*:) echo "not a user:group" >&2; exit 2 ;; esac',
  ...CONVERT_UPLOAD,
  'c="$root/$ctx"',
  'd="$c/$mb"',
  '[ ! -L "$c" ] && [ ! -L "$d" ] || { echo "the mailbox directory is a symlink" >&2; exit 2; }',
  'made=""',
  '[ -d "$c" ] || made="$c"',
  '[ -d "$d" ] || made="$made $d"',
  'mkdir -p "$d" || exit 1',
  'if [ "$owner" != - ] && [ "$(id -u)" = 0 ] && [ -n "$made" ]; then chown "$owner" $made || exit 1; fi',
  'u=$(mktemp "$d/.greeting.XXXXXX") || exit 1',
  'trap \'rm -rf "$t" "$u"\' EXIT',
  'cat "$t/out.wav" > "$u" || exit 1',
  'chmod 0644 "$u" || exit 1',
  'if [ "$owner" != - ] && [ "$(id -u)" = 0 ]; then chown "$owner" "$u" || exit 1; fi',
  'mv -f -- "$u" "$d/$kind.wav" || exit 1',
  'for g in "$d/$kind".*; do',
  '  [ "$g" = "$d/$kind.wav" ] && continue',
  '  [ -f "$g" ] || [ -L "$g" ] || continue',
  '  rm -f -- "$g" || exit 1',
  "done",
  'echo "stored $samples $rate $channels"',
].join("\n");

/**
 * Removes one greeting in every format: stdin is the voicemail spool, the context, the mailbox and the kind.
 * Prints each removed file's name (`unavail.wav`).
 */
export const GREETING_REMOVE_COMMAND = [
  ...READ_BOX,
  "IFS= read -r mb || exit 2",
  "IFS= read -r kind || exit 2",
  MAILBOX_CHECK("mb"),
  KIND_CHECK,
  'd="$root/$ctx/$mb"',
  '[ -d "$d" ] && [ ! -L "$d" ] || exit 0',
  'for g in "$d/$kind".*; do',
  '  [ -f "$g" ] || [ -L "$g" ] || continue',
  '  rm -f -- "$g" || exit 1',
  "  printf '%s\\n' \"${g##*/}\"",
  "done",
].join("\n");

const line = (value: string, ok: boolean, what: string) => {
  if (!ok || /[\r\n]/.test(value)) throw new UnsafeValueError(`not a plain ${what}: ${value}`);
  return `${value}\n`;
};

/** The voicemail spool of FreePBX's ASTSPOOLDIR (`/var/spool/asterisk` → `/var/spool/asterisk/voicemail`). */
export function voicemailSpoolOf(astSpoolDir: string): string {
  const dir = `${(astSpoolDir.trim() || "/var/spool/asterisk").replace(/\/+$/, "")}/voicemail`;
  if (!plainDir(dir)) throw new UnsafeValueError("ASTSPOOLDIR is not a plain path");
  return dir;
}

const boxLines = (spool: string, context: string) =>
  line(spool, plainDir(spool), "directory") + line(context, CONTEXT_RE.test(context), "voicemail context");

/** The stdin of `VOICEMAIL_LIST_COMMAND`. */
export function voicemailListInput(spool: string, context: string, mailboxes: readonly string[]): string {
  return boxLines(spool, context) + mailboxes.map((m) => line(m, MAILBOX_RE.test(m), "mailbox")).join("");
}

/** The stdin of `GREETING_STORE_COMMAND`, before the upload's bytes. */
export function greetingStoreInput(o: {
  spool: string;
  context: string;
  mailbox: string;
  kind: GreetingKind;
  format: "wav" | "mp3";
  owner: { user: string; group: string } | null;
}): string {
  const owner = o.owner ? `${o.owner.user}:${o.owner.group}` : "-";
  return [
    boxLines(o.spool, o.context),
    line(o.mailbox, MAILBOX_RE.test(o.mailbox), "mailbox"),
    line(o.kind, KIND_RE.test(o.kind), "greeting kind"),
    line(o.format, o.format === "wav" || o.format === "mp3", "format"),
    line(owner, !o.owner || (ACCOUNT_RE.test(o.owner.user) && ACCOUNT_RE.test(o.owner.group)), "owner"),
  ].join("");
}

/** The stdin of `GREETING_REMOVE_COMMAND`. */
export function greetingRemoveInput(spool: string, context: string, mailbox: string, kind: GreetingKind): string {
  return (
    boxLines(spool, context) +
    line(mailbox, MAILBOX_RE.test(mailbox), "mailbox") +
    line(kind, KIND_RE.test(kind), "greeting kind")
  );
}

/** One message as the spool holds it. */
export interface SpoolMessage {
  mailbox: string;
  folder: string;
  /** `msg0000`: the file's name without its extension (it changes when app_voicemail renumbers). */
  file: string;
  /** app_voicemail's `msg_id`, empty when the file has none (written before Asterisk 11). */
  id: string;
  callerChannel: string;
  callerId: string;
  /** Seconds since the epoch, null when the file does not say. */
  origTime: number | null;
  durationS: number | null;
  /** Its audio files: extension → bytes. */
  audio: Map<string, number>;
}

/** One greeting file. */
export interface SpoolGreeting {
  mailbox: string;
  kind: GreetingKind;
  ext: string;
  bytes: number;
}

const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : null);

/** What `VOICEMAIL_LIST_COMMAND` found. */
export interface VoicemailSpool {
  messages: SpoolMessage[];
  greetings: SpoolGreeting[];
}

/** `VOICEMAIL_LIST_COMMAND`'s output → the messages and greetings found. */
export function parseVoicemailList(stdout: string): VoicemailSpool {
  const messages: SpoolMessage[] = [];
  const greetings: SpoolGreeting[] = [];
  let current: SpoolMessage | null = null;
  let fields: Record<string, string> = {};
  const finish = () => {
    if (!current) return;
    current.id = fields.msg_id ?? "";
    current.callerChannel = fields.callerchan ?? "";
    current.callerId = fields.callerid ?? "";
    current.origTime = num(fields.origtime);
    current.durationS = num(fields.duration);
    messages.push(current);
    current = null;
    fields = {};
  };
  for (const l of stdout.split("\n")) {
    if (l.startsWith("M\t")) {
      finish();
      const [, mailbox = "", folder = "", file = ""] = l.split("\t");
      current = {
        mailbox,
        folder,
        file,
        id: "",
        callerChannel: "",
        callerId: "",
        origTime: null,
        durationS: null,
        audio: new Map(),
      };
      continue;
    }
    if (l.startsWith("F\t")) {
      const [, ext = "", bytes = ""] = l.split("\t");
      if (current && num(bytes) !== null) current.audio.set(ext, Number(bytes));
      continue;
    }
    if (l.startsWith("G\t")) {
      finish();
      const [, mailbox = "", kind = "", ext = "", bytes = ""] = l.split("\t");
      if (KIND_RE.test(kind) && num(bytes) !== null)
        greetings.push({ mailbox, kind: kind as GreetingKind, ext, bytes: Number(bytes) });
      continue;
    }
    const eq = l.indexOf("=");
    // The first of a key counts, as app_voicemail reads the file.
    if (current && eq > 0 && !(l.slice(0, eq) in fields)) fields[l.slice(0, eq)] = l.slice(eq + 1);
  }
  finish();
  return { messages, greetings };
}

/** `stored <samples> <rate> <channels>` → the stored file's figures, or null. */
export { parseStored } from "./sounds";
