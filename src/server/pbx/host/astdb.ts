/**
 * Asterisk's database (AstDB) entries of an extension, the ones FreePBX Core writes in
 * `addDevice()` / `addUser()` (reference §2.8, §3): the generated dialplan reads
 * `DEVICE/<n>/*` and `AMPUSER/<n>/*` at call time, so an extension written by SQL
 * alone cannot ring. ADR 0023.
 *
 * The entries are derived from the extension's `devices` and `users` rows AS THEY ARE
 * on the PBX after the merge (so a ring time or outbound caller ID set in FreePBX is
 * what AstDB gets, exactly as Core would write it): those keys are always put. Keys
 * Core keeps only in AstDB (call waiting, answer mode, recording options…) are put
 * only when absent, so an administrator's choice survives; but the recording-policy keys the
 * console holds a value for, which the deploy puts with that value (ownership.ts `recordingAstdb`, ADR 0061).
 *
 * They are written over SSH with one fixed command (`ASTDB_WRITE_COMMAND`) that reads
 * tab-separated lines from stdin and runs `asterisk -rx "database put …"` per line; the
 * shell never interprets a value, and each value is quoted for Asterisk's CLI parser
 * (`cliArg`). Families and keys are allow-listed.
 *
 * A ring group's `RINGGROUP/<n>/changecid` and `…/fixedcid` (what `Ringgroups::add()` puts) and a queue's
 * `QPENALTY/<n>/dynmemberonly` (what `queues_add()` puts) go through the same batches, backups and deletes
 * (ADR 0056, 0057).
 */
import { UnsafeValueError } from "./sql";

/** The AstDB families the console writes: an extension's (Core), a ring group's (Ringgroups::add), a queue's (queues_add). */
export type AstdbFamily = "DEVICE" | "AMPUSER" | "CW" | "RINGGROUP" | "QPENALTY";
const FAMILIES: readonly string[] = ["DEVICE", "AMPUSER", "CW", "RINGGROUP", "QPENALTY"];

export interface AstdbEntry {
  family: AstdbFamily;
  key: string;
  value: string;
  /** "set": always written; "add": written only when the key is absent. */
  mode: "set" | "add";
}

/** What the read-back SELECT gives per extension (decoded; null = NULL / no row). */
export interface ExtensionRows {
  id: string;
  tech: string | null;
  dial: string | null;
  devicetype: string | null;
  user: string | null;
  emergencyCid: string | null;
  name: string | null;
  password: string | null;
  voicemail: string | null;
  ringtimer: string | null;
  noanswer: string | null;
  recording: string | null;
  outboundcid: string | null;
  /** FreePBX's Advanced Setting CONCURRENCYLIMITDEFAULT, what Core gives a new extension; null when unset. */
  concurrencyLimitDefault: string | null;
}

const NUMBER = /^\d{1,20}$/;

/** The read-back of `devices` + `users` for these (allow-listed) numbers; every column HEX-encoded. */
export function extensionRowsSql(numbers: string[]): string {
  for (const n of numbers) if (!NUMBER.test(n)) throw new UnsafeValueError(`not an extension number: ${n}`);
  const list = numbers.map((n) => `'${n}'`).join(", ");
  const cols = [
    "d.id",
    "d.tech",
    "d.dial",
    "d.devicetype",
    "d.user",
    "d.emergency_cid",
    "u.name",
    "u.password",
    "u.voicemail",
    "CAST(u.ringtimer AS CHAR)",
    "u.noanswer",
    "u.recording",
    "u.outboundcid",
    "(SELECT value FROM freepbx_settings WHERE keyword = 'CONCURRENCYLIMITDEFAULT')",
  ];
  return `SELECT ${cols.map((c) => `HEX(${c})`).join(", ")} FROM devices d LEFT JOIN users u ON u.extension = d.id WHERE d.id IN (${list}) ORDER BY d.id;`;
}

