/**
 * Long work is a job (docs/decisions/0024): deploy and import answer 202 with a job
 * id, run one at a time outside the request, report progress as "job-updated" events and in the jobs
 * table, stop after the current item on cancel or at the deadline, record their end in the audit
 * trail, and a job left running by a stopped console is interrupted at the next start. Deployments go
 * through the fake FreePBX GraphQL API here (one item per extension, each a few requests, so the fake's
 * delay makes them slow); the SSH path is covered by test/server/pbx.test.ts.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { createApp } from "../../src/server/app";
import { loadConfig } from "../../src/server/config";
import { DEPLOY_JOB_DEADLINE_MS } from "../../src/server/jobs/pbx-jobs";
import { INTERRUPTED } from "../../src/server/jobs/runner";
import { type Job, type JobEvent, jobEventSchema } from "../../src/shared/jobs";
import type { WsEvent } from "../../src/shared/ws-events";
import {
  FREEPBX_TEST_CLIENT,
  type FreePbxExtension,
  type MemoryFreePbxBackend,
  startFakeFreePbx,
} from "../fakes/freepbx";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server";

setDefaultTimeout(30_000);

let fake: Awaited<ReturnType<typeof startFakeFreePbx<MemoryFreePbxBackend>>>;
let s: TestServer;
let events: JobEvent[] = [];

beforeAll(async () => {
  fake = await startFakeFreePbx<MemoryFreePbxBackend>();
  s = await startTestServer({
    FREEPBX_API_URL: fake.url,
    FREEPBX_CLIENT_ID: FREEPBX_TEST_CLIENT.clientId,
    FREEPBX_CLIENT_SECRET: FREEPBX_TEST_CLIENT.clientSecret,
  });
  await s.setup();
  const hub = s.app.events;
  const send = hub.publish.bind(hub);
  hub.publish = (event: WsEvent) => {
    if (event.type === "job-updated") events.push(jobEventSchema.parse(event.data));
    send(event);
  };
});
afterAll(async () => {
  await s?.stop();
  await fake?.stop();
});
beforeEach(async () => {
  s.clear("extensions");
  fake.state.delayMs = 0;
  fake.state.backend.extensions.clear();
  fake.calls.length = 0;
  events = [];
});
afterEach(async () => {
  await s.app.jobs.idle();
});

/** Polls GET /api/jobs/:id until the job is no longer running. */
async function finished(id: number, ms = 20_000): Promise<Job> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const res = await s.call("GET", `/api/jobs/${id}`);
    expect(res.status).toBe(200);
    if (res.json.state !== "running") return res.json as Job;
    await Bun.sleep(50);
  }
  throw new Error(`job ${id} still running after ${ms} ms`);
}

/** Resolves once an event matches. */
function eventWhere(match: (e: JobEvent) => boolean, ms = 15_000): Promise<JobEvent> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const look = () => {
      const hit = events.find(match);
      if (hit) resolve(hit);
      else if (Date.now() > until) reject(new Error("no such job event"));
      else setTimeout(look, 10);
    };
    look();
  });
}

async function extensions(...numbers: string[]) {
  for (const n of numbers) {
    const res = await s.call("POST", "/api/extensions", { extension: n, name: `User ${n}` });
    expect(res.status).toBe(201);
  }
}

const auditRows = (prefix: string) =>
  s.db.$client
    .query(
      "SELECT actor, action, outcome, object_id AS objectId, detail FROM audit_log WHERE action LIKE ? ORDER BY id",
    )
    .all(`${prefix}%`) as { actor: string; action: string; outcome: string; objectId: string | null; detail: string }[];

