/**
 * The real PBX of `../shared/testbed/` (Asterisk 22 + FreePBX 17 on loopback) as the tests reach it:
 * `testbed()` brings it up once per process (`up` installs what a fresh Debian machine lacks), `reset()`
 * returns FreePBX to its state after the first `up`, and `pbxSsh()` starts an OpenSSH server on loopback
 * that lets the console in as the `asterisk` user, the way an administrator's console reaches its PBX
 * host. Checks read the PBX the way an administrator would: `asterisk -rx`, FreePBX's database, files.
 */
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { sshFingerprint } from "../pbx-host/pbx-host";

/** Where the testbed's scripts are: `PBX_TESTBED_DIR`, else `shared/testbed` beside the repository. */
export const TESTBED_DIR = resolve(process.env.PBX_TESTBED_DIR ?? join(import.meta.dir, "../../../shared/testbed"));

export interface TestbedEnv {
  amiHost: string;
  amiPort: number;
  amiUsername: string;
  amiSecret: string;
  dbSocket: string;
  dbPort: number;
  dbUser: string;
  dbPassword: string;
  freepbxConf: string;
  sipHost: string;
  sipPort: number;
}

let outputDir: string | null = null;
let outputSeq = 0;

/**
 * Runs a command; throws with its output when it fails. Its output goes to files, not pipes, and is read
 * once the command has exited: `up` leaves a shell behind (the one that starts MariaDB in the
 * background) that keeps its parent's stdout and stderr open for as long as MariaDB runs, so reading a
 * pipe to its end would wait for ever.
 */
export async function sh(
  cmd: string[],
  o: { stdin?: string; env?: Record<string, string>; timeoutMs?: number; allowFail?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  if (!outputDir) {
    const dir = mkdtempSync("/tmp/pbx-sh-");
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    outputDir = dir;
  }
  const n = ++outputSeq;
  const outFile = join(outputDir, `${n}.out`);
  const errFile = join(outputDir, `${n}.err`);
  const proc = Bun.spawn(cmd, {
    stdin: o.stdin === undefined ? "ignore" : new TextEncoder().encode(o.stdin),
    stdout: Bun.file(outFile),
    stderr: Bun.file(errFile),
    env: { ...process.env, ...o.env },
  });
  const timeoutMs = o.timeoutMs ?? 120_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, timeoutMs);
  const code = await proc.exited;
  clearTimeout(timer);
  const read = (f: string) => (existsSync(f) ? readFileSync(f, "utf8") : "");
  const stdout = read(outFile);
  const stderr = read(errFile);
  rmSync(outFile, { force: true });
  rmSync(errFile, { force: true });
  if (timedOut)
    throw new Error(`${cmd.join(" ")} took over ${timeoutMs} ms:\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`);
  if (code !== 0 && !o.allowFail)
    throw new Error(`${cmd.join(" ")} exited with ${code}:\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`);
  return { code, stdout, stderr };
}

let started: Promise<TestbedEnv> | null = null;

/**
 * The testbed, up. `up` runs once per process: it is idempotent, so every test file may ask. Its reload
 * needs `crontab`, which a minimal Debian lacks and `up` does not install (FreePBX's Cron class checks its
 * own line stays in the crontab): scripts/ensure-system-deps.sh installs `cron`.
 */
export function testbed(): Promise<TestbedEnv> {
  started ??= (async () => {
    if (!existsSync(join(TESTBED_DIR, "up")))
      throw new Error(`the PBX testbed is not at ${TESTBED_DIR} (set PBX_TESTBED_DIR)`);
    if (!existsSync("/usr/bin/crontab"))
      throw new Error("FreePBX's reload needs crontab: install cron (scripts/ensure-system-deps.sh does)");
    // No reload by `up` when the testbed already runs: every test file starts with `reset`, which reloads.
    const up = await sh([join(TESTBED_DIR, "up")], { timeoutMs: 900_000, env: { TESTBED_RELOAD: "0" } });
    // Its log lines say what it installed, started and how long it took.
    if (up.stderr.trim()) console.error(up.stderr.trim());
    const vars: Record<string, string> = {};
    for (const m of up.stdout.matchAll(/^export (\w+)=(.*)$/gm)) vars[m[1] as string] = m[2] as string;
    const v = (k: string) => {
      const value = vars[`TESTBED_${k}`];
      if (value === undefined) throw new Error(`up printed no TESTBED_${k}:\n${up.stdout}\n${up.stderr}`);
      return value;
    };
    return {
      amiHost: v("AMI_HOST"),
      amiPort: Number(v("AMI_PORT")),
      amiUsername: v("AMI_USERNAME"),
      amiSecret: v("AMI_SECRET"),
      dbSocket: v("DB_SOCKET"),
      dbPort: Number(v("DB_PORT")),
      dbUser: v("DB_USER"),
      dbPassword: v("DB_PASSWORD"),
      freepbxConf: v("FREEPBX_CONF"),
      sipHost: v("SIP_HOST"),
      sipPort: Number(v("SIP_PORT")),
    };
  })();
  return started;
}

