/**
 * The attack suite's target: the compiled binary (`dist/pbx-console`, built by the test command) started
 * on loopback with its own DATA_DIR, its log lines captured, and a fetch that keeps one session cookie.
 * Attacks go only to this process on 127.0.0.1.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, freePort, waitForHealth } from "../browser/harness";

export const ADMIN = { username: "admin", password: "correct horse battery staple" };

export interface BinaryOptions {
  env?: Record<string, string>;
  /** Keep request logs on (default) so tests can read the failed sign-in lines. */
  logRequests?: boolean;
}

export async function startBinary(opts: BinaryOptions = {}) {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`npm run build\` first`);
  const dataDir = mkdtempSync(join(tmpdir(), "pbx-security-"));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const logFile = join(dataDir, "..", `${dataDir.split("/").pop()}.log`);
  const proc = Bun.spawn([BINARY], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: opts.logRequests === false ? "silent" : "info",
      // The PBX host's own files are absent unless the test gives them (see test/helpers/server.ts).
      ASTERISK_MANAGER_CONF: join(dataDir, "absent-manager.conf"),
      FREEPBX_CONF: join(dataDir, "absent-freepbx.conf"),
      ...opts.env,
    },
    stdout: Bun.file(logFile),
    stderr: Bun.file(`${logFile}.err`),
  });
  await waitForHealth(base, proc);
  let cookie = "";

  /** fetch against the binary; JSON by default, keeping the session cookie like a browser. */
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const h: Record<string, string> = { ...headers };
    if (method !== "GET" && !("content-type" in h)) h["content-type"] = "application/json";
    if (cookie && !("cookie" in h)) h.cookie = cookie;
    const res = await fetch(base + path, {
      method,
      headers: h,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const set = res.headers.get("set-cookie");
    if (set) cookie = (set.split(";")[0] as string).endsWith("=") ? "" : (set.split(";")[0] as string);
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, headers: res.headers, text, json };
  }

  return {
    base,
    port,
    dataDir,
    proc,
    call,
    get cookie() {
      return cookie;
    },
    set cookie(v: string) {
      cookie = v;
    },
    /** What the process has written to stderr so far. */
    errors: () => (existsSync(`${logFile}.err`) ? readFileSync(`${logFile}.err`, "utf8") : ""),
    /** What the process has written to stdout so far (request and security log lines). */
    log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : ""),
    /** Resident memory of the process in bytes (from /proc). */
    rss(): number {
      const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
      return Number(status.match(/VmRSS:\s+(\d+) kB/)?.[1] ?? 0) * 1024;
    },
    async setup(user = ADMIN) {
      return call("POST", "/api/auth/setup", { ...user, confirmPassword: user.password });
    },
    async stop() {
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(5000)]);
      if (proc.exitCode === null) proc.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(logFile, { force: true });
      rmSync(`${logFile}.err`, { force: true });
    },
  };
}

export type Binary = Awaited<ReturnType<typeof startBinary>>;
