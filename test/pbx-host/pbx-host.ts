/**
 * A real PBX test host on loopback: a real MariaDB server (`mariadbd`) holding a copy of the testbed's FreePBX 17
 * databases, a real Asterisk 22 (the testbed's relocatable tree, with this host's own asterisk.conf) and a
 * real OpenSSH server (`sshd`) whose PATH has FreePBX's own `fwconsole` (see fwconsoleWrapper), an `asterisk` wrapper and
 * `mysql`/`mariadb` client wrappers, plus a FreePBX-format config file with the database credentials.
 * See README.md in this directory for each piece.
 *
 *   const pbx = await startPbxHost();
 *   // ssh2: { host: pbx.ssh.host, port: pbx.ssh.port, username: pbx.ssh.username, privateKey: pbx.ssh.privateKey }
 *   await pbx.query("SELECT value FROM admin WHERE variable = ?", ["need_reload"]);
 *   await pbx.stop();
 *
 * Linux only (Debian packages mariadb-server and openssh-server; Asterisk from ../shared/testbed/up, see
 * `asteriskTree`). Works as root (the SSH login user is then
 * root; /run/sshd is created if missing) and as a normal user (sshd then serves only that user, whose account
 * must not be locked: e.g. `nobody` is refused with "account is locked").
 */

import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { SQL, type Subprocess } from "bun";
import { CDR_COLUMNS, type CdrRow, cdrTsvLine, insertCdrRows } from "./cdr-calls";

