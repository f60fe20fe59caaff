/**
 * The console under benchmark: the compiled binary (`dist/pbx-console`, `npm run build`) on loopback with
 * its own DATA_DIR, signed in as an administrator, plus a Bun hello-world as the reference server.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { BINARY, freePort } from "../../test/browser/harness";
import { ADMIN } from "../../test/security/binary";

export { ADMIN, freePort };

/** Resident memory of a process (VmRSS), in bytes. */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) * 1024;
}

/** Milliseconds from now until `url` answers 200 (polled every 2 ms), or throws after `ms`. */
export async function untilAnswers(url: string, proc: Subprocess, ms = 15_000): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < ms) {
    if (proc.exitCode !== null) throw new Error(`${url}: the process exited with ${proc.exitCode}`);
    try {
      if ((await fetch(url)).ok) return performance.now() - start;
    } catch {
      // not listening yet
    }
    await Bun.sleep(2);
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

export interface Console {
  base: string;
  proc: Subprocess;
  dataDir: string;
  cookie: string;
  /** Milliseconds from spawn to the first `/healthz` answer. */
  startMs: number;
  api(method: string, path: string, body?: unknown): Promise<Response>;
  stop(keepData?: boolean): Promise<void>;
}

/** `binary`: another build of the console than `dist/pbx-console` (e.g. a copy kept to compare two builds). */
export async function startConsole(
  opts: { dataDir?: string; env?: Record<string, string>; binary?: string } = {},
): Promise<Console> {
  const binary = opts.binary ?? BINARY;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`npm run build\` first`);
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "pbx-bench-"));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([binary], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      ASTERISK_MANAGER_CONF: join(dataDir, "absent-manager.conf"),
      FREEPBX_CONF: join(dataDir, "absent-freepbx.conf"),
      ...opts.env,
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const startMs = await untilAnswers(`${base}/healthz`, proc);
  const c: Console = {
    base,
    proc,
    dataDir,
    cookie: "",
    startMs,
    api: (method, path, body) =>
      fetch(base + path, {
        method,
        headers: { cookie: c.cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    async stop(keepData = false) {
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(5000)]);
      if (proc.exitCode === null) proc.kill("SIGKILL");
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const me = (await (await fetch(`${base}/api/auth/me`)).json()) as { setupRequired?: boolean };
  if (me.setupRequired) {
    const res = await c.api("POST", "/api/auth/setup", { ...ADMIN, confirmPassword: ADMIN.password });
    if (res.status !== 201) throw new Error(`setup failed: ${res.status}`);
  }
  const login = await c.api("POST", "/api/auth/login", ADMIN);
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  c.cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return c;
}

/** Extensions `from`…`to - 1` (numbers 10000 + i) created through the API, 16 at a time. */
export async function addExtensions(c: Console, from: number, to: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      const res = await c.api("POST", "/api/extensions", { extension: String(10000 + i), name: `User ${i}` });
      if (res.status !== 201) throw new Error(`extension ${10000 + i}: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/**
 * `count` extensions (numbers `first`…, names "User i") in one request, through the Bulk Handler CSV import
 * (ADR 0038), as the browser tests' `importExtensions`: thousands of `POST /api/extensions` take tens of seconds.
 */
export async function importExtensions(c: Console, count: number, first = 10000): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => `${first + i},User ${i}`);
  const res = await fetch(`${c.base}/api/extensions/import`, {
    method: "POST",
    headers: { cookie: c.cookie, "content-type": "text/csv" },
    body: `extension,name\n${rows.join("\n")}\n`,
  });
  if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
  const { counts } = (await res.json()) as { counts: { new: number } };
  if (counts.new !== count) throw new Error(`import: created ${counts.new} of ${count}`);
}

/** A Bun hello-world on loopback: the reference every throughput is compared with. */
export async function startHelloWorld(): Promise<{ base: string; startMs: number; pid: number; stop(): void }> {
  const port = freePort();
  const proc = Bun.spawn(
    [process.execPath, "-e", `Bun.serve({ port: ${port}, hostname: "127.0.0.1", fetch: () => new Response("ok") })`],
    { stdout: "ignore", stderr: "inherit" },
  );
  const base = `http://127.0.0.1:${port}`;
  const startMs = await untilAnswers(`${base}/`, proc);
  return { base, startMs, pid: proc.pid, stop: () => proc.kill("SIGKILL") };
}

/**
 * The start of a compiled hello-world (`Bun.serve` alone, built like the binary: bytecode, ESM), median of
 * `runs` starts: the reference for the binary's own cold start (the `bun -e` hello-world also transpiles).
 */
export async function compiledHelloWorldStartMs(runs = 5): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "pbx-bench-hello-"));
  try {
    const entry = join(dir, "hello.ts");
    await Bun.write(
      entry,
      'Bun.serve({ port: Number(process.env.PORT), hostname: "127.0.0.1", fetch: () => new Response("ok") });\n',
    );
    const outfile = join(dir, "hello");
    const built = await Bun.build({
      entrypoints: [entry],
      target: "bun",
      bytecode: true,
      format: "esm",
      compile: { outfile },
    });
    if (!built.success) throw new Error("the compiled hello-world did not build");
    const starts: number[] = [];
    for (let i = 0; i < runs; i++) {
      const port = freePort();
      const proc = Bun.spawn([outfile], { env: { PORT: String(port) }, stdout: "ignore", stderr: "inherit" });
      starts.push(await untilAnswers(`http://127.0.0.1:${port}/`, proc));
      proc.kill("SIGKILL");
      await proc.exited;
    }
    return starts.sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
