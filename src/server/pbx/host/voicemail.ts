/**
 * Voicemail mailboxes over SSH (ADR 0023). FreePBX's Voicemail module keeps mailboxes in
 * `voicemail.conf` (in ASTETCDIR, `/etc/asterisk`): it reads and rewrites that file itself, so the file is
 * its store. Per mailbox context (`[default]`, `[sales]`…) one line per mailbox:
 * `<ext> => <pin>,<name>,<email>,<pager>,<options>`.
 *
 * What the console owns: THAT an extension with voicemail on has a mailbox line in the context its `users`
 * row names, and, when the console creates that line, its name. An existing line (PIN, e-mail, pager,
 * options: the administrator's) is never rewritten. A new line gets a random PIN (`newMailboxPin`: never the
 * extension number, the first guess of toll fraud) and FreePBX's quick-create options; the PIN is kept in
 * memory to be shown once (voicemail-pins.ts, ADR 0050). Voicemail turned off in the console leaves the
 * mailbox (and its messages) alone. A managed extension deleted through a reviewed apply loses its mailbox
 * line; its recorded messages (the spool folder) are left where they are.
 *
 * The file is edited as BYTES (read as base64, each line kept exactly; a latin1 "binary string" stands for
 * them here), by one fixed read command and one fixed write command: the path and the content travel on
 * stdin, never on the command line. The write is a compare-and-swap: it writes only when the file still has
 * the SHA-256 the edit started from, into a temp file in the same directory with the file's owner and mode,
 * then renames it over the file. Then `asterisk -rx "voicemail reload"`.
 */

import { controlProblem, numberProblem } from "../../../shared/inventory";
import type { DeployItemResult } from "../../../shared/pbx";
import { ServiceError } from "../../clients/http";
import type { Deps } from "../../core/deps";
import { nodeCrypto } from "../../lazy-node";
import type { ExtensionRows } from "./astdb";
import { newMailboxPin } from "./mailbox-pin";
import { must, UnsafeValueError } from "./sql";
import { keepNewPin } from "./voicemail-pins";

/** FreePBX's default ASTETCDIR (Advanced Settings "Asterisk etc Dir"). */
export const DEFAULT_ASTETCDIR = "/etc/asterisk";
/** Sections of voicemail.conf that are not mailbox contexts (FreePBX's Voicemail module skips the same ones). */
const NOT_MAILBOXES = new Set(["general", "zonemessages", "pbxaliases", "device"]);
/** A voicemail context the console writes into: what FreePBX's form allows, no brackets or separators. */
const CONTEXT_RE = /^[A-Za-z0-9_.-]{1,50}$/;
const NUMBER_RE = /^\d{1,20}$/;
/** The options of FreePBX's quick create (Voicemail::processQuickCreate). */
export const NEW_MAILBOX_OPTIONS = "attach=no|saycid=no|envelope=no|delete=no";

/** A plain absolute file path (the same rule as the freepbx.conf path). */
export const SAFE_PATH = /^\/[A-Za-z0-9._/-]+$/;

const PATH_CHECK = [
  'case $f in /*) ;; *) echo "not an absolute path" >&2; exit 2 ;; esac',
  'case $f in *[!A-Za-z0-9._/-]*|*..*) echo "not a plain file path" >&2; exit 2 ;; esac',
];

/**
 * The one fixed command that reads voicemail.conf: the path is the first stdin line; prints `absent`, or
 * `present` and the file as base64 (byte-exact whatever the file holds).
 */
export const VOICEMAIL_READ_COMMAND = [
  "IFS= read -r f || exit 2",
  ...PATH_CHECK,
  'if [ ! -e "$f" ]; then echo absent; exit 0; fi',
  "echo present",
  'base64 < "$f" || exit 1',
].join("\n");

/**
 * The one fixed command that writes voicemail.conf. stdin: the path, the SHA-256 of the content the edit
 * started from, then the new content as base64. Writes only when the file is still that content (else exit 3,
 * nothing written), into a temp file in the same directory that gets the file's owner and mode, then renames
 * it over the file (atomic: Asterisk and FreePBX see the old file or the new one, never half of it).
 */