describe("deploy as a job", () => {
  test("answers 202 with a job id at once; progress events come in order; the summary is the deploy answer", async () => {
    await extensions("1001", "1002");
    const res = await s.call("POST", "/api/deploy/extensions");
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ jobId: expect.any(Number) });
    const id = res.json.jobId as number;

    const job = await finished(id);
    expect(job).toMatchObject({
      id,
      kind: "deploy",
      target: "extensions",
      title: "Deploy extensions",
      startedBy: ADMIN.username,
      state: "succeeded",
      total: 2,
      done: 2,
      succeeded: 2,
      failed: 0,
      current: null,
      error: null,
    });
    expect(job.results.map((r) => [r.label, r.status])).toEqual([
      ["1001 - User 1001", "success"],
      ["1002 - User 1002", "success"],
    ]);
    // The summary is what POST /api/deploy/extensions answered before it was a job.
    expect(job.summary).toMatchObject({ deployed: 2, failed: 0, reload: { ok: true, via: "graphql" } });
    expect((job.summary as any).results.map((r: any) => r.extension)).toEqual(["1001", "1002"]);
    expect(fake.state.backend.extensions.has("1002")).toBe(true);

    // Events: started, the total, each item then its result, the reload step, finished.
    const mine = events.filter((e) => e.id === id);
    const steps = mine.map((e) =>
      e.result ? `result ${e.result.label} ${e.done}/${e.total}` : `${e.state} ${e.current}`,
    );
    expect(steps).toEqual([
      "running null",
      // The job plans first (ADR 0025), then knows its total.
      "running Reading the PBX through the FreePBX API (plan)",
      "running Reading the PBX through the FreePBX API (plan)",
      "running 1001 - User 1001",
      "result 1001 - User 1001 1/2",
      "running 1002 - User 1002",
      "result 1002 - User 1002 2/2",
      "running Reloading FreePBX (doreload)",
      "succeeded null",
    ]);
  });

  test("the audit records the start (not a success) and, as the starter, the end with the counts", async () => {
    await extensions("1001");
    const id = (await s.call("POST", "/api/deploy/extensions")).json.jobId as number;
    await finished(id);
    const rows = auditRows("deploy.extensions").slice(-2);
    expect(rows).toEqual([
      {
        actor: ADMIN.username,
        action: "deploy.extensions",
        outcome: "ok",
        objectId: null,
        detail: `job ${id} started`,
      },
      {
        actor: ADMIN.username,
        action: "deploy.extensions.finished",
        outcome: "ok",
        objectId: String(id),
        detail: "1 deployed, 0 failed, reloaded",
      },
    ]);
  });

  test("a second start while one runs is 409 naming the running one; the first is unaffected", async () => {
    await extensions("1001");
    fake.state.delayMs = 150;
    const first = await s.call("POST", "/api/deploy/extensions");
    expect(first.status).toBe(202);
    const second = await s.call("POST", "/api/deploy/all");
    expect(second.status).toBe(409);
    expect(second.json.error.message).toMatch(
      /^A deployment \(started by admin at \d\d:\d\d\) is running: wait for it or cancel it$/,
    );
    const importing = await s.call("POST", "/api/sync/extensions/import", { mode: "all" });
    expect(importing.status).toBe(409);
    expect((await finished(first.json.jobId)).state).toBe("succeeded");
    // One job was started; the refused calls left no row.
    expect((await s.call("GET", "/api/jobs?limit=50")).json.filter((j: Job) => j.state === "running")).toEqual([]);
    expect(auditRows("deploy.all").at(-1)).toMatchObject({ outcome: "failed", detail: second.json.error.message });
  });

  test("cancel stops after the current item: it finishes, the rest is not done, no reload", async () => {
    await extensions("1001", "1002", "1003");
    fake.state.delayMs = 200; // each extension is three requests
    const id = (await s.call("POST", "/api/deploy/extensions")).json.jobId as number;
    await eventWhere((e) => e.id === id && e.done === 1);
    const cancel = await s.call("POST", `/api/jobs/${id}/cancel`, {});
    expect(cancel.status).toBe(200);
    expect(cancel.json).toMatchObject({ id, state: "running", cancelledBy: ADMIN.username });

    const job = await finished(id);
    expect(job.state).toBe("cancelled");
    expect(job.error).toBe("cancelled by admin");
    // 1002 was the current item when the cancel came: it finished; 1003 was never started.
    expect(job.results.map((r) => [r.label, r.status])).toEqual([
      ["1001 - User 1001", "success"],
      ["1002 - User 1002", "success"],
      ["1003 - User 1003", "failed"],
    ]);
    expect(job.results[2]?.message).toBe("Not done: the job stopped before this item (cancelled by admin)");
    expect([...fake.state.backend.extensions.keys()].sort()).toEqual(["1001", "1002"]);
    expect(fake.calls.some((c) => String((c.body as any)?.query ?? "").includes("doreload"))).toBe(false);
    expect((job.summary as any).reload).toBeNull();
    expect((job.summary as any).results[0].message).toContain("not reloaded (cancelled by admin)");

    expect(auditRows("job.cancel").at(-1)).toMatchObject({ actor: "admin", outcome: "ok", objectId: String(id) });
    expect(auditRows("deploy.extensions.finished").at(-1)).toEqual({
      actor: "admin",
      action: "deploy.extensions.finished",
      outcome: "failed",
      objectId: String(id),
      detail: "cancelled by admin: 2 deployed, 1 failed, not reloaded",
    });
    // A finished job cannot be cancelled; an unknown one is 404.
    const again = await s.call("POST", `/api/jobs/${id}/cancel`, {});
    expect(again.status).toBe(409);
    expect(again.json.error.message).toBe(`Job ${id} is not running (cancelled)`);
    expect((await s.call("POST", "/api/jobs/999999/cancel", {})).status).toBe(404);
  });

  test("past its deadline a job stops after the current item and fails with 'deadline exceeded'", async () => {
    await extensions("1001", "1002");
    fake.state.delayMs = 150;
    const id = (await s.call("POST", "/api/deploy/extensions")).json.jobId as number;
    const started = await s.call("GET", `/api/jobs/${id}`);
    expect(Date.parse(started.json.deadlineAt) - Date.parse(started.json.startedAt)).toBe(DEPLOY_JOB_DEADLINE_MS);
    await eventWhere((e) => e.id === id && e.current === "1001 - User 1001");
    s.advance(DEPLOY_JOB_DEADLINE_MS); // the console's clock passes the deadline while 1001 is written
    try {
      const job = await finished(id);
      expect(job).toMatchObject({ state: "failed", error: "deadline exceeded", succeeded: 1, failed: 1 });
      expect(job.results[1]?.message).toBe("Not done: the job stopped before this item (deadline exceeded)");
      expect(auditRows("deploy.extensions.finished").at(-1)?.detail).toBe(
        "deadline exceeded: 1 deployed, 1 failed, not reloaded",
      );
    } finally {
      s.advance(-DEPLOY_JOB_DEADLINE_MS);
    }
  });

  test("nothing configured is refused at once (400) and starts no job; an unknown job is 404", async () => {
    const bare = await startTestServer();
    try {
      await bare.setup();
      const res = await bare.call("POST", "/api/deploy/all");
      expect(res.status).toBe(400);
      expect(res.json.error.message).toContain("configure the PBX host (SSH) or the FreePBX GraphQL API");
      const trunks = await bare.call("POST", "/api/sync/trunks/import", { mode: "all" });
      expect(trunks.status).toBe(400);
      expect((await bare.call("GET", "/api/jobs")).json).toEqual([]);
      expect((await bare.call("GET", "/api/jobs/1")).status).toBe(404);
    } finally {
      await bare.stop();
    }
  });
});

