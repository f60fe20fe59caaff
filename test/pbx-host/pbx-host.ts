/**
 * A real PBX test host on loopback: a real MariaDB server (`mariadbd`) holding FreePBX's `asterisk`
 * schema and a real OpenSSH server (`sshd`) whose PATH has a `fwconsole` stand-in and `mysql`/`mariadb`
 * client wrappers, plus a FreePBX-format config file with the database credentials.
 * See README.md in this directory for what is real and what is a stand-in.
 *
 *   const pbx = await startPbxHost();
 *   // ssh2: { host: pbx.ssh.host, port: pbx.ssh.port, username: pbx.ssh.username, privateKey: pbx.ssh.privateKey }
 *   await pbx.query("SELECT value FROM admin WHERE variable = ?", ["need_reload"]);
 *   await pbx.stop();
 *
 * Linux only (Debian packages mariadb-server and openssh-server). Works as root (the SSH login user is then
 * root; /run/sshd is created if missing) and as a normal user (sshd then serves only that user, whose account
 * must not be locked: e.g. `nobody` is refused with "account is locked").
 */

import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { SQL, type Subprocess } from "bun";
import { CDR_COLUMNS, type CdrRow, cdrTsvLine, insertCdrRows } from "./cdr-calls";

export interface PbxHostOptions {
  /**
   * SQL loaded into `asterisk` after creating it. Default: test/fixtures/freepbx/schema.sql (FreePBX 17's own tables,
   * recorded from the testbed by scripts/record-freepbx-schema.sh).
   */
  schemaPath?: string;
  /** SQL loaded into `asteriskcdrdb` (the call records). Default: test/fixtures/freepbx/cdr.sql. */
  cdrSchemaPath?: string;
  /** Version `fwconsole --version` reports. Default "17.0.19". */
  freepbxVersion?: string;
  /**
   * How the FreePBX config file points at the database.
   * "tcp" (default): AMPDBHOST '127.0.0.1' + AMPDBPORT '<port>'.
   * "socket": AMPDBHOST 'localhost' and no port, like a stock FreePBX install; `mysql -h localhost` on the
   * host then reaches the server through the socket named in the host's client defaults.
   */
  freepbxConf?: "tcp" | "socket";
  /** Overall start-up bound. Default 30 000 ms. */
  startupTimeoutMs?: number;
  /** Keep the temp dir after stop() (also: env PBX_HOST_KEEP=1), for debugging. */
  keepRoot?: boolean;
}

export interface FwconsoleCall {
  argv: string[];
  /** ISO time of the call. */
  time: string;
}

/** Rows as Bun.SQL (MySQL adapter) returns them: INT → number, BIGINT/DECIMAL → string, DATETIME → Date, BLOB → Buffer, NULL → null. */
export type QueryRows = Record<string, any>[] & { count?: number | null; affectedRows?: number | null };

