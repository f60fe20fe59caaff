/**
 * Backup before apply and roll back (ADR 0026) against a REAL MariaDB over REAL SSH
 * (test/pbx-host) preloaded with GUI-made FreePBX objects: a deployment changes several of them and
 * creates new ones; rolling it back must leave every row of every FreePBX table the console writes
 * byte-identical to before, AstDB as it was, and FreePBX reloaded.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startRollbackJob } from "../../src/server/jobs/rollback-jobs";
import { deployTarget } from "../../src/server/pbx/deploy/apply";
import type { DeployHistoryEntry } from "../../src/shared/deploy-history";
import { startTestServer, type TestServer } from "../helpers/server";
import { emptyFreepbx, GUI, type Snapshot, seedGuiObjects, snapshot } from "../pbx-host/gui-objects";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(120_000);
let pbx: PbxHost;
beforeAll(async () => {
  pbx = await startPbxHost();
}, 60_000);
afterAll(async () => {
  await pbx?.stop();
});

let s: TestServer;
const sshEnv = () => pbx.consoleEnv();

/**
 * AstDB as FreePBX left it for the GUI's extension 1001 (a value with a trailing space must survive too); its
 * reload writes the hint and the voicemail context from the tables again, the same.
 */
const GUI_ASTDB = {
  "/DEVICE/1001/dial": "PJSIP/1001",
  "/DEVICE/1001/type": "fixed",
  "/DEVICE/1001/user": "1001",
  "/AMPUSER/1001/device": "1001",
  "/AMPUSER/1001/hint": "PJSIP/1001,CustomPresence:1001",
  "/AMPUSER/1001/voicemail": "sales",
  "/AMPUSER/1001/cidname": "Alice GUI ",
  "/AMPUSER/1001/ringtimer": "25",
  "/AMPUSER/1001/answermode": "intercom",
  "/AMPUSER/1001/followme/grplist": "1001-1002",
  "/CW/1001": "DISABLED",
  // Another extension's tree: never touched.
  "/AMPUSER/1099/cidname": "Someone else",
};

beforeEach(async () => {
  await emptyFreepbx(pbx);
  await seedGuiObjects(pbx);
  pbx.setReloadFailure(false);
  await pbx.setAsteriskDown(false);
  await pbx.setAstdb({ ...GUI_ASTDB });
  pbx.clearFwconsoleCalls();
  s = await startTestServer(sshEnv());
  await s.setup();
});
afterEach(async () => {
  await s?.stop();
});

const OWNER = { username: "admin", id: null };

/**
 * Deploys everything as a job, adopting the GUI-made objects (as a user resolving the review's conflicts
 * would): the apply takes its backup inside the job.
 */
async function deployJob(): Promise<number> {
  const id = s.app.jobs.start(OWNER, {
    kind: "deploy",
    target: "all",
    deadlineMs: 600_000,
    auditAction: "deploy.all",
    run: (progress) => deployTarget(s.app, "all", progress, { mode: "direct", adoptConflicts: true }),
    outcome: () => ({ ok: true, detail: "" }),
  });
  await s.app.jobs.idle();
  return id;
}

async function seedConsole(name = "Alice Console") {
  const post = async (path: string, body: unknown) => {
    const r = await s.call("POST", path, body);
    expect(r.status, r.text).toBe(201);
    return r.json;
  };
  await post("/api/extensions", { extension: "1001", name, voicemail: true, secret: "console-secret-1001" });
  await post("/api/extensions", { extension: "1002", name: "Bob", secret: "console-secret-1002" });
  await post("/api/trunks", {
    name: GUI.trunk.name,
    type: "sip",
    host: "sip.new-carrier.example",
    port: 5070,
    username: "acme",
    secret: "new-trunk-secret-9",
    registrationEnabled: true,
  });
  const fresh = await post("/api/trunks", {
    name: "NewCarrier",
    type: "sip",
    host: "sip.newcarrier.example",
    username: "newc",
    secret: "newcarrier-secret-1",
    registrationEnabled: true,
  });
  await post("/api/outbound-routes", { name: GUI.route.name, dialPatterns: ["NXXNXXXXXX", "011."], trunkId: fresh.id });
  await post("/api/outbound-routes", { name: "Second", dialPatterns: ["00."], trunkId: fresh.id });
  await post("/api/inbound-routes", {
    description: "Main line",
    didNumber: GUI.did,
    destination: "1002",
    destinationType: "extension",
  });
}

