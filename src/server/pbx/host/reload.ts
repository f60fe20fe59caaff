/**
 * `fwconsole reload`'s output, read for the reason a reload failed. FreePBX's
 * console is Symfony: a failure ends with an error block on stderr (`In Reload.class.php line 86:`
 * or `[Exception]`, then the message between padding lines, then the command's usage line);
 * `--json` prints `{"error": …}`; Core's own messages say "Reload failed because …". The last
 * output line alone is the usage line, which says nothing.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are what is stripped
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
/** Symfony's error-block header: `In File.php line 86:` (Symfony ≥ 4) or `[RuntimeException]` (older). */
const BLOCK_HEADER = /^(?:In \S+ line \d+:|\[[\w\\]*(?:Exception|Error)\])$/;
/** The usage line Symfony prints after the error block: `r [--json] [--dry-run] …`. */
const USAGE = /^[\w:-]+(?: \[--?[\w-]+(?:[= ][^\]]*)?\])+/;
const ERRORISH = /\b(?:error|errors|exception|failed|fatal|unable|cannot|could not)\b/i;

/** The reason in a failed reload's output, in one line (at most 500 characters). */
export function reloadFailureReason(output: string, exitCode: number | null = null): string {
  const lines = output.replace(ANSI, "").split(/\r?\n/);
  const clip = (s: string) => (s.length > 500 ? `${s.slice(0, 497)}...` : s);

  for (const line of lines) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      const parsed = JSON.parse(t) as { error?: unknown };
      if (typeof parsed.error === "string" && parsed.error.trim()) return clip(parsed.error.trim());
    } catch {
      // not a JSON line
    }
  }

  const paragraph = (from: number) => {
    const out: string[] = [];
    for (let i = from; i < lines.length; i++) {
      const t = (lines[i] as string).trim();
      if (!t) {
        if (out.length) break;
        continue;
      }
      if (USAGE.test(t)) break;
      out.push(t);
    }
    return out.join(" ");
  };

  const because = lines.findIndex((l) => /reload failed because/i.test(l));
  if (because >= 0) return clip(paragraph(because));

  const header = lines.findIndex((l) => BLOCK_HEADER.test(l.trim()));
  if (header >= 0) {
    const text = framedBlock(lines, header + 1) ?? paragraph(header + 1);
    if (text) return clip(text);
  }

  const meaningful = lines.map((l) => l.trim()).filter((t) => t && !USAGE.test(t) && !/^reload started$/i.test(t));
  const errorish = meaningful.find((t) => ERRORISH.test(t));
  if (errorish) return clip(errorish);
  const last = meaningful.at(-1);
  if (last) return clip(last);
  return exitCode === null
    ? "fwconsole reload failed without output"
    : `fwconsole reload exited with ${exitCode}, without output`;
}

/**
 * The message of a framed Symfony error block (Symfony ≥ 4): a line of spaces, then `  <chunk>  ` lines all padded
 * to that line's length, then the line of spaces again. Symfony cuts each line of the message into chunks of the
 * block's width wherever the width falls, inside a word too (a long path is cut in two), so a chunk that fills the
 * width (no padding after it) runs on into the next one without a space. Undefined when the block is not framed.
 */
function framedBlock(lines: string[], from: number): string | undefined {
  const frame = lines[from];
  if (frame === undefined || frame.length < 5 || frame.trim()) return undefined;
  const chunks: string[] = [];
  for (let i = from + 1; i < lines.length; i++) {
    const l = lines[i] as string;
    if (!l.trim()) break;
    if (l.length !== frame.length || !l.startsWith("  ") || !l.endsWith("  ")) return undefined;
    chunks.push(l.slice(2, -2));
  }
  if (!chunks.length) return undefined;
  let text = "";
  for (const c of chunks) text += c.endsWith(" ") ? `${c.trimEnd()} ` : c;
  return text.replace(/\s+/g, " ").trim();
}

// ---------- FreePBX's reload lock ----------

/**
 * What a reload prints when another one holds FreePBX's lock (`ASTRUNDIR/reload.lock`, Reload.class.php
 * `setLock`: `{"error":"Process is already running.","trace":"Process ID : <pid>"}` on stdout, exit 255,
 * before anything is done), and what fwconsole's other lockable commands print ("The command is already
 * running in another process."). A reload leaves a signature check running for a few seconds; cron jobs
 * and another administrator's Apply Config hold it too.
 */
const LOCKED = /\b(?:Process is already running|already running in another process)\b/i;

/** Whether a failed reload's output says another fwconsole holds the lock (nothing was done, so a retry is safe). */
export const reloadLocked = (output: string): boolean => LOCKED.test(output.replace(ANSI, ""));

/**
 * What a reload prints when FreePBX's keyring changed under its own check: before it writes anything
 * (Reload.class.php trusts FreePBX's keys first), GPG.class.php's `checkPermissions` lists `~/.gnupg` and
 * stats each file, and a gpg another fwconsole runs meanwhile (the signature check a reload leaves behind)
 * replaces `pubring.kbx` through `pubring.kbx.tmp`, which is gone by the time stat reaches it. PHP's warning
 * ends the reload (`stat(): stat failed for /home/asterisk/.gnupg/pubring.kbx.tmp`, exit 2); a new try passes.
 */