export interface PbxHost {
  /** Temp dir holding everything (removed by stop()). */
  root: string;
  mysql: {
    host: "127.0.0.1";
    port: number;
    user: "freepbxuser";
    password: string;
    database: "asterisk";
    /** Unix socket of the server (what `localhost` means to the host's mysql client). */
    socket: string;
    /** Password of root@localhost (the only root account; for admin-only test set-up). */
    rootPassword: string;
  };
  ssh: {
    host: "127.0.0.1";
    port: number;
    /** The login user = the user running the tests. */
    username: string;
    /** Client private key, OpenSSH PEM format (ssh2 `privateKey`). */
    privateKey: string;
    /** Client public key line, as in authorized_keys. */
    publicKey: string;
    /** Host key fingerprint exactly as OpenSSH prints it: "SHA256:<base64 without padding>". */
    hostKeyFingerprint: string;
    /** Host public key line, e.g. "ssh-ed25519 AAAA… pbx-host" (for a known_hosts entry: "[127.0.0.1]:<port> <type> <key>"). */
    hostPublicKey: string;
  };
  /** The host's `/etc/freepbx.conf` (PHP, `$amp_conf['AMPDBUSER'] = '…';` …): pass as the deployer's `freepbxConfPath`. */
  freepbxConfPath: string;
  /** Directory first on the SSH session's PATH (fwconsole, mysql, mariadb). */
  binDir: string;
  /** Runs one SQL statement as freepbxuser on `asterisk` over TCP (Bun.SQL); `?` placeholders bound from params. */
  query(sql: string, params?: unknown[]): Promise<QueryRows>;
  /** The console's environment for this host: its SSH settings and FreePBX config file path. */
  consoleEnv(): Record<string, string>;
  /** Runs a whole script with the real MariaDB command-line client, as an administrator pasting it would. */
  runScript(script: string): { code: number | null; err: string };
  /** Calls of the fwconsole stand-in so far, oldest first. */
  fwconsoleCalls(): FwconsoleCall[];
  /** Forgets the recorded fwconsole calls. */
  clearFwconsoleCalls(): void;
  /** Calls of the `asterisk` stand-in so far (`asterisk -rx '…'`), oldest first. */
  asteriskCalls(): FwconsoleCall[];
  /** Forgets the recorded asterisk calls. */
  clearAsteriskCalls(): void;
  /** The stand-in's AstDB: "/FAMILY/key" → value. */
  astdb(): Record<string, string>;
  /** Replaces the stand-in's AstDB. */
  setAstdb(entries: Record<string, string>): void;
  /** `<root>/etc/asterisk/voicemail.conf` (FreePBX's ASTETCDIR of this host is `<root>/etc/asterisk`). */
  voicemailConfPath: string;
  /** voicemail.conf's bytes. */
  voicemailConf(): Buffer;
  /** Replaces voicemail.conf (its mode stays). */
  setVoicemailConf(content: string | Uint8Array): void;
  /** Makes every `asterisk -rx` fail like a stopped Asterisk (true), or answer again (false). */
  setAsteriskDown(down: boolean): void;
  /** Makes `fwconsole reload` fail with this message (exit 1; 255 with --json), or succeed again with null. */
  setReloadFailure(message: string | null): void;
  /**
   * Another fwconsole holds FreePBX's reload lock for the next `calls` reloads (`"always"`: it never frees
   * it; `0` or null: free): each answers `{"error":"Process is already running.",…}` and exits 255, as
   * FreePBX's Reload.class.php does.
   */
  setReloadLocked(calls: number | "always" | null): void;
  /**
   * FreePBX's call records database `asteriskcdrdb` (table `cdr`, test/fixtures/freepbx/cdr.sql) on the same
   * server; `freepbxuser` has ALL on it, as the `asterisk` database user has on a real FreePBX.
   */
  cdr: {
    database: "asteriskcdrdb";
    /** `mysql://freepbxuser:…@127.0.0.1:<port>/asteriskcdrdb`: the console's CDR_DATABASE_URL for this host. */
    url: string;
    /** Multi-row INSERTs (1,000 rows a statement, parameters). Returns the rows written. */
    insert(rows: Iterable<CdrRow>): Promise<number>;
    /** Bulk load: a TSV file and `LOAD DATA LOCAL INFILE` as root (a million rows in seconds). Returns the rows. */
    load(rows: Iterable<CdrRow>): Promise<number>;
    /** Runs one statement on `asteriskcdrdb` as freepbxuser (`?` placeholders bound from params). */
    query(sql: string, params?: unknown[]): Promise<QueryRows>;
    /** `CHECKSUM TABLE cdr` and the row count: changes whenever a row is written. */
    checksum(): Promise<string>;
    /** Empties `cdr`. */
    clear(): Promise<void>;
  };
  /** Runs SQL as root over the socket with the real client (e.g. a database or view for one test); throws on failure. */
  adminScript(sql: string): Promise<void>;
  /**
   * Stops MariaDB (true), like a stopped or crashed server, or starts it again (false) on the same port with
   * the same data. Resolves once it is down, or once it accepts logins again.
   */
  setMysqlDown(down: boolean): Promise<void>;
  /** Stops both servers (SIGTERM, then SIGKILL after 5 s) and removes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

const DB_NAME = "asterisk";
const CDR_DB_NAME = "asteriskcdrdb";
const DB_USER = "freepbxuser";
const HERE = import.meta.dir;

/** Hosts not yet stopped, killed synchronously if the test process exits without stop(). */
const live = new Set<{ procs: () => Subprocess[]; root: string; keep: boolean }>();
let exitHookInstalled = false;
/** Ports handed out by this process, so concurrent hosts never get the same one. */
const handedOut = new Set<number>();

export async function startPbxHost(opts: PbxHostOptions = {}): Promise<PbxHost> {
  const deadline = Date.now() + (opts.startupTimeoutMs ?? 30_000);
  const bins = findBinaries();
  const isRoot = process.getuid?.() === 0;
  const username = currentUserName();
  const keep = opts.keepRoot ?? process.env.PBX_HOST_KEEP === "1";

  const root = makeRoot();
  const dir = {
    data: join(root, "mysql-data"),
    ssh: join(root, "ssh"),
    bin: join(root, "bin"),
    etc: join(root, "etc"),
    tmp: join(root, "tmp"),
  };
  for (const d of Object.values(dir)) mkdirSync(d, { recursive: true, mode: 0o700 });
  const file = {
    socket: join(root, "mysqld.sock"),
    mysqlPid: join(root, "mysqld.pid"),
    mysqlErr: join(root, "mysqld.err"),
    mysqlInstallLog: join(root, "mysql-install-db.log"),
    sshdConfig: join(dir.ssh, "sshd_config"),
    sshdPid: join(dir.ssh, "sshd.pid"),
    sshdLog: join(dir.ssh, "sshd.log"),
    hostKey: join(dir.ssh, "ssh_host_ed25519_key"),
    clientKey: join(dir.ssh, "id_ed25519"),
    authorizedKeys: join(dir.ssh, "authorized_keys"),
    freepbxConf: join(dir.etc, "freepbx.conf"),
    myCnf: join(dir.etc, "my.cnf"),
    fwLog: join(root, "fwconsole.log"),
    failReload: join(root, "fwconsole.fail-reload"),
    reloadLocked: join(root, "fwconsole.reload-locked"),
    asteriskLog: join(root, "asterisk.log"),
    astdb: join(root, "astdb.json"),
    asteriskDown: join(root, "asterisk.down"),
    voicemailConf: join(dir.etc, "asterisk", "voicemail.conf"),
  };

  let mysqld: Subprocess | undefined;
  let sshd: Subprocess | undefined;
  let sql: SQL | undefined;
  let cdrSql: SQL | undefined;
  const entry = { procs: () => [mysqld, sshd].filter((p): p is Subprocess => !!p), root, keep };
  live.add(entry);
  installExitHook();

  const rootPassword = randomBytes(18).toString("hex");
  const password = randomBytes(18).toString("hex");
  let mysqlPort = 0;
  let sshPort = 0;

  const admin = (
    args: string[],
    stdin?: Uint8Array | ReturnType<typeof Bun.file>,
    pw = rootPassword,
    timeoutMs = Math.max(1000, deadline - Date.now()),
  ) =>
    run(
      [
        bins.client,
        "--no-defaults",
        "--protocol=SOCKET",
        `--socket=${file.socket}`,
        "--user=root",
        "--default-character-set=utf8mb4",
        ...args,
      ],
      { stdin, env: { MYSQL_PWD: pw }, timeoutMs },
    );

  /** mariadbd on `mysqlPort` over the host's data dir (start-up and `setMysqlDown(false)`). */
  const spawnMysqld = () =>
    Bun.spawn(
      [
        bins.mariadbd,
        "--no-defaults",
        `--datadir=${dir.data}`,
        `--socket=${file.socket}`,
        `--port=${mysqlPort}`,
        "--bind-address=127.0.0.1",
        `--pid-file=${file.mysqlPid}`,
        `--log-error=${file.mysqlErr}`,
        `--tmpdir=${dir.tmp}`,
        "--skip-name-resolve",
        "--character-set-server=utf8mb4",
        "--collation-server=utf8mb4_general_ci",
        "--innodb-buffer-pool-size=32M",
        "--innodb-flush-log-at-trx-commit=2",
        "--max-connections=100",
        ...(isRoot ? [`--user=${username}`] : []),
      ],
      { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
    );

  async function startMysql() {
    const install = await run(
      [
        bins.installDb,
        "--no-defaults",
        `--datadir=${dir.data}`,
        "--auth-root-authentication-method=normal",
        "--skip-test-db",
        ...(isRoot ? [`--user=${username}`] : []),
      ],
      { timeoutMs: Math.max(1000, deadline - Date.now()) },
    );
    writeFileSync(file.mysqlInstallLog, install.stdout + install.stderr);
    if (install.code !== 0) {
      throw new Error(`mariadb-install-db failed (exit ${install.code}):\n${tail(install.stdout + install.stderr)}`);
    }
    for (let attempt = 1; ; attempt++) {
      mysqlPort = await freePort();
      mysqld = spawnMysqld();
      const proc = mysqld;
      const ready = await waitFor(deadline, async () => {
        if (proc.exitCode !== null || proc.signalCode) return "exited";
        const r = await admin(["-e", "SELECT 1"], undefined, "");
        return r.code === 0 ? "ready" : undefined;
      });
      if (ready === "ready") break;
      const log = readText(file.mysqlErr);
      if (ready === "exited" && /Address already in use|Bind on TCP\/IP port/i.test(log) && attempt < 3) continue;
      throw new Error(
        ready === "exited"
          ? `mariadbd exited (code ${proc.exitCode ?? proc.signalCode}) during start-up; ${file.mysqlErr}:\n${tail(log)}`
          : `mariadbd not ready in time; ${file.mysqlErr}:\n${tail(log)}`,
      );
    }

    // Real grants: root only on the socket with a password, freepbxuser on asterisk.* and asteriskcdrdb.* (as
    // FreePBX's installer grants its database user both) from localhost and 127.0.0.1. Both databases have a
    // FreePBX 17 box's defaults (utf8mb4_unicode_ci); the tables bring their own (mostly utf8mb3_unicode_ci).
    const setup = [
      "DELETE FROM mysql.global_priv WHERE User = '' OR (User = 'root' AND Host <> 'localhost');",
      "FLUSH PRIVILEGES;",
      `ALTER USER 'root'@'localhost' IDENTIFIED BY '${rootPassword}';`,
      `CREATE DATABASE ${DB_NAME} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`,
      `CREATE USER '${DB_USER}'@'localhost' IDENTIFIED BY '${password}';`,
      `CREATE USER '${DB_USER}'@'127.0.0.1' IDENTIFIED BY '${password}';`,
      `GRANT ALL PRIVILEGES ON ${DB_NAME}.* TO '${DB_USER}'@'localhost';`,
      `GRANT ALL PRIVILEGES ON ${DB_NAME}.* TO '${DB_USER}'@'127.0.0.1';`,
      `CREATE DATABASE ${CDR_DB_NAME} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`,
      `GRANT ALL PRIVILEGES ON ${CDR_DB_NAME}.* TO '${DB_USER}'@'localhost';`,
      `GRANT ALL PRIVILEGES ON ${CDR_DB_NAME}.* TO '${DB_USER}'@'127.0.0.1';`,
    ].join("\n");
    const s = await admin([], new TextEncoder().encode(setup), "");
    if (s.code !== 0) throw new Error(`MariaDB set-up failed: ${s.stderr}`);
    const schemaPath = opts.schemaPath ?? join(HERE, "../fixtures/freepbx/schema.sql");
    const l = await admin([DB_NAME], Bun.file(schemaPath));
    if (l.code !== 0) throw new Error(`loading ${schemaPath} failed: ${l.stderr}`);
    const cdrSchemaPath = opts.cdrSchemaPath ?? join(HERE, "../fixtures/freepbx/cdr.sql");
    const c = await admin([CDR_DB_NAME], Bun.file(cdrSchemaPath));
    if (c.code !== 0) throw new Error(`loading ${cdrSchemaPath} failed: ${c.stderr}`);
    // FreePBX's Advanced Settings (the schema fixture has the table and the installed directory rows):
    // ASTETCDIR points at this host's etc/asterisk, so voicemail.conf is found the way FreePBX's Voicemail
    // module finds it, and ASTSPOOLDIR at its spool. The table is created (FreePBX 17's shape) and the rows
    // added when a custom schemaPath lacks them.
    const settings = new TextEncoder().encode(
      [
        "CREATE TABLE IF NOT EXISTS freepbx_settings (keyword varchar(50) NOT NULL DEFAULT '',",
        "  value varchar(255) DEFAULT NULL, name varchar(80) DEFAULT NULL, level tinyint(1) DEFAULT 0,",
        "  description longtext DEFAULT NULL, type varchar(25) DEFAULT NULL, options longtext DEFAULT NULL,",
        "  defaultval varchar(255) DEFAULT NULL, readonly tinyint(1) DEFAULT 0, hidden tinyint(1) DEFAULT 0,",
        "  category varchar(50) DEFAULT NULL, module varchar(50) DEFAULT NULL, emptyok tinyint(1) DEFAULT 1,",
        "  sortorder int(11) DEFAULT 0, PRIMARY KEY (keyword)) DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_unicode_ci;",
        `INSERT INTO freepbx_settings (keyword, value, name, level, type, defaultval, readonly, category, emptyok) VALUES
          ('ASTETCDIR', ${sqlQuote(join(dir.etc, "asterisk"))}, 'Asterisk etc Dir', 4, 'dir', '/etc/asterisk', 1, 'Directory Layout', 0),
          ('ASTSPOOLDIR', ${sqlQuote(join(root, "spool"))}, 'Asterisk Spool Dir', 4, 'dir', '/var/spool/asterisk', 1, 'Directory Layout', 0)
          ON DUPLICATE KEY UPDATE value = VALUES(value);`,
      ].join("\n"),
    );
    const st = await admin([DB_NAME], settings);
    if (st.code !== 0) throw new Error(`creating freepbx_settings failed: ${st.stderr}`);

    sql = new SQL({
      adapter: "mysql",
      hostname: "127.0.0.1",
      port: mysqlPort,
      username: DB_USER,
      password,
      database: DB_NAME,
      max: 4,
    });
    await sql.unsafe("SELECT 1");
  }

  async function startSshd() {
    await run([bins.sshKeygen, "-q", "-t", "ed25519", "-N", "", "-C", "pbx-host", "-f", file.hostKey]).then(must);
    await run([bins.sshKeygen, "-q", "-t", "ed25519", "-N", "", "-C", "pbx-host-client", "-f", file.clientKey]).then(
      must,
    );
    copyFileSync(`${file.clientKey}.pub`, file.authorizedKeys);
    chmodSync(file.authorizedKeys, 0o600);
    // sshd running as root insists on its privilege-separation directory (it chroots there before auth).
    if (isRoot && !existsSync("/run/sshd")) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });

    for (let attempt = 1; ; attempt++) {
      sshPort = await freePort();
      writeFileSync(
        file.sshdConfig,
        [
          `Port ${sshPort}`,
          "ListenAddress 127.0.0.1",
          `HostKey ${cfgQuote(file.hostKey)}`,
          `PidFile ${cfgQuote(file.sshdPid)}`,
          `AuthorizedKeysFile ${cfgQuote(file.authorizedKeys)}`,
          `AllowUsers ${username}`,
          "PubkeyAuthentication yes",
          "PasswordAuthentication no",
          "KbdInteractiveAuthentication no",
          "UsePAM no",
          "StrictModes no",
          "PermitRootLogin prohibit-password",
          // SHLVL=1: bash started by sshd then counts as a nested shell and does not source the test user's
          // ~/.bashrc (Debian's bash does for a top-level shell run by sshd), which may be slow (a pyenv init
          // cost ~370 ms per command here) or change PATH: a PBX host's commands should not depend on who runs
          // the tests.
          `SetEnv ${cfgQuote(`PATH=${dir.bin}:/usr/local/bin:/usr/bin:/bin`)} SHLVL=1`,
          "Subsystem sftp internal-sftp",
          "PrintMotd no",
          "PrintLastLog no",
          "UseDNS no",
          "MaxStartups 100",
          "MaxSessions 100",
          "LogLevel VERBOSE",
          "",
        ].join("\n"),
      );
      writeFileSync(file.sshdLog, "");
      sshd = Bun.spawn([bins.sshd, "-D", "-e", "-f", file.sshdConfig], {
        stdin: "ignore",
        stdout: "ignore",
        stderr: Bun.file(file.sshdLog), // -e: the log goes to stderr
      });
      const proc = sshd;
      const port = sshPort;
      const ready = await waitFor(deadline, async () => {
        if (proc.exitCode !== null || proc.signalCode) return "exited";
        return (await sshBanner(port)) ? "ready" : undefined;
      });
      if (ready === "ready") return;
      const log = readText(file.sshdLog);
      if (ready === "exited" && /Address already in use|Cannot bind any address/i.test(log) && attempt < 3) continue;
      throw new Error(
        ready === "exited"
          ? `sshd exited (code ${proc.exitCode ?? proc.signalCode}) during start-up; ${file.sshdLog}:\n${tail(log)}`
          : `sshd not ready in time; ${file.sshdLog}:\n${tail(log)}`,
      );
    }
  }

