/**
 * Ring groups on a real FreePBX 17 copy over real SSH (test/pbx-host): the plan field by field, the apply's
 * `ringgroups` row with FreePBX's defaults and the AstDB keys `Ringgroups::add()` writes, FreePBX's own reload
 * generating the group's `ext-group` dialplan, an edit, and the roll backs back to the exact former state. A
 * group written the way FreePBX's `Ringgroups::add()` writes it keeps every setting the console does not own
 * (and its caller-ID mode in AstDB) when the console adopts it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DeployHistoryEntry } from "../../src/shared/deploy-history";
import type { DeployPlan } from "../../src/shared/plan";
import { startTestServer, type TestServer } from "../helpers/server";
import { emptyFreepbx, type Snapshot, snapshot } from "../pbx-host/gui-objects";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(120_000);
let pbx: PbxHost;
let s: TestServer;
beforeAll(async () => {
  pbx = await startPbxHost();
}, 60_000);
afterAll(async () => {
  await pbx?.stop();
});
beforeEach(async () => {
  await emptyFreepbx(pbx);
  await pbx.setAstdb({});
  pbx.setReloadFailure(false);
  pbx.clearFwconsoleCalls();
  s = await startTestServer(pbx.consoleEnv());
  await s.setup();
});
afterEach(async () => {
  await s?.stop();
});

async function post(path: string, body: unknown) {
  const r = await s.call("POST", path, body);
  expect(r.status, r.text).toBe(201);
  return r.json;
}

async function plan(target: string): Promise<DeployPlan> {
  const r = await s.call("POST", "/api/deploy/plan", { target });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

/** Reviews and applies a target's plan (conflicts resolved as given), as the web does; the finished job. */
async function apply(target: string, resolutions: Record<string, "adopt" | "skip"> = {}) {
  const p = await plan(target);
  const r = await s.call("POST", "/api/deploy/apply", { target, fingerprint: p.fingerprint, resolutions });
  expect(r.status, r.text).toBe(202);
  await s.app.jobs.idle();
  const job = s.app.jobs.get(r.json.jobId);
  expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
  return job;
}

/** Rolls back the newest deployment not rolled back yet (the history lists roll backs too). */
async function rollbackNewest() {
  const runs = (await s.call("GET", "/api/deploy/history")).json as DeployHistoryEntry[];
  const entry = runs.find((r) => r.backup?.restorable);
  const r = await s.call("POST", `/api/deploy/history/${entry?.backup?.id}/rollback`, {});
  expect(r.status, r.text).toBe(202);
  await s.app.jobs.idle();
  const job = s.app.jobs.get(r.json.jobId);
  expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
  return job;
}

const ringRow = async (n: string) => (await pbx.query("SELECT * FROM ringgroups WHERE grpnum = ?", [n]))[0];
const ringAstdb = async () =>
  Object.fromEntries(Object.entries(await pbx.astdb()).filter(([k]) => k.startsWith("/RINGGROUP/")));