export interface PbxHostOptions {
  /**
   * SQL loaded into the server (it creates `asterisk` and `asteriskcdrdb`). Default: the dump of the testbed's
   * FreePBX 17 as its `up` left it (`freepbxInstall().dump`), which FreePBX's own fwconsole works on.
   */
  dumpPath?: string;
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

/**
 * What the host's Asterisk held as a `fwconsole reload` began (unless `setReloadLocked` held it); null where it
 * did not answer.
 */
export interface AsteriskAtReload {
  /** ISO time. */
  time: string;
  /** Its AstDB, "/FAMILY/key" → value (Asterisk's own /pbx/ entries left out). */
  astdb: Record<string, string> | null;
  /** The mailboxes app_voicemail had loaded, "mailbox@context". */
  voicemailUsers: string[] | null;
  /**
   * voicemail.conf's bytes (null: unreadable). FreePBX's reload rewrites the file in its own format (`=` for
   * `=>`, comments dropped, a [pbxaliases] context), so what the console wrote is seen here.
   */
  voicemailConf: Buffer | null;
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
  /** Directory first on the SSH session's PATH (fwconsole, asterisk, mysql, mariadb). */
  binDir: string;
  /** Runs one SQL statement as freepbxuser on `asterisk` over TCP (Bun.SQL); `?` placeholders bound from params. */
  query(sql: string, params?: unknown[]): Promise<QueryRows>;
  /** The console's environment for this host: its SSH settings and FreePBX config file path. */
  consoleEnv(): Record<string, string>;
  /** Runs a whole script with the real MariaDB command-line client, as an administrator pasting it would. */
  runScript(script: string): { code: number | null; err: string };
  /** Calls of the host's fwconsole so far, oldest first. */
  fwconsoleCalls(): FwconsoleCall[];
  /** What Asterisk held at each `fwconsole reload` so far, oldest first. */
  asteriskAtReloads(): AsteriskAtReload[];
  /** Forgets the recorded fwconsole calls (and what Asterisk held at their reloads). */
  clearFwconsoleCalls(): void;
  /**
   * The host's Asterisk 22 (a real one, from the testbed's relocatable tree): its own directories under
   * `root`, its control socket and log.
   */
  asterisk: {
    /** `<root>/etc/asterisk/asterisk.conf` (what `<binDir>/asterisk` passes with `-C`). */
    conf: string;
    /** The control socket `asterisk -r` connects to. */
    ctl: string;
    /** Asterisk's `messages` log (notices, warnings, errors). */
    log: string;
  };
  /**
   * Runs one CLI command on the host's Asterisk, as `asterisk -rx` does (through its control socket), and
   * answers what it prints. Throws when Asterisk is not running.
   */
  cli(command: string): Promise<string>;
  /** Asterisk's AstDB, "/FAMILY/key" → value, exactly (Asterisk's own /pbx/ entries left out). */
  astdb(): Promise<Record<string, string>>;
  /** Replaces the AstDB (every family but Asterisk's own `pbx`) with real `database deltree` / `database put`. */
  setAstdb(entries: Record<string, string>): Promise<void>;
  /** The mailboxes Asterisk's app_voicemail has loaded (`voicemail show users`), as "mailbox@context". */
  voicemailUsers(): Promise<string[]>;
  /** `<root>/etc/asterisk/voicemail.conf` (FreePBX's ASTETCDIR of this host is `<root>/etc/asterisk`). */
  voicemailConfPath: string;
  /** voicemail.conf's bytes. */
  voicemailConf(): Buffer;
  /** Replaces voicemail.conf (its mode stays). */
  setVoicemailConf(content: string | Uint8Array): void;
  /**
   * Stops Asterisk (true: `core stop now`, SIGKILL after 5 s), so every `asterisk -rx` fails as on a box whose
   * Asterisk is down, or starts it again on the same configuration and AstDB (false). Resolves once it is
   * down, or fully booted.
   */
  setAsteriskDown(down: boolean): Promise<void>;
  /**
   * Makes FreePBX's `fwconsole reload` fail (true) or succeed again (false): a directory stands where it writes
   * extensions_additional.conf, so it stops with `RELOAD_FAILURE` (exit 2; `reload --json` takes the same for a
   * warning and completes).
   */
  setReloadFailure(fail: boolean): void;
  /**
   * Another process holds FreePBX's reload lock for the next `calls` reloads (`"always"`: it never frees it;
   * `0` or null: free): its process id is in ASTRUNDIR/reload.lock as each begins, and FreePBX's reload answers
   * `{"error":"Process is already running.","trace":"Process ID : <id>"}` and exits 255.
   */
  setReloadLocked(calls: number | "always" | null): void;
  /**
   * FreePBX's call records database `asteriskcdrdb` (table `cdr` as FreePBX 17 creates it) on the same
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
  /**
   * Stops the servers (SIGTERM, then SIGKILL after 5 s) and Asterisk (SIGKILL: its AstDB goes with the temp dir;
   * `core stop now` when the dir is kept), waits for them and removes the temp dir. Idempotent.
   */
  stop(): Promise<void>;
}

const DB_NAME = "asterisk";
const CDR_DB_NAME = "asteriskcdrdb";
const DB_USER = "freepbxuser";

/** Hosts not yet stopped, killed synchronously if the test process exits without stop(). */
const live = new Set<{ procs: () => Subprocess[]; root: string; keep: boolean }>();
let exitHookInstalled = false;
/** Ports handed out by this process, so concurrent hosts never get the same one. */
const handedOut = new Set<number>();

export async function startPbxHost(opts: PbxHostOptions = {}): Promise<PbxHost> {
  const deadline = Date.now() + (opts.startupTimeoutMs ?? 30_000);
  const bins = findBinaries();
  const tree = asteriskTree();
  const freepbx = freepbxInstall();
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
    astEtc: join(root, "etc", "asterisk"),
    // Asterisk's own directories (asterisk.conf [directories]); the spool is FreePBX's ASTSPOOLDIR of this host.
    astLib: join(root, "asterisk", "lib"),
    astDb: join(root, "asterisk", "db"),
    astRun: join(root, "asterisk", "run"),
    astLog: join(root, "asterisk", "log"),
    astCache: join(root, "asterisk", "cache"),
    spool: join(root, "spool"),
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
    reloadLocked: join(root, "fwconsole.reload-locked"),
    lockHolder: join(root, "fwconsole.lock-holder"),
    reloadLock: join(dir.astRun, "reload.lock"),
    amportalConf: join(dir.etc, "amportal.conf"),
    fwAsteriskLog: join(root, "fwconsole.asterisk.log"),
    asteriskConf: join(dir.astEtc, "asterisk.conf"),
    asteriskCtl: join(dir.astRun, "asterisk.ctl"),
    asteriskMessages: join(dir.astLog, "messages"),
    asteriskOut: join(root, "asterisk", "asterisk.out"),
    reloadFailure: join(dir.astEtc, "extensions_additional.conf"),
    voicemailConf: join(dir.astEtc, "voicemail.conf"),
  };

  let mysqld: Subprocess | undefined;
  let sshd: Subprocess | undefined;
  let asterisk: Subprocess | undefined;
  let sql: SQL | undefined;
  let cdrSql: SQL | undefined;
  /** The process that "holds" FreePBX's reload lock for setReloadLocked. */
  let lockHolder: Subprocess | undefined;
  const releaseLockHolder = () => {
    rmSync(file.reloadLocked, { force: true });
    if (
      existsSync(file.lockHolder) &&
      existsSync(file.reloadLock) &&
      readText(file.lockHolder) === readText(file.reloadLock)
    )
      rmSync(file.reloadLock, { force: true });
    rmSync(file.lockHolder, { force: true });
    lockHolder?.kill("SIGKILL");
    lockHolder = undefined;
  };
  const entry = { procs: () => [mysqld, sshd, asterisk, lockHolder].filter((p): p is Subprocess => !!p), root, keep };
  live.add(entry);
  installExitHook();