export function parseExtensionRows(rows: (string | null)[][]): ExtensionRows[] {
  return rows.map((r) => ({
    id: r[0] ?? "",
    tech: r[1] ?? null,
    dial: r[2] ?? null,
    devicetype: r[3] ?? null,
    user: r[4] ?? null,
    emergencyCid: r[5] ?? null,
    name: r[6] ?? null,
    password: r[7] ?? null,
    voicemail: r[8] ?? null,
    ringtimer: r[9] ?? null,
    noanswer: r[10] ?? null,
    recording: r[11] ?? null,
    outboundcid: r[12] ?? null,
    concurrencyLimitDefault: r[13] ?? null,
  }));
}

/** FreePBX's own default when the setting cannot be read (CONCURRENCYLIMITDEFAULT's default value). */
const CONCURRENCY_LIMIT_FALLBACK = "3";

/** The setting's value when it is a whole number (FreePBX offers 0, "No Limit", to 120), else FreePBX's default. */
const concurrencyLimit = (v: string | null) => (v !== null && /^\d{1,3}$/.test(v) ? v : CONCURRENCY_LIMIT_FALLBACK);

/** Core's AstDB entries for one extension, from its rows on the PBX. */
export function astdbEntries(x: ExtensionRows): AstdbEntry[] {
  const n = x.id;
  if (!NUMBER.test(n)) throw new UnsafeValueError(`not an extension number: ${n}`);
  const set = (family: AstdbEntry["family"], key: string, value: string | null): AstdbEntry => ({
    family,
    key: `${n}${key}`,
    value: value ?? "",
    mode: "set",
  });
  const add = (family: AstdbEntry["family"], key: string, value: string): AstdbEntry => ({
    family,
    key: `${n}${key}`,
    value,
    mode: "add",
  });
  const user = x.user || n;
  const entries: AstdbEntry[] = [
    set("DEVICE", "/dial", x.dial),
    set("DEVICE", "/type", x.devicetype),
    set("DEVICE", "/user", user),
    set("DEVICE", "/default_user", user),
    set("DEVICE", "/tech", x.tech),
  ];
  if (x.emergencyCid) entries.push(set("DEVICE", "/emergency_cid", x.emergencyCid));
  entries.push(
    add("AMPUSER", "/device", n),
    set("AMPUSER", "/cidname", x.name),
    add("AMPUSER", "/cidnum", n),
    set("AMPUSER", "/outboundcid", x.outboundcid),
    set("AMPUSER", "/voicemail", x.voicemail || "novm"),
    set("AMPUSER", "/password", x.password),
    set("AMPUSER", "/ringtimer", x.ringtimer ?? "0"),
    set("AMPUSER", "/noanswer", x.noanswer),
    set("AMPUSER", "/recording", x.recording),
    add("AMPUSER", "/cfringtimer", "0"),
    // What Core's addUser writes when the extension sets none: the Advanced Setting (3 on a new FreePBX
    // 17), a limit on simultaneous outbound calls that contains a compromised extension's toll fraud.
    add("AMPUSER", "/concurrency_limit", concurrencyLimit(x.concurrencyLimitDefault)),
    add("AMPUSER", "/answermode", "disabled"),
    add("AMPUSER", "/intercom", "enabled"),
    add("AMPUSER", "/cwtone", "disabled"),
    add("AMPUSER", "/accountcode", ""),
    add("AMPUSER", "/rvolume", ""),
    add("AMPUSER", "/recording/in/external", "dontcare"),
    add("AMPUSER", "/recording/out/external", "dontcare"),
    add("AMPUSER", "/recording/in/internal", "dontcare"),
    add("AMPUSER", "/recording/out/internal", "dontcare"),
    add("AMPUSER", "/recording/ondemand", "disabled"),
    add("AMPUSER", "/recording/priority", "10"),
    { family: "CW", key: n, value: "ENABLED", mode: "add" },
  );
  return entries;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const CONTROL = /[\x00-\x1f\x7f]/;
const KEY_RE = /^\d{1,20}(?:\/[a-z_]+)*$/;

/**
 * One argument for Asterisk's CLI parser (main/cli.c `parse_args`): in double quotes,
 * with `\` and `"` escaped by a backslash. Control characters are refused (they would
 * split the line or the command).
 */
export function cliArg(value: string): string {
  if (CONTROL.test(value)) throw new UnsafeValueError("An AstDB value contains a control character");
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The stdin lines of `ASTDB_WRITE_COMMAND`: mode, family, key, CLI-quoted value, tab-separated. */
export function astdbLines(entries: AstdbEntry[]): string {
  return entries
    .map((e) => {
      if (!FAMILIES.includes(e.family) || !KEY_RE.test(e.key))
        throw new UnsafeValueError(`not an AstDB key the console writes: ${e.family}/${e.key}`);
      return `${e.mode}\t${e.family}\t${e.key}\t${cliArg(e.value)}\n`;
    })
    .join("");
}

/**
 * The one fixed command that writes AstDB: reads the lines above from stdin and runs
 * `asterisk -rx` per line. Values only ever reach Asterisk's CLI parser (the shell expands
 * the variables once, inside double quotes, and never re-reads them). Stops at the first
 * failure with Asterisk's answer on stderr; prints the number of keys put.
 */
export const ASTDB_WRITE_COMMAND = [
  "n=0",
  "while IFS='\t' read -r mode family key value; do",
  '  if [ "$mode" = add ]; then',
  '    out=$(asterisk -rx "database get $family $key" 2>&1)',
  '    case $out in *"Value: "*) continue ;; *"not found"*) ;; *) printf "%s\\n" "$out" >&2; exit 1 ;; esac',
  "  fi",
  '  out=$(asterisk -rx "database put $family $key $value" 2>&1)',
  // asterisk -rx drops a command longer than its console's buffer (about 500 bytes) without a word.
  '  [ -n "$out" ] || out="Asterisk answered nothing (asterisk -rx drops a command over about 500 bytes)"',
  '  case $out in *"Updated database successfully"*) n=$((n+1)) ;; *) printf "database put %s %s: %s\\n" "$family" "$key" "$out" >&2; exit 1 ;; esac',
  "done",
  'printf "%s" "$n"',
].join("\n");

/**
 * The AstDB batches (write, get, show, deltree) run over FreePBX's own manager login (AMPMGRUSER /
 * AMPMGRPASS at ASTMANAGERHOST:ASTMANAGERPORT of its Advanced Settings, as FreePBX's own code connects):
 * one PHP process logs in and sends each CLI command as an AMI `Command`, a millisecond a key. `asterisk -rx`
 * per key starts a process and a console connection each time (tens of milliseconds), so an apply of a
 * hundred extensions (some thousands of keys) outran its command's time limit; bootstrapping FreePBX for the
 * login cost more than the batch itself. Same stdin lines, same answers and the same checks as the shell
 * loops (but a key written only when absent is looked up in one `database show` of its extension's tree, not
 * one `get` each); those stay as the way when PHP cannot reach the manager interface (no PHP, no settings, a
 * refused login): the program prints READY once it is logged in, and without it the loop runs the whole batch.
 * The login arrives as the first stdin line (hex fields), kept in a private file, never on a command line.
 * The PHP is a fixed single-quoted argument without single quotes; only the mode word and the login file's
 * path (`mktemp`'s) are added.
 */
const MANAGER_BATCH_PHP = [
  '$mode = $argv[1] ?? ""; $lf = $argv[2] ?? "";',
  '$f = explode("\\t", trim((string) @file_get_contents($lf))); @unlink($lf);',
  "if (count($f) !== 4) exit(3);",
  "list($host, $port, $user, $secret) = array_map(function ($h) { return (string) hex2bin($h); }, $f);",
  'if ($user === "" || preg_match("/[\\r\\n]/", $user . $secret)) exit(3);',
  '$sock = @fsockopen($host === "" ? "127.0.0.1" : $host, (int) ($port === "" ? 5038 : $port), $en, $es, 5);',
  "if (!$sock) exit(3);",
  "stream_set_timeout($sock, 60);",
  'if (strpos((string) fgets($sock), "Asterisk Call Manager") !== 0) exit(3);',
  "function fail($m) { fwrite(STDERR, $m . PHP_EOL); exit(1); }",
  // One message, its headers (the first of each name; a value exactly as sent after ": ") and its Output lines.
  "function block() { global $sock; $b = array(); $out = array(); $any = false;",
  "  while (($l = fgets($sock)) !== false) {",
  '    $l = rtrim($l, "\\r\\n"); if ($l === "") { if ($any) break; continue; } $any = true;',
  '    $p = strpos($l, ":"); if ($p === false) continue;',
  '    $k = substr($l, 0, $p); $v = substr($l, $p + 1); if ($v !== "" && $v[0] === " ") $v = substr($v, 1);',
  '    if ($k === "Output") $out[] = $v; else $b[$k] ??= $v; }',
  '  if (!$any) return null; $b["Output"] = $out; return $b; }',
  'function ask($fields) { global $sock; static $n = 0; $id = "pbx-console-" . (++$n); $m = "";',
  '  foreach ($fields as $k => $v) $m .= "$k: $v\\r\\n";',
  '  fwrite($sock, $m . "ActionID: $id\\r\\n\\r\\n"); return $id; }',
  "function answer($id, $what) { for (;;) { $b = block();",
  '  if ($b === null) fail("$what: the manager connection closed");',
  '  if (($b["ActionID"] ?? "") === $id) return $b; } }',
  '$r = answer(ask(array("Action" => "Login", "Username" => $user, "Secret" => $secret, "Events" => "off")), "login");',
  'if (($r["Response"] ?? "") !== "Success") exit(3);',
  'echo "READY", PHP_EOL;',
  'function cli($c) { $r = answer(ask(array("Action" => "Command", "Command" => $c)), $c);',
  '  if ($r["Output"]) return rtrim(implode("\\n", $r["Output"]), "\\r\\n");',
  '  return $r["Message"] ?? "the manager interface did not answer"; }',
  // DBPut skips the CLI (Command runs each through a temporary file). The manager interface drops a value's
  // leading blanks, so such a value, and anything not in the CLI's quoted form, goes through the CLI.
  "function put($family, $key, $value) {",
  '  $uq = function ($s) { return preg_replace("/\\\\\\\\(.)/s", "$1", substr($s, 1, -1)); };',
  '  if (strlen($key) >= 2 && $key[0] === "\\"") $key = $uq($key);',
  '  if (strlen($value) < 2 || $value[0] !== "\\"" || substr($value, -1) !== "\\"") return false;',
  "  $v = $uq($value);",
  "  if ($v !== trim($v)) return false;",
  '  $r = answer(ask(array("Action" => "DBPut", "Family" => $family, "Key" => $key, "Val" => $v)), "database put $family $key");',
  '  return ($r["Response"] ?? "") === "Success"; }',
  // DBGetTree answers each entry with its value exactly (the CLI pads short values, the manager interface's
  // Command answer drops trailing spaces).
  "function tree($family, $key) {",
  '  $id = ask(array("Action" => "DBGetTree", "Family" => $family) + ($key === "" ? array() : array("Key" => $key)));',
  '  $out = "";',
  '  for (;;) { $b = answer($id, "database show $family $key");',
  // An Asterisk without DBGetTree (before 16.28): the CLI's listing, read as the shell loop's.
  '    if (($b["Response"] ?? "") === "Error") { $o = cli("database show $family $key");',
  '      if (strpos($o, "results found") === false) fail("database show $family $key: $o");',
  '      return $o . "\\n"; }',
  '    $e = $b["Event"] ?? "";',
  '    if ($e === "DBGetTreeResponse") $out .= bin2hex($b["Key"] ?? "") . "\\t" . bin2hex($b["Val"] ?? "") . "\\n";',
  '    elseif ($e === "DBGetTreeComplete") return $out; } }',
  '$out = ""; $n = 0; $have = array();',
  "while (($line = fgets(STDIN)) !== false) {",
  '  $line = rtrim($line, "\\n"); if ($line === "") continue;',
  '  $f = explode("\\t", $line) + array("", "", "", "");',
  '  if ($mode === "write") {',
  "    list($m, $family, $key, $value) = $f;",
  '    $ck = $family . "/" . explode("/", $key)[0];',
  '    if ($m === "add") {',
  "      if (!isset($have[$ck])) {",
  '        $root = explode("/", $key)[0]; $o = cli("database show $family $root");',
  '        if (strpos($o, "results found") === false) fail("database show $family $root: $o");',
  "        $have[$ck] = array();",
  '        foreach (explode("\\n", $o) as $l) if (preg_match("#^/(\\S+?)\\s*:#", $l, $mm)) $have[$ck][$mm[1]] = true; }',
  '      if (isset($have[$ck]["$family/$key"])) continue; }',
  '    if (!put($family, $key, $value)) { $o = cli("database put $family $key $value");',
  '      if (strpos($o, "Updated database successfully") === false) fail("database put $family $key: $o"); }',
  '    if (isset($have[$ck])) $have[$ck]["$family/$key"] = true;',
  "    $n++;",
  '  } elseif ($mode === "deltree") {',
  '    $o = cli("database deltree $f[0] $f[1]");',
  '    if (strpos($o, "entries removed") === false && strpos($o, "do not exist") === false) fail("database deltree $f[0] $f[1]: $o");',
  "    $n++;",
  '  } elseif ($mode === "get") {',
  '    $o = cli("database get $f[0] $f[1]");',
  '    if (strpos($o, "Value:") !== 0 && strpos($o, "not found") === false) fail("database get $f[0] $f[1]: $o");',
  '    $out .= $o . "\\n";',
  '  } elseif ($mode === "show") {',
  "    $out .= tree($f[0], $f[1]);",
  '  } else fail("unknown mode $mode"); }',
  'echo ($mode === "write" || $mode === "deltree") ? $n : $out;',
].join("\n");

/**
 * A batch over FreePBX's manager login, else through `loop` (the per-key `asterisk -rx` shell loop). Its stdin is
 * `managerLoginLine` then the batch's lines.
 */
function managerBatch(mode: "write" | "deltree" | "get" | "show", loop: string): string {
  if (MANAGER_BATCH_PHP.includes("'")) throw new UnsafeValueError("the manager batch program holds a quote");
  return [
    "umask 077",
    "t=$(mktemp) && o=$(mktemp) && l=$(mktemp) || exit 1",
    'IFS= read -r login; printf "%s\\n" "$login" > "$l"',
    'cat > "$t"',
    `php -d display_errors=stderr -d error_reporting=E_ERROR -r '${MANAGER_BATCH_PHP}' ${mode} "$l" < "$t" > "$o" 2> "$o.err"`,
    "rc=$?",
    'if [ "$(head -n 1 "$o")" = READY ]; then',
    '  tail -n +2 "$o"; cat "$o.err" >&2',
    "else",
    `  ( ${loop}
  ) < "$t"`,
    "  rc=$?",
    "fi",
    'rm -f "$t" "$o" "$o.err" "$l"',
    "exit $rc",
  ].join("\n");
}

/** Advanced Settings that hold FreePBX's manager login, in the order of `managerLoginLine`'s fields. */
export const MANAGER_SETTINGS = ["ASTMANAGERHOST", "ASTMANAGERPORT", "AMPMGRUSER", "AMPMGRPASS"] as const;

/** The first stdin line of a manager batch: host, port, user, secret in hex, tab-separated ("" when unknown). */
export function managerLoginLine(settings: Partial<Record<(typeof MANAGER_SETTINGS)[number], string>>): string {
  const fields = MANAGER_SETTINGS.map((k) => Buffer.from(settings[k] ?? "", "utf8").toString("hex"));
  return settings.AMPMGRUSER ? `${fields.join("\t")}\n` : "\n";
}

/**
 * An AstDB tree that a delete removes: an extension's (Core's delDevice / delUser) `DEVICE/<n>`, `AMPUSER/<n>`,
 * a ring group's `RINGGROUP/<n>` (Ringgroups::delete) or a queue's `QPENALTY/<n>` (queues_del).
 */
export interface AstdbTree {
  /** CW: the extension's call-waiting key `CW/<n>` (a deploy adds it; a roll back removes it again). */
  family: AstdbFamily;
  /** The extension, ring group or queue number. */
  key: string;
}

/** The stdin lines of `ASTDB_DELTREE_COMMAND`: family and extension number, allow-listed, tab-separated. */
export function astdbTreeLines(trees: AstdbTree[]): string {
  return trees
    .map((t) => {
      if (!FAMILIES.includes(t.family) || !NUMBER.test(t.key))
        throw new UnsafeValueError(`not an AstDB tree the console deletes: ${t.family}/${t.key}`);
      return `${t.family}\t${t.key}\n`;
    })
    .join("");
}

/**
 * The one fixed command that deletes AstDB trees (ADR 0025): reads `FAMILY<TAB>number` lines from stdin
 * and runs `asterisk -rx "database deltree FAMILY number"` per line (an absent tree is fine). Stops at the
 * first failure with Asterisk's answer on stderr; prints the number of trees handled.
 */
export const ASTDB_DELTREE_COMMAND = [
  "n=0",
  "while IFS='\t' read -r family key; do",
  '  out=$(asterisk -rx "database deltree $family $key" 2>&1)',
  '  case $out in *"entries removed"*|*"do not exist"*) n=$((n+1)) ;; *) printf "database deltree %s %s: %s\\n" "$family" "$key" "$out" >&2; exit 1 ;; esac',
  "done",
  'printf "%s" "$n"',
].join("\n");

/** The stdin of `astdbShowTreesCommand` that lists the whole families the console writes. */
export const ASTDB_FAMILY_LINES = "DEVICE\t\nAMPUSER\t\nCW\t\n";

/** Lists the DEVICE family (one call): which extensions have their `DEVICE/<n>/dial` entry. */
export const ASTDB_SHOW_DEVICES_COMMAND = "asterisk -rx 'database show DEVICE'";

/** The extension numbers with a `/DEVICE/<n>/dial` entry in `database show DEVICE` output. */
export function devicesWithDial(output: string): Set<string> {
  const out = new Set<string>();
  for (const line of output.split("\n")) {
    const m = line.match(/^\/DEVICE\/(\d{1,20})\/dial\s*:/);
    if (m) out.add(m[1] as string);
  }
  return out;
}

/**
 * The one fixed command that lists AstDB trees (a backup before an apply): reads the
 * `FAMILY<TAB>number` lines of `astdbTreeLines` from stdin and prints `asterisk -rx "database show FAMILY
 * number"` for each. Stops at the first failure with Asterisk's answer on stderr.
 */
export const ASTDB_SHOW_TREES_COMMAND = [
  "while IFS='\t' read -r family key; do",
  '  out=$(asterisk -rx "database show $family $key" 2>&1)',
  '  case $out in *"results found"*) printf "%s\\n" "$out" ;; *) printf "database show %s %s: %s\\n" "$family" "$key" "$out" >&2; exit 1 ;; esac',
  "done",
].join("\n");

/**
 * An AstDB path the console backs up and restores: `/DEVICE/<n>…`, `/AMPUSER/<n>…`, `/CW/<n>`, `/RINGGROUP/<n>…`,
 * `/QPENALTY/<n>…`; and `/TC/<id>`, a time condition's override, which the console reads (never backs up).
 */
const RESTORABLE_PATH = /^\/(DEVICE|AMPUSER|CW|RINGGROUP|QPENALTY|TC)\/(\d{1,20}(?:\/[\x21-\x7e]*)*)$/;

/**
 * A listing → path and value: the manager batch's DBGetTree lines (hex, exact), or `database show` output.
 * Asterisk prints `%-50s: %-25s` (main/db.c), so a value shorter than 25 characters is padded with spaces,
 * and the manager interface's `Command` answer drops trailing spaces: a value that may have lost or gained
 * some (`exact: false`: one that ends in a space or is at most 25 characters) is read again with
 * `database get`, which prints it as it is.
 */
export function parseAstdbShow(output: string): { path: string; value: string; exact: boolean }[] {
  const out: { path: string; value: string; exact: boolean }[] = [];
  for (const line of output.split("\n")) {
    // The manager batch's DBGetTree lines: path and value in hex, exactly as stored.
    const hex = line.match(/^((?:[0-9a-f]{2})+)\t((?:[0-9a-f]{2})*)$/);
    if (hex) {
      const path = Buffer.from(hex[1] as string, "hex").toString("utf8");
      if (RESTORABLE_PATH.test(path))
        out.push({ path, value: Buffer.from(hex[2] as string, "hex").toString("utf8"), exact: true });
      continue;
    }
    // An empty value's line ends at the colon once the manager interface has dropped trailing spaces.
    const m = line.match(/^(\/\S+?)\s*:(?: (.*))?$/);
    if (!m || !RESTORABLE_PATH.test(m[1] as string)) continue;
    const value = m[2] ?? "";
    out.push({ path: m[1] as string, value, exact: !value.endsWith(" ") && value.length > 25 });
  }
  return out;
}

/** Splits a restorable path into family and key; `UnsafeValueError` for anything else. */
export function astdbPath(path: string): { family: string; key: string } {
  const m = path.match(RESTORABLE_PATH);
  if (!m) throw new UnsafeValueError(`not an AstDB key the console restores: ${path}`);
  return { family: m[1] as string, key: m[2] as string };
}

/** The stdin lines of `ASTDB_GET_COMMAND`: family and CLI-quoted key, tab-separated. */
export function astdbGetLines(paths: string[]): string {
  return paths
    .map((p) => {
      const { family, key } = astdbPath(p);
      return `${family}\t${cliArg(key)}\n`;
    })
    .join("");
}

/**
 * The one fixed command that reads AstDB values exactly: for each stdin line, `asterisk -rx "database get
 * FAMILY KEY"`, printed as one line (`Value: …` or Asterisk's "not found"), in order.
 */
export const ASTDB_GET_COMMAND = [
  "while IFS='\t' read -r family key; do",
  '  out=$(asterisk -rx "database get $family $key" 2>&1)',
  '  case $out in *"Value: "*|*"not found"*) printf "%s\\n" "$out" ;; *) printf "database get %s %s: %s\\n" "$family" "$key" "$out" >&2; exit 1 ;; esac',
  "done",
].join("\n");

/**
 * The stdin lines of `ASTDB_WRITE_COMMAND` that restore backed-up entries exactly (mode `set`): the key is
 * CLI-quoted too, since a restored key may be any key an administrator's modules wrote under the extension.
 */
export function astdbRestoreLines(entries: Record<string, string>): string {
  return Object.entries(entries)
    .map(([path, value]) => {
      const { family, key } = astdbPath(path);
      return `set\t${family}\t${cliArg(key)}\t${cliArg(value)}\n`;
    })
    .join("");
}

/** `ASTDB_WRITE_COMMAND` over FreePBX's manager login when it can be had. */
export const ASTDB_WRITE_BATCH = managerBatch("write", ASTDB_WRITE_COMMAND);
/** `ASTDB_DELTREE_COMMAND` over FreePBX's manager login when it can be had. */
export const ASTDB_DELTREE_BATCH = managerBatch("deltree", ASTDB_DELTREE_COMMAND);
/** `ASTDB_GET_COMMAND` over FreePBX's manager login when it can be had. */
export const ASTDB_GET_BATCH = managerBatch("get", ASTDB_GET_COMMAND);
/** `ASTDB_SHOW_TREES_COMMAND` over FreePBX's manager login when it can be had. */
export const ASTDB_SHOW_TREES_BATCH = managerBatch("show", ASTDB_SHOW_TREES_COMMAND);