  let stopped = false;
  async function stop() {
    if (stopped) return;
    stopped = true;
    await sql?.close({ timeout: 1 }).catch(() => {});
    await cdrSql?.close({ timeout: 1 }).catch(() => {});
    await Promise.all([sshd && terminate(sshd, 5000, true), mysqld && terminate(mysqld, 5000, false)]);
    live.delete(entry);
    if (!keep) rmSync(root, { recursive: true, force: true });
  }

  /** The host's files: client defaults, FreePBX config, PATH entries. */
  function writeHostFiles() {
    writeFileSync(
      file.myCnf,
      [
        "# Client defaults of this test host, like /etc/mysql/my.cnf on a real PBX.",
        "[client]",
        `socket=${cnfQuote(file.socket)}`,
        `port=${mysqlPort}`,
        "default-character-set=utf8mb4",
        "",
      ].join("\n"),
    );
    const socketConf = opts.freepbxConf === "socket";
    writeFileSync(
      file.freepbxConf,
      [
        "<?php",
        `$amp_conf['AMPDBUSER'] = '${DB_USER}';`,
        `$amp_conf['AMPDBPASS'] = '${password}';`,
        `$amp_conf['AMPDBHOST'] = '${socketConf ? "localhost" : "127.0.0.1"}';`,
        ...(socketConf ? [] : [`$amp_conf['AMPDBPORT'] = '${mysqlPort}';`]),
        `$amp_conf['AMPDBNAME'] = '${DB_NAME}';`,
        "$amp_conf['AMPDBENGINE'] = 'mysql';",
        "$amp_conf['datasource'] = ''; //for sqlite3",
        "",
        "require_once('/var/www/html/admin/bootstrap.php');",
        "?>",
        "",
      ].join("\n"),
    );
    chmodSync(file.freepbxConf, 0o640);
    writeFileSync(join(dir.etc, "fwconsole-version"), `${opts.freepbxVersion ?? "17.0.19"}\n`);
    const wrapper = [
      "#!/bin/sh",
      "# mysql client of this test host: the real client plus the host's defaults (socket, port, utf8mb4).",
      "# A caller that picks its own option files (--defaults-extra-file=… first) gets the real client unchanged.",
      'case "$1" in',
      `  --no-defaults|--defaults-file=*|--defaults-extra-file=*|--print-defaults) exec ${shQuote(bins.client)} "$@" ;;`,
      "esac",
      `exec ${shQuote(bins.client)} --defaults-extra-file=${shQuote(file.myCnf)} "$@"`,
      "",
    ].join("\n");
    for (const name of ["mysql", "mariadb"]) writeFileSync(join(dir.bin, name), wrapper, { mode: 0o755 });
    copyFileSync(join(HERE, "fwconsole.sh"), join(dir.bin, "fwconsole"));
    chmodSync(join(dir.bin, "fwconsole"), 0o755);
    writeFileSync(file.fwLog, "");
    // The asterisk stand-in is a Bun script (asterisk.ts); the wrapper runs it with this process's Bun.
    writeFileSync(
      join(dir.bin, "asterisk"),
      [
        "#!/bin/sh",
        "# asterisk stand-in of this test host (test/pbx-host/asterisk.ts): AstDB in a file, calls logged.",
        `ASTERISK_STANDIN_ROOT=${shQuote(root)} exec ${shQuote(process.execPath)} ${shQuote(join(HERE, "asterisk.ts"))} "$@"`,
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    writeFileSync(file.asteriskLog, "");
    writeFileSync(file.astdb, "{}");
    mkdirSync(join(dir.etc, "asterisk"), { recursive: true });
    writeFileSync(file.voicemailConf, STOCK_VOICEMAIL_CONF, { mode: 0o664 });
  }

  try {
    const results = await Promise.allSettled([startMysql(), startSshd()]);
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed.length) throw new Error(failed.map((f) => String(f.reason?.message ?? f.reason)).join("\n\n"));
    writeHostFiles();
  } catch (e) {
    await stop();
    throw new Error(`startPbxHost failed (root ${root}${keep ? ", kept" : ", removed"}):\n${(e as Error).message}`);
  }

  const hostPublicKey = readFileSync(`${file.hostKey}.pub`, "utf8").trim();
  const db = sql as SQL;
  const cdrQuery = (text: string, params: unknown[] = []) => {
    cdrSql ??= new SQL({
      adapter: "mysql",
      hostname: "127.0.0.1",
      port: mysqlPort,
      username: DB_USER,
      password,
      database: CDR_DB_NAME,
      max: 4,
    });
    return cdrSql.unsafe(text, params as any[]) as Promise<QueryRows>;
  };
  const adminScript = async (script: string, timeoutMs = 600_000) => {
    const r = await admin([], new TextEncoder().encode(script), rootPassword, timeoutMs);
    if (r.code !== 0) throw new Error(`admin SQL failed (exit ${r.code}): ${r.stderr.trim()}`);
  };
  return {
    root,
    mysql: {
      host: "127.0.0.1",
      port: mysqlPort,
      user: DB_USER,
      password,
      database: DB_NAME,
      socket: file.socket,
      rootPassword,
    },
    ssh: {
      host: "127.0.0.1",
      port: sshPort,
      username,
      privateKey: readFileSync(file.clientKey, "utf8"),
      publicKey: readFileSync(`${file.clientKey}.pub`, "utf8").trim(),
      hostKeyFingerprint: sshFingerprint(hostPublicKey),
      hostPublicKey,
    },
    freepbxConfPath: file.freepbxConf,
    binDir: dir.bin,
    query: (text, params = []) => db.unsafe(text, params as any[]) as Promise<QueryRows>,
    consoleEnv(this: PbxHost) {
      return {
        PBX_SSH_HOST: this.ssh.host,
        PBX_SSH_PORT: String(this.ssh.port),
        PBX_SSH_USER: this.ssh.username,
        PBX_SSH_PRIVATE_KEY: this.ssh.privateKey,
        PBX_FREEPBX_CONF: this.freepbxConfPath,
      };
    },
    runScript(script) {
      const r = Bun.spawnSync(
        [
          "mariadb",
          "--protocol=TCP",
          "-h",
          "127.0.0.1",
          "-P",
          String(mysqlPort),
          "-u",
          "freepbxuser",
          `-p${password}`,
          "asterisk",
        ],
        { stdin: Buffer.from(script) },
      );
      return { code: r.exitCode, err: r.stderr.toString() };
    },
    fwconsoleCalls: () =>
      readText(file.fwLog)
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as FwconsoleCall),
    clearFwconsoleCalls: () => writeFileSync(file.fwLog, ""),
    asteriskCalls: () =>
      readText(file.asteriskLog)
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as FwconsoleCall),
    clearAsteriskCalls: () => writeFileSync(file.asteriskLog, ""),
    astdb: () => JSON.parse(readText(file.astdb) || "{}") as Record<string, string>,
    setAstdb: (entries) => writeFileSync(file.astdb, JSON.stringify(entries)),
    voicemailConfPath: file.voicemailConf,
    voicemailConf: () => readFileSync(file.voicemailConf),
    setVoicemailConf: (content) => writeFileSync(file.voicemailConf, content),
    setAsteriskDown: (down) => {
      if (down) writeFileSync(file.asteriskDown, "");
      else rmSync(file.asteriskDown, { force: true });
    },
    setReloadFailure: (message) => {
      if (message === null) rmSync(file.failReload, { force: true });
      else writeFileSync(file.failReload, message);
    },
    setReloadLocked: (calls) => {
      if (calls === null || calls === 0) rmSync(file.reloadLocked, { force: true });
      else writeFileSync(file.reloadLocked, String(calls));
    },
    cdr: {
      database: CDR_DB_NAME,
      url: `mysql://${DB_USER}:${password}@127.0.0.1:${mysqlPort}/${CDR_DB_NAME}`,
      insert: (rows) => insertCdrRows(cdrQuery, "cdr", rows),
      async load(rows) {
        const path = join(dir.tmp, `cdr-load-${Date.now()}.tsv`);
        const writer = Bun.file(path).writer();
        let count = 0;
        for (const row of rows) {
          writer.write(cdrTsvLine(row));
          count++;
        }
        await writer.end();
        try {
          const r = await admin(
            [
              "--local-infile=1",
              CDR_DB_NAME,
              "-e",
              `LOAD DATA LOCAL INFILE ${sqlQuote(path)} INTO TABLE cdr CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\n' (${CDR_COLUMNS.join(", ")})`,
            ],
            undefined,
            rootPassword,
            600_000,
          );
          if (r.code !== 0) throw new Error(`LOAD DATA failed (exit ${r.code}): ${r.stderr.trim()}`);
        } finally {
          rmSync(path, { force: true });
        }
        return count;
      },
      query: cdrQuery,
      async checksum() {
        const [sum] = await cdrQuery("CHECKSUM TABLE cdr");
        const [count] = await cdrQuery("SELECT COUNT(*) AS n FROM cdr");
        return `${sum?.Checksum}/${count?.n}`;
      },
      async clear() {
        await cdrQuery("DELETE FROM cdr");
      },
    },
    adminScript: (script) => adminScript(script),
    async setMysqlDown(down) {
      if (down) {
        if (mysqld && mysqld.exitCode === null && !mysqld.signalCode) await terminate(mysqld, 5000, false);
        return;
      }
      if (mysqld && mysqld.exitCode === null && !mysqld.signalCode) return;
      const proc = spawnMysqld();
      mysqld = proc;
      const ready = await waitFor(Date.now() + 30_000, async () => {
        if (proc.exitCode !== null || proc.signalCode) return "exited";
        const r = await admin(["-e", "SELECT 1"], undefined, rootPassword, 5000);
        return r.code === 0 ? "ready" : undefined;
      });
      if (ready !== "ready")
        throw new Error(`mariadbd did not start again (${ready ?? "timeout"}): ${tail(readText(file.mysqlErr))}`);
    },
    stop,
  };
}