export const VOICEMAIL_WRITE_COMMAND = [
  "umask 077",
  "IFS= read -r f || exit 2",
  "IFS= read -r want || exit 2",
  ...PATH_CHECK,
  'if [ ! -f "$f" ]; then echo "$f does not exist" >&2; exit 2; fi',
  "have=$(sha256sum < \"$f\" | cut -d ' ' -f 1) || exit 1",
  'if [ "$have" != "$want" ]; then echo "voicemail.conf changed while the console was editing it: nothing written" >&2; exit 3; fi',
  'd=$(dirname -- "$f") || exit 1',
  't=$(mktemp "$d/.voicemail.conf.XXXXXX") || exit 1',
  "trap 'rm -f \"$t\"' EXIT",
  'base64 -d > "$t" || exit 1',
  'chown --reference="$f" "$t" || { echo "cannot give the new voicemail.conf the owner of the old one" >&2; exit 1; }',
  'chmod --reference="$f" "$t" || exit 1',
  'mv -f "$t" "$f" || exit 1',
  "trap - EXIT",
  "echo written",
].join("\n");

/** Asterisk re-reads voicemail.conf (app_voicemail answers "Reloading voicemail configuration..."). */
export const VOICEMAIL_RELOAD_COMMAND = "asterisk -rx 'voicemail reload'";

/** The stdin of `VOICEMAIL_READ_COMMAND`. */
export function voicemailReadInput(path: string): string {
  if (!SAFE_PATH.test(path) || path.includes("..")) throw new UnsafeValueError(`not a plain file path: ${path}`);
  return `${path}\n`;
}

/** The stdin of `VOICEMAIL_WRITE_COMMAND`. */
export function voicemailWriteInput(path: string, expectedSha256: string, content: string): string {
  if (!/^[0-9a-f]{64}$/.test(expectedSha256)) throw new UnsafeValueError("not a SHA-256");
  return `${voicemailReadInput(path)}${expectedSha256}\n${Buffer.from(content, "latin1").toString("base64")}\n`;
}

/** The read command's output → the file as a binary string (one char per byte), or null when it is absent. */
export function parseVoicemailRead(stdout: string): string | null {
  const nl = stdout.indexOf("\n");
  const head = (nl < 0 ? stdout : stdout.slice(0, nl)).trim();
  if (head === "absent") return null;
  if (head !== "present") throw new UnsafeValueError("unexpected answer when reading voicemail.conf");
  return Buffer.from(stdout.slice(nl + 1).replace(/\s+/g, ""), "base64").toString("latin1");
}

export const sha256Of = (content: string) =>
  nodeCrypto().createHash("sha256").update(Buffer.from(content, "latin1")).digest("hex");

// ---------- the file as lines ----------

export interface ConfLine {
  /** The line's bytes (binary string), without its "\n". */
  text: string;
  /** The section the line is in (null before the first header). */
  context: string | null;
  /** A section header: its name. */
  header: string | null;
  /** A mailbox line in a mailbox context: its number. */
  mailbox: string | null;
}

/** Splits voicemail.conf into lines (joining them with "\n" gives the file back exactly). */
export function parseVoicemailConf(content: string): ConfLine[] {
  const out: ConfLine[] = [];
  let context: string | null = null;
  let block = 0;
  for (const text of content.split("\n")) {
    let header: string | null = null;
    let mailbox: string | null = null;
    // Asterisk's block comments `;-- … --;` (they may nest); a line inside one is not a setting.
    const opens = text.split(";--").length - 1;
    const closes = text.split("--;").length - 1;
    const inComment = block > 0 || (opens > 0 && text.trimStart().startsWith(";--"));
    block = Math.max(0, block + opens - closes);
    if (!inComment && !text.trimStart().startsWith(";")) {
      const h = text.match(/^\s*\[([^\]]*)\]/);
      if (h) {
        header = h[1] as string;
        context = header;
      } else if (context !== null && !NOT_MAILBOXES.has(context)) {
        const m = text.match(/^\s*(\d{1,20})\s*=>?/);
        if (m) mailbox = m[1] as string;
      }
    }
    out.push({ text, context: header ?? context, header, mailbox });
  }
  return out;
}

const joinLines = (lines: { text: string }[]) => lines.map((l) => l.text).join("\n");

/** The mailbox contexts that hold a line for this number. */
export function mailboxContexts(lines: ConfLine[], ext: string): string[] {
  return [...new Set(lines.filter((l) => l.mailbox === ext).map((l) => l.context as string))];
}

export const hasMailbox = (lines: ConfLine[], ext: string, context: string) =>
  lines.some((l) => l.mailbox === ext && l.context === context);

/** A voicemail context the console may write into, or `UnsafeValueError`. */
export function mailboxContext(context: string): string {
  if (!CONTEXT_RE.test(context) || NOT_MAILBOXES.has(context))
    throw new UnsafeValueError(`"${context}" is not a voicemail context the console writes into`);
  return context;
}