/** FreePBX, its AstDB families and voicemail boxes back to the state after the first `up` (and reloaded). */
export async function reset(): Promise<void> {
  await testbed();
  await sh([join(TESTBED_DIR, "reset")], { timeoutMs: 300_000 });
  // Registrations of softphones an earlier run killed outlive `reset` (PJSIP keeps contacts in AstDB's
  // registrar family until they expire) and would show an extension registered that no phone holds.
  await cli("database deltree registrar/contact");
}

/** `asterisk -rx COMMAND` on the testbed, as the asterisk user; its output. */
export async function cli(command: string): Promise<string> {
  return (await sh(["runuser", "-u", "asterisk", "--", "asterisk", "-rx", command], { timeoutMs: 30_000 })).stdout;
}

/** One SQL statement as MariaDB's root over the testbed's socket; rows as tab-separated lines. */
export async function sql(database: "asterisk" | "asteriskcdrdb", statement: string): Promise<string[][]> {
  const env = await testbed();
  const out = await sh(["mariadb", `--socket=${env.dbSocket}`, "-uroot", "-N", "-B", "-r", database], {
    stdin: statement,
    timeoutMs: 60_000,
  });
  return out.stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => l.split("\t"));
}

/** A PHP snippet run with FreePBX bootstrapped (as its own code runs), as the asterisk user; its stdout. */
export async function freepbxPhp(code: string): Promise<string> {
  const script = `<?php\n$bootstrap_settings['freepbx_auth'] = false;\ninclude '/etc/freepbx.conf';\n${code}\n`;
  return (
    await sh(["runuser", "-u", "asterisk", "--", "php", "-d", "error_reporting=E_ERROR", "/dev/stdin"], {
      stdin: script,
      timeoutMs: 120_000,
    })
  ).stdout;
}

/**
 * Holds FreePBX's reload lock as another fwconsole does: `ASTRUNDIR/reload.lock` naming the PID of a live
 * process (Reload.class.php setLock/checkLock), here a `sleep` of the asterisk user. `release()` ends that
 * process and removes the file; a reload then takes the lock.
 */
export async function holdReloadLock(): Promise<{ release(): Promise<void> }> {
  const holder = Bun.spawn(["runuser", "-u", "asterisk", "--", "sleep", "600"], { stdin: "ignore" });
  const sleeper = await until("the lock holder's process", async () => {
    const out = await sh(["pgrep", "-P", String(holder.pid), "-x", "sleep"], { allowFail: true });
    return out.stdout.trim() || undefined;
  });
  const lockFile = "/var/run/asterisk/reload.lock";
  const release = async () => {
    holder.kill("SIGKILL");
    await sh(["kill", "-9", sleeper], { allowFail: true });
    await sh(["rm", "-f", lockFile]);
  };
  try {
    await sh(["runuser", "-u", "asterisk", "--", "sh", "-c", `printf %s ${sleeper} > ${lockFile}`]);
  } catch (err) {
    await release();
    throw err;
  }
  return { release };
}

