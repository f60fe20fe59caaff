/**
 * What systemd does for an installed console, for tests on a machine without it (docs/decisions/0065-self-update.md):
 * - like the unit's `Restart=`, it starts `bin` again whenever it exits (after `restartDelayMs`), always from
 *   the path, so a swapped binary is what starts next;
 * - like pbx-console-update.path, when DATA_DIR/update/request.json appears it runs `bin update --apply` (one at
 *   a time), the updater the console asked for.
 * The updater restarts the console with UPDATE_RESTART=signal: SIGTERM, and this starts it again.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

export interface Supervised {
  /** The console's pid now (null between a crash and its restart). */
  readonly pid: number | null;
  /** How many times the console was started. */
  readonly starts: number;
  /** Each `update --apply` the request started: exit code and output. */
  readonly updates: { code: number; out: string }[];
  /** Everything the console wrote, for a failing test's message. */
  readonly log: string[];
  stop(): Promise<void>;
}

export function supervise(
  bin: string,
  env: Record<string, string>,
  opts: { dataDir: string; cwd: string; restartDelayMs?: number },
): Supervised {
  const delay = opts.restartDelayMs ?? 300;
  const log: string[] = [];
  const updates: { code: number; out: string }[] = [];
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  let stopped = false;
  let starts = 0;
  let updating = false;

  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) log.push(decoder.decode(chunk));
  };
  const start = () => {
    if (stopped) return;
    starts++;
    const child = Bun.spawn([bin], { cwd: opts.cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    proc = child;
    void drain(child.stdout);
    void drain(child.stderr);
    void child.exited.then((code) => {
      log.push(`[supervisor] pid ${child.pid} exited with ${code}\n`);
      if (proc === child) proc = null;
      if (!stopped) setTimeout(start, delay);
    });
  };

  const request = join(opts.dataDir, "update", "request.json");
  const watcher = setInterval(() => {
    if (updating || stopped || !existsSync(request)) return;
    updating = true;
    const run = Bun.spawn([bin, "update", "--apply"], {
      cwd: opts.cwd,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    void Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()]).then(
      ([code, out, err]) => {
        updates.push({ code, out: out + err });
        updating = false;
      },
    );
  }, 100);

  start();
  return {
    get pid() {
      return proc?.pid ?? null;
    },
    get starts() {
      return starts;
    },
    updates,
    log,
    async stop() {
      stopped = true;
      clearInterval(watcher);
      const child = proc;
      if (child) {
        child.kill("SIGTERM");
        await child.exited;
      }
    },
  };
}