  const rootPassword = randomBytes(18).toString("hex");
  const password = randomBytes(18).toString("hex");
  let mysqlPort = 0;
  let sshPort = 0;
  let amiPort = 0;
  let sipPort = 0;

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
    const dumpPath = opts.dumpPath ?? freepbx.dump;
    const l = await admin([], Bun.file(dumpPath));
    if (l.code !== 0) throw new Error(`loading ${dumpPath} failed: ${l.stderr}`);
    // FreePBX's Advanced Settings and SIP Settings, pointed at this host: its directories (ASTETCDIR is where
    // the console finds voicemail.conf, as FreePBX's Voicemail module does), its Asterisk (the `asterisk`
    // wrapper, AMI port, modules) and its own SIP port for the transport FreePBX generates. No signature check:
    // it would run in the background past the reload and hold FreePBX's lock (the testbed tier covers it).
    const settings: Record<string, string> = {
      ASTETCDIR: dir.astEtc,
      ASTSPOOLDIR: dir.spool,
      ASTRUNDIR: dir.astRun,
      ASTLOGDIR: dir.astLog,
      ASTVARLIBDIR: dir.astLib,
      ASTAGIDIR: join(dir.astLib, "agi-bin"),
      ASTMODDIR: tree.modules,
      CERTKEYLOC: join(dir.astEtc, "keys"),
      FPBX_LOG_FILE: join(dir.astLog, "freepbx.log"),
      FPBXDBUGFILE: join(dir.astLog, "freepbx_dbug"),
      WHICH_asterisk: join(dir.bin, "asterisk"),
      ASTMANAGERHOST: "127.0.0.1",
      ASTMANAGERPORT: String(amiPort),
      SIGNATURECHECK: "0",
    };
    const point = new TextEncoder().encode(
      [
        ...Object.entries(settings).map(
          ([k, v]) => `UPDATE ${DB_NAME}.freepbx_settings SET value = ${sqlQuote(v)} WHERE keyword = ${sqlQuote(k)};`,
        ),
        `DELETE FROM ${DB_NAME}.kvstore_Sipsettings WHERE \`key\` LIKE '%port-%' OR \`key\` = 'binds';`,
        `INSERT INTO ${DB_NAME}.kvstore_Sipsettings (\`key\`, val, type, id) VALUES`,
        `  ('binds', '{"udp":{"127.0.0.1":"on"}}', 'json-arr', 'noid'), ('udpport-127.0.0.1', '${sipPort}', NULL, 'noid');`,
      ].join("\n"),
    );
    const st = await admin([], point);
    if (st.code !== 0) throw new Error(`pointing FreePBX's settings at this host failed: ${st.stderr}`);

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

