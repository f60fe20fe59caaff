/**
 * The PBX host over SSH: FreePBX's database credentials from /etc/freepbx.conf,
 * SQL through the host's `mysql` client (the password in a 0600 option file,
 * never on a command line), `fwconsole`, `asterisk -rx` for AstDB. Every command
 * is a fixed string; the only variable parts are a mktemp path and a database
 * name, both allow-listed; data (SQL, AstDB lines) travels on stdin.
 */
import { ServiceError } from "../../clients/http";
import { type ExecResult, SshSession, type SshSettings } from "../../clients/ssh";
import type { Deps } from "../../core/deps";
import { sshSettings } from "../../integrations/outside";
import type { Script } from "../deploy/script";
import {
  ASTDB_DELTREE_BATCH,
  ASTDB_FAMILY_LINES,
  ASTDB_GET_BATCH,
  ASTDB_SHOW_DEVICES_COMMAND,
  ASTDB_SHOW_TREES_BATCH,
  ASTDB_WRITE_BATCH,
  type AstdbEntry,
  type AstdbTree,
  astdbGetLines,
  astdbLines,
  astdbRestoreLines,
  astdbTreeLines,
  devicesWithDial,
  MANAGER_SETTINGS,
  managerLoginLine,
  parseAstdbShow,
} from "./astdb";
import {
  FILE_EXIT,
  FILE_EXPIRED_COMMAND,
  FILE_INFO_COMMAND,
  FILE_RANGE_COMMAND,
  FILE_REMOVE_COMMAND,
  type FileInfo,
  fileExpiredInput,
  fileInfoInput,
  fileRangeInput,
  fileRemoveInput,
  parseExpired,
  parseFileInfo,
} from "./files";
import {
  busyReason,
  type LockWait,
  RELOAD_LOCK_WAIT,
  reloadFailureReason,
  reloadLocked,
  reloadRetries,
  whileLocked,
} from "./reload";
import {
  parseSoundFiles,
  SOUND_FILES_COMMAND,
  SOUND_READ_COMMAND,
  SOUND_REMOVE_COMMAND,
  SOUND_STORE_COMMAND,
  type SoundFile,
  soundFilesInput,
  soundReadInput,
} from "./sounds";
import {
  DEFAULT_ASTETCDIR,
  parseVoicemailRead,
  VOICEMAIL_READ_COMMAND,
  VOICEMAIL_RELOAD_COMMAND,
  VOICEMAIL_WRITE_COMMAND,
  voicemailReadInput,
  voicemailWriteInput,
} from "./voicemail";
import {
  GREETING_REMOVE_COMMAND,
  GREETING_STORE_COMMAND,
  parseVoicemailList,
  VOICEMAIL_LIST_COMMAND,
  type VoicemailSpool,
  voicemailListInput,
} from "./voicemail-spool";

export const DEFAULT_FREEPBX_CONF = "/etc/freepbx.conf";
/** A failed command's last line of output (stderr first). */
const lastLine = (out: ExecResult) => (out.stderr || out.stdout).trim().split("\n").at(-1) ?? "";
/** Prints the host's zone name: /etc/timezone, else the zoneinfo path /etc/localtime links to. */
const HOST_TIME_ZONE_COMMAND =
  "{ cat /etc/timezone 2>/dev/null || readlink -f /etc/localtime | sed -n 's|^.*/zoneinfo/||p'; } | head -n 1";

/** How long one `fwconsole reload` may run (a large PBX takes minutes). */
export const RELOAD_TIMEOUT_MS = 5 * 60_000;
const SAFE_PATH = /^\/[A-Za-z0-9._/-]+$/;

export interface DbConfig {
  user: string;
  password: string;
  host: string;
  port: string | null;
  name: string;
}

