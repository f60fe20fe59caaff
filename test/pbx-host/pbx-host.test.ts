import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "ssh2";
import { reloadFailureReason } from "../../src/server/pbx/host/reload";
import { type PbxHost, RELOAD_FAILURE, startPbxHost, stockVoicemailConf } from "./pbx-host";

// ssh2 helpers — roughly what the console's deployer will do.

/** SHA256 fingerprint in OpenSSH's notation from ssh2's hex host hash (`hostHash: "sha256"`). */
const opensshFingerprint = (hex: string) => `SHA256:${Buffer.from(hex, "hex").toString("base64").replace(/=+$/, "")}`;

function connect(pbx: PbxHost, expectedFingerprint = pbx.ssh.hostKeyFingerprint): Promise<Client> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.once("ready", () => resolve(c));
    c.once("error", reject);
    c.connect({
      host: pbx.ssh.host,
      port: pbx.ssh.port,
      username: pbx.ssh.username,
      privateKey: pbx.ssh.privateKey,
      readyTimeout: 10_000,
      hostHash: "sha256",
      hostVerifier: (hex: string) => opensshFingerprint(hex) === expectedFingerprint,
    });
  });
}

interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function exec(c: Client, command: string, stdin?: string): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    c.exec(command, (err, stream) => {
      if (err) return reject(err);
      const out: Buffer[] = [];
      const errOut: Buffer[] = [];
      let code: number | null = null;
      stream.on("data", (d: Buffer) => out.push(d));
      stream.stderr.on("data", (d: Buffer) => errOut.push(d));
      stream.on("exit", (c: number | null) => {
        code = c;
      });
      stream.on("close", () =>
        resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(errOut).toString("utf8") }),
      );
      if (stdin !== undefined) stream.end(stdin);
      else stream.end();
    });
  });
}

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** $amp_conf['KEY'] values of a FreePBX config file, the way the console would read /etc/freepbx.conf. */
function parseFreepbxConf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^\s*\$amp_conf\[['"](\w+)['"]\]\s*=\s*'((?:[^'\\]|\\.)*)'\s*;/gm)) {
    out[m[1] as string] = (m[2] as string).replace(/\\(['\\])/g, "$1");
  }
  return out;
}

const needReload = async (pbx: PbxHost) =>
  (await pbx.query("SELECT value FROM admin WHERE variable = 'need_reload'"))[0]?.value;

// Non-ASCII within U+FFFF only: FreePBX 17's tables are utf8mb3 (an emoji is refused, see below).
const TRICKY = `it's "quoted" \\ back\\slash\nnew line\ttab ☎ 中文 ünï`;

let pbx: PbxHost;
let ssh: Client;

beforeAll(async () => {
  pbx = await startPbxHost();
  ssh = await connect(pbx);
}, 60_000);

afterAll(async () => {
  ssh?.end();
  await pbx?.stop();
}, 30_000);

describe("MariaDB", () => {
  test("holds FreePBX 17's database as the testbed installed it: every table of the schema fixture, need_reload 'false'", async () => {
    const schema = readFileSync(join(import.meta.dir, "../fixtures/freepbx/schema.sql"), "utf8");
    const expected = [...schema.matchAll(/^CREATE TABLE `?(\w+)/gm)].map((m) => m[1]).sort();
    expect(expected.length).toBeGreaterThan(10);
    // FreePBX's Advanced Settings (ASTETCDIR: where voicemail.conf is) are part of the fixture.
    expect(expected).toContain("freepbx_settings");
    const rows = await pbx.query(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name",
      ["asterisk"],
    );
    const names = rows.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(expected));
    // Every module's tables, not only those the console writes.
    expect(names).toEqual(expect.arrayContaining(["modules", "module_xml", "kvstore_FreePBX", "notifications"]));
    expect(await needReload(pbx)).toBe("false");
  });

  test("ASTETCDIR names the directory of the host's voicemail.conf, a fresh install's one", async () => {
    const [row] = await pbx.query("SELECT value FROM freepbx_settings WHERE keyword = 'ASTETCDIR'");
    expect(`${row?.value}/voicemail.conf`).toBe(pbx.voicemailConfPath);
    expect(pbx.voicemailConf().toString()).toBe(stockVoicemailConf());
  });

  test("query() round-trips quotes, backslashes, newline, tab and non-ASCII; NULL stays null", async () => {
    await pbx.query("INSERT INTO users (extension, name, outboundcid) VALUES (?, ?, ?)", ["1001", TRICKY, null]);
    const rows = await pbx.query("SELECT name, outboundcid, ringtimer FROM users WHERE extension = ?", ["1001"]);
    expect(rows).toEqual([{ name: TRICKY, outboundcid: null, ringtimer: null }]);
    expect(rows.length).toBe(1);
  });

  test("FreePBX 17's utf8mb3 tables refuse a character beyond U+FFFF (an emoji), as on a real FreePBX", async () => {
    const [t] = await pbx.query(
      "SELECT table_collation AS c FROM information_schema.tables WHERE table_schema = 'asterisk' AND table_name = 'users'",
    );
    expect(t?.c).toBe("utf8mb3_unicode_ci");
    await expect(pbx.query("INSERT INTO users (extension, name) VALUES (?, ?)", ["1002", "Desk 😀"])).rejects.toThrow(
      /Incorrect string value/,
    );
    expect(await pbx.query("SELECT name FROM users WHERE extension = '1002'")).toEqual([]);
  });

  test("grants are real: a wrong password is refused", async () => {
    const r = await exec(
      ssh,
      `mysql -h 127.0.0.1 -P ${pbx.mysql.port} -u ${pbx.mysql.user} -pwrong-password asterisk -e 'SELECT 1'`,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("Access denied");
  });
});

describe("SSH", () => {
  test("the advertised host key fingerprint is what ssh-keygen prints and what the server presents", async () => {
    const keygen = Bun.spawnSync(["ssh-keygen", "-l", "-f", "/dev/stdin"], {
      stdin: new TextEncoder().encode(`${pbx.ssh.hostPublicKey}\n`),
    });
    expect(keygen.stdout.toString()).toContain(` ${pbx.ssh.hostKeyFingerprint} `);
    expect(pbx.ssh.hostKeyFingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    // The beforeAll connection already verified it through hostVerifier; a wrong expectation must be detectable.
    const wrong = `SHA256:${Buffer.alloc(32, 7).toString("base64").replace(/=+$/, "")}`;
    const err = await connect(pbx, wrong).then(
      (c) => {
        c.end();
        return null;
      },
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String(err?.message)).toMatch(/verification failed/i);
  });

  test("the session PATH finds the host's commands first", async () => {
    const r = await exec(
      ssh,
      'echo "$PATH"; command -v fwconsole; command -v mysql; command -v mariadb; id -un; command -v asterisk',
    );
    expect(r.code).toBe(0);
    const [path, fwconsole, mysql, mariadb, user, asterisk] = r.stdout.trim().split("\n");
    // Exactly the host's PATH: the test user's ~/.bashrc (which bash run by sshd would source) is not read.
    expect(path).toBe(`${pbx.binDir}:/usr/local/bin:/usr/bin:/bin`);
    expect(fwconsole).toBe(join(pbx.binDir, "fwconsole"));
    expect(mysql).toBe(join(pbx.binDir, "mysql"));
    expect(mariadb).toBe(join(pbx.binDir, "mariadb"));
    expect(user).toBe(pbx.ssh.username);
    expect(asterisk).toBe(join(pbx.binDir, "asterisk"));
  });
});

describe("FreePBX's own fwconsole over SSH", () => {
  test("--version", async () => {
    const r = await exec(ssh, "fwconsole --version");
    expect(r.stdout).toMatch(/^FW Console - FreePBX Utility 17\.\d+\.\d+(\.\d+)?\n$/);
    expect(r.code).toBe(0);
  });

  test("works on this host alone: its database, its Asterisk's files; the machine's FreePBX is untouched", async () => {
    const before = existsSync("/etc/asterisk/extensions_additional.conf")
      ? readFileSync("/etc/asterisk/extensions_additional.conf")
      : null;
    await pbx.query("INSERT INTO globals (variable, value) VALUES ('PBX_HOST_MARK', 'on-this-host')");
    try {
      expect((await exec(ssh, "fwconsole reload")).code).toBe(0);
      const generated = readFileSync(join(pbx.root, "etc/asterisk/extensions_additional.conf"), "utf8");
      expect(generated).toContain("PBX_HOST_MARK = on-this-host");
      if (before) expect(readFileSync("/etc/asterisk/extensions_additional.conf")).toEqual(before);
      // The endpoints FreePBX generates reach this host's Asterisk (its PJSIP, its own SIP port).
      expect(await pbx.cli("pjsip show transports")).toContain("127.0.0.1-udp");
    } finally {
      await pbx.query("DELETE FROM globals WHERE variable = 'PBX_HOST_MARK'");
    }
  });

  test("reload clears need_reload and every call is logged", async () => {
    pbx.clearFwconsoleCalls();
    const astdb = await pbx.astdb();
    await pbx.query("UPDATE admin SET value = 'true' WHERE variable = 'need_reload'");
    expect(await needReload(pbx)).toBe("true");
    const r = await exec(ssh, "fwconsole reload");
    expect(r).toEqual({ code: 0, stdout: "Reload Started\nReload Complete\n", stderr: "" });
    expect(await needReload(pbx)).toBe("false");

    await pbx.query("UPDATE admin SET value = 'true' WHERE variable = 'need_reload'");
    const j = await exec(ssh, "fwconsole r --json");
    expect(j.code).toBe(0);
    expect(
      j.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([{ message: "Reload Started" }, { message: "Reload Complete" }]);
    expect(await needReload(pbx)).toBe("false");

    const calls = pbx.fwconsoleCalls();
    expect(calls.map((c) => c.argv)).toEqual([["reload"], ["r", "--json"]]);
    expect(Date.parse(calls[0]?.time ?? "")).toBeGreaterThan(Date.now() - 60_000);
    // Each reload noted what the host's Asterisk held as it began.
    expect(pbx.asteriskAtReloads().map((a) => ({ astdb: a.astdb, voicemailUsers: a.voicemailUsers }))).toEqual([
      { astdb, voicemailUsers: [] },
      { astdb: await pbx.astdb(), voicemailUsers: [] },
    ]);
  });

  test("a reload that cannot write its files fails as FreePBX fails it and leaves need_reload set", async () => {
    await pbx.query("UPDATE admin SET value = 'true' WHERE variable = 'need_reload'");
    pbx.setReloadFailure(true);
    try {
      const r = await exec(ssh, "fwconsole reload");
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("Reload Started\n");
      expect(r.stderr).toContain("In WriteConfig.class.php line");
      expect(reloadFailureReason(r.stdout + r.stderr, r.code)).toMatch(RELOAD_FAILURE);
      expect(await needReload(pbx)).toBe("true");
    } finally {
      pbx.setReloadFailure(false);
    }
    expect((await exec(ssh, "fwconsole reload")).code).toBe(0);
    expect(await needReload(pbx)).toBe("false");
  });

  // Seven SSH commands: on a loaded machine they take longer than the default 5 s.
  test("a held reload lock refuses the next N reloads as FreePBX does (exit 255, nothing done), then frees", async () => {
    await pbx.query("UPDATE admin SET value = 'true' WHERE variable = 'need_reload'");
    pbx.clearFwconsoleCalls();
    pbx.setReloadLocked(2);
    const holder = readFileSync(join(pbx.root, "fwconsole.lock-holder"), "utf8");
    const locked = {
      code: 255,
      stdout: `{"error":"Process is already running.","trace":"Process ID : ${holder}"}`,
      stderr: "",
    };
    try {
      expect(await exec(ssh, "fwconsole reload")).toEqual(locked);
      expect(await exec(ssh, "fwconsole reload --json")).toEqual(locked);
      expect(await needReload(pbx)).toBe("true");
      expect(await exec(ssh, "fwconsole reload")).toEqual({
        code: 0,
        stdout: "Reload Started\nReload Complete\n",
        stderr: "",
      });
      expect(await needReload(pbx)).toBe("false");
      expect(pbx.fwconsoleCalls().map((c) => c.argv)).toEqual([["reload"], ["reload", "--json"], ["reload"]]);
      pbx.setReloadLocked("always");
      for (let i = 0; i < 3; i++) expect(await exec(ssh, "fwconsole reload")).toEqual(locked);
    } finally {
      pbx.setReloadLocked(null);
    }
    expect((await exec(ssh, "fwconsole reload")).code).toBe(0);
  }, 30_000);

  test("trunks --list --json reflects the trunks table (values escaped as JSON)", async () => {
    const empty = await exec(ssh, "fwconsole trunks --list --json");
    expect(empty).toEqual({ code: 0, stdout: "[]", stderr: "" });
    await pbx.query("INSERT INTO trunks (trunkid, name, tech, channelid) VALUES (?, ?, ?, ?), (?, ?, ?, ?)", [
      2,
      "backup",
      "pjsip",
      "backup",
      1,
      "acme",
      "pjsip",
      TRICKY,
    ]);
    const r = await exec(ssh, "fwconsole trunks --list --json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { trunkid: 1, tech: "pjsip", channelid: TRICKY, disabled: "off" },
      { trunkid: 2, tech: "pjsip", channelid: "backup", disabled: "off" },
    ]);

    const d = await exec(ssh, "fwconsole trunks --disable 2");
    expect(d).toMatchObject({ code: 0, stdout: "Disabling Trunk 2 Run fwconsole reload\n" });
    expect(await pbx.query("SELECT disabled FROM trunks WHERE trunkid = 2")).toEqual([{ disabled: "on" }]);
  });

  test("unknown commands fail like Symfony; odd arguments are logged intact", async () => {
    pbx.clearFwconsoleCalls();
    const odd = `we"ird\\arg\twith\nnewline 😀`;
    const r = await exec(ssh, `fwconsole ${shQuote(odd)}`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not defined.");
    expect(pbx.fwconsoleCalls().map((c) => c.argv)).toEqual([[odd]]);
  });
});

describe("Asterisk 22 over SSH", () => {
  test("`asterisk -rx` reaches this host's own Asterisk 22 (its asterisk.conf, directories under root)", async () => {
    const v = await exec(ssh, "asterisk -rx 'core show version'");
    expect(v.code).toBe(0);
    expect(v.stdout).toStartWith("Asterisk 22.");
    const settings = await exec(ssh, "asterisk -rx 'core show settings'");
    expect(settings.stdout).toContain(pbx.asterisk.conf);
    expect(settings.stdout).toContain(join(pbx.root, "asterisk", "db"));
    expect(await pbx.cli("module show like app_voicemail")).toContain("Running");
  });

  test("database put/get/show: the CLI splits the command; AstDB is Asterisk's own", async () => {
    await pbx.setAstdb({});
    // The CLI line: database put AMPUSER 1001/cidname "O'Brien \\ \"Desk\" 🎧"
    const line = 'database put AMPUSER 1001/cidname "O\'Brien \\\\ \\"Desk\\" 🎧"';
    const put = await exec(ssh, `asterisk -rx ${shQuote(line)}`);
    expect(put).toEqual({ code: 0, stdout: "Updated database successfully\n", stderr: "" });
    expect(await pbx.astdb()).toEqual({ "/AMPUSER/1001/cidname": 'O\'Brien \\ "Desk" 🎧' });
    expect((await exec(ssh, "asterisk -rx 'database put CW 1001 \"\"'")).stdout).toBe(
      "Updated database successfully\n",
    );
    expect((await exec(ssh, "asterisk -rx 'database get CW 1001'")).stdout).toBe("Value: \n");
    expect(await exec(ssh, "asterisk -rx 'database get CW 1002'")).toEqual({
      code: 0,
      stdout: "Database entry not found.\n",
      stderr: "",
    });
    const show = await exec(ssh, "asterisk -rx 'database show AMPUSER'");
    expect(show.stdout).toContain("/AMPUSER/1001/cidname");
    expect(show.stdout).toContain("1 results found.");
    // `database show` pads a value to 25 characters after ": " (main/db.c); astdb() reads it exactly.
    expect((await exec(ssh, "asterisk -rx 'database show CW'")).stdout).toMatch(/^\/CW\/1001 +: {26}\n/);
    expect(await pbx.astdb()).toEqual({ "/AMPUSER/1001/cidname": 'O\'Brien \\ "Desk" 🎧', "/CW/1001": "" });
    const del = await exec(ssh, "asterisk -rx 'database deltree AMPUSER 1009'");
    expect(del.stdout).toBe("Database entries do not exist.\n");
  });

  test("setAstdb replaces AstDB exactly (a trailing space, quotes, backslashes) and quickly", async () => {
    const entries: Record<string, string> = { "/AMPUSER/1001/cidname": "Alice GUI ", "/X/a b": 'say "hi" \\ ☎' };
    for (let n = 0; n < 500; n++) entries[`/DEVICE/${2000 + n}/dial`] = `PJSIP/${2000 + n}`;
    const started = performance.now();
    await pbx.setAstdb(entries);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await pbx.astdb()).toEqual(entries);
    await pbx.setAstdb({ "/CW/1001": "ENABLED" });
    expect(await pbx.astdb()).toEqual({ "/CW/1001": "ENABLED" });
  });

  test("pjsip show registrations answers (res_pjsip loaded, no registrations)", async () => {
    expect(await exec(ssh, "asterisk -rx 'pjsip show registrations'")).toEqual({
      code: 0,
      stdout: "No objects found.\n\n",
      stderr: "",
    });
  });

  test("voicemail reload makes Asterisk re-read voicemail.conf (and its #includes)", async () => {
    try {
      pbx.setVoicemailConf(`${stockVoicemailConf()}[default]\n2001 => 1234,Dora,,,attach=no\n`);
      expect(await pbx.voicemailUsers()).toEqual([]);
      const r = await exec(ssh, "asterisk -rx 'voicemail reload'");
      expect(r).toEqual({ code: 0, stdout: "Reloading voicemail configuration...\n", stderr: "" });
      expect(await pbx.voicemailUsers()).toEqual(["2001@default"]);
    } finally {
      pbx.setVoicemailConf(stockVoicemailConf());
      await pbx.cli("voicemail reload");
    }
    expect(await pbx.voicemailUsers()).toEqual([]);
  });

  test("a stopped Asterisk: every command fails with Asterisk's message; started again, AstDB is kept", async () => {
    await pbx.setAstdb({ "/CW/1001": "ENABLED" });
    await pbx.setAsteriskDown(true);
    try {
      const r = await exec(ssh, "asterisk -rx 'database put CW 1001 DISABLED'");
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`Unable to connect to remote asterisk (does ${pbx.asterisk.ctl} exist?)\n`);
      await expect(pbx.astdb()).rejects.toThrow(/stopped/);
    } finally {
      await pbx.setAsteriskDown(false);
    }
    expect(await pbx.astdb()).toEqual({ "/CW/1001": "ENABLED" });
    expect((await exec(ssh, "asterisk -rx 'database get CW 1001'")).stdout).toBe("Value: ENABLED\n");
  }, 30_000);
});

describe("mysql over SSH with the FreePBX config's credentials", () => {
  test("the config file is FreePBX's PHP format with working credentials", async () => {
    const r = await exec(ssh, `cat ${shQuote(pbx.freepbxConfPath)}`);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith("<?php\n")).toBe(true);
    const conf = parseFreepbxConf(r.stdout);
    expect(conf).toMatchObject({
      AMPDBUSER: pbx.mysql.user,
      AMPDBPASS: pbx.mysql.password,
      AMPDBHOST: "127.0.0.1",
      AMPDBPORT: String(pbx.mysql.port),
      AMPDBNAME: "asterisk",
      AMPDBENGINE: "mysql",
    });
  });

  test('mysql -h -P -u -p asterisk -e "SELECT 1"', async () => {
    const conf = parseFreepbxConf(readFileSync(pbx.freepbxConfPath, "utf8"));
    const r = await exec(
      ssh,
      `mysql -h ${conf.AMPDBHOST} -P ${conf.AMPDBPORT} -u ${conf.AMPDBUSER} -p${shQuote(conf.AMPDBPASS ?? "")} ${conf.AMPDBNAME} -N -B -e "SELECT 1"`,
    );
    expect(r).toEqual({ code: 0, stdout: "1\n", stderr: "" });
  });

  test("credentials in an option file uploaded over SFTP (keeps the password off the command line)", async () => {
    const conf = parseFreepbxConf(readFileSync(pbx.freepbxConfPath, "utf8"));
    const remote = join(pbx.root, "pbx-console-client.cnf");
    const cnf = `[client]\nuser=${conf.AMPDBUSER}\npassword="${conf.AMPDBPASS}"\nhost=${conf.AMPDBHOST}\nport=${conf.AMPDBPORT}\n`;
    await new Promise<void>((resolve, reject) =>
      ssh.sftp((err, sftp) => {
        if (err) return reject(err);
        sftp.writeFile(remote, cnf, { mode: 0o600 }, (e) => {
          sftp.end();
          if (e) reject(e);
          else resolve();
        });
      }),
    );
    const r = await exec(
      ssh,
      `mysql --defaults-extra-file=${shQuote(remote)} -N -B ${conf.AMPDBNAME} -e "SELECT CURRENT_USER()"; rc=$?; rm -f ${shQuote(remote)}; exit $rc`,
    );
    expect(r).toEqual({ code: 0, stdout: "freepbxuser@127.0.0.1\n", stderr: "" });
    expect(existsSync(remote)).toBe(false);
  });

  test("a SQL script on stdin is applied in one transaction (the deploy path)", async () => {
    const conf = parseFreepbxConf(readFileSync(pbx.freepbxConfPath, "utf8"));
    const script = [
      "START TRANSACTION;",
      "INSERT INTO paging_config (page_group, force_page, duplex, description) VALUES ('7000', 0, 1, 'PTT ☎ \\'A\\'');",
      "INSERT INTO paging_groups (page_number, ext) VALUES ('7000', '1001'), ('7000', '1002');",
      "UPDATE admin SET value = 'true' WHERE variable = 'need_reload';",
      "COMMIT;",
      "",
    ].join("\n");
    const cmd = `mysql --default-character-set=utf8mb4 -h ${conf.AMPDBHOST} -P ${conf.AMPDBPORT} -u ${conf.AMPDBUSER} -p${shQuote(conf.AMPDBPASS ?? "")} ${conf.AMPDBNAME}`;
    const r = await exec(ssh, cmd, script);
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await pbx.query("SELECT description FROM paging_config WHERE page_group = '7000'")).toEqual([
      { description: "PTT ☎ 'A'" },
    ]);
    expect((await pbx.query("SELECT ext FROM paging_groups ORDER BY ext")).map((x) => x.ext)).toEqual(["1001", "1002"]);

    // A failing statement aborts the client (exit 1) and the open transaction is rolled back.
    const bad = ["START TRANSACTION;", "DELETE FROM paging_groups;", "INSERT INTO nope VALUES (1);", "COMMIT;"].join(
      "\n",
    );
    const f = await exec(ssh, cmd, bad);
    expect(f.code).toBe(1);
    expect(f.stderr).toContain("nope");
    expect((await pbx.query("SELECT COUNT(*) AS n FROM paging_groups"))[0]?.n).toBe(2);
  });
});

describe("several hosts", () => {
  test("a second host (socket-style config) is independent, and stop() cleans up", async () => {
    const other = await startPbxHost({ freepbxConf: "socket" });
    let c: Client | undefined;
    try {
      expect(other.root).not.toBe(pbx.root);
      expect(other.mysql.port).not.toBe(pbx.mysql.port);
      expect(other.ssh.port).not.toBe(pbx.ssh.port);
      expect(other.ssh.hostKeyFingerprint).not.toBe(pbx.ssh.hostKeyFingerprint);
      // A stock FreePBX config: AMPDBHOST 'localhost', no port → the host's client defaults give the socket.
      const conf = parseFreepbxConf(readFileSync(other.freepbxConfPath, "utf8"));
      expect(conf.AMPDBHOST).toBe("localhost");
      expect(conf.AMPDBPORT).toBeUndefined();

      c = await connect(other);
      const r = await exec(
        c,
        `mysql -h localhost -u ${conf.AMPDBUSER} -p${shQuote(conf.AMPDBPASS ?? "")} ${conf.AMPDBNAME} -N -B -e "SELECT CURRENT_USER()"`,
      );
      expect(r).toEqual({ code: 0, stdout: "freepbxuser@localhost\n", stderr: "" });

      // Each host has its own Asterisk (its own control socket and AstDB).
      await pbx.setAstdb({ "/CW/1001": "ENABLED" });
      await other.setAstdb({ "/CW/2001": "DISABLED" });
      expect((await exec(c, "asterisk -rx 'database show CW'")).stdout).toContain("/CW/2001");
      expect(await pbx.astdb()).toEqual({ "/CW/1001": "ENABLED" });
      expect(other.asterisk.ctl).not.toBe(pbx.asterisk.ctl);

      // Each host has its own database and call log.
      pbx.clearFwconsoleCalls();
      await pbx.query("UPDATE admin SET value = 'true' WHERE variable = 'need_reload'");
      await other.query("UPDATE admin SET value = 'true' WHERE variable = 'need_reload'");
      expect((await exec(c, "fwconsole reload")).code).toBe(0);
      expect(await needReload(other)).toBe("false");
      expect(await needReload(pbx)).toBe("true");
      expect(other.fwconsoleCalls().map((x) => x.argv)).toEqual([["reload"]]);
      expect(pbx.fwconsoleCalls()).toEqual([]);
    } finally {
      c?.end();
      await other.stop();
    }
    expect(existsSync(other.root)).toBe(false);
    const refused = await Bun.connect({ hostname: "127.0.0.1", port: other.ssh.port, socket: { data() {} } }).then(
      (s) => {
        s.end();
        return false;
      },
      () => true,
    );
    expect(refused).toBe(true);
    // The first host is unaffected.
    expect((await exec(ssh, "fwconsole reload")).code).toBe(0);
    expect(await needReload(pbx)).toBe("false");
    // Its AstDB is its own, with what its reload wrote (FreePBX's AMPUSER keys of its user 1001).
    const astdb = await pbx.astdb();
    expect(astdb["/CW/1001"]).toBe("ENABLED");
    expect(astdb["/CW/2001"]).toBeUndefined();
  }, 60_000);
});

test("a failed start-up reports the cause, stops what it started and removes its temp dir", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pbx-host-bad-schema-"));
  try {
    const bad = join(dir, "schema.sql");
    writeFileSync(bad, "USE asterisk;\nCREATE TABLE broken (;\n");
    const err = await startPbxHost({ dumpPath: bad }).then(
      async (h) => {
        await h.stop();
        return null;
      },
      (e: Error) => e,
    );
    expect(err?.message).toContain(`loading ${bad} failed`);
    expect(err?.message).toContain("SQL syntax");
    const root = /root (\S+), removed/.exec(err?.message ?? "")?.[1];
    expect(root).toBeTruthy();
    expect(existsSync(root as string)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test("without the testbed's relocatable Asterisk, start-up fails at once and names ../shared/testbed/up", async () => {
  const saved = process.env.PBX_HOST_ASTERISK_DIR;
  process.env.PBX_HOST_ASTERISK_DIR = join(tmpdir(), "no-asterisk-here");
  try {
    await expect(startPbxHost()).rejects.toThrow(/relocatable Asterisk 22.*\.\.\/shared\/testbed\/up/s);
  } finally {
    if (saved === undefined) delete process.env.PBX_HOST_ASTERISK_DIR;
    else process.env.PBX_HOST_ASTERISK_DIR = saved;
  }
});