/** Polls `check` until it answers something other than undefined, or throws with `what` after `ms`. */
export async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 20_000) {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ""}`);
    await Bun.sleep(100);
  }
}

export async function freeTcpPort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => done(port));
    });
  });
}

export interface PbxSsh {
  host: string;
  port: number;
  username: "asterisk";
  privateKey: string;
  /** The private key's file, for an `ssh -i` of one's own. */
  keyFile: string;
  /** How many logins sshd accepted, and how many of them have ended, so far. */
  sessions(): { logins: number; ended: number };
  hostKeyFingerprint: string;
  stop(): Promise<void>;
}

/**
 * An OpenSSH server on loopback that lets in the `asterisk` user with a key made for this run: the console
 * deploys as the user FreePBX runs as (fwconsole refuses to run some work as root and leaves files root
 * owns). PAM is on because a system account's password is locked (`!`), which sshd without PAM refuses
 * even for key logins. SHLVL=1 keeps bash from reading start-up files, so PATH is exactly the one set here.
 */
export async function pbxSsh(): Promise<PbxSsh> {
  await testbed();
  const dir = mkdtempSync("/tmp/pbx-ssh-");
  // sshd reads the authorized keys as the user it logs in.
  chmodSync(dir, 0o711);
  await sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")]);
  await sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")]);
  const keys = join(dir, "authorized_keys");
  writeFileSync(keys, readFileSync(join(dir, "client_key.pub")));
  const uid = Number((await sh(["id", "-u", "asterisk"])).stdout.trim());
  chownSync(keys, uid, -1);
  chmodSync(keys, 0o600);
  const sshdBin = Bun.which("sshd", { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" });
  if (!sshdBin) throw new Error("sshd not found: install openssh-server (scripts/ensure-system-deps.sh does)");
  if (!existsSync("/run/sshd")) await sh(["mkdir", "-m", "0755", "-p", "/run/sshd"]);
  for (let attempt = 0; ; attempt++) {
    const port = await freeTcpPort();
    writeFileSync(
      join(dir, "sshd_config"),
      [
        "ListenAddress 127.0.0.1",
        `Port ${port}`,
        `HostKey ${join(dir, "host_key")}`,
        `AuthorizedKeysFile ${keys}`,
        "AllowUsers asterisk",
        "UsePAM yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "StrictModes no",
        `PidFile ${join(dir, "sshd.pid")}`,
        "SetEnv PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin SHLVL=1",
        "Subsystem sftp internal-sftp",
        "",
      ].join("\n"),
    );
    const log = join(dir, "sshd.log");
    const proc = Bun.spawn([sshdBin, "-D", "-e", "-f", join(dir, "sshd_config")], {
      stdout: "ignore",
      stderr: Bun.file(log),
    });
    const listening = await until(
      "sshd to listen",
      () => {
        if (proc.exitCode !== null) return false;
        return existsSync(log) && readFileSync(log, "utf8").includes("Server listening") ? true : undefined;
      },
      15_000,
    ).catch(() => false);
    if (!listening) {
      proc.kill("SIGKILL");
      if (attempt < 3) continue;
      throw new Error(`sshd did not start: ${existsSync(log) ? readFileSync(log, "utf8") : ""}`);
    }
    return {
      host: "127.0.0.1",
      port,
      username: "asterisk",
      privateKey: readFileSync(join(dir, "client_key"), "utf8"),
      keyFile: join(dir, "client_key"),
      sessions() {
        const text = existsSync(log) ? readFileSync(log, "utf8") : "";
        const count = (re: RegExp) => text.match(re)?.length ?? 0;
        return {
          logins: count(/^Accepted publickey for asterisk /gm),
          ended: count(/^Disconnected from user asterisk /gm),
        };
      },
      hostKeyFingerprint: sshFingerprint(readFileSync(join(dir, "host_key.pub"), "utf8")),
      async stop() {
        proc.kill("SIGTERM");
        await Promise.race([proc.exited, Bun.sleep(3000)]);
        if (proc.exitCode === null) proc.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}

/** `fwconsole bulkimport --replace` of a Bulk Handler CSV (`extensions` or `dids`), as FreePBX's own importer. */
export async function bulkimport(type: "extensions" | "dids", csv: string): Promise<void> {
  const dir = mkdtempSync("/tmp/pbx-bulk-");
  chmodSync(dir, 0o755);
  const file = join(dir, `${type}.csv`);
  writeFileSync(file, csv, { mode: 0o644 });
  try {
    const out = await sh(
      [
        "runuser",
        "-u",
        "asterisk",
        "--",
        "sh",
        "-c",
        `cd /tmp && fwconsole bulkimport --replace --type=${type} ${file}`,
      ],
      { timeoutMs: 120_000 },
    );
    if (/error|exception/i.test(out.stdout + out.stderr)) throw new Error(`bulkimport: ${out.stdout}${out.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The CSV FreePBX's Bulk Handler exports (its own `export()`, run with PHP as the GUI's Export button runs it). */
export async function bulkExport(type: "extensions" | "dids"): Promise<string> {
  return freepbxPhp(`FreePBX::Bulkhandler()->export(${JSON.stringify(type)}, []);`);
}