/** "SHA256:<base64, no padding>" of an OpenSSH public key line ("ssh-ed25519 AAAA… comment") or raw key blob. */
export function sshFingerprint(key: string | Uint8Array): string {
  const blob = typeof key === "string" ? Buffer.from(key.trim().split(/\s+/)[1] ?? "", "base64") : key;
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

// ---------------------------------------------------------------------------------------------------

function findBinaries() {
  const path = `${process.env.PATH ?? ""}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;
  const find = (names: string[], pkg: string) => {
    for (const n of names) {
      const p = Bun.which(n, { PATH: path });
      if (p) return p;
    }
    throw new Error(`${names[0]} not found: install the Debian package ${pkg} (scripts/ensure-system-deps.sh does)`);
  };
  return {
    mariadbd: find(["mariadbd", "mysqld"], "mariadb-server"),
    installDb: find(["mariadb-install-db", "mysql_install_db"], "mariadb-server"),
    client: find(["mariadb", "mysql"], "mariadb-client"),
    // sshd re-executes itself and therefore needs an absolute path (Bun.which returns one).
    sshd: find(["sshd"], "openssh-server"),
    sshKeygen: find(["ssh-keygen"], "openssh-client"),
  };
}

/** Login name of this process's user. (Bun's os.userInfo().username can be "unknown", so ask id(1) first.) */
function currentUserName(): string {
  const id = Bun.spawnSync(["id", "-un"], { stdout: "pipe", stderr: "ignore" });
  const name = id.exitCode === 0 ? id.stdout.toString().trim() : "";
  if (name) return name;
  const fallback = process.env.USER || process.env.LOGNAME || userInfo().username;
  if (!fallback || fallback === "unknown") throw new Error("cannot determine the current user name");
  return fallback;
}

/** Temp dir whose socket path stays under the 108-byte sun_path limit. */
function makeRoot(): string {
  let base = tmpdir();
  if (join(base, "pbx-host-XXXXXX", "mysqld.sock").length > 100) base = "/tmp";
  return mkdtempSync(join(base, "pbx-host-"));
}

async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once("error", reject);
      srv.listen(0, "127.0.0.1", () => {
        const addr = srv.address();
        const p = typeof addr === "object" && addr ? addr.port : 0;
        srv.close(() => resolve(p));
      });
    });
    if (port && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("no free loopback port");
}

async function run(
  cmd: string[],
  o: { stdin?: Uint8Array | ReturnType<typeof Bun.file>; env?: Record<string, string>; timeoutMs?: number } = {},
) {
  const proc = Bun.spawn(cmd, {
    stdin: o.stdin ?? "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...o.env },
    timeout: o.timeoutMs ?? 15_000,
    killSignal: "SIGKILL",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr, cmd };
}

function must(r: Awaited<ReturnType<typeof run>>) {
  if (r.code !== 0) throw new Error(`${r.cmd.join(" ")} failed (exit ${r.code}): ${r.stderr || r.stdout}`);
  return r;
}

/** Polls check() every 100 ms until it returns a value or the deadline passes (→ undefined). */
async function waitFor<T>(deadline: number, check: () => Promise<T | undefined>): Promise<T | undefined> {
  while (Date.now() < deadline) {
    const v = await check();
    if (v !== undefined) return v;
    await Bun.sleep(100);
  }
  return undefined;
}

/** True once something on the port answers with an SSH identification string. */
function sshBanner(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (ok: boolean, socket?: { end(): void }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket?.end();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), 1000);
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        data: (s, d) => finish(Buffer.from(d).toString("latin1").startsWith("SSH-"), s),
        error: () => finish(false),
        close: () => finish(false),
        connectError: () => finish(false),
      },
    }).catch(() => finish(false));
  });
}

/** SIGTERM, then SIGKILL after graceMs; with withDescendants, also sshd's per-connection children (Linux /proc). */
async function terminate(proc: Subprocess, graceMs: number, withDescendants: boolean) {
  const kids = withDescendants ? descendants(proc.pid) : [];
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of kids) {
      try {
        process.kill(pid, sig);
      } catch {}
    }
    if (proc.exitCode === null && !proc.signalCode) proc.kill(sig);
  };
  signal("SIGTERM");
  const timedOut = await Promise.race([proc.exited.then(() => false), Bun.sleep(graceMs).then(() => true)]);
  if (timedOut) signal("SIGKILL");
  else {
    for (const pid of kids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  }
  await proc.exited;
}

function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  try {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        const list = children.get(ppid) ?? [];
        list.push(Number(name));
        children.set(ppid, list);
      } catch {}
    }
  } catch {
    return [];
  }
  const out: number[] = [];
  const stack = [...(children.get(pid) ?? [])];
  while (stack.length) {
    const p = stack.pop() as number;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const h of live) {
      for (const p of h.procs()) {
        for (const pid of descendants(p.pid)) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {}
        }
        try {
          p.kill("SIGKILL");
        } catch {}
      }
      if (!h.keep) rmSync(h.root, { recursive: true, force: true });
    }
  });
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function tail(text: string, lines = 40): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/** sshd_config argument quoting. */
function cfgQuote(s: string): string {
  if (/["\n]/.test(s)) throw new Error(`unsupported character in sshd_config value: ${s}`);
  return `"${s}"`;
}

/** my.cnf value quoting. */
function cnfQuote(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** An SQL string literal (test set-up only: paths of this host). */
function sqlQuote(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

/** voicemail.conf as a fresh FreePBX install has it: settings included from files, an empty [default]. */
export const STOCK_VOICEMAIL_CONF = [
  "[general]",
  "#include vm_general.inc",
  "#include vm_email.inc",
  "[default]",
  "",
  "",
].join("\n");

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
