/**
 * DATA_DIR/pbx-console.pid: written by the serving console while it runs, so `pbx-console restore`
 * can refuse to replace the database under a running console (docs/decisions/0019). The file holds
 * the pid and, on Linux, the process's start time (field 22 of /proc/PID/stat), so a stale file whose
 * pid was reused by another process is not taken for a running console.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PID_FILE = "pbx-console.pid";

/** The start time of a process in clock ticks since boot, or null where /proc is not available. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user (e.g. the service user, while an admin runs the CLI).
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Records this process as the console serving `dataDir` (0600). */
export function writePidFile(dataDir: string): void {
  const file = join(dataDir, PID_FILE);
  writeFileSync(file, `${process.pid} ${startTime(process.pid) ?? "-"}\n`, { mode: 0o600 });
}

/** Removes the pid file on shutdown, if it is still this process's. */
export function removePidFile(dataDir: string): void {
  if (runningConsole(dataDir) === process.pid) rmSync(join(dataDir, PID_FILE), { force: true });
}

/** The pid of the console serving `dataDir`, or null when none runs (no file, or a stale one). */
export function runningConsole(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(join(dataDir, PID_FILE), "utf8");
  } catch {
    return null;
  }
  const [pidText, started] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return null;
  const now = startTime(pid);
  // The pid is alive but was started at another time: it was reused, the console that wrote it is gone.
  if (started && started !== "-" && now !== null && now !== started) return null;
  return pid;
}
