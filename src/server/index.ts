/**
 * pbx-console entry point: `pbx-console` serves the console; `create-admin`, `unlock`, `restore`, `update`,
 * `--version` and `--help` are the CLI. Config comes from the environment only.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json";
import { openDatabase } from "../db/client";
import page from "../web/index.html";
import { createApp } from "./app";
import { removePidFile, writePidFile } from "./backup/pid-file";
import { type Config, ConfigError, loadConfig } from "./config";
import { testVersion } from "./update/test-hooks";

// A test's copy of the binary may report another version, only where that grants nothing (update/test-hooks.ts).
const VERSION: string = testVersion() ?? pkg.version;

const HELP = `pbx-console ${VERSION}: admin console for a FreePBX phone system

Usage:
  pbx-console                                 serve the console
  pbx-console create-admin --username NAME    create an administrator (or reset its password)
  pbx-console unlock [--username NAME] [--address IP]
                                              forget failed sign-ins (all, or of one account/address)
  pbx-console restore FILE [--key-file KEYFILE] [--yes]
                                              replace the database with a backup (the console
                                              must be stopped; the previous one is kept beside it);
                                              an off-site copy is decrypted with the kept key file
  pbx-console update [--check]                install the newest signed release from UPDATE_URL (as
                                              root): back up, swap, restart, roll back unless /healthz
                                              answers within 30 s; --check only says whether there is one
  pbx-console update --apply                  install the release the console staged (what
                                              pbx-console-update.service runs when asked)
  pbx-console export [--format yaml|json] [-o FILE]
                                              the console's configuration as a document
  pbx-console plan -f FILE [--prune] [--json]  what applying a document would change
  pbx-console apply -f FILE [--prune] (--fingerprint F | --yes)
                                              apply exactly the reviewed plan (these three use a
                                              REST API token: PBX_CONSOLE_TOKEN or --token-file FILE;
                                              the console at PBX_CONSOLE_URL or --url, else this host's)
  pbx-console fail2ban-helper                 (for systemd) one fail2ban operation from stdin, as root
  pbx-console --version | --help

Environment:
  PORT            port to listen on (default 3000)
  HOST            address to bind (default 127.0.0.1)
  DATA_DIR        where the database and keys live
                  (default ./data from source, /var/lib/pbx-console for the binary)
  TLS_CERT        PEM certificate; with TLS_KEY the console serves HTTPS
  TLS_KEY         PEM private key
  SERVER_LABEL    label in the sidebar footer (default: this host's name)
  SERVER_ADDRESS  address in the sidebar footer (default: HOST)
  PUBLIC_HOSTNAMES  other names the console is reached by (comma-separated, e.g.
                  pbx.example.com); any other Host is refused with 421. Loopback,
                  this machine's addresses, HOST and SERVER_ADDRESS are always accepted
  LOG_LEVEL       info (default) or silent
  BACKUP_KEEP     daily backups kept in DATA_DIR/backups (default 7; 0 turns
                  the daily backup off). DATA_DIR/secret.key is never in a
                  backup: copy it to a safe place once
  METRICS_TOKEN   the bearer token Prometheus scrapes GET /metrics with (16+
                  characters; one can also be made in Settings)
  FAIL2BAN_JAILS  the fail2ban jails the attack view shows and bans in
                  (default asterisk,pbx-console; the first running one takes bans)
  FAIL2BAN_SOCKET fail2ban's socket (default /var/run/fail2ban/fail2ban.sock)
  FAIL2BAN_HELPER the root helper's socket (install.sh --fail2ban sets it)
  UPDATE_URL      the signed release manifest (default
                  https://github.com/pbx-console/pbx-console/releases/latest/download/manifest.json)
  UPDATE_RESTART  how \`update\` restarts the console: systemd (default) or signal
                  (SIGTERM to the serving console; another supervisor starts it again)
`;

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

function readConfig(): Config {
  try {
    return loadConfig(process.env, Bun.isStandaloneExecutable);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
}

function prepare(): { config: Config; dbFile: string } {
  const config = readConfig();
  try {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    fail(`Cannot create DATA_DIR ${config.dataDir}: ${(err as Error).message}\nSet DATA_DIR to a writable folder.`);
  }
  return { config, dbFile: join(config.dataDir, "pbx-console.db") };
}

function open(dbFile: string) {
  try {
    return openDatabase(dbFile, (n) => console.log(`database ${dbFile}: ${n} migration(s) applied`));
  } catch (err) {
    fail(`Cannot open the database ${dbFile}: ${(err as Error).message}`);
  }
}

async function serve() {
  const { config, dbFile } = prepare();
  // After an update: a roll-back's database to put back first, and the outcome to audit (update/startup.ts).
  const update = existsSync(join(config.dataDir, "update")) ? await import("./update/startup") : null;
  update?.beforeOpen(config.dataDir, dbFile);
  const db = open(dbFile);
  update?.afterOpen(config.dataDir, db);
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp({ config, db, version: VERSION, page });
  } catch (err) {
    fail(`Cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
  }
  // Beyond loopback, first-run set-up needs this one-time code (also in DATA_DIR/setup-code until used).
  const setupCode = app.app.setupCode.code;
  const setup = setupCode ? `; first-run set-up code: ${setupCode}` : "";
  // While it serves, DATA_DIR/pbx-console.pid names this process: `restore` refuses to run under it.
  writePidFile(config.dataDir);
  console.log(`pbx-console ${VERSION} listening on ${app.url.href} (data: ${config.dataDir}${setup})`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down`);
    const force = setTimeout(() => process.exit(0), 10_000);
    await app.stop();
    db.$client.close();
    removePidFile(config.dataDir);
    clearTimeout(force);
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

// A CLI command loads its module only when it is the one asked for: serving never evaluates them.
const args = process.argv.slice(2);
const command = args[0];
if (command === "--version" || command === "-v") {
  console.log(VERSION);
} else if (command === "--help" || command === "-h" || command === "help") {
  console.log(HELP);
} else if (command === undefined || command === "serve") {
  await serve();
} else if (command === "create-admin") {
  const { createAdminCommand } = await import("./cli/create-admin");
  const code = await createAdminCommand(() => open(prepare().dbFile), args.slice(1));
  process.exit(code);
} else if (command === "unlock") {
  const { unlockCommand } = await import("./cli/unlock");
  process.exit(unlockCommand(() => open(prepare().dbFile), args.slice(1)));
} else if (command === "restore") {
  const target = () => {
    const { config, dbFile } = prepare();
    return { dataDir: config.dataDir, dbFile };
  };
  const { restoreCommand } = await import("./cli/restore");
  process.exit(await restoreCommand(target, args.slice(1)));
} else if (command === "export" || command === "plan" || command === "apply") {
  const { configCommand } = await import("./cli/config");
  process.exit(await configCommand(command, readConfig(), args.slice(1)));
} else if (command === "fail2ban-helper") {
  // Run as root by systemd per connection to the console's fail2ban socket (install.sh --fail2ban; ADR 0067).
  const { fail2banHelperCommand } = await import("./firewall/helper");
  process.exit(await fail2banHelperCommand(readConfig()));
} else if (command === "update") {
  const { updateCommand } = await import("./cli/update");
  const cli = { readConfig, prepare, version: VERSION, standalone: Bun.isStandaloneExecutable };
  process.exit(await updateCommand(cli, args.slice(1)));
} else {
  fail(`Unknown command: ${command}\n\n${HELP}`, 2);
}