/** A mailbox name as the line holds it, or `UnsafeValueError` (the number and name rules below). */
function mailboxName(ext: string, name: string): string {
  must(numberProblem(ext, "Extension"));
  must(controlProblem(name, "Name"));
  return name.replace(/[,;]/g, "");
}

/**
 * The line of a new mailbox: `<ext> => <pin>,<name>,,,attach=no|saycid=no|envelope=no|delete=no`. The name
 * goes through the shared config-text rule (a control character, e.g. a newline, is refused with its
 * message); `,` (the field separator) and `;` (a comment) are dropped, as FreePBX's own write drops commas
 * (FREEPBX-11103). Returned as a binary string (UTF-8 bytes).
 */
export function mailboxLine(ext: string, name: string, pin: string): string {
  const clean = mailboxName(ext, name);
  // The message never holds the value: it is a secret.
  if (!/^\d{4,20}$/.test(pin)) throw new UnsafeValueError("a voicemail PIN is 4 to 20 digits");
  return Buffer.from(`${ext} => ${pin},${clean},,,${NEW_MAILBOX_OPTIONS}`, "utf8").toString("latin1");
}

export interface MailboxEnsure {
  ext: string;
  context: string;
  name: string;
}
export interface MailboxRemove {
  ext: string;
  /** The context the extension's users row named; null: the first context that has it (FreePBX's delMailbox). */
  context: string | null;
}

export interface VoicemailEdit {
  content: string;
  created: string[];
  /** The PIN of each created mailbox, by extension: a secret, never logged or stored (ADR 0050). */
  pins: Map<string, string>;
  kept: string[];
  removed: string[];
}

/**
 * Adds the missing mailboxes and removes the deleted extensions' lines; every other line stays as it is.
 * A new line goes after the last mailbox of its context (the last `[context]` section), or right after its
 * header; a context the file lacks is added at the end (as FreePBX's addMailbox does). Each new line gets
 * its PIN from `pinOf` (random by default).
 */
export function editVoicemail(
  content: string,
  ensure: MailboxEnsure[],
  remove: MailboxRemove[],
  pinOf: (ext: string) => string = newMailboxPin,
): VoicemailEdit {
  let lines = parseVoicemailConf(content);
  const out: VoicemailEdit = { content, created: [], pins: new Map(), kept: [], removed: [] };
  for (const r of remove) {
    if (!NUMBER_RE.test(r.ext)) throw new UnsafeValueError(`not an extension number: ${r.ext}`);
    const context = r.context ?? mailboxContexts(lines, r.ext)[0];
    if (context === undefined) continue;
    const before = lines.length;
    lines = lines.filter((l) => !(l.mailbox === r.ext && l.context === context));
    if (lines.length !== before) out.removed.push(r.ext);
  }
  for (const e of ensure) {
    const context = mailboxContext(e.context);
    if (hasMailbox(lines, e.ext, context)) {
      mailboxName(e.ext, e.name);
      out.kept.push(e.ext);
      continue;
    }
    const pin = pinOf(e.ext);
    const line = mailboxLine(e.ext, e.name, pin);
    const added: ConfLine = { text: line, context, header: null, mailbox: e.ext };
    let header = -1;
    lines.forEach((l, i) => {
      if (l.header === context) header = i;
    });
    if (header >= 0) {
      let at = header;
      for (let i = header + 1; i < lines.length && (lines[i] as ConfLine).header === null; i++)
        if ((lines[i] as ConfLine).mailbox !== null) at = i;
      lines.splice(at + 1, 0, added);
    } else {
      // A file ending with "\n" has an empty last element: the new section goes before it.
      const at = lines.length > 0 && (lines.at(-1) as ConfLine).text === "" ? lines.length - 1 : lines.length;
      const head: ConfLine = { text: `[${context}]`, context, header: context, mailbox: null };
      lines.splice(at, 0, head, added);
    }
    out.created.push(e.ext);
    out.pins.set(e.ext, pin);
  }
  out.content = joinLines(lines);
  return out;
}

// ---------- backup and roll back (ADR 0026) ----------

/** One mailbox line of the backup, with the line before it (by hash and occurrence) to put it back in place. */
interface StoredLine {
  ext: string;
  context: string;
  /** The line, base64 of its bytes. */
  line: string;
  /** SHA-256 of the nearest preceding line that is not in the backup, and which occurrence of that text it is. */
  anchor: { sha: string; n: number } | null;
}