describe("import as a job", () => {
  test("importing extensions reports each one; the summary is the import answer; the recent list is newest first", async () => {
    for (const [n, name] of [
      ["2001", "Lobby"],
      ["2002", "Kitchen"],
    ] as const) {
      await fake.state.backend.addExtension(pbxExtension(n, name));
    }
    const res = await s.call("POST", "/api/sync/extensions/import", { mode: "all" });
    expect(res.status).toBe(202);
    const job = await finished(res.json.jobId);
    expect(job).toMatchObject({ kind: "import", target: "extensions", title: "Import extensions", state: "succeeded" });
    expect(job.results).toEqual([
      { label: "2001 - Lobby", status: "success", message: "Created" },
      { label: "2002 - Kitchen", status: "success", message: "Created" },
    ]);
    expect(job.summary).toEqual({ created: 2, updated: 0, failed: 0, errors: [] });
    expect(auditRows("sync.extensions.import.finished").at(-1)).toMatchObject({
      outcome: "ok",
      detail: "2 created, 0 updated, 0 failed",
    });
    const recent = await s.call("GET", "/api/jobs?limit=2");
    expect(recent.json.map((j: Job) => j.id)).toEqual([job.id, job.id - 1]);
    expect((await s.call("GET", "/api/jobs?limit=0")).status).toBe(400);
  });
});

