/**
 * Stand-in for `asterisk -rx '<command>'` on the test PBX host (installed as <root>/bin/asterisk, a
 * shell wrapper that runs this file with Bun and sets ASTERISK_STANDIN_ROOT). NOT Asterisk: it keeps
 * AstDB in <root>/astdb.json ({"/FAMILY/key": "value"}) and answers the few CLI commands the console
 * uses, with Asterisk's texts (main/db.c, res_pjsip_outbound_registration.c). The command line is
 * split exactly like Asterisk's CLI does (main/cli.c parse_args: double quotes group, a backslash
 * escapes the next character, spaces and tabs separate).
 *
 *   database put FAMILY KEY VALUE   → "Updated database successfully"
 *   database get FAMILY KEY         → "Value: <v>" | "Database entry not found."
 *   database del FAMILY KEY         → "Database entry removed." | "Database entry does not exist."
 *   database deltree FAMILY [KEY]   → "<n> database entries removed."
 *   database show [FAMILY [KEY]]    → "/F/k   : v" lines and "<n> results found."
 *   pjsip show registrations        → "No objects found."
 *   voicemail reload                → "Reloading voicemail configuration..."
 *   core show version               → "Asterisk 21.4.1 …"
 *
 * Every call is logged to <root>/asterisk.log as one JSON line {"argv":[…],"time":"…"} first. When
 * <root>/asterisk.down exists, every command fails like a stopped Asterisk (exit 1).
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = process.env.ASTERISK_STANDIN_ROOT ?? "";
const argv = process.argv.slice(2);
appendFileSync(join(root, "asterisk.log"), `${JSON.stringify({ argv, time: new Date().toISOString() })}\n`);

const dbPath = join(root, "astdb.json");
const load = (): Record<string, string> => (existsSync(dbPath) ? JSON.parse(readFileSync(dbPath, "utf8")) : {});
const save = (db: Record<string, string>) => {
  writeFileSync(`${dbPath}.tmp`, JSON.stringify(db, null, 1));
  renameSync(`${dbPath}.tmp`, dbPath);
};

/** main/cli.c parse_args. */
function parseArgs(s: string): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  let quoted = false;
  let escaped = false;
  let whitespace = true;
  for (const ch of s.replace(/^\s+/, "")) {
    if (ch === '"' && !escaped) {
      quoted = !quoted;
      if (quoted && whitespace) {
        if (cur !== null) out.push(cur);
        cur = "";
        whitespace = false;
      }
    } else if ((ch === " " || ch === "\t") && !(quoted || escaped)) {
      whitespace = true;
    } else if (ch === "\\" && !escaped) {
      escaped = true;
    } else {
      if (whitespace) {
        if (cur !== null) out.push(cur);
        cur = "";
        whitespace = false;
      }
      cur += ch;
      escaped = false;
    }
  }
  if (cur !== null) out.push(cur);
  return out;
}

function command(line: string): string {
  const a = parseArgs(line);
  const [w0, w1] = a;
  if (w0 === "database") {
    const db = load();
    const path = (f?: string, k?: string) => `/${f ?? ""}/${k ?? ""}`;
    switch (w1) {
      case "put":
        if (a.length !== 5) return "Usage: database put <family> <key> <value>\n";
        db[path(a[2], a[3])] = a[4] as string;
        save(db);
        return "Updated database successfully\n";
      case "get": {
        if (a.length !== 4) return "Usage: database get <family> <key>\n";
        const v = db[path(a[2], a[3])];
        return v === undefined ? "Database entry not found.\n" : `Value: ${v}\n`;
      }
      case "del": {
        const k = path(a[2], a[3]);
        if (!(k in db)) return "Database entry does not exist.\n";
        delete db[k];
        save(db);
        return "Database entry removed.\n";
      }
      case "deltree": {
        const prefix = a[3] ? path(a[2], a[3]) : `/${a[2]}/`;
        const gone = Object.keys(db).filter(
          (k) => k === prefix || k.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`),
        );
        for (const k of gone) delete db[k];
        save(db);
        return `${gone.length} database entries removed.\n`;
      }
      case "show": {
        const prefix = a[2] ? `/${a[2]}${a[3] ? `/${a[3]}` : ""}` : "";
        const keys = Object.keys(db)
          .filter((k) => !prefix || k === prefix || k.startsWith(`${prefix}/`))
          .sort();
        return `${keys.map((k) => `${k.padEnd(46)}: ${db[k]}\n`).join("")}${keys.length} results found.\n`;
      }
    }
  }
  if (line.trim() === "pjsip show registrations") return "No objects found.\n\n";
  // app_voicemail.c handle_voicemail_reload; the stand-in only logs the call (voicemail.conf is the test's file).
  if (line.trim() === "voicemail reload") return "Reloading voicemail configuration...\n";
  if (line.trim() === "core show version")
    return "Asterisk 21.4.1 built by pbx-host stand-in on a x86_64 running Linux\n";
  return `No such command '${line}' (type 'core show help ${w0 ?? ""}' for other possible commands)\n`;
}

if (existsSync(join(root, "asterisk.down"))) {
  process.stdout.write("Unable to connect to remote asterisk (does /var/run/asterisk/asterisk.ctl exist?)\n");
  process.exit(1);
}
const flags = argv.filter((x) => x.startsWith("-"));
const remote = flags.some((f) => /^-[a-z]*r/.test(f));
const xAt = argv.findIndex((x) => /^-[a-z]*x$/.test(x));
if (!remote || xAt < 0 || argv[xAt + 1] === undefined) {
  process.stderr.write("asterisk stand-in: only 'asterisk -rx \"<command>\"' is supported\n");
  process.exit(1);
}
process.stdout.write(command(argv[xAt + 1] as string));
