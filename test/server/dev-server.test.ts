// `npm run dev` serves the app through Bun's development server: the page carries Bun's HMR client,
// so edits to the React code reach an open browser without a rebuild. The compiled binary never does
// (test/smoke checks its hashed, production assets).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json";

const root = join(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "pbx-dev-"));
let proc: ReturnType<typeof Bun.spawn> | null = null;

afterAll(() => {
  // The script runs under `sh -c` in its own session: end the whole group.
  if (proc?.pid) {
    try {
      process.kill(-proc.pid, "SIGTERM");
    } catch {}
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function waitForListening(stream: ReadableStream<Uint8Array>, timeoutMs: number): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let out = "";
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const chunk = await Promise.race([
      reader.read(),
      Bun.sleep(Math.max(0, deadline - Date.now())).then(() => ({ done: true, value: undefined })),
    ]);
    if (chunk.value) out += decoder.decode(chunk.value);
    const m = out.match(/listening on (http:\/\/\S+)/);
    if (m) {
      reader.releaseLock();
      return m[1] as string;
    }
    if (chunk.done) break;
  }
  throw new Error(`the dev server did not start: ${out}`);
}

test("npm run dev serves the page with Bun's hot-reload client", async () => {
  proc = Bun.spawn(["setsid", "sh", "-c", pkg.scripts.dev], {
    cwd: root,
    env: {
      ...process.env,
      PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH}`,
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = await waitForListening(proc.stdout as ReadableStream<Uint8Array>, 60_000);
  const html = await (await fetch(url)).text();
  expect(html).toContain('<div id="root">');
  expect(html).toContain("data-bun-dev-server-script");
  // The API is the same server.
  expect((await fetch(new URL("/healthz", url))).status).toBe(200);
}, 90_000);
