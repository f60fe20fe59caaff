// Killing the console mid-job ("Bad input and faults"; ADR 0024): the built binary is SIGKILLed
// while a deployment waits on FreePBX's reload. After a restart over the same DATA_DIR the job shows as
// interrupted with what it had done, the PBX holds exactly the items the job reported written, and the
// audit trail says the deployment did not finish.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { Job } from "../../src/shared/jobs";
import { BINARY, freePort, waitForHealth } from "../browser/harness";
import { FREEPBX_TEST_CLIENT, type MemoryFreePbxBackend, startFakeFreePbx } from "../fakes/freepbx";

setDefaultTimeout(90_000);

const ADMIN = { username: "admin", password: "correct horse battery staple" };
let fake: Awaited<ReturnType<typeof startFakeFreePbx<MemoryFreePbxBackend>>>;
const dataDir = mkdtempSync(join(tmpdir(), "pbx-job-kill-"));
const port = freePort();
const base = `http://127.0.0.1:${port}`;
let proc: Subprocess | null = null;
let cookie = "";

async function start(): Promise<void> {
  proc = Bun.spawn([BINARY], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      FREEPBX_API_URL: fake.url,
      FREEPBX_CLIENT_ID: FREEPBX_TEST_CLIENT.clientId,
      FREEPBX_CLIENT_SECRET: FREEPBX_TEST_CLIENT.clientSecret,
    },
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitForHealth(base, proc);
}

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { cookie, ...(method === "GET" ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const set = res.headers.get("set-cookie");
  if (set) cookie = set.split(";")[0] as string;
  return { status: res.status, json: (await res.json().catch(() => null)) as any };
}

beforeAll(async () => {
  fake = await startFakeFreePbx<MemoryFreePbxBackend>();
  await start();
  expect((await call("POST", "/api/auth/setup", { ...ADMIN, confirmPassword: ADMIN.password })).status).toBe(201);
});

afterAll(async () => {
  proc?.kill("SIGKILL");
  await proc?.exited;
  await fake?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("SIGKILL during a deployment: after a restart the job is interrupted and the PBX holds what it reported", async () => {
  for (const [extension, name] of [
    ["1001", "Alice"],
    ["1002", "Bob"],
  ]) {
    expect((await call("POST", "/api/extensions", { extension, name })).status).toBe(201);
  }
  // FreePBX's reload stays "Processing" far longer than this test: the job is still running when killed.
  fake.state.backend.reloadBehaviour.afterMs = 120_000;
  const started = await call("POST", "/api/deploy/extensions", {});
  expect(started.status).toBe(202);
  const jobId = started.json.jobId as number;

  let running: Job | null = null;
  for (let i = 0; i < 200; i++) {
    const job = (await call("GET", `/api/jobs/${jobId}`)).json as Job;
    if (job.state !== "running") throw new Error(`the job ended before the kill: ${JSON.stringify(job)}`);
    if (/reload/i.test(job.current ?? "")) {
      running = job;
      break;
    }
    await Bun.sleep(50);
  }
  expect(running).not.toBeNull();
  proc?.kill("SIGKILL");
  await proc?.exited;

  await start();
  cookie = "";
  expect((await call("POST", "/api/auth/login", ADMIN)).status).toBe(200);
  const after = (await call("GET", `/api/jobs/${jobId}`)).json as Job;
  expect(after.state).toBe("interrupted");
  expect(after.finishedAt).not.toBeNull();
  // What the job reported written is on the PBX, and nothing else is.
  const reported = after.results
    .filter((r) => r.status === "success")
    .map((r) => r.label.match(/^\d+/)?.[0] ?? r.label);
  expect(reported.sort()).toEqual(["1001", "1002"]);
  expect([...fake.state.backend.extensions.keys()].sort()).toEqual(reported.sort());
  // A new job can start (the slot was freed), and the audit trail says the deployment did not finish.
  const audit = (await call("GET", "/api/audit?action=deploy.extensions.finished")).json;
  expect(audit.items[0]).toMatchObject({ actor: "admin", outcome: "failed" });
  fake.state.backend.reloadBehaviour.afterMs = 50;
  expect((await call("POST", "/api/deploy/extensions", {})).status).toBe(202);
});