/** What a backup keeps of voicemail.conf: only the lines of its extensions, and the section names. */
export interface VoicemailSnapshot {
  path: string;
  numbers: string[];
  contexts: string[];
  lines: StoredLine[];
}

const lineSha = (text: string) => nodeCrypto().createHash("sha256").update(Buffer.from(text, "latin1")).digest("hex");

/** The mailbox lines of these extensions (every mailbox context), as a backup keeps them. */
export function voicemailSnapshot(path: string, content: string, numbers: string[]): VoicemailSnapshot {
  const scope = new Set(numbers);
  const lines = parseVoicemailConf(content);
  const stored: StoredLine[] = [];
  const seen = new Map<string, number>();
  let anchor: StoredLine["anchor"] = null;
  for (const l of lines) {
    if (l.mailbox !== null && scope.has(l.mailbox)) {
      stored.push({
        ext: l.mailbox,
        context: l.context as string,
        line: Buffer.from(l.text, "latin1").toString("base64"),
        anchor,
      });
      continue;
    }
    const sha = lineSha(l.text);
    const n = (seen.get(sha) ?? 0) + 1;
    seen.set(sha, n);
    anchor = { sha, n };
  }
  const contexts = [...new Set(lines.filter((l) => l.header !== null).map((l) => l.header as string))];
  return { path, numbers: [...scope], contexts, lines: stored };
}

/**
 * voicemail.conf with the backup's extensions' mailbox lines as they were: their current lines go, sections
 * that are left empty and did not exist then go, and the backed-up lines come back after the line they
 * followed. With nothing else changed in between, the file is byte for byte what it was.
 */
export function restoreVoicemail(content: string, snap: VoicemailSnapshot): string {
  const scope = new Set(snap.numbers);
  for (const n of scope) if (!NUMBER_RE.test(n)) throw new UnsafeValueError(`not an extension number: ${n}`);
  let lines = parseVoicemailConf(content).filter((l) => !(l.mailbox !== null && scope.has(l.mailbox)));
  // Sections the apply added (absent before) that hold nothing now.
  const had = new Set(snap.contexts);
  lines = lines.filter((l, i) => {
    if (l.header === null || had.has(l.header)) return true;
    for (let j = i + 1; j < lines.length && (lines[j] as ConfLine).header === null; j++)
      if ((lines[j] as ConfLine).text.trim() !== "") return true;
    return false;
  });
  const result: { text: string; inserted: boolean; sha?: string; n?: number }[] = [];
  const seen = new Map<string, number>();
  for (const l of lines) {
    const sha = lineSha(l.text);
    const n = (seen.get(sha) ?? 0) + 1;
    seen.set(sha, n);
    result.push({ text: l.text, inserted: false, sha, n });
  }
  for (const s of snap.lines) {
    const text = Buffer.from(s.line, "base64").toString("latin1");
    if (/\n/.test(text)) throw new UnsafeValueError("a voicemail line of the backup is damaged");
    let at: number;
    if (s.anchor === null) at = 0;
    else {
      const { sha, n } = s.anchor;
      const i = result.findIndex((r) => !r.inserted && r.sha === sha && r.n === n);
      if (i >= 0) at = i + 1;
      else {
        // The line it followed is gone: after the last line of its context, else a new section at the end.
        const parsed = parseVoicemailConf(joinLines(result));
        let last = -1;
        parsed.forEach((l, k) => {
          if (l.context === s.context && (l.header !== null || l.mailbox !== null)) last = k;
        });
        if (last < 0) {
          const end =
            result.length > 0 && (result.at(-1) as { text: string }).text === "" ? result.length - 1 : result.length;
          result.splice(end, 0, { text: `[${mailboxContext(s.context)}]`, inserted: true });
          at = end + 1;
        } else at = last + 1;
      }
    }
    while (at < result.length && (result[at] as { inserted: boolean }).inserted) at++;
    result.splice(at, 0, { text, inserted: true });
  }
  return joinLines(result);
}

// ---------- the deploy's step (after the SQL commit and AstDB, before the reload) ----------

/** What the deploy's voicemail step needs of the PBX host session (`host.ts`'s `PbxRemote` is one). */
export interface VoicemailHost {
  selectHex(sql: string): Promise<(string | null)[][]>;
  readVoicemailConf(): Promise<{ path: string; content: string | null }>;
  writeVoicemailConf(
    path: string,
    expectedSha256: string,
    content: string,
  ): Promise<{ ok: true } | { ok: false; message: string }>;
  voicemailReload(): Promise<unknown>;
}

