/**
 * Queues on a real FreePBX 17 copy over real SSH (test/pbx-host): the plan field by field, the apply's
 * `queues_config` row and `queues_details` rows with the values FreePBX's form gives a new queue, the AstDB key
 * `queues_add()` writes, FreePBX's own reload generating the queue's `ext-queues` dialplan and its
 * queues_additional.conf section, an edit, and the roll backs back to the exact former state. A queue written the
 * way FreePBX's `queues_add()` writes it keeps every setting the console does not own (and its AstDB keys) when the
 * console adopts it, and the roll back puts it back exactly.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { QUEUE_CONFIG_DEFAULTS, QUEUE_DETAILS_DEFAULTS } from "../../src/server/pbx/objects/ownership";
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

const configRow = async (n: string) => (await pbx.query("SELECT * FROM queues_config WHERE extension = ?", [n]))[0];
/** A queue's queues_details rows as `keyword=data@flags`, sorted. */
const details = async (n: string) =>
  (await pbx.query("SELECT keyword, data, flags FROM queues_details WHERE id = ?", [n]))
    .map((r) => `${r.keyword}=${r.data}@${r.flags}`)
    .sort();
const queueAstdb = async () =>
  Object.fromEntries(Object.entries(await pbx.astdb()).filter(([k]) => k.startsWith("/QPENALTY/")));