const dialplan = () => readFileSync(join(pbx.root, "etc/asterisk/extensions_additional.conf"), "utf8");
/** The `[ext-group]` context FreePBX's reload generated, as text. */
const extGroup = () => {
  const text = dialplan();
  const start = text.indexOf("[ext-group]");
  if (start < 0) return "";
  const end = text.indexOf("\n[", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
};
const sorted = (snap: Snapshot): Snapshot =>
  Object.fromEntries(
    Object.entries(snap).map(([t, rows]) => [
      t,
      [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ]),
  ) as Snapshot;

describe("a ring group deployed over SSH", () => {
  test("plan, apply (row, AstDB, FreePBX's ext-group dialplan), edit, then roll back to the exact former state", async () => {
    await post("/api/extensions", { extension: "1001", name: "Alice", voicemail: true });
    await post("/api/extensions", { extension: "1002", name: "Bob" });
    await post("/api/ring-groups", {
      number: "600",
      name: "Sales",
      strategy: "ringall",
      ringTime: 25,
      members: ["1001", "1002", "5551234#"],
      noAnswer: { kind: "voicemail", target: "1001" },
    });
    await post("/api/inbound-routes", {
      description: "Main line",
      didNumber: "5550100",
      destinationType: "ring-group",
      destination: "600",
    });
    const before = sorted(await snapshot(pbx));
    const astdbBefore = await pbx.astdb();

    // The plan: the group after the extensions it rings, before the inbound route that sends calls to it.
    const p = await plan("all");
    const kinds = p.items.map((i) => i.kind);
    expect(kinds.indexOf("ringGroup")).toBeGreaterThan(kinds.lastIndexOf("extension"));
    expect(kinds.indexOf("ringGroup")).toBeLessThan(kinds.indexOf("inboundRoute"));
    const group = p.items.find((i) => i.kind === "ringGroup");
    expect(group).toMatchObject({ id: "ringGroup:600", action: "create", label: "Sales" });
    expect(group?.changes).toEqual([
      { field: "ringgroups.strategy", from: null, to: "ringall" },
      { field: "ringgroups.grptime", from: null, to: "25" },
      { field: "ringgroups.grplist", from: null, to: "1001-1002-5551234#" },
      { field: "ringgroups.description", from: null, to: "Sales" },
      { field: "ringgroups.postdest", from: null, to: "ext-local,vmu1001,1" },
    ]);
    expect(p.items.find((i) => i.kind === "inboundRoute")?.changes).toContainEqual({
      field: "incoming.destination",
      from: null,
      to: "ext-group,600,1",
    });

    pbx.clearFwconsoleCalls();
    const job = await apply("all");
    expect(job.results.find((r) => r.label === "Sales")?.message).toBe(
      "Written to the FreePBX database and Asterisk's database (AstDB)",
    );
    // The row as FreePBX's form and Ringgroups::add() write a new group, with the console's values.
    expect(await ringRow("600")).toEqual({
      grpnum: "600",
      strategy: "ringall",
      grptime: 25,
      grppre: "",
      grplist: "1001-1002-5551234#",
      annmsg_id: 0,
      postdest: "ext-local,vmu1001,1",
      description: "Sales",
      alertinfo: "",
      remotealert_id: 0,
      needsconf: "",
      toolate_id: 0,
      ringing: "Ring",
      cwignore: "",
      cfignore: "",
      cpickup: "",
      recording: "dontcare",
      progress: "yes",
      elsewhere: "no",
      rvolume: "",
    });
    expect(await ringAstdb()).toEqual({ "/RINGGROUP/600/changecid": "default", "/RINGGROUP/600/fixedcid": "" });
    expect((await pbx.query("SELECT destination FROM incoming WHERE extension = '5550100'"))[0]?.destination).toBe(
      "ext-group,600,1",
    );
    // FreePBX's own reload made the group's dialplan from the row: it rings the members, then the destination.
    expect(pbx.fwconsoleCalls().map((c) => c.argv)).toContainEqual(["reload"]);
    const context = extGroup();
    expect(context).toContain("exten => 600,");
    expect(context).toContain("1001-1002-5551234#");
    expect(context).toContain("ext-local,vmu1001,1");
    // Planned again: nothing to do.
    expect((await plan("ring-groups")).items.map((i) => i.action)).toEqual(["unchanged"]);

    // An edit is an update of exactly the changed fields.
    const [g] = (await s.call("GET", "/api/ring-groups")).json;
    const edited = await s.call("PATCH", `/api/ring-groups/${g.id}`, { strategy: "hunt", members: ["1002", "1001"] });
    expect(edited.status, edited.text).toBe(200);
    const p2 = await plan("ring-groups");
    expect(p2.items[0]).toMatchObject({ action: "update" });
    expect(p2.items[0]?.changes).toEqual([
      { field: "ringgroups.strategy", from: "ringall", to: "hunt" },
      { field: "ringgroups.grplist", from: "1001-1002-5551234#", to: "1002-1001" },
    ]);
    const afterFirst = sorted(await snapshot(pbx));
    const astdbAfterFirst = await pbx.astdb();
    await apply("ring-groups");
    expect(await ringRow("600")).toMatchObject({ strategy: "hunt", grplist: "1002-1001", grptime: 25 });
    expect(extGroup()).toContain("1002-1001");

    // Roll back the edit: the row as the first deployment left it.
    await rollbackNewest();
    expect(sorted(await snapshot(pbx))).toEqual(afterFirst);
    expect(await pbx.astdb()).toEqual(astdbAfterFirst);
    // Roll back the first deployment: no group, no AstDB keys, no dialplan for it; every row as before.
    const rolled = await rollbackNewest();
    expect(rolled.results.map((r) => r.label)).toContain("ring group 600");
    expect(sorted(await snapshot(pbx))).toEqual(before);
    expect(await ringRow("600")).toBeUndefined();
    expect(await pbx.astdb()).toEqual(astdbBefore);
    expect(extGroup()).not.toContain("exten => 600,");
  });

  test("a managed group deleted in the console is deleted on the PBX (row and AstDB) only through a reviewed apply", async () => {
    await post("/api/extensions", { extension: "1001", name: "Alice" });
    const g = await post("/api/ring-groups", { number: "600", name: "Sales", members: ["1001"] });
    await apply("ring-groups");
    expect(await ringRow("600")).toBeDefined();
    const del = await s.call("DELETE", `/api/ring-groups/${g.id}`);
    expect(del.status, del.text).toBe(200);
    const p = await plan("ring-groups");
    expect(p.items).toMatchObject([{ kind: "ringGroup", key: "600", action: "delete" }]);
    // Deploy without a review never deletes.
    const direct = await s.call("POST", "/api/deploy/ring-groups");
    expect(direct.status).toBe(202);
    await s.app.jobs.idle();
    expect(await ringRow("600")).toBeDefined();
    await apply("ring-groups");
    expect(await ringRow("600")).toBeUndefined();
    expect(await ringAstdb()).toEqual({});
    expect(extGroup()).not.toContain("exten => 600,");
  });
});

describe("a managed ring group whose AstDB keys are gone", () => {
  test("is planned as an update that writes them, and then is unchanged", async () => {
    await post("/api/extensions", { extension: "1001", name: "Alice" });
    await post("/api/ring-groups", { number: "600", name: "Sales", members: ["1001"] });
    await apply("ring-groups");
    await pbx.setAstdb({});
    const p = await plan("ring-groups");
    expect(p.items[0]).toMatchObject({ action: "update" });
    expect(p.items[0]?.changes).toEqual([{ field: "astdb", from: null, to: "RINGGROUP changecid/fixedcid entries" }]);
    await apply("ring-groups");
    expect(await ringAstdb()).toEqual({ "/RINGGROUP/600/changecid": "default", "/RINGGROUP/600/fixedcid": "" });
    expect((await plan("ring-groups")).items.map((i) => i.action)).toEqual(["unchanged"]);
  });
});

describe("a ring group FreePBX's own code made", () => {
  test("is a conflict; adopted, it keeps every setting and AstDB key the console does not own", async () => {
    await post("/api/extensions", { extension: "1001", name: "Alice" });
    await post("/api/extensions", { extension: "1002", name: "Bob" });
    // What Ringgroups::add() writes for a group set up in FreePBX's form: one row and its two AstDB keys.
    await pbx.query(
      `INSERT INTO ringgroups (grpnum, strategy, grptime, grppre, grplist, annmsg_id, postdest, description, alertinfo,
        needsconf, remotealert_id, toolate_id, ringing, cwignore, cfignore, cpickup, recording, progress, elsewhere, rvolume)
       VALUES ('610', 'hunt', 40, 'SALES:', '1001-5559999#', 3, 'app-blackhole,busy,1', 'GUI Sales', '<http://x>;info=ring2',
        'CHECKED', 4, 5, 'default', 'CHECKED', 'CHECKED', 'CHECKED', 'force', 'no', 'always', '8')`,
    );
    await pbx.setAstdb({ "/RINGGROUP/610/changecid": "fixed", "/RINGGROUP/610/fixedcid": "5550000" });
    await post("/api/ring-groups", {
      number: "610",
      name: "Sales",
      strategy: "ringall",
      ringTime: 30,
      members: ["1001", "1002"],
      noAnswer: { kind: "extension", target: "1002" },
    });
    const before = await ringRow("610");
    const p = await plan("ring-groups");
    expect(p.items[0]).toMatchObject({ kind: "ringGroup", key: "610", action: "conflict" });
    expect(p.items[0]?.changes).toEqual([
      { field: "ringgroups.strategy", from: "hunt", to: "ringall" },
      { field: "ringgroups.grptime", from: "40", to: "30" },
      { field: "ringgroups.grplist", from: "1001-5559999#", to: "1001-1002" },
      { field: "ringgroups.description", from: "GUI Sales", to: "Sales" },
      { field: "ringgroups.postdest", from: "app-blackhole,busy,1", to: "from-did-direct,1002,1" },
    ]);
    // Skipped: nothing changes.
    await apply("ring-groups", { "ringGroup:610": "skip" });
    expect(await ringRow("610")).toEqual(before);
    // Adopted: only the owned columns change; FreePBX's own settings and its caller-ID mode stay.
    await apply("ring-groups", { "ringGroup:610": "adopt" });
    expect(await ringRow("610")).toEqual({
      ...before,
      strategy: "ringall",
      grptime: 30,
      grplist: "1001-1002",
      description: "Sales",
      postdest: "from-did-direct,1002,1",
    });
    expect(await ringAstdb()).toEqual({ "/RINGGROUP/610/changecid": "fixed", "/RINGGROUP/610/fixedcid": "5550000" });
    expect((await plan("ring-groups")).items.map((i) => i.action)).toEqual(["unchanged"]);
    // FreePBX's dialplan for it keeps the settings the console left alone (the CID prefix, the busy check).
    expect(extGroup()).toContain("exten => 610,");
  });
});