  /**
   * Asterisk's configuration: /etc/asterisk of the testbed's FreePBX as its `up` left it, with this host's
   * asterisk.conf (every directory under root but the tree's modules and binaries), modules (nothing autoloaded),
   * log, AMI port and SIP transport.
   */
  function writeAsteriskConf() {
    cpSync(freepbx.etc, dir.astEtc, { recursive: true });
    // The XML documentation must be found in astdatadir: without it Asterisk refuses to start ("Stasis
    // initialization failed"), since its configuration frameworks register options against it.
    symlinkSync(tree.documentation, join(dir.astLib, "documentation"));
    writeFileSync(
      file.asteriskConf,
      [
        "; Asterisk of this PBX test host (test/pbx-host): every directory set, so nothing is read or written",
        "; outside the host's temp dir but the relocatable tree's modules and binaries.",
        "[directories]",
        `astetcdir => ${dir.astEtc}`,
        `astmoddir => ${tree.modules}`,
        `astvarlibdir => ${dir.astLib}`,
        `astdbdir => ${dir.astDb}`,
        `astkeydir => ${join(dir.astLib, "keys")}`,
        `astdatadir => ${dir.astLib}`,
        `astagidir => ${join(dir.astLib, "agi-bin")}`,
        `astspooldir => ${dir.spool}`,
        `astrundir => ${dir.astRun}`,
        `astlogdir => ${dir.astLog}`,
        `astsbindir => ${tree.sbin}`,
        `astcachedir => ${dir.astCache}`,
        "[options]",
        // No runuser/rungroup: it runs as whoever runs the tests (root in CI), like the SSH login user.
        "hideconnect = yes",
        "dontwarn = yes",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(dir.astEtc, "modules.conf"),
      [
        "[modules]",
        // What the console and FreePBX's reload need: AstDB, the CLI and AMI are built in; `voicemail reload`;
        // PJSIP with the endpoints FreePBX generates (res_pjsip and the modules it requires: with autoload off,
        // the loader does not pull them in by itself). No dialplan, channel or media modules.
        "autoload = no",
        ...ASTERISK_MODULES.map((m) => `load = ${m}`),
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(dir.astEtc, "logger.conf"),
      ["[general]", "queue_log = no", "[logfiles]", "messages => notice,warning,error", ""].join("\n"),
    );
    // FreePBX's manager.conf (its AMI user, AMPMGRUSER/AMPMGRPASS of the dump) on this host's port.
    const manager = readFileSync(join(dir.astEtc, "manager.conf"), "utf8")
      .replace(/^port\s*=.*$/m, `port = ${amiPort}`)
      .replace(/^bindaddr\s*=.*$/m, "bindaddr = 127.0.0.1");
    writeFileSync(join(dir.astEtc, "manager.conf"), manager);
    // PJSIP transports are not reloadable: the one FreePBX generates from SIP Settings (this host's port, set in
    // the database) is there when Asterisk starts.
    writeFileSync(
      join(dir.astEtc, "pjsip.transports.conf"),
      [
        "[0]",
        "#include pjsip.transports_custom.conf",
        "[127.0.0.1-udp]",
        "type=transport",
        "protocol=udp",
        `bind=127.0.0.1:${sipPort}`,
        "allow_reload=no",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(dir.bin, "asterisk"),
      [
        "#!/bin/sh",
        "# Asterisk of this test host: the relocatable Asterisk 22 with the host's asterisk.conf (like the testbed's",
        "# /usr/sbin/asterisk wrapper), so `asterisk -rx '…'` reaches the host's own Asterisk.",
        `LD_LIBRARY_PATH=${shQuote(tree.lib)}\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}`,
        "export LD_LIBRARY_PATH",
        `exec ${shQuote(tree.bin)} -C ${shQuote(file.asteriskConf)} "$@"`,
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
  }

  /** Starts Asterisk in the foreground (-f) as a child, its output to a file; resolves once it is fully booted. */
  async function startAsterisk(until: number) {
    const out = openSync(file.asteriskOut, "a");
    let proc: Subprocess;
    try {
      proc = Bun.spawn([tree.bin, "-C", file.asteriskConf, "-f", "-n", "-q"], {
        cwd: join(root, "asterisk"),
        stdin: "ignore",
        stdout: out,
        stderr: out,
        env: { ...process.env, LD_LIBRARY_PATH: [tree.lib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":") },
      });
    } finally {
      closeSync(out);
    }
    asterisk = proc;
    const ready = await waitFor(
      until,
      async () => {
        if (proc.exitCode !== null || proc.signalCode) return "exited";
        const answer = await asteriskCli(file.asteriskCtl, ["core waitfullybooted"], 5000).catch(() => "");
        return answer.includes("fully booted") ? "ready" : undefined;
      },
      25,
    );
    if (ready === "ready") return;
    const logs = `${file.asteriskOut}:\n${tail(readText(file.asteriskOut), 15)}\n${file.asteriskMessages}:\n${tail(readText(file.asteriskMessages), 15)}`;
    if (ready !== "exited") await stopAsterisk();
    throw new Error(
      ready === "exited"
        ? `asterisk exited (code ${proc.exitCode ?? proc.signalCode}) during start-up; ${logs}`
        : `asterisk not fully booted in time; ${logs}`,
    );
  }

  /**
   * `core stop now`, SIGKILL if it is still there after 5 s; resolves once the process is gone. Asterisk commits
   * AstDB as it stops (up to a second after the last write), so it has the same AstDB when it starts again.
   */
  async function stopAsterisk() {
    const proc = asterisk;
    if (!proc || proc.exitCode !== null || proc.signalCode) return;
    await asteriskCli(file.asteriskCtl, ["core stop now"], 5000).catch(() => "");
    const timedOut = await Promise.race([proc.exited.then(() => false), Bun.sleep(5000).then(() => true)]);
    if (timedOut) proc.kill("SIGKILL");
    await proc.exited;
  }

  async function killAsterisk() {
    if (!asterisk || asterisk.exitCode !== null || asterisk.signalCode) return;
    asterisk.kill("SIGKILL");
    await asterisk.exited;
  }

  const asteriskRunning = () => !!asterisk && asterisk.exitCode === null && !asterisk.signalCode;
  const cli = async (commands: string[]) => {
    // Asterisk listens with a backlog of 2: a connection refused while others are being accepted is tried again.
    for (let attempt = 1; ; attempt++) {
      if (!asteriskRunning()) throw new Error("the PBX test host's Asterisk is stopped (setAsteriskDown(true))");
      try {
        return await asteriskCli(file.asteriskCtl, commands);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (attempt >= 100 || (code !== "ECONNREFUSED" && code !== "EAGAIN")) throw e;
      }
      await Bun.sleep(20);
    }
  };
  const readAstdb = async () => parseAstdbQuery(await cli([ASTDB_QUERY]));

  let stopped = false;
  async function stop() {
    if (stopped) return;
    stopped = true;
    releaseLockHolder();
    await sql?.close({ timeout: 1 }).catch(() => {});
    await cdrSql?.close({ timeout: 1 }).catch(() => {});
    await Promise.all([
      sshd && terminate(sshd, 5000, true),
      mysqld && terminate(mysqld, 5000, false),
      // `core stop now` waits for AstDB's last commit, up to a second after a write (main/db.c syncs, then
      // sleeps a second); the AstDB goes with the temp dir, so it is only worth waiting for when the dir is kept.
      keep ? stopAsterisk() : killAsterisk(),
    ]);
    live.delete(entry);
    if (!keep) rmSync(root, { recursive: true, force: true });
  }

  /**
   * `fwconsole` of this host: FreePBX 17's own (the testbed's install, unchanged), run in a private mount
   * namespace where the files FreePBX reads or writes by fixed paths are this host's: /etc/freepbx.conf (which
   * fwconsole includes by that path) and /etc/amportal.conf, and the directories a FreePBX box keeps Asterisk's
   * files in. It works on this host's database, and through the settings there on this host's directories and
   * Asterisk (`asterisk -rx`, AMI) only. Each call is logged first; a reload also logs what Asterisk holds as it
   * begins, and meets the lock `setReloadLocked` asks for.
   */
  function fwconsoleWrapper() {
    const binds = [
      [file.freepbxConf, "/etc/freepbx.conf"],
      [file.amportalConf, "/etc/amportal.conf"],
      [dir.astEtc, "/etc/asterisk"],
      [dir.astLog, "/var/log/asterisk"],
      [dir.spool, "/var/spool/asterisk"],
      [dir.astRun, "/var/run/asterisk"],
    ].flat();
    return [
      "#!/bin/bash",
      "# fwconsole of this PBX test host (test/pbx-host/pbx-host.ts fwconsoleWrapper): FreePBX's own, in a mount",
      "# namespace where /etc/freepbx.conf and Asterisk's directories are this host's.",
      "set -u",
      `LOG=${shQuote(file.fwLog)}`,
      `ASTERISK_LOG=${shQuote(file.fwAsteriskLog)}`,
      `LOCKED=${shQuote(file.reloadLocked)}`,
      `HOLDER=${shQuote(file.lockHolder)}`,
      `LOCK=${shQuote(file.reloadLock)}`,
      `ASTERISK=${shQuote(join(dir.bin, "asterisk"))}`,
      "now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }",
      // Each field base64 behind a "b" (an empty one too); "-" where Asterisk did not answer.
      'field() { printf \'b%s\' "$(printf %s "$1" | base64 -w0)"; }',
      "line=$(now)",
      'for a in "$@"; do line+=" $(field "$a")"; done',
      'printf \'%s\\n\' "$line" >>"$LOG"',
      "cmd=",
      'for a in "$@"; do case $a in -*) ;; *) cmd=$a; break ;; esac; done',
      'if [ "$cmd" = reload ] || [ "$cmd" = r ]; then',
      "  held=",
      '  if [ -e "$LOCKED" ]; then',
      '    left=$(cat "$LOCKED")',
      '    if [ "$left" = always ]; then held=1',
      '    elif [[ $left =~ ^[0-9]+$ ]] && [ "$left" -gt 0 ]; then held=1; echo $((left - 1)) >"$LOCKED"; fi',
      "  fi",
      "  # Another process holds FreePBX's reload lock as its setLock() leaves it: its process id in ASTRUNDIR/reload.lock.",
      '  if [ -n "$held" ]; then cp "$HOLDER" "$LOCK"',
      "  else",
      '    [ -e "$HOLDER" ] && cmp -s "$HOLDER" "$LOCK" && rm -f "$LOCK"',
      `    astdb=$("$ASTERISK" -rx ${shQuote(ASTDB_QUERY)} 2>/dev/null) && astdb=$(field "$astdb") || astdb=-`,
      '    vm=$("$ASTERISK" -rx \'voicemail show users\' 2>/dev/null) && vm=$(field "$vm") || vm=-',
      `    vmconf=b$(base64 -w0 <${shQuote(file.voicemailConf)} 2>/dev/null) || vmconf=-`,
      '    printf \'%s %s %s %s\\n\' "$(now)" "$astdb" "$vm" "$vmconf" >>"$ASTERISK_LOG"',
      "  fi",
      "fi",
      // As root a mount namespace of its own; otherwise in a user namespace where this user is root.
      'if [ "$(id -u)" = 0 ]; then ns=(unshare --mount --propagation private); else ns=(unshare --user --map-root-user --mount --propagation private); fi',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash, not a template
      'exec "${ns[@]}" -- /bin/bash -c \'while [ "$1" != -- ]; do if [ -e "$2" ]; then mount --bind "$1" "$2" || exit 70; fi; shift 2; done; shift; exec "$@"\' fwconsole \\',
      `  ${binds.map(shQuote).join(" ")} -- ${shQuote(join(dir.bin, "php"))} ${shQuote(freepbx.fwconsole)} "$@"`,
      "",
    ].join("\n");
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
        // FreePBX 17's code as the testbed installed it, on this host's database: what fwconsole (and anything
        // else on the host that bootstraps FreePBX) runs.
        `require_once('${freepbx.bootstrap}');`,
        "?>",
        "",
      ].join("\n"),
    );
    chmodSync(file.freepbxConf, 0o640);
    // What fwconsole finds at /etc/amportal.conf (FreePBX rewrites it from the database's settings).
    writeFileSync(file.amportalConf, "");
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
    // PHP of this host: the machine's, with this host's database socket as its default (php.ini on a real box),
    // which FreePBX uses for AMPDBHOST 'localhost'.
    writeFileSync(
      join(dir.bin, "php"),
      [
        "#!/bin/sh",
        "# PHP of this test host: the machine's PHP with this host's MariaDB socket as the default, as its php.ini has it.",
        `exec ${shQuote(freepbx.php)} -d ${shQuote(`pdo_mysql.default_socket=${file.socket}`)} -d ${shQuote(`mysqli.default_socket=${file.socket}`)} "$@"`,
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    writeFileSync(join(dir.bin, "fwconsole"), fwconsoleWrapper(), { mode: 0o755 });
    writeFileSync(file.fwLog, "");
    writeFileSync(file.fwAsteriskLog, "");
  }

  try {
    amiPort = await freePort();
    sipPort = await freeUdpPort();
    // Asterisk reads its configuration (voicemail.conf among it) as it starts: written first.
    writeAsteriskConf();
    const results = await Promise.allSettled([startMysql(), startSshd(), startAsterisk(deadline)]);
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
      logLines(file.fwLog).map(([time, ...args]) => ({ time: time as string, argv: args.map(unfield) as string[] })),
    asteriskAtReloads: () =>
      logLines(file.fwAsteriskLog).map(([time, astdb, vm, vmconf]) => ({
        time: time as string,
        astdb: astdb === "-" || astdb === undefined ? null : parseAstdbQuery(unfield(astdb)),
        voicemailUsers: vm === "-" || vm === undefined ? null : parseVoicemailUsers(unfield(vm)),
        voicemailConf: vmconf === "-" || vmconf === undefined ? null : Buffer.from(vmconf.slice(1), "base64"),
      })),
    clearFwconsoleCalls: () => {
      writeFileSync(file.fwLog, "");
      writeFileSync(file.fwAsteriskLog, "");
    },
    asterisk: { conf: file.asteriskConf, ctl: file.asteriskCtl, log: file.asteriskMessages },
    cli: async (command) => cli([command]),
    astdb: readAstdb,
    async setAstdb(entries) {
      const puts = Object.entries(entries).map(([path, value]) => {
        const m = /^\/([^/]+)\/(.+)$/.exec(path);
        if (!m) throw new Error(`not an AstDB path ("/FAMILY/key"): ${path}`);
        return `database put ${cliQuote(m[1] as string)} ${cliQuote(m[2] as string)} ${cliQuote(value)}`;
      });
      const families = new Set(Object.keys(await readAstdb()).map((k) => k.split("/")[1] as string));
      await cliBatches(
        [...families].map((f) => `database deltree ${cliQuote(f)}`),
        cli,
      );
      const answers = await cliBatches(puts, cli);
      const done = answers.match(/^Updated database successfully$/gm)?.length ?? 0;
      if (done !== puts.length)
        throw new Error(`AstDB: ${done} of ${puts.length} database put succeeded:\n${tail(answers, 10)}`);
      const now = await readAstdb();
      const wrong = Object.keys({ ...now, ...entries }).filter((k) => now[k] !== entries[k]);
      if (wrong.length) throw new Error(`AstDB differs after setAstdb at ${wrong.slice(0, 5).join(", ")}`);
    },
    voicemailUsers: async () => parseVoicemailUsers(await cli(["voicemail show users"])),
    voicemailConfPath: file.voicemailConf,
    voicemailConf: () => readFileSync(file.voicemailConf),
    setVoicemailConf: (content) => writeFileSync(file.voicemailConf, content),
    async setAsteriskDown(down) {
      if (down) return stopAsterisk();
      if (asteriskRunning()) return;
      await startAsterisk(Date.now() + 30_000);
    },
    setReloadFailure(fail) {
      // A directory where FreePBX writes a generated file: its file_put_contents() fails even for root.
      rmSync(file.reloadFailure, { recursive: true, force: true });
      if (fail) mkdirSync(file.reloadFailure);
      else writeFileSync(file.reloadFailure, "");
    },
    setReloadLocked(calls) {
      if (calls === null || calls === 0) {
        releaseLockHolder();
        return;
      }
      if (!lockHolder || lockHolder.exitCode !== null || lockHolder.signalCode) {
        lockHolder = Bun.spawn(["sleep", "infinity"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
        writeFileSync(file.lockHolder, String(lockHolder.pid));
      }
      writeFileSync(file.reloadLocked, String(calls));
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

/**
 * The testbed's relocatable Asterisk 22 (../shared/testbed/up unpacks it to /opt/pbx-testbed/asterisk;
 * PBX_HOST_ASTERISK_DIR points elsewhere). Only read: each host has its own configuration and directories.
 */
export function asteriskTree() {
  const dir = process.env.PBX_HOST_ASTERISK_DIR || "/opt/pbx-testbed/asterisk";
  const tree = {
    dir,
    bin: join(dir, "usr/sbin/asterisk"),
    sbin: join(dir, "usr/sbin"),
    lib: join(dir, "usr/lib"),
    modules: join(dir, "usr/lib/asterisk/modules"),
    documentation: join(dir, "var/lib/asterisk/documentation"),
  };
  const missing = [tree.bin, ...ASTERISK_MODULES.map((m) => join(tree.modules, m)), tree.documentation].filter(
    (p) => !existsSync(p),
  );
  if (missing.length)
    throw new Error(
      `The PBX test host runs the testbed's relocatable Asterisk 22, not found in ${dir} (missing ${missing.join(", ")}). ` +
        "Run ../shared/testbed/up (as root), which unpacks it to /opt/pbx-testbed/asterisk, or set PBX_HOST_ASTERISK_DIR to such a tree.",
    );
  return tree;
}

/**
 * The testbed's FreePBX 17 (../shared/testbed/up installs it): its code and fwconsole, which every host runs on
 * its own database, and the baseline `up` saved (PBX_HOST_FREEPBX_BASELINE points elsewhere): the dump of its
 * databases and its /etc/asterisk, from which each host starts. Only read.
 */
export function freepbxInstall() {
  const baseline = process.env.PBX_HOST_FREEPBX_BASELINE || "/var/lib/pbx-testbed/baseline";
  const install = {
    dump: join(baseline, "db.sql"),
    etc: join(baseline, "etc-asterisk"),
    bootstrap: "/var/www/html/admin/bootstrap.php",
    fwconsole: "/var/lib/asterisk/bin/fwconsole",
    php: Bun.which("php") ?? "/usr/bin/php",
  };
  const missing = [install.dump, install.etc, install.bootstrap, install.fwconsole, install.php].filter(
    (p) => !existsSync(p),
  );
  if (missing.length)
    throw new Error(
      `The PBX test host runs the testbed's FreePBX 17 on a copy of its baseline, not found (missing ${missing.join(", ")}). ` +
        "Run ../shared/testbed/up (as root), which installs FreePBX and saves the baseline in /var/lib/pbx-testbed/baseline.",
    );
  return install;
}

/** The lines of a host log, each split at spaces. */
function logLines(path: string): string[][] {
  return readText(path)
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => l.split(" "));
}

/** A field of the fwconsole wrapper's logs: "b" and the bytes in base64. */
function unfield(f: string): string {
  return Buffer.from(f.slice(1), "base64").toString("utf8");
}

/** Modules the host's Asterisk loads (autoload is off; res_pjsip's requirements are listed before it). */
const ASTERISK_MODULES = [
  "app_voicemail.so",
  // DEVICE_STATE(): FreePBX's time-condition override sets its BLF states with it.
  "func_devstate.so",
  "res_pjproject.so",
  "res_sorcery_config.so",
  "res_sorcery_memory.so",
  "res_sorcery_astdb.so",
  "res_pjsip.so",
  "res_pjsip_outbound_registration.so",
];

/**
 * Asterisk's control socket reads a command into a 512-byte buffer (main/asterisk.c netconsole): `asterisk
 * -rx` sends "cli quit after <command>" and a NUL there, and a longer command is dropped without an answer.
 */
const CLI_BUFFER = 512;
const CLI_PREFIX = "cli quit after ";

/**
 * Runs CLI commands over Asterisk's control socket as `asterisk -rx` does, several in one connection
 * (NUL-separated after "cli quit after ", which Asterisk runs in order and then closes): what they print.
 * One connection instead of one process per command keeps setting a large AstDB fast.
 */
export function asteriskCli(ctl: string, commands: string[], timeoutMs = 30_000): Promise<string> {
  const payload = Buffer.from(`${CLI_PREFIX}${commands.map((c) => `${c}\0`).join("")}`);
  if (payload.length > CLI_BUFFER)
    return Promise.reject(
      new Error(`Asterisk CLI command(s) over ${CLI_BUFFER - CLI_PREFIX.length - 1} bytes: ${commands[0]}`),
    );
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let done = false;
    let socket: { end(): void } | undefined;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket?.end();
      if (err) return reject(err);
      const text = Buffer.concat(chunks).toString("utf8");
      // First a banner, "<host>/<pid>/<version>"; without it the connection was refused ("No more connections allowed").
      const banner = /^[^\n]*\/\d+\/[^\n]*\n/.exec(text);
      if (!banner) return reject(new Error(`Asterisk's control socket did not answer as expected: ${text.trim()}`));
      resolve(text.slice(banner[0].length));
    };
    const timer = setTimeout(() => finish(new Error(`Asterisk CLI timed out: ${commands.join("; ")}`)), timeoutMs);
    Bun.connect({
      unix: ctl,
      socket: {
        open(s) {
          socket = s;
          if (s.write(payload) !== payload.length) finish(new Error("short write to Asterisk's control socket"));
        },
        data: (_s, d) => {
          chunks.push(Buffer.from(d));
        },
        close: () => finish(),
        error: (_s, e) => finish(e),
        connectError: (_s, e) => finish(e),
      },
    }).catch((e: Error) => finish(e));
  });
}

/** Runs commands in as few control-socket connections as fit, one after the other; their answers in order. */
async function cliBatches(commands: string[], cli: (commands: string[]) => Promise<string>): Promise<string> {
  const batches: string[][] = [];
  let size = CLI_PREFIX.length;
  for (const c of commands) {
    const n = Buffer.byteLength(c) + 1;
    const last = batches.at(-1);
    if (last && size + n <= CLI_BUFFER) {
      last.push(c);
      size += n;
    } else {
      batches.push([c]);
      size = CLI_PREFIX.length + n;
    }
  }
  let answers = "";
  for (const batch of batches) answers += await cli(batch);
  return answers;
}

/** One argument for Asterisk's CLI parser (main/cli.c parse_args): double quotes, `\\` and `"` escaped. */
function cliQuote(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the CLI cannot carry
  if (/[\x00-\x1f]/.test(s))
    throw new Error(`a control character cannot go through Asterisk's CLI: ${JSON.stringify(s)}`);
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * The whole AstDB, exactly: `database show` pads values to 25 characters (a trailing space is lost), so the
 * keys and values are read hex-encoded with `database query` (SQL on Asterisk's own astdb table).
 */
const ASTDB_QUERY = 'database query "SELECT hex(key) AS k, hex(value) AS v FROM astdb ORDER BY key"';

/** `ASTDB_QUERY`'s answer ("k    : <hex>" / "v    : <hex>" per row) → "/FAMILY/key" → value, without /pbx/. */
export function parseAstdbQuery(output: string): Record<string, string> {
  const out: Record<string, string> = {};
  let key: string | null = null;
  for (const line of output.split("\n")) {
    if (!line.trim()) continue;
    const m = /^([kv]) +: ([0-9A-F]*) *$/.exec(line);
    if (!m) throw new Error(`unexpected answer to ${ASTDB_QUERY}: ${line}`);
    const text = Buffer.from(m[2] as string, "hex").toString("utf8");
    if (m[1] === "k") key = text;
    else if (key !== null) {
      // Asterisk's own entry (/pbx/UUID, written at its first start): not part of what tests set or compare.
      if (!key.startsWith("/pbx/")) out[key] = text;
      key = null;
    }
  }
  return out;
}

/** `voicemail show users` → "mailbox@context" (Asterisk prints "Context Mbox User Zone NewMsg" columns). */
export function parseVoicemailUsers(output: string): string[] {
  const lines = output.split("\n");
  const header = lines.findIndex((l) => /^Context\s+Mbox\s/.test(l));
  if (header < 0) {
    if (/no voicemail users/i.test(output)) return [];
    throw new Error(`unexpected answer to voicemail show users: ${output.trim()}`);
  }
  const users: string[] = [];
  for (const l of lines.slice(header + 1)) {
    if (!l.trim() || /voicemail users configured/.test(l)) break;
    const [context, mailbox] = l.trim().split(/\s+/);
    users.push(`${mailbox}@${context}`);
  }
  return users;
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

/** Temp dir whose socket paths (MariaDB's, Asterisk's control socket) stay under the 108-byte sun_path limit. */
function makeRoot(): string {
  let base = tmpdir();
  if (join(base, "pbx-host-XXXXXX", "asterisk", "run", "asterisk.ctl").length > 100) base = "/tmp";
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

/** A loopback UDP port no socket holds now (for the host's SIP transport). */
async function freeUdpPort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const sock = await Bun.udpSocket({ hostname: "127.0.0.1", port: 0 });
    const port = sock.port;
    sock.close();
    if (port && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("no free loopback UDP port");
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

/** Polls check() every `everyMs` until it returns a value or the deadline passes (→ undefined). */
async function waitFor<T>(
  deadline: number,
  check: () => Promise<T | undefined>,
  everyMs = 100,
): Promise<T | undefined> {
  while (Date.now() < deadline) {
    const v = await check();
    if (v !== undefined) return v;
    await Bun.sleep(everyMs);
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

/** voicemail.conf as FreePBX 17 leaves it on a fresh install (the testbed's baseline): settings, no mailbox. */
export function stockVoicemailConf(): string {
  return readFileSync(join(freepbxInstall().etc, "voicemail.conf"), "utf8");
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** What FreePBX's reload answers when `setReloadFailure(true)` is on. */
export const RELOAD_FAILURE =
  /^file_put_contents\(\/\S+\/etc\/asterisk\/extensions_additional\.conf\): Failed to open stream: Is a directory$/;