/** An extension as FreePBX stores it (the fake's record: device, user and SIP secret). */
const pbxExtension = (n: string, name: string): FreePbxExtension => ({
  extensionId: n,
  tech: "pjsip",
  dial: `PJSIP/${n}`,
  devicetype: "fixed",
  description: name,
  emergencyCid: "",
  callerId: `${name} <${n}>`,
  secret: `secret-${n}-xyz`,
  maxContacts: "5",
  email: "",
  vmPassword: null,
  user: {
    name,
    password: "",
    voicemail: "novm",
    ringtimer: 0,
    noanswer: "",
    recording: "",
    outboundCid: "",
    sipname: "",
  },
});

describe("a console stopped mid-job", () => {
  test("stopping the console marks its running job interrupted at once; the work stops at its next item", async () => {
    const other = await startTestServer({
      FREEPBX_API_URL: fake.url,
      FREEPBX_CLIENT_ID: FREEPBX_TEST_CLIENT.clientId,
      FREEPBX_CLIENT_SECRET: FREEPBX_TEST_CLIENT.clientSecret,
    });
    try {
      await other.setup();
      for (const n of ["3001", "3002"]) await other.call("POST", "/api/extensions", { extension: n, name: "Stop" });
      fake.state.delayMs = 150;
      const id = (await other.call("POST", "/api/deploy/extensions")).json.jobId as number;
      // Past the plan (ADR 0025), at its first item.
      while (other.app.jobs.get(id).current !== "3001 - Stop") await Bun.sleep(5);
      other.app.jobs.close(); // what SIGTERM's shutdown does (app.stop)
      expect(other.app.jobs.get(id)).toMatchObject({ state: "interrupted", error: INTERRUPTED });
      await other.app.jobs.idle();
      // The item in progress finished; the next one was never started.
      expect(fake.state.backend.extensions.has("3001")).toBe(true);
      expect(fake.state.backend.extensions.has("3002")).toBe(false);
      expect(other.app.jobs.get(id).state).toBe("interrupted");
    } finally {
      await other.stop();
    }
  });

  test("the job left running is interrupted at the next start, with what it had done; the audit says so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pbx-jobs-"));
    const file = join(dir, "pbx-console.db");
    try {
      // What a killed console leaves behind: a running row with one result.
      const before = openDatabase(file);
      before.$client.run(
        "INSERT INTO jobs (id, kind, target, started_by, started_at, deadline_at, state, total, current) VALUES (7, 'deploy', 'all', 'alice', 1000, 601000, 'running', 3, 'Writing 2 item(s) in one transaction')",
      );
      before.$client.run(
        "INSERT INTO job_results (job_id, label, status, message) VALUES (7, 'Telnyx', 'failed', 'Trunk name may only contain letters')",
      );
      before.$client.close();

      const db = openDatabase(file);
      const config = loadConfig({ PORT: "0", DATA_DIR: dir, LOG_LEVEL: "silent" }, false);
      const app = createApp({ config, db, version: "test" });
      try {
        const job = app.app.jobs.get(7);
        expect(job).toMatchObject({
          state: "interrupted",
          current: null,
          total: 3,
          done: 1,
          error: INTERRUPTED,
          startedBy: "alice",
          results: [{ label: "Telnyx", status: "failed", message: "Trunk name may only contain letters" }],
        });
        expect(job.finishedAt).not.toBeNull();
        const audit = db.$client
          .query("SELECT actor, action, outcome, object_id AS objectId, detail FROM audit_log WHERE action = ?")
          .get("deploy.all.finished");
        expect(audit).toEqual({
          actor: "alice",
          action: "deploy.all.finished",
          outcome: "failed",
          objectId: "7",
          detail: `${INTERRUPTED} (0 succeeded, 1 failed, of 3 items)`,
        });
        // A new job can start: nothing is running.
        expect(app.app.jobs.runningId).toBeNull();
      } finally {
        await app.stop(true);
        db.$client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
