/**
 * A private, real fail2ban for a test file: `fail2ban-server -f` with its own configuration directory,
 * socket and pid file under a temp directory, jails on a temp log file (`backend = polling`) whose only
 * action is fail2ban's `dummy` writing to a temp file. It never touches the machine's firewall or its
 * fail2ban. The test starts it in `beforeAll` and stops it in `afterAll`.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PrivateFail2ban {
  dir: string;
  socket: string;
  jails: string[];
  /** The environment that points the console at it (FAIL2BAN_SOCKET, FAIL2BAN_JAILS). */
  env: Record<string, string>;
  /** The real fail2ban-client against this server (to read back what the console did). */
  client(...args: string[]): Promise<{ code: number; out: string }>;
  /** What the jail's dummy action wrote (`+<ip>` per ban, `-<ip>` per unban). */
  actionLog(jail: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startFail2ban(jails = ["asterisk", "pbx-console"]): Promise<PrivateFail2ban> {
  const dir = mkdtempSync(join(tmpdir(), "f2b-test-"));
  const conf = join(dir, "conf");
  mkdirSync(join(conf, "action.d"), { recursive: true });
  mkdirSync(join(conf, "filter.d"), { recursive: true });
  copyFileSync("/etc/fail2ban/action.d/dummy.conf", join(conf, "action.d", "dummy.conf"));
  const socket = join(dir, "f2b.sock");
  const pid = join(dir, "f2b.pid");
  writeFileSync(
    join(conf, "fail2ban.conf"),
    `[Definition]\nloglevel = INFO\nlogtarget = ${dir}/fail2ban.log\nsyslogsocket = auto\nsocket = ${socket}\npidfile = ${pid}\ndbfile = :memory:\n`,
  );
  writeFileSync(join(conf, "filter.d", "test.conf"), "[Definition]\nfailregex = ^auth-failure ip=<ADDR>$\n");
  writeFileSync(join(dir, "test.log"), "");
  writeFileSync(
    join(conf, "jail.conf"),
    `[DEFAULT]\nbackend = polling\nbantime = 1h\nignoreip = 127.0.0.1/8 ::1\n\n${jails
      .map(
        (j) =>
          `[${j}]\nenabled = true\nfilter = test\nlogpath = ${dir}/test.log\naction = dummy[target="${dir}/${j}.actions"]\n`,
      )
      .join("\n")}`,
  );
  const server = Bun.spawn(["fail2ban-server", "-f", "-x", "-c", conf, "-s", socket, "-p", pid], {
    stdout: "ignore",
    stderr: "ignore",
    stdin: "ignore",
  });
  const client = async (...args: string[]) => {
    const p = Bun.spawn(["fail2ban-client", "-s", socket, ...args], { stdout: "pipe", stderr: "ignore" });
    const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    return { code, out };
  };
  // Ready when it answers (fail2ban-client's ping), not after a fixed sleep.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null)
      throw new Error(`fail2ban-server exited (${server.exitCode}); see ${dir}/fail2ban.log`);
    const ping = await client("ping");
    if (ping.code === 0 && ping.out.includes("pong")) break;
    if (Date.now() > deadline) throw new Error("fail2ban-server did not answer in 30 s");
  }
  return {
    dir,
    socket,
    jails,
    env: { FAIL2BAN_SOCKET: socket, FAIL2BAN_JAILS: jails.join(",") },
    client,
    actionLog: async (jail) => {
      const file = Bun.file(join(dir, `${jail}.actions`));
      return (await file.exists()) ? file.text() : "";
    },
    async stop() {
      if (server.exitCode === null) {
        await client("stop");
        const stopped = await Promise.race([server.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
        if (!stopped) server.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