const sorted = (snap: Snapshot): Snapshot =>
  Object.fromEntries(
    Object.entries(snap).map(([t, rows]) => [
      t,
      [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ]),
  ) as Snapshot;

async function history(): Promise<DeployHistoryEntry[]> {
  const r = await s.call("GET", "/api/deploy/history");
  expect(r.status).toBe(200);
  return r.json;
}

async function rollback(backupId: number) {
  const r = await s.call("POST", `/api/deploy/history/${backupId}/rollback`, {});
  if (r.status !== 202) return r;
  await s.app.jobs.idle();
  return { ...r, job: s.app.jobs.get(r.json.jobId) };
}

describe("backup before apply, roll back", () => {
  test("a deployment that changes GUI objects and creates new ones is rolled back byte for byte, AstDB too, then reloaded", async () => {
    await seedConsole();
    const before = sorted(await snapshot(pbx));
    const jobId = await deployJob();
    const deployed = s.app.jobs.get(jobId);
    expect(deployed.state, JSON.stringify(deployed.results)).toBe("succeeded");
    const after = sorted(await snapshot(pbx));
    // The deployment really changed things (else the roll back proves nothing).
    expect(after.devices.some((r) => r.id === "1002")).toBe(true);
    expect(after.trunks.some((r) => r.name === "NewCarrier")).toBe(true);
    expect(after.outbound_routes.some((r) => r.name === "Second")).toBe(true);
    expect(after.outbound_route_sequence.length).toBeGreaterThan(before.outbound_route_sequence.length);
    expect(after.devices.find((r) => r.id === "1001")?.description).toBe("Alice Console");
    expect((await pbx.astdb())["/AMPUSER/1002/cidname"]).toBe("Bob");
    expect((await pbx.astdb())["/AMPUSER/1001/cidname"]).toBe("Alice Console");

    // The history lists the run with its backup, restorable.
    const [entry] = await history();
    expect(entry).toMatchObject({ jobId, kind: "deploy", title: "Deploy all", startedBy: "admin", state: "succeeded" });
    expect(entry?.succeeded).toBeGreaterThan(0);
    const backup = entry?.backup;
    expect(backup).toMatchObject({ restorable: true, restoredAt: null, astdb: true, blockedBy: null });
    expect(backup?.objects).toEqual(
      expect.arrayContaining([
        "extension 1001",
        "extension 1002",
        "trunk Carrier",
        "trunk NewCarrier",
        "outbound route Second",
      ]),
    );
    expect(backup?.rows).toBeGreaterThan(0);

    pbx.clearFwconsoleCalls();
    await pbx.query("UPDATE admin SET value = 'false' WHERE variable = 'need_reload'");
    const rolled = await rollback(backup?.id as number);
    expect(rolled.status).toBe(202);
    const job = (rolled as { job: ReturnType<typeof s.app.jobs.get> }).job;
    expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
    expect(job.kind).toBe("rollback");
    expect(job.results.map((r) => r.label)).toEqual(expect.arrayContaining(["extension 1002", "trunk NewCarrier"]));

    // Every row of every FreePBX table the console writes is as it was, byte for byte.
    expect(sorted(await snapshot(pbx))).toEqual(before);
    // AstDB: the new extension's trees are gone, 1001's entries are back exactly, others untouched.
    expect(await pbx.astdb()).toEqual(GUI_ASTDB);
    // Then FreePBX was reloaded, after the AstDB writes: as the reload began, Asterisk held them already.
    const reload = pbx.fwconsoleCalls().find((c) => c.argv[0] === "reload");
    expect(reload).toBeDefined();
    expect(pbx.asteriskAtReloads()[0]?.astdb).toEqual(GUI_ASTDB);

    // The history: the backup is restored (not restorable), the roll back is a run of its own.
    const [top, deployRun] = await history();
    expect(top).toMatchObject({ kind: "rollback", rollbackOf: backup?.id, state: "succeeded", startedBy: "admin" });
    expect(deployRun?.backup).toMatchObject({ restorable: false, restoredBy: "admin" });
    expect(deployRun?.backup?.restoredAt).not.toBeNull();

    // Rolling back twice is refused and changes nothing.
    const again = await s.call("POST", `/api/deploy/history/${backup?.id}/rollback`, {});
    expect(again.status).toBe(409);
    expect(again.json.error.message).toContain("Already rolled back by admin");
    expect(sorted(await snapshot(pbx))).toEqual(before);

    // The audit: the route's call and the job's end.
    const audit = (await s.call("GET", "/api/audit?action=deploy.")).json;
    const actions = audit.items.map((a: { action: string }) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["deploy.rollback", "deploy.rollback.finished"]));
  });

  test("with many extensions (AstDB read by whole families) the roll back is exact too", async () => {
    await seedConsole();
    for (let n = 3001; n <= 3012; n++) {
      expect((await s.call("POST", "/api/extensions", { extension: String(n), name: `Desk ${n}` })).status).toBe(201);
    }
    const before = sorted(await snapshot(pbx));
    await deployJob();
    expect((await pbx.astdb())["/AMPUSER/3012/cidname"]).toBe("Desk 3012");
    const [entry] = await history();
    expect(entry?.backup?.astdb).toBe(true);
    const rolled = await rollback(entry?.backup?.id as number);
    expect(rolled.status).toBe(202);
    expect(sorted(await snapshot(pbx))).toEqual(before);
    // 1001's entries (one with a trailing space) are back exactly; the other extension's tree untouched.
    expect(await pbx.astdb()).toEqual(GUI_ASTDB);
  });

  test("a newer deployment of the same objects blocks an older roll back until it is rolled back itself", async () => {
    await seedConsole();
    const before = sorted(await snapshot(pbx));
    await deployJob();
    s.db.$client.run("UPDATE extensions SET name = 'Alice Again' WHERE extension = '1001'");
    await deployJob();
    const [newer, older] = await history();
    expect(newer?.backup?.restorable).toBe(true);
    expect(older?.backup?.restorable).toBe(false);
    expect(older?.backup?.blockedBy).toContain(`job ${newer?.jobId}`);
    const refused = await s.call("POST", `/api/deploy/history/${older?.backup?.id}/rollback`, {});
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toContain(`deployment job ${newer?.jobId}`);

    expect((await rollback(newer?.backup?.id as number)).status).toBe(202);
    expect((await pbx.query("SELECT description FROM devices WHERE id = '1001'"))[0]?.description).toBe(
      "Alice Console",
    );
    const second = await rollback(older?.backup?.id as number);
    expect(second.status).toBe(202);
    expect(sorted(await snapshot(pbx))).toEqual(before);
    expect(await pbx.astdb()).toEqual(GUI_ASTDB);
  });

  test("an unreachable PBX: the roll back fails with a clear message and nothing changes", async () => {
    await seedConsole();
    await deployJob();
    const after = sorted(await snapshot(pbx));
    const astdb = await pbx.astdb();
    const [entry] = await history();
    const real = s.app.credentials;
    // The PBX host's SSH port closed: a port nothing listens on.
    const broken = {
      isConfigured: (t: string) => real.isConfigured(t as "ssh"),
      values: (t: string) => ({ ...real.values(t as "ssh"), port: "1" }),
    } as unknown as typeof real;
    pbx.clearFwconsoleCalls();
    const { jobId } = startRollbackJob(
      { ...s.app, credentials: broken },
      s.app.jobs,
      OWNER,
      entry?.backup?.id as number,
    );
    await s.app.jobs.idle();
    const job = s.app.jobs.get(jobId);
    expect(job.state).toBe("failed");
    expect(job.results.length).toBeGreaterThan(0);
    for (const r of job.results) {
      expect(r.status).toBe("failed");
      expect(r.message).toStartWith("Not restored: ");
    }
    expect(sorted(await snapshot(pbx))).toEqual(after);
    expect(await pbx.astdb()).toEqual(astdb);
    expect(pbx.fwconsoleCalls()).toEqual([]);
    // Still restorable: nothing was restored.
    const [, deployRun] = await history();
    expect(deployRun?.backup).toMatchObject({ restorable: true, restoredAt: null });
    expect((await history())[0]?.error).toStartWith("Not restored: ");
  });

  test("a deployment that cannot read the PBX writes nothing and stores no backup; a missing backup is 404", async () => {
    await seedConsole();
    const before = sorted(await snapshot(pbx));
    const real = s.app.credentials;
    const broken = {
      isConfigured: (t: string) => real.isConfigured(t as "ssh"),
      values: (t: string) => ({ ...real.values(t as "ssh"), port: "1" }),
    } as unknown as typeof real;
    const out = await deployTarget({ ...s.app, credentials: broken }, "all", undefined, {
      mode: "direct",
      adoptConflicts: true,
    });
    expect(out.extensions.failed).toBeGreaterThan(0);
    expect(sorted(await snapshot(pbx))).toEqual(before);
    expect(s.db.$client.query("SELECT COUNT(*) AS n FROM config_backups").get()).toEqual({ n: 0 });
    expect((await s.call("POST", "/api/deploy/history/999/rollback", {})).status).toBe(404);
  });
});
