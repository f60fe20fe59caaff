/**
 * How the updater restarts the console (docs/decisions/0065-self-update.md). `UPDATE_RESTART`:
 * - `systemd` (the default; what install.sh sets up): `systemctl restart pbx-console.service`, after
 *   `systemctl reset-failed` so a unit that a crashing binary drove into its start limit starts again;
 * - `signal`: for any other supervisor that starts the console again when it exits (a container's restart
 *   policy, runit, the tests' supervisor): SIGTERM to the console named by DATA_DIR/pbx-console.pid, then
 *   SIGKILL if it has not gone within 10 s.
 * Both are fixed argv or a signal; the pid file is the service user's, so as root the signal goes only to a
 * process of DATA_DIR's owner.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { runningConsole } from "../backup/pid-file";
import type { Config } from "../config";
import { UpdateError } from "./manifest";

export const SYSTEMD_UNIT = "pbx-console.service";
const SYSTEMCTL_TIMEOUT_MS = 90_000;
const STOP_WAIT_MS = 10_000;

export interface Restarter {
  mode: "systemd" | "signal";
  /** Throws when this way of restarting is not available here (checked before anything is swapped). */
  check(): void;
  restart(): Promise<void>;
}

async function run(argv: string[]): Promise<{ code: number | null; err: string }> {
  const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), SYSTEMCTL_TIMEOUT_MS);
  const [code, err] = await Promise.all([proc.exited, Bun.readableStreamToText(proc.stderr)]);
  clearTimeout(timer);
  return { code, err: err.trim() };
}

function systemd(): Restarter {
  return {
    mode: "systemd",
    check() {
      if (!existsSync("/run/systemd/system") || !Bun.which("systemctl")) {
        throw new UpdateError(
          "restart",
          "systemd is not running here, so the console cannot be restarted with systemctl: set UPDATE_RESTART=signal when another supervisor restarts it",
        );
      }
    },
    async restart() {
      await run(["systemctl", "reset-failed", SYSTEMD_UNIT]);
      const { code, err } = await run(["systemctl", "restart", SYSTEMD_UNIT]);
      if (code !== 0) throw new UpdateError("restart", `systemctl restart ${SYSTEMD_UNIT} failed: ${err || code}`);
    },
  };
}

/** The real uid of a process, from /proc (null where that cannot be read). */
function processUid(pid: number): number | null {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("Uid:"));
    const uid = Number(line?.split(/\s+/)[1]);
    return Number.isInteger(uid) ? uid : null;
  } catch {
    return null;
  }
}

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

function signal(dataDir: string): Restarter {
  return {
    mode: "signal",
    check() {},
    async restart() {
      const pid = runningConsole(dataDir);
      // None running: it crashed and its supervisor is starting it again, which starts the binary now in place.
      if (pid === null) return;
      if (process.getuid?.() === 0 && processUid(pid) !== statSync(dataDir).uid) {
        throw new UpdateError("restart", `The pid file names process ${pid}, which is not the console's user's`);
      }
      process.kill(pid, "SIGTERM");
      const end = Date.now() + STOP_WAIT_MS;
      while (!gone(pid) && Date.now() < end) await Bun.sleep(50);
      if (!gone(pid)) process.kill(pid, "SIGKILL");
    },
  };
}

export function restarter(config: Pick<Config, "dataDir" | "env">): Restarter {
  const mode = (config.env.UPDATE_RESTART ?? "systemd").trim() || "systemd";
  if (mode === "systemd") return systemd();
  if (mode === "signal") return signal(config.dataDir);
  throw new UpdateError("restart", `UPDATE_RESTART must be systemd or signal (it is "${mode}")`);
}