const KEYRING_RACE = /\bstat failed for \S*\/\.gnupg\//i;

/** Whether a failed reload's output says FreePBX's keyring changed while it checked it (nothing was done). */
export const reloadRaced = (output: string): boolean => KEYRING_RACE.test(output.replace(ANSI, ""));

/**
 * How long a reload keeps trying while its keyring check meets another gpg at work: that gpg ends within
 * seconds, so a check failing for longer meets something else (a file that stays unreadable), whose reason
 * the deployment then shows.
 */
export const RELOAD_RACE_WAIT_MS = 30_000;

/** What a job says while its reload waits for another gpg to finish with FreePBX's keyring. */
export const RELOAD_RACED_ITEM = "Waiting for FreePBX: its keyring changed while the reload checked it; trying again";

/** The reason a reload gives up on the lock, with how long it waited. */
export const busyReason = (heldMs: number): string =>
  `FreePBX is busy: another fwconsole has held its lock for ${Math.max(1, Math.round(heldMs / 1000))} s`;

/** What a job says while its reload waits for FreePBX's lock. */
export const RELOAD_WAITING_ITEM = "Waiting for FreePBX: another fwconsole holds its reload lock";

/** How long a reload waits for FreePBX's lock in all, and how long it pauses between tries. */
export interface LockWait {
  waitMs: number;
  retryMs: number;
}

/**
 * The default: tries about once a second for up to 2 minutes (another reload usually takes well under a
 * minute). With `fwconsole reload`'s own 5 minutes (host.ts) this stays inside `PBX_HOST_DEADLINE_MS`
 * (10 minutes), so a deployment that meets a held lock ends with the lock's reason, not the deadline's.
 */
export const RELOAD_LOCK_WAIT: LockWait = { waitMs: 2 * 60_000, retryMs: 1000 };

/** What `whileLocked` needs besides the attempt: the budget and, for tests, the clock and the pause. */
export interface LockWaitOptions extends LockWait {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Told once, when the lock is first seen held, before the first pause (a job says why it waits). */
  onLocked?: () => void;
}

/**
 * Runs `attempt` again while its answer says FreePBX's lock is held (`locked`), pausing `retryMs` between
 * tries and never past `waitMs` after the first try; the last pause is cut to what is left, and one more
 * try follows it. Answers the last attempt, how many there were, and, when the lock was still held at the
 * end, since when it was seen held (ms); `waitedMs` is how long the tries took in all.
 */
export async function whileLocked<T>(
  attempt: () => Promise<T>,
  locked: (answer: T) => boolean,
  opts: LockWaitOptions,
): Promise<{ answer: T; attempts: number; heldMs: number | null; waitedMs: number }> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const start = now();
  let firstLocked: number | null = null;
  for (let attempts = 1; ; attempts++) {
    const began = now();
    const answer = await attempt();
    if (!locked(answer)) return { answer, attempts, heldMs: null, waitedMs: now() - start };
    if (firstLocked === null) {
      firstLocked = began;
      opts.onLocked?.();
    }
    const left = start + opts.waitMs - now();
    if (left <= 0) return { answer, attempts, heldMs: now() - firstLocked, waitedMs: now() - start };
    await sleep(Math.min(opts.retryMs, left));
  }
}

/** What a failed reload is tried again for: FreePBX's lock held, or its keyring changing under its check. */
const WAITS = {
  locked: { item: RELOAD_WAITING_ITEM, note: "another fwconsole held FreePBX's lock" },
  raced: { item: RELOAD_RACED_ITEM, note: "FreePBX's keyring changed while the reload checked it" },
} as const;

/**
 * Which failed reloads are tried again (`again`, the predicate for `whileLocked`): one refused for FreePBX's
 * lock, for as long as `whileLocked` waits; one whose keyring check met another gpg, for `RELOAD_RACE_WAIT_MS`
 * after that was first met. `onWait` is told a job's item the first time each is met; `note` says which were met.
 */
export function reloadRetries(onWait?: (item: string) => void, now: () => number = Date.now) {
  const met = new Set<keyof typeof WAITS>();
  let firstRace: number | null = null;
  const again = (r: { code: number | null; output: string }): boolean => {
    if (r.code === 0) return false;
    let why: keyof typeof WAITS;
    if (reloadLocked(r.output)) why = "locked";
    else if (reloadRaced(r.output)) {
      firstRace ??= now();
      if (now() - firstRace >= RELOAD_RACE_WAIT_MS) return false;
      why = "raced";
    } else return false;
    if (!met.has(why)) {
      met.add(why);
      onWait?.(WAITS[why].item);
    }
    return true;
  };
  /** What the reload's output is prefixed with when it was tried more than once. */
  const note = (attempts: number, waitedMs: number): string =>
    attempts > 1
      ? `(pbx-console: ${[...met].map((w) => WAITS[w].note).join("; ")}; ${attempts} tries over ${Math.round(waitedMs / 1000)} s)\n`
      : "";
  return { again, note };
}