/** One `$amp_conf['KEY'] = 'value';` of FreePBX's PHP config (the single-quoted string unescaped), or null. */
export function ampConfValue(text: string, key: string): string | null {
  const m = text.match(
    new RegExp(`\\$amp_conf\\[\\s*['"]${key}['"]\\s*\\]\\s*=\\s*(['"])((?:\\\\.|(?!\\1).)*)\\1\\s*;`),
  );
  return m ? (m[2] as string).replace(/\\(['"\\])/g, "$1") : null;
}

/** Parses `$amp_conf['AMPDBUSER'] = 'x';` lines of FreePBX's PHP config. */
export function parseFreepbxConf(text: string): DbConfig {
  const get = (key: string) => ampConfValue(text, key);
  const cfg = {
    user: get("AMPDBUSER"),
    password: get("AMPDBPASS"),
    host: get("AMPDBHOST") ?? "localhost",
    port: get("AMPDBPORT"),
    name: get("AMPDBNAME") ?? "asterisk",
  };
  if (!cfg.user || cfg.password === null) throw new ServiceError("PBX host", "freepbx.conf has no AMPDBUSER/AMPDBPASS");
  if (!/^[A-Za-z0-9_]{1,64}$/.test(cfg.name))
    throw new ServiceError("PBX host", "freepbx.conf names an unusual database");
  return cfg as DbConfig;
}

const optionValue = (v: string) => {
  if (/[\r\n]/.test(v)) throw new ServiceError("PBX host", "freepbx.conf holds a value with a line break");
  return `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
};

export interface SqlFailure {
  ok: false;
  message: string;
  /** The script line MariaDB named, when it did. */
  line: number | null;
}

export class PbxRemote {
  private constructor(
    private readonly ssh: SshSession,
    private readonly db: DbConfig,
    private readonly optionFile: string,
  ) {}

  get hostKey() {
    return this.ssh.hostKey;
  }

  static async open(settings: SshSettings, confPath = DEFAULT_FREEPBX_CONF): Promise<PbxRemote> {
    if (!SAFE_PATH.test(confPath)) throw new ServiceError("PBX host", "The freepbx.conf path is not a plain file path");
    const ssh = await SshSession.connect(settings);
    try {
      const conf = await ssh.exec(`cat '${confPath}'`, { timeoutMs: 15_000 });
      if (conf.code !== 0)
        throw new ServiceError("PBX host", `Cannot read ${confPath} on the PBX host: ${conf.stderr.trim()}`);
      const db = parseFreepbxConf(conf.stdout);
      const options = [
        "[client]",
        `user=${optionValue(db.user)}`,
        `password=${optionValue(db.password)}`,
        `host=${optionValue(db.host)}`,
        ...(db.port && /^\d+$/.test(db.port) ? [`port=${db.port}`] : []),
        "default-character-set=utf8mb4",
        "",
      ].join("\n");
      // One fixed command: a private temp file receives the options from stdin; its path comes back.
      const made = await ssh.exec('umask 077 && f=$(mktemp) && cat > "$f" && printf %s "$f"', {
        stdin: options,
        timeoutMs: 15_000,
      });
      const file = made.stdout.trim();
      if (made.code !== 0 || !SAFE_PATH.test(file))
        throw new ServiceError("PBX host", "Cannot write the MySQL option file on the PBX host");
      return new PbxRemote(ssh, db, file);
    } catch (err) {
      ssh.close();
      throw err;
    }
  }

  private mysql(args: string) {
    return `mysql --defaults-extra-file='${this.optionFile}' ${args} '${this.db.name}'`;
  }

  /** Runs a script in the host's mysql client; MariaDB's error names the failing line. */
  async runScript(script: Script): Promise<{ ok: true } | SqlFailure> {
    const out = await this.ssh.exec(this.mysql("--batch"), { stdin: script.text, timeoutMs: 120_000 });
    if (out.code === 0) return { ok: true };
    const text = (out.stderr || out.stdout).trim();
    const m = text.match(/ERROR (\d+) \(\w+\) at line (\d+)(?:[^:]*)?: (.*)/);
    if (m) return { ok: false, line: Number(m[2]), message: `MariaDB error ${m[1]}: ${m[3]}` };
    return { ok: false, line: null, message: text.split("\n").at(-1) || `mysql exited with ${out.code}` };
  }

  /**
   * Runs a SELECT whose columns are all HEX(...) expressions, and decodes them:
   * unambiguous for any byte, NULL stays null (HEX of NULL prints "NULL").
   */
  async selectHex(sql: string): Promise<(string | null)[][]> {
    const out = await this.ssh.exec(this.mysql("--batch --skip-column-names"), { stdin: sql, timeoutMs: 60_000 });
    if (out.code !== 0)
      throw new ServiceError("PBX host", `Reading the FreePBX database failed: ${(out.stderr || out.stdout).trim()}`);
    return out.stdout
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) => l.split("\t").map((c) => (c === "NULL" ? null : Buffer.from(c, "hex").toString("utf8"))));
  }

  /**
   * Like `selectHex`, but the values stay HEX (byte-exact whatever the column holds, for a backup that
   * is written back with UNHEX); NULL stays null. Runs every statement of `sql` (several SELECTs).
   */
  async selectHexRaw(sql: string): Promise<(string | null)[][]> {
    const out = await this.ssh.exec(this.mysql("--batch --skip-column-names"), { stdin: sql, timeoutMs: 60_000 });
    if (out.code !== 0)
      throw new ServiceError("PBX host", `Reading the FreePBX database failed: ${(out.stderr || out.stdout).trim()}`);
    return out.stdout
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) => l.split("\t").map((c) => (c === "NULL" ? null : c)));
  }

  /** `database show FAMILY number` for each tree (one fixed command), as Asterisk printed it. */
  async astdbShowTrees(trees: AstdbTree[]): Promise<string> {
    if (trees.length === 0) return "";
    const out = await this.ssh.exec(ASTDB_SHOW_TREES_BATCH, {
      stdin: (await this.managerLogin()) + astdbTreeLines(trees),
      timeoutMs: 120_000,
    });
    if (out.code !== 0) {
      const text = `${out.stderr}${out.stdout}`.trim();
      throw new ServiceError("PBX host", text.split("\n").at(-1) || `database show exited with ${out.code}`);
    }
    return out.stdout;
  }

  /** `database get` of each path (`/AMPUSER/1001/cidname`), exactly as stored; null when absent. */
  async astdbGet(paths: string[]): Promise<(string | null)[]> {
    if (paths.length === 0) return [];
    const out = await this.ssh.exec(ASTDB_GET_BATCH, {
      stdin: (await this.managerLogin()) + astdbGetLines(paths),
      timeoutMs: 120_000,
    });
    const lines = out.stdout.split("\n");
    if (out.code !== 0 || lines.length < paths.length) {
      const text = `${out.stderr}${out.stdout}`.trim();
      throw new ServiceError("PBX host", text.split("\n").at(-1) || `database get exited with ${out.code}`);
    }
    return paths.map((_, i) => {
      const line = lines[i] as string;
      // "Value: x"; an empty value is "Value:" once the manager interface has dropped the trailing space.
      return line === "Value:" ? "" : line.startsWith("Value: ") ? line.slice("Value: ".length) : null;
    });
  }

  /** Puts backed-up AstDB entries back exactly (`/FAMILY/key` → value), through `ASTDB_WRITE_COMMAND`. */
  async restoreAstdb(entries: Record<string, string>): Promise<{ ok: true } | { ok: false; message: string }> {
    this.families = null;
    if (Object.keys(entries).length === 0) return { ok: true };
    const out = await this.ssh.exec(ASTDB_WRITE_BATCH, {
      stdin: (await this.managerLogin()) + astdbRestoreLines(entries),
      timeoutMs: 120_000,
    });
    if (out.code !== 0) {
      const text = `${out.stderr}${out.stdout}`.trim();
      return { ok: false, message: text.split("\n").at(-1) || `exit ${out.code}` };
    }
    return { ok: true };
  }

  async needReload(): Promise<boolean> {
    const rows = await this.selectHex("SELECT HEX(value) FROM admin WHERE variable = 'need_reload';");
    return rows[0]?.[0] === "true";
  }

  /**
   * `fwconsole reload`: its whole output (stdout, then stderr) and, when it failed, the reason read from it.
   * While another fwconsole holds FreePBX's lock, the reload refuses before doing anything; it is tried
   * again about once a second for `lock.waitMs` (`RELOAD_LOCK_WAIT`), then fails with "FreePBX is busy: …".
   * A reload whose keyring check met another gpg at work is tried again the same way, for
   * `RELOAD_RACE_WAIT_MS`. `onWait` is told the job's item when either is first met, so a job can say why it pauses.
   */
  async reload(
    lock: Partial<LockWait> & { onWait?: (item: string) => void } = {},
  ): Promise<{ ok: boolean; exitCode: number | null; output: string; reason: string | null }> {
    this.families = null;
    const run = async () => {
      const out = await this.ssh.exec("fwconsole reload", { timeoutMs: RELOAD_TIMEOUT_MS });
      return { code: out.code, output: [out.stdout.trim(), out.stderr.trim()].filter(Boolean).join("\n") };
    };
    const retries = reloadRetries(lock.onWait);
    const tried = await whileLocked(run, retries.again, { ...RELOAD_LOCK_WAIT, ...lock });
    const { code, output } = tried.answer;
    const ok = code === 0;
    const reason = ok
      ? null
      : tried.heldMs !== null && reloadLocked(output)
        ? busyReason(tried.heldMs)
        : reloadFailureReason(output, code);
    return { ok, exitCode: code, output: `${retries.note(tried.attempts, tried.waitedMs)}${output}`, reason };
  }

  /**
   * Writes AstDB entries with `asterisk -rx "database put …"` (ADR 0023), through one fixed
   * command that reads the entries from stdin. Returns how many keys were put.
   */
  async writeAstdb(entries: AstdbEntry[]): Promise<{ ok: true; put: number } | { ok: false; message: string }> {
    this.families = null;
    if (entries.length === 0) return { ok: true, put: 0 };
    const out = await this.ssh.exec(ASTDB_WRITE_BATCH, {
      stdin: (await this.managerLogin()) + astdbLines(entries),
      timeoutMs: 120_000,
    });
    if (out.code !== 0) {
      const text = `${out.stderr}${out.stdout}`.trim();
      return { ok: false, message: text.split("\n").at(-1) || `exit ${out.code}` };
    }
    return { ok: true, put: Number(out.stdout.trim()) || 0 };
  }

  /**
   * Deletes extensions' AstDB trees (`DEVICE/<n>`, `AMPUSER/<n>`) with `asterisk -rx "database deltree …"`,
   * through one fixed command reading allow-listed lines from stdin (ADR 0025).
   */
  async deleteAstdbTrees(trees: AstdbTree[]): Promise<{ ok: true } | { ok: false; message: string }> {
    this.families = null;
    if (trees.length === 0) return { ok: true };
    const out = await this.ssh.exec(ASTDB_DELTREE_BATCH, {
      stdin: (await this.managerLogin()) + astdbTreeLines(trees),
      timeoutMs: 120_000,
    });
    if (out.code !== 0) {
      const text = `${out.stderr}${out.stdout}`.trim();
      return { ok: false, message: text.split("\n").at(-1) || `exit ${out.code}` };
    }
    return { ok: true };
  }

  /**
   * The console's AstDB families (DEVICE, AMPUSER, CW) in one command: path → value as listed (Asterisk
   * pads values with spaces to 25 characters). Throws when Asterisk does not answer.
   */
  async astdbFamilies(): Promise<Map<string, string>> {
    const map = new Map<string, string>();
    for (const e of await this.astdbFamilyEntries()) map.set(e.path, e.value);
    return map;
  }

  /**
   * The same three families as parsed entries (`exact: false` for a value Asterisk padded). Read once per
   * session until this session writes AstDB or reloads: a deployment's backup and its AstDB step, between
   * which only SQL is written, share one listing.
   */
  astdbFamilyEntries(): Promise<ReturnType<typeof parseAstdbShow>> {
    this.families ??= this.managerLogin()
      .then((login) => this.ssh.exec(ASTDB_SHOW_TREES_BATCH, { stdin: login + ASTDB_FAMILY_LINES, timeoutMs: 120_000 }))
      .then((out) => {
        if (out.code !== 0)
          throw new ServiceError("PBX host", `${out.stderr}${out.stdout}`.trim().split("\n").at(-1) ?? "");
        return parseAstdbShow(out.stdout);
      });
    // A failed read is not kept: the next caller asks Asterisk again.
    this.families.catch(() => {
      this.families = null;
    });
    return this.families;
  }

  /** The families as last listed in this session; forgotten by every write to AstDB and every reload. */
  private families: Promise<ReturnType<typeof parseAstdbShow>> | null = null;
  private login: Promise<string> | null = null;

  /**
   * FreePBX's manager login (its Advanced Settings, as FreePBX's own code reads them), once per session: the
   * first stdin line of the AstDB batches. A line without a user when it cannot be read: the batch then runs
   * its `asterisk -rx` loop.
   */
  private managerLogin(): Promise<string> {
    this.login ??= this.selectHex(
      `SELECT HEX(keyword), HEX(value) FROM freepbx_settings WHERE keyword IN (${MANAGER_SETTINGS.map((k) => `'${k}'`).join(", ")});`,
    )
      .then((rows) => managerLoginLine(Object.fromEntries(rows.map(([k, v]) => [k ?? "", v ?? ""]))))
      .catch(() => managerLoginLine({}));
    return this.login;
  }

  /** The extensions that have their `DEVICE/<n>/dial` AstDB entry; null when Asterisk does not answer. */
  async astdbDevices(): Promise<Set<string> | null> {
    const out = await this.ssh.exec(ASTDB_SHOW_DEVICES_COMMAND, { timeoutMs: 60_000 });
    if (out.code !== 0 || !/results found/.test(out.stdout)) return null;
    return devicesWithDial(out.stdout);
  }

  /** `fwconsole trunks --list --json`: trunkid (number or string), tech, channelid, disabled. */
  async trunkList(): Promise<{ trunkid: number | string; tech: string; channelid: string; disabled: string }[]> {
    const out = await this.ssh.exec("fwconsole trunks --list --json", { timeoutMs: 60_000 });
    if (out.code !== 0)
      throw new ServiceError("PBX host", `fwconsole trunks --list failed: ${(out.stderr || out.stdout).trim()}`);
    try {
      const parsed = JSON.parse(out.stdout.trim() || "[]");
      return Array.isArray(parsed) ? parsed : [];
    } catch {
      throw new ServiceError("PBX host", "fwconsole trunks --list --json did not print JSON");
    }
  }

  /** `asterisk -rx 'pjsip show registrations'` → registration state per trunk name, or null without Asterisk. */
  async registrations(): Promise<Map<string, string> | null> {
    const out = await this.ssh.exec("asterisk -rx 'pjsip show registrations'", { timeoutMs: 20_000 });
    if (out.code !== 0) return null;
    const states = new Map<string, string>();
    for (const line of out.stdout.split("\n")) {
      const m = line.trim().match(/^([^\s/]+)\/\S+\s+\S+\s+(Registered|Unregistered|Rejected|Stopped|Unknown)/i);
      if (m) states.set(m[1] as string, (m[2] as string).toLowerCase());
    }
    return states;
  }

  private etcDir: string | null = null;

  /**
   * voicemail.conf's path: FreePBX's ASTETCDIR setting (`freepbx_settings`, Advanced Settings "Asterisk etc
   * Dir"; the Voicemail module finds the file the same way), `/etc/asterisk` when it is not set. Read once per
   * session.
   */
  async voicemailConfPath(): Promise<string> {
    if (this.etcDir === null) {
      const rows = await this.selectHex("SELECT HEX(value) FROM freepbx_settings WHERE keyword = 'ASTETCDIR';");
      const dir = (rows[0]?.[0] ?? "").replace(/\/+$/, "") || DEFAULT_ASTETCDIR;
      if (!SAFE_PATH.test(dir) || dir.includes(".."))
        throw new ServiceError("PBX host", "FreePBX's ASTETCDIR is not a plain directory path");
      this.etcDir = dir;
    }
    return `${this.etcDir}/voicemail.conf`;
  }

  /** voicemail.conf as bytes (a binary string), or null when the file does not exist (ADR 0023). */
  async readVoicemailConf(): Promise<{ path: string; content: string | null }> {
    const path = await this.voicemailConfPath();
    const out = await this.ssh.exec(VOICEMAIL_READ_COMMAND, { stdin: voicemailReadInput(path), timeoutMs: 30_000 });
    if (out.code !== 0)
      throw new ServiceError(
        "PBX host",
        `Cannot read ${path}: ${(out.stderr || out.stdout).trim() || `exit ${out.code}`}`,
      );
    return { path, content: parseVoicemailRead(out.stdout) };
  }

  /** Replaces voicemail.conf if it still has `expectedSha256` (atomic, owner and mode kept); else nothing is written. */
  async writeVoicemailConf(
    path: string,
    expectedSha256: string,
    content: string,
  ): Promise<{ ok: true } | { ok: false; message: string }> {
    const out = await this.ssh.exec(VOICEMAIL_WRITE_COMMAND, {
      stdin: voicemailWriteInput(path, expectedSha256, content),
      timeoutMs: 30_000,
    });
    if (out.code === 0 && out.stdout.trim() === "written") return { ok: true };
    return { ok: false, message: (out.stderr || out.stdout).trim().split("\n").at(-1) || `exit ${out.code}` };
  }

  /** `asterisk -rx "voicemail reload"`: Asterisk re-reads voicemail.conf. */
  async voicemailReload(): Promise<{ ok: true } | { ok: false; message: string }> {
    const out = await this.ssh.exec(VOICEMAIL_RELOAD_COMMAND, { timeoutMs: 30_000 });
    const text = `${out.stdout}${out.stderr}`.trim();
    if (out.code === 0 && /Reloading voicemail/i.test(text)) return { ok: true };
    return { ok: false, message: text.split("\n").at(-1) || `exit ${out.code}` };
  }

  /**
   * The PBX host's own time zone (what Asterisk's `GotoIfTime` uses when a time condition names none): Debian's
   * /etc/timezone, else where /etc/localtime points; null when neither says.
   */
  async hostTimeZone(): Promise<string | null> {
    const out = await this.ssh.exec(HOST_TIME_ZONE_COMMAND, { timeoutMs: 15_000 });
    const zone = out.stdout.trim();
    return out.code === 0 && /^[A-Za-z0-9_+\-/]{1,64}$/.test(zone) ? zone : null;
  }

  /** System recordings' sound files (`custom/welcome`) as found in each language directory (pbx/host/sounds.ts). */
  async soundFiles(soundsDir: string, files: readonly string[]): Promise<SoundFile[]> {
    if (files.length === 0) return [];
    const out = await this.ssh.exec(SOUND_FILES_COMMAND, {
      stdin: soundFilesInput(soundsDir, files),
      timeoutMs: 30_000,
    });
    if (out.code !== 0)
      throw new ServiceError("PBX host", `Listing the sound files failed: ${lastLine(out) || `exit ${out.code}`}`);
    return parseSoundFiles(out.stdout);
  }

  /** Converts and stores an upload (`SOUND_STORE_COMMAND`, its lines `input`, then the bytes); the command's answer. */
  storeSound(input: string, bytes: Uint8Array): Promise<ExecResult> {
    return this.ssh.exec(SOUND_STORE_COMMAND, {
      stdin: Buffer.concat([Buffer.from(input), bytes]),
      timeoutMs: 150_000,
    });
  }

  /** Removes these sound files in every language; answers the files removed (`en/custom/welcome.wav`). */
  async removeSounds(soundsDir: string, files: readonly string[]): Promise<string[]> {
    if (files.length === 0) return [];
    const out = await this.ssh.exec(SOUND_REMOVE_COMMAND, {
      stdin: soundFilesInput(soundsDir, files),
      timeoutMs: 30_000,
    });
    if (out.code !== 0)
      throw new ServiceError("PBX host", `Removing the sound files failed: ${lastLine(out) || `exit ${out.code}`}`);
    return out.stdout.split("\n").filter(Boolean);
  }

  /** One sound file's bytes as they come (at most `timeoutMs` in all). */
  readSound(path: string, timeoutMs: number): Promise<ReadableStream<Uint8Array>> {
    return this.ssh.execStream(SOUND_READ_COMMAND, { stdin: soundReadInput(path), timeoutMs });
  }

  /** Mailboxes' messages and greetings as the voicemail spool holds them (voicemail-spool.ts). */
  async voicemailSpool(spool: string, context: string, mailboxes: readonly string[]): Promise<VoicemailSpool> {
    if (mailboxes.length === 0) return { messages: [], greetings: [] };
    const out = await this.ssh.exec(VOICEMAIL_LIST_COMMAND, {
      stdin: voicemailListInput(spool, context, mailboxes),
      timeoutMs: 30_000,
    });
    if (out.code !== 0)
      throw new ServiceError("PBX host", `Reading the voicemail spool failed: ${lastLine(out) || `exit ${out.code}`}`);
    return parseVoicemailList(out.stdout);
  }

  /** Converts and stores a greeting (`GREETING_STORE_COMMAND`, its lines `input`, then the bytes); the command's answer. */
  storeGreeting(input: string, bytes: Uint8Array): Promise<ExecResult> {
    return this.ssh.exec(GREETING_STORE_COMMAND, {
      stdin: Buffer.concat([Buffer.from(input), bytes]),
      timeoutMs: 150_000,
    });
  }

  /** Removes a greeting in every format (`GREETING_REMOVE_COMMAND`); the files removed (`unavail.wav`). */
  async removeGreeting(input: string): Promise<string[]> {
    const out = await this.ssh.exec(GREETING_REMOVE_COMMAND, { stdin: input, timeoutMs: 30_000 });
    if (out.code !== 0)
      throw new ServiceError("PBX host", `Removing the greeting failed: ${lastLine(out) || `exit ${out.code}`}`);
    return out.stdout.split("\n").filter(Boolean);
  }

  /** FreePBX's Advanced Settings `keywords` (`freepbx_settings`), read once per session each; absent ones are left out. */
  async freepbxSettings(keywords: readonly string[]): Promise<Map<string, string>> {
    const missing = keywords.filter((k) => !this.settingsRead.has(k));
    if (missing.length > 0) {
      if (!missing.every((k) => /^[A-Z0-9_]{1,64}$/.test(k))) throw new ServiceError("PBX host", "Not a setting name");
      const rows = await this.selectHex(
        `SELECT HEX(keyword), HEX(value) FROM freepbx_settings WHERE keyword IN (${missing.map((k) => `'${k}'`).join(", ")});`,
      );
      for (const k of missing) this.settingsRead.set(k, null);
      for (const [k, v] of rows) if (k) this.settingsRead.set(k, v ?? "");
    }
    const out = new Map<string, string>();
    for (const k of keywords) {
      const v = this.settingsRead.get(k);
      if (v !== null && v !== undefined) out.set(k, v);
    }
    return out;
  }

  private readonly settingsRead = new Map<string, string | null>();

  /**
   * A file under `root` (files.ts): its size and first bytes, `missing` when there is no such regular file,
   * `outside` when its real path leaves `root` (`..`, a symlink out).
   */
  async fileInfo(root: string, name: string): Promise<FileInfo | "missing" | "outside"> {
    const out = await this.ssh.exec(FILE_INFO_COMMAND, { stdin: fileInfoInput(root, name), timeoutMs: 15_000 });
    if (out.code === FILE_EXIT.missing) return "missing";
    if (out.code === FILE_EXIT.outside) return "outside";
    const info = out.code === 0 ? parseFileInfo(out.stdout) : null;
    if (!info) throw new ServiceError("PBX host", `Reading ${name} failed: ${lastLine(out) || `exit ${out.code}`}`);
    return info;
  }

  /** `count` bytes of a file under `root` from byte `start`, streamed as they come (at most `timeoutMs` in all). */
  fileRange(root: string, name: string, start: number, count: number, timeoutMs: number) {
    return this.ssh.execStream(FILE_RANGE_COMMAND, { stdin: fileRangeInput(root, name, start, count), timeoutMs });
  }

  /** The files under `root` last changed more than `days` days ago (names relative to `root`). */
  async expiredFiles(root: string, days: number): Promise<{ name: string; bytes: number }[]> {
    const out = await this.ssh.exec(FILE_EXPIRED_COMMAND, { stdin: fileExpiredInput(root, days), timeoutMs: 120_000 });
    if (out.code !== 0)
      throw new ServiceError("PBX host", `Listing old files failed: ${lastLine(out) || `exit ${out.code}`}`);
    return parseExpired(out.stdout);
  }

  /** Removes these files under `root` (each checked again on the host); answers the names removed. */
  async removeFiles(root: string, names: readonly string[]): Promise<string[]> {
    if (names.length === 0) return [];
    const out = await this.ssh.exec(FILE_REMOVE_COMMAND, { stdin: fileRemoveInput(root, names), timeoutMs: 120_000 });
    if (out.code !== 0)
      throw new ServiceError("PBX host", `Removing files failed: ${lastLine(out) || `exit ${out.code}`}`);
    return out.stdout.split("\n").filter(Boolean);
  }

  /** Whether the SSH connection is still up. */
  get isOpen(): boolean {
    return this.ssh.isOpen;
  }

  /** Drops the connection at once: every command still running fails (used when a deadline passes). */
  abort(): void {
    this.ssh.close();
  }

  async close(): Promise<void> {
    try {
      await this.ssh.exec(`rm -f '${this.optionFile}'`, { timeoutMs: 10_000 });
    } finally {
      this.ssh.close();
    }
  }
}

/** How long a whole PBX-host operation may take, over all its commands (reload alone may take 5 minutes). */
export const PBX_HOST_DEADLINE_MS = 10 * 60_000;

/**
 * The one way to reach the PBX host: opens a session with the SSH credentials from API Settings (and their
 * freepbx.conf path), runs `fn`, and closes the session (removing the option file). Failures are
 * `ServiceError`s. `host` runs `fn` on a session already open (handed over, closed here as any other);
 * `keepOpen` leaves the session open when `fn` succeeds, for whoever `fn` handed it to, who must close it.
 */
export async function withPbxHost<T>(
  deps: Pick<Deps, "credentials">,
  fn: (host: PbxRemote) => Promise<T>,
  opts: { operation?: string; deadlineMs?: number; host?: PbxRemote; keepOpen?: boolean } = {},
): Promise<T> {
  const { operation = "The PBX host operation", deadlineMs = PBX_HOST_DEADLINE_MS } = opts;
  const host = opts.host ?? (await openPbxHost(deps));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  let ok = false;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      host.abort();
      const minutes = deadlineMs >= 60_000 ? `${Math.round(deadlineMs / 60_000)} min` : `${deadlineMs} ms`;
      reject(new ServiceError("PBX host", `${operation} did not finish within ${minutes}; the connection was closed`));
    }, deadlineMs);
  });
  try {
    const out = await Promise.race([fn(host), expired]);
    ok = true;
    return out;
  } finally {
    clearTimeout(timer);
    // After a deadline the connection is gone: removing the option file fails, and must not hide why.
    if (timedOut) await host.close().catch(() => {});
    else if (!(ok && opts.keepOpen)) await host.close();
  }
}

/** A session to the PBX host with the SSH credentials from API Settings; the caller closes it. */
export async function openPbxHost(deps: Pick<Deps, "credentials">): Promise<PbxRemote> {
  const values = deps.credentials.values("ssh");
  return PbxRemote.open(sshSettings(values), values.freepbxConf || DEFAULT_FREEPBX_CONF);
}