/** The voicemail contexts of extensions about to be deleted (their users rows are gone after the commit). */
export async function contextsBeforeDelete(
  remote: VoicemailHost,
  numbers: string[],
): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  if (!numbers.length) return out;
  for (const n of numbers) if (!NUMBER_RE.test(n)) throw new UnsafeValueError(`not an extension number: ${n}`);
  const rows = await remote
    .selectHex(
      `SELECT HEX(extension), HEX(voicemail) FROM users WHERE extension IN (${numbers.map((n) => `'${n}'`).join(", ")});`,
    )
    .catch(() => []);
  for (const n of numbers) out.set(n, null);
  for (const [n, vm] of rows) if (n && vm && vm !== "novm" && CONTEXT_RE.test(vm)) out.set(n, vm);
  return out;
}

const isOn = (voicemail: string | null) => Boolean(voicemail) && voicemail !== "novm";

/**
 * Ensures the mailboxes of the extensions just written with voicemail on (their context and name from
 * their rows as they now are on the PBX) and removes the mailbox lines of the managed extensions just
 * deleted: one read, one compare-and-swap write, then `voicemail reload`. An extension whose mailbox could
 * not be created is reported failed with the reason (its rows and AstDB stay: the next deploy completes it);
 * a deleted one whose line could not be removed too. A created mailbox's random PIN is kept to be shown
 * once; its result carries the handle (`voicemailPin`), never the PIN.
 */
export async function completeVoicemail(
  deps: Pick<Deps, "db" | "now">,
  remote: VoicemailHost,
  written: DeployItemResult[],
  rows: ExtensionRows[],
  deleted: DeployItemResult[],
  deletedContexts: Map<string, string | null>,
): Promise<void> {
  const ensure: { r: DeployItemResult; e: MailboxEnsure }[] = [];
  const failWrite = (r: DeployItemResult, why: string) => {
    r.status = "failed";
    r.message = `${r.message}, but its voicemail mailbox was not created: ${why}`;
  };
  for (const r of written) {
    if (r.kind !== "extension" || r.status !== "success") continue;
    const row = rows.find((x) => x.id === r.name);
    if (!row || !isOn(row.voicemail)) continue;
    try {
      const e = { ext: r.name, context: mailboxContext(row.voicemail as string), name: row.name ?? "" };
      mailboxName(e.ext, e.name);
      ensure.push({ r, e });
    } catch (err) {
      if (!(err instanceof UnsafeValueError)) throw err;
      failWrite(r, err.message);
    }
  }
  const removals = deleted.filter((r) => r.kind === "extension" && r.status === "success");
  if (!ensure.length && !removals.length) return;
  const failAll = (why: string) => {
    for (const { r } of ensure) failWrite(r, why);
    for (const r of removals) {
      r.status = "failed";
      r.message = `${r.message}, but its voicemail mailbox line was not removed: ${why}`;
    }
  };
  let read: Awaited<ReturnType<VoicemailHost["readVoicemailConf"]>>;
  try {
    read = await remote.readVoicemailConf();
  } catch (err) {
    if (!(err instanceof ServiceError || err instanceof UnsafeValueError)) throw err;
    failAll(err.message);
    return;
  }
  if (read.content === null) {
    if (ensure.length)
      for (const { r } of ensure)
        failWrite(r, `${read.path} does not exist (is FreePBX's Voicemail module installed?)`);
    return;
  }
  const edit = editVoicemail(
    read.content,
    ensure.map((x) => x.e),
    removals.map((r) => ({ ext: r.name, context: deletedContexts.get(r.name) ?? null })),
  );
  if (edit.content !== read.content) {
    const out = await remote
      .writeVoicemailConf(read.path, sha256Of(read.content), edit.content)
      .catch((err: unknown) => {
        if (!(err instanceof ServiceError)) throw err;
        return { ok: false as const, message: err.message };
      });
    if (!out.ok) {
      failAll(out.message);
      return;
    }
    // fwconsole reload follows and reloads it too; a voicemail reload that fails is not the item's failure.
    await remote.voicemailReload().catch(() => null);
  }
  for (const { r, e } of ensure) {
    const pin = edit.pins.get(e.ext);
    if (pin === undefined) continue;
    r.voicemailPin = keepNewPin(deps, { extension: e.ext, context: e.context, pin });
    r.message += `; voicemail mailbox created in [${e.context}] with a random PIN (shown once in the results)`;
  }
  for (const r of removals)
    if (edit.removed.includes(r.name))
      r.message += "; its voicemail mailbox line removed (recorded messages are left in the spool folder)";
}