const conf = (name: string) => readFileSync(join(pbx.root, "etc/asterisk", name), "utf8");
/** The `[ext-queues]` context FreePBX's reload generated, as text. */
const extQueues = () => {
  const text = conf("extensions_additional.conf");
  const start = text.indexOf("[ext-queues]");
  if (start < 0) return "";
  const end = text.indexOf("\n[", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
};
/** A queue's section of queues_additional.conf, as FreePBX's reload wrote it. */
const queueSection = (n: string) => {
  const text = conf("queues_additional.conf");
  const start = text.indexOf(`[${n}]`);
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

describe("a queue deployed over SSH", () => {
  test("plan, apply (rows, AstDB, FreePBX's dialplan and queues.conf), edit, then roll back to the exact former state", async () => {
    await post("/api/extensions", { extension: "1001", name: "Alice", voicemail: true });
    await post("/api/extensions", { extension: "1002", name: "Bob" });
    await post("/api/queues", {
      number: "400",
      name: "Support",
      strategy: "rrmemory",
      agents: ["1002", "1001"],
      maxWait: 45,
      timeoutDestination: { kind: "voicemail", target: "1001" },
    });
    await post("/api/inbound-routes", {
      description: "Support line",
      didNumber: "5550400",
      destinationType: "queue",
      destination: "400",
    });
    const before = sorted(await snapshot(pbx));
    const astdbBefore = await pbx.astdb();

    // The plan: the queue after the extensions it rings, before the inbound route that sends calls to it.
    const p = await plan("all");
    const kinds = p.items.map((i) => i.kind);
    expect(kinds.indexOf("queue")).toBeGreaterThan(kinds.lastIndexOf("extension"));
    expect(kinds.indexOf("queue")).toBeLessThan(kinds.indexOf("inboundRoute"));
    const q = p.items.find((i) => i.kind === "queue");
    expect(q).toMatchObject({ id: "queue:400", action: "create", label: "Support" });
    expect(q?.changes).toEqual([
      { field: "queues_config.descr", from: null, to: "Support" },
      { field: "queues_config.maxwait", from: null, to: "45" },
      { field: "queues_config.dest", from: null, to: "ext-local,vmu1001,1" },
      { field: "queues_details.strategy", from: null, to: "rrmemory" },
      {
        field: "queues_details.member",
        from: null,
        to: "Local/1002@from-queue/n,0, Local/1001@from-queue/n,0",
      },
    ]);
    expect(p.items.find((i) => i.kind === "inboundRoute")?.changes).toContainEqual({
      field: "incoming.destination",
      from: null,
      to: "ext-queues,400,1",
    });

    pbx.clearFwconsoleCalls();
    const job = await apply("all");
    expect(job.results.find((r) => r.label === "Support")?.message).toBe(
      "Written to the FreePBX database and Asterisk's database (AstDB)",
    );
    // The rows as FreePBX's form and queues_add() write a new queue, with the console's values.
    const row = await configRow("400");
    expect(row).toMatchObject({ extension: "400", descr: "Support", maxwait: "45", dest: "ext-local,vmu1001,1" });
    expect(row).toEqual({
      extension: "400",
      descr: "Support",
      maxwait: "45",
      dest: "ext-local,vmu1001,1",
      ...QUEUE_CONFIG_DEFAULTS,
    });
    expect(await details("400")).toEqual(
      [
        ...QUEUE_DETAILS_DEFAULTS.map(([k, v]) => `${k}=${v}@0`),
        "strategy=rrmemory@0",
        "member=Local/1002@from-queue/n,0@0",
        "member=Local/1001@from-queue/n,0@1",
      ].sort(),
    );
    expect(await queueAstdb()).toEqual({ "/QPENALTY/400/dynmemberonly": "no" });
    expect((await pbx.query("SELECT destination FROM incoming WHERE extension = '5550400'"))[0]?.destination).toBe(
      "ext-queues,400,1",
    );
    // FreePBX's own reload made the queue from the rows: its dialplan (max wait, then the destination) and its
    // queues.conf section (strategy, the members in ring order).
    expect(pbx.fwconsoleCalls().map((c) => c.argv)).toContainEqual(["reload"]);
    const context = extQueues();
    expect(context).toContain("exten => 400,");
    expect(context).toContain("45)}");
    expect(context).toContain("ext-local,vmu1001,1");
    const section = queueSection("400");
    expect(section).toContain("strategy=rrmemory");
    expect(section.indexOf("member=Local/1002@from-queue/n,0")).toBeGreaterThan(0);
    expect(section.indexOf("member=Local/1002@from-queue/n,0")).toBeLessThan(
      section.indexOf("member=Local/1001@from-queue/n,0"),
    );
    // Planned again: nothing to do.
    expect((await plan("queues")).items.map((i) => i.action)).toEqual(["unchanged"]);

    // An edit is an update of exactly the changed fields; the agents' new order is a change.
    const [g] = (await s.call("GET", "/api/queues")).json;
    const edited = await s.call("PATCH", `/api/queues/${g.id}`, {
      strategy: "linear",
      agents: ["1001", "1002"],
      maxWait: 0,
    });
    expect(edited.status, edited.text).toBe(200);
    const p2 = await plan("queues");
    expect(p2.items[0]).toMatchObject({ action: "update" });
    expect(p2.items[0]?.changes).toEqual([
      { field: "queues_config.maxwait", from: "45", to: "" },
      { field: "queues_details.strategy", from: "rrmemory", to: "linear" },
      {
        field: "queues_details.member",
        from: "Local/1002@from-queue/n,0, Local/1001@from-queue/n,0",
        to: "Local/1001@from-queue/n,0, Local/1002@from-queue/n,0",
      },
    ]);
    const afterFirst = sorted(await snapshot(pbx));
    const astdbAfterFirst = await pbx.astdb();
    await apply("queues");
    expect(await configRow("400")).toMatchObject({ maxwait: "", descr: "Support" });
    expect((await details("400")).filter((d) => /^(strategy|member)=/.test(d))).toEqual([
      "member=Local/1001@from-queue/n,0@0",
      "member=Local/1002@from-queue/n,0@1",
      "strategy=linear@0",
    ]);
    expect(queueSection("400")).toContain("strategy=linear");
    expect((await plan("queues")).items.map((i) => i.action)).toEqual(["unchanged"]);

    // Roll back the edit: the rows as the first deployment left them.
    await rollbackNewest();
    expect(sorted(await snapshot(pbx))).toEqual(afterFirst);
    expect(await pbx.astdb()).toEqual(astdbAfterFirst);
    // Roll back the first deployment: no queue, no AstDB key, no dialplan for it; every row as before.
    const rolled = await rollbackNewest();
    expect(rolled.results.map((r) => r.label)).toContain("queue 400");
    expect(sorted(await snapshot(pbx))).toEqual(before);
    expect(await configRow("400")).toBeUndefined();
    expect(await details("400")).toEqual([]);
    expect(await pbx.astdb()).toEqual(astdbBefore);
    expect(extQueues()).not.toContain("exten => 400,");
  });

  test("a managed queue deleted in the console is deleted on the PBX (rows and AstDB) only through a reviewed apply", async () => {
    await post("/api/extensions", { extension: "1001", name: "Alice" });
    const q = await post("/api/queues", { number: "400", name: "Support", agents: ["1001"] });
    await apply("queues");
    expect(await configRow("400")).toBeDefined();
    // A dynamic agent logged in meanwhile (FreePBX keeps it under the queue's AstDB tree).
    await pbx.setAstdb({ ...(await pbx.astdb()), "/QPENALTY/400/agents/1001": "0" });
    const del = await s.call("DELETE", `/api/queues/${q.id}`);
    expect(del.status, del.text).toBe(200);
    const p = await plan("queues");
    expect(p.items).toMatchObject([{ kind: "queue", key: "400", action: "delete" }]);
    // Deploy without a review never deletes.
    const direct = await s.call("POST", "/api/deploy/queues");
    expect(direct.status).toBe(202);
    await s.app.jobs.idle();
    expect(await configRow("400")).toBeDefined();
    const job = await apply("queues");
    expect(job.results[0]?.message).toBe("Deleted from the FreePBX database and Asterisk's database (AstDB)");
    // queues_del(): the config row, every details row and the QPENALTY/400 tree.
    expect(await configRow("400")).toBeUndefined();
    expect(await details("400")).toEqual([]);
    expect(await queueAstdb()).toEqual({});
    expect(extQueues()).not.toContain("exten => 400,");
  });
});

describe("a managed queue whose AstDB key is gone", () => {
  test("is planned as an update that writes it, and then is unchanged", async () => {
    await post("/api/extensions", { extension: "1001", name: "Alice" });
    await post("/api/queues", { number: "400", name: "Support", agents: ["1001"] });
    await apply("queues");
    await pbx.setAstdb({});
    const p = await plan("queues");
    expect(p.items[0]).toMatchObject({ action: "update" });
    expect(p.items[0]?.changes).toEqual([{ field: "astdb", from: null, to: "QPENALTY dynmemberonly entry" }]);
    await apply("queues");
    expect(await queueAstdb()).toEqual({ "/QPENALTY/400/dynmemberonly": "no" });
    expect((await plan("queues")).items.map((i) => i.action)).toEqual(["unchanged"]);
  });
});

describe("a queue FreePBX's own code made", () => {
  test("is a conflict; adopted, it keeps every setting and AstDB key the console does not own; rolled back exactly", async () => {
    await post("/api/extensions", { extension: "1001", name: "Alice" });
    await post("/api/extensions", { extension: "1002", name: "Bob" });
    // What queues_add() writes for a queue set up in FreePBX's form with settings the console does not model: a
    // CID prefix, a password, music, ringing instead of music, a join announcement, skipping busy agents, a
    // 30 s agent timeout, wrap-up, a penalty on a static member, dynamic agents only, with one dynamic agent.
    await pbx.query(
      `INSERT INTO queues_config (extension, descr, grppre, alertinfo, ringing, maxwait, password, ivr_id, dest, cwignore,
        queuewait, use_queue_context, togglehint, qnoanswer, callconfirm, callconfirm_id, qregex, agentannounce_id,
        joinannounce_id, monitor_type, monitor_heard, monitor_spoken, callback_id)
       VALUES ('410', 'GUI Support', 'SUP:', '<http://x>;info=ring2', 1, '120', '1234', 'none', 'app-blackhole,busy,1', 1,
        1, 0, 0, 0, 0, NULL, '', NULL, 7, '', 0, 0, 'none')`,
    );
    const foreign: [string, string, number][] = [
      ...QUEUE_DETAILS_DEFAULTS.filter(([k]) => !["timeout", "wrapuptime", "ringinuse"].includes(k)).map(
        ([k, v]) => [k, v, 0] as [string, string, number],
      ),
      ["timeout", "30", 0],
      ["wrapuptime", "10", 0],
      ["ringinuse", "no", 0],
      ["music", "default", 0],
      ["strategy", "fewestcalls", 0],
      ["member", "Local/1001@from-queue/n,2", 0],
    ];
    for (const [k, v, f] of foreign)
      await pbx.query("INSERT INTO queues_details (id, keyword, data, flags) VALUES ('410', ?, ?, ?)", [k, v, f]);
    await pbx.setAstdb({ "/QPENALTY/410/dynmemberonly": "yes", "/QPENALTY/410/agents/1002": "1" });
    await post("/api/queues", {
      number: "410",
      name: "Support",
      strategy: "ringall",
      agents: ["1001", "1002"],
      maxWait: 60,
      timeoutDestination: { kind: "extension", target: "1002" },
    });
    const before = sorted(await snapshot(pbx));
    const rowBefore = await configRow("410");
    const detailsBefore = await details("410");
    const p = await plan("queues");
    expect(p.items[0]).toMatchObject({ kind: "queue", key: "410", action: "conflict" });
    expect(p.items[0]?.changes).toEqual([
      { field: "queues_config.descr", from: "GUI Support", to: "Support" },
      { field: "queues_config.maxwait", from: "120", to: "60" },
      { field: "queues_config.dest", from: "app-blackhole,busy,1", to: "from-did-direct,1002,1" },
      { field: "queues_details.strategy", from: "fewestcalls", to: "ringall" },
      {
        field: "queues_details.member",
        from: "Local/1001@from-queue/n,2",
        to: "Local/1001@from-queue/n,0, Local/1002@from-queue/n,0",
      },
    ]);
    // Skipped: nothing changes.
    await apply("queues", { "queue:410": "skip" });
    expect(await configRow("410")).toEqual(rowBefore);
    expect(await details("410")).toEqual(detailsBefore);
    // Adopted: only the owned columns and rows change; FreePBX's own settings and its AstDB keys stay.
    await apply("queues", { "queue:410": "adopt" });
    expect(await configRow("410")).toEqual({
      ...rowBefore,
      descr: "Support",
      maxwait: "60",
      dest: "from-did-direct,1002,1",
    });
    expect(await details("410")).toEqual(
      [
        ...detailsBefore.filter((d) => !/^(strategy|member)=/.test(d)),
        "strategy=ringall@0",
        "member=Local/1001@from-queue/n,0@0",
        "member=Local/1002@from-queue/n,0@1",
      ].sort(),
    );
    expect(await queueAstdb()).toEqual({ "/QPENALTY/410/dynmemberonly": "yes", "/QPENALTY/410/agents/1002": "1" });
    expect((await plan("queues")).items.map((i) => i.action)).toEqual(["unchanged"]);
    // FreePBX's queues.conf for it keeps the settings the console left alone.
    const section = queueSection("410");
    expect(section).toContain("timeout=30");
    expect(section).toContain("wrapuptime=10");
    expect(section).toContain("musicclass=default");
    expect(section).toContain("strategy=ringall");

    // The roll back puts every row and AstDB key back exactly.
    await rollbackNewest();
    expect(sorted(await snapshot(pbx))).toEqual(before);
    expect(await queueAstdb()).toEqual({ "/QPENALTY/410/dynmemberonly": "yes", "/QPENALTY/410/agents/1002": "1" });
  });
});
