/**
 * The compiled binary, copied alone into an empty folder: CLI, config errors,
 * create-admin, serving the styled app, the API and the socket, SIGTERM.
 * Needs `npm run build` first (the test command does it).
 */
import { Database } from "bun:sqlite";
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { copiedBinary } from "./copied-binary";

const PASSWORD = "a long enough password";

const box = copiedBinary("pbx-smoke-");

const env = box.env;

function run(args: string[], extra: Record<string, string> = {}, stdin?: string) {
  const r = Bun.spawnSync([box.bin, ...args], {
    cwd: box.dir,
    env: env(extra),
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe("CLI", () => {
  test("--version and --help", () => {
    const v = run(["--version"]);
    expect(v.code).toBe(0);
    expect(v.out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = run(["--help"]);
    expect(h.code).toBe(0);
    for (const word of ["create-admin", "PORT", "HOST", "DATA_DIR", "TLS_CERT", "TLS_KEY"])
      expect(h.out).toContain(word);
  });

  test("a bad environment value stops with a clear message and exit 2", () => {
    const r = run([], { PORT: "http" });
    expect(r.code).toBe(2);
    expect(r.err).toContain("PORT: must be a number");
    expect(r.err).not.toContain("    at ");
  });

  test("create-admin reads the password from stdin and refuses a short one", () => {
    const short = run(["create-admin", "--username", "admin"], {}, "short\n");
    expect(short.code).toBe(2);
    expect(short.err).toContain("at least 12 characters");
    const noName = run(["create-admin"], {}, `${PASSWORD}\n`);
    expect(noName.code).toBe(2);
    const ok = run(["create-admin", "--username", "admin"], {}, `${PASSWORD}\n`);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("Administrator admin created");
    expect(ok.out).toMatch(/[1-9]\d* migration\(s\) applied/);
    expect(statSync(box.dataDir).mode & 0o777).toBe(0o700);
  });

  test("create-admin on an existing user resets the password and turns two-factor sign-in off", () => {
    const db = new Database(join(box.dataDir, "pbx-console.db"));
    const { id } = db.query("SELECT id FROM users WHERE username = 'admin'").get() as { id: string };
    db.run("INSERT INTO user_totp (user_id, secret, recovery_codes) VALUES (?, 'v1:sealed', '[]')", [id]);
    db.close();
    const reset = run(["create-admin", "--username", "admin"], {}, `${PASSWORD}\n`);
    expect(reset.code).toBe(0);
    expect(reset.out).toContain("Password of admin reset");
    expect(reset.out).toContain("Two-factor sign-in was turned off.");
    const after = new Database(join(box.dataDir, "pbx-console.db"), { readonly: true });
    expect(after.query("SELECT count(*) AS n FROM user_totp").get()).toEqual({ n: 0 });
    after.close();
  });
});

describe("create-admin on a terminal", () => {
  /** Runs create-admin under `script` (a real pty), answering each prompt as it appears. */
  async function onTerminal(username: string, answers: string[]) {
    const proc = Bun.spawn(["script", "-qec", `${box.bin} create-admin --username ${username}`, "/dev/null"], {
      cwd: box.dir,
      env: env(),
      stdin: "pipe",
      stdout: "pipe",
    });
    let out = "";
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    const pending = [...answers];
    let prompts = 0;
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
      const seen = (out.match(/password: /gi) ?? []).length;
      while (prompts < seen && pending.length) {
        prompts++;
        proc.stdin.write(`${pending.shift()}\r`);
        proc.stdin.flush();
      }
    }
    return { code: await proc.exited, out };
  }

  test("asks twice without echo, and refuses a mismatch", async () => {
    const mismatch = await onTerminal("ttyuser", [PASSWORD, `${PASSWORD}x`]);
    expect(mismatch.out).toContain("Passwords do not match");
    expect(mismatch.code).not.toBe(0);
    const ok = await onTerminal("ttyuser", [PASSWORD, PASSWORD]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("Repeat password: ");
    expect(ok.out).toContain("Administrator ttyuser created");
    expect(ok.out).not.toContain(PASSWORD);
  });
});

describe("serving", () => {
  let proc: ReturnType<typeof Bun.spawn>;
  let base: string;
  let output = "";

  beforeAll(async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    base = `http://127.0.0.1:${port}`;
    proc = Bun.spawn([box.bin], {
      cwd: box.dir,
      env: env({ PORT: String(port), SERVER_LABEL: "pbx-smoke" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {}
      await Bun.sleep(100);
    }
  });

  test("the console is served with hashed, Tailwind-processed assets", async () => {
    const html = await (await fetch(`${base}/extensions`)).text();
    expect(html).toContain('<div id="root">');
    const css = html.match(/href="(\/[^"]+\.css)"/)?.[1];
    const js = html.match(/src="(\/[^"]+\.js)"/)?.[1];
    expect(css).toBeDefined();
    expect(js).toBeDefined();
    const cssText = await (await fetch(base + css)).text();
    expect(cssText).not.toContain('@import "tailwindcss"');
    // Utility classes the shell uses must have been generated.
    expect(cssText).toMatch(/\.bg-sidebar\{/);
    expect(cssText).toMatch(/\.text-muted-foreground\{/);
    const jsRes = await fetch(base + js);
    expect(jsRes.status).toBe(200);
    expect(jsRes.headers.get("content-type")).toContain("javascript");
  });

  test("the API and the socket work, the database lives in DATA_DIR only", async () => {
    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const info = await (await fetch(`${base}/api/info`, { headers: { cookie } })).json();
    expect(info.serverLabel).toBe("pbx-smoke");
    const opened = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(`${base.replace("http", "ws")}/ws?type=sync`, { headers: { cookie } } as never);
      ws.onopen = () => {
        ws.close();
        resolve(true);
      };
      ws.onerror = () => resolve(false);
    });
    expect(opened).toBe(true);
    expect(readdirSync(box.dir).sort()).toEqual(["pbx-console", "state"]);
    expect(readdirSync(box.dataDir)).toContain("pbx-console.db");
  });

  test("SIGTERM shuts down cleanly; the start after create-admin applied no migration", async () => {
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    output = await new Response(proc.stdout as ReadableStream).text();
    expect(output).toContain("0 migration(s) applied");
    expect(output).toContain("SIGTERM received, shutting down");
    expect(output).toMatch(/GET \/api\/info 200 [\d.]+ms/);
    expect(output).not.toContain(PASSWORD);
  });
});
