/**
 * Time groups and time conditions on a real FreePBX 17 copy over real SSH (test/pbx-host), ADR 0059: one apply
 * writes the group's rows as FreePBX's form does, the time condition reading it (by FreePBX's id) and the
 * override toggle's feature code FreePBX makes for it; FreePBX's own reload generates the time condition's
 * dialplan and its `*27<id>` toggle; plan again: unchanged. An edit of the hours rewrites exactly the rows;
 * roll backs restore the exact former state; a time condition written as FreePBX's `addTimeCondition()` writes it
 * keeps what the console does not own when adopted; a delete removes its row and its feature code.
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
  await pbx.query("DELETE FROM featurecodes WHERE modulename = 'timeconditions'");
  await pbx.setAstdb({});
  s = await startTestServer(pbx.consoleEnv());
  await s.setup();
});
afterEach(async () => {
  await s?.stop();
});

type Row = Record<string, unknown>;

async function call(method: string, path: string, body?: unknown) {
  const r = await s.call(method, path, body);
  expect(r.status, r.text).toBeLessThan(300);
  return r.json;
}

const plan = (target: string): Promise<DeployPlan> => call("POST", "/api/deploy/plan", { target });

async function apply(target: string, resolutions: Record<string, "adopt" | "skip"> = {}) {
  const p = await plan(target);
  const r = await s.call("POST", "/api/deploy/apply", { target, fingerprint: p.fingerprint, resolutions });
  expect(r.status, r.text).toBe(202);
  await s.app.jobs.idle();
  const job = s.app.jobs.get(r.json.jobId);
  expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
  return job;
}

async function rollbackNewest() {
  const runs = (await call("GET", "/api/deploy/history")) as DeployHistoryEntry[];
  const entry = runs.find((r) => r.backup?.restorable);
  const r = await s.call("POST", `/api/deploy/history/${entry?.backup?.id}/rollback`, {});
  expect(r.status, r.text).toBe(202);
  await s.app.jobs.idle();
  expect(s.app.jobs.get(r.json.jobId).state).toBe("succeeded");
}

const one = async (sql: string, params: unknown[] = []) => (await pbx.query(sql, params))[0] as Row | undefined;
const hours = async (groupId: unknown) =>
  (await pbx.query("SELECT time FROM timegroups_details WHERE timegroupid = ? ORDER BY time", [groupId])).map(
    (r) => r.time,
  );
const featureCode = (id: unknown) =>
  one("SELECT * FROM featurecodes WHERE modulename = 'timeconditions' AND featurename = ?", [`toggle-mode-${id}`]);
const dialplan = () => readFileSync(join(pbx.root, "etc/asterisk/extensions_additional.conf"), "utf8");
const sorted = (snap: Snapshot): Snapshot =>
  Object.fromEntries(
    Object.entries(snap).map(([t, rows]) => [
      t,
      [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ]),
  ) as Snapshot;

/** Office hours (weekdays, and Christmas as a holiday), the time condition Office reading them, a DID to it. */
async function office() {
  await call("POST", "/api/extensions", { extension: "1001", name: "Front desk" });
  await call("POST", "/api/extensions", { extension: "1002", name: "After hours", voicemail: true });
  const group = await call("POST", "/api/time-groups", {
    name: "Office hours",
    weekly: [
      { fromDay: "mon", toDay: "fri", start: "08:00", end: "12:00" },
      { fromDay: "mon", toDay: "thu", start: "13:00", end: "17:00" },
    ],
    holidays: [{ month: "dec", day: 25 }],
  });
  const tc = await call("POST", "/api/time-conditions", {
    name: "Office",
    timeGroup: group.id,
    timeZone: "Europe/Berlin",
    match: { kind: "extension", target: "1001" },
    noMatch: { kind: "voicemail", target: "1002" },
  });
  await call("POST", "/api/inbound-routes", {
    description: "Main line",
    didNumber: "5550100",
    destinationType: "time-condition",
    destination: String(tc.id),
  });
  return { group, tc };
}

describe("time groups and time conditions deployed over SSH", () => {
  test("one apply writes the group, the time condition and its toggle; FreePBX's reload makes their dialplan; edit and roll back exactly", async () => {
    const { group } = await office();
    const before = sorted(await snapshot(pbx));
    const p = await plan("all");
    const byId = Object.fromEntries(p.items.map((i) => [i.id, i]));
    expect(byId["timeGroup:Office hours"]?.changes).toEqual([
      { field: "timegroups_groups.description", from: null, to: "Office hours" },
      {
        field: "timegroups_details (hours)",
        from: null,
        to: "*|*|25|dec, 08:00-12:00|mon-fri|*|*, 13:00-17:00|mon-thu|*|*",
      },
    ]);
    expect(byId["timeCondition:Office"]?.changes).toContainEqual({
      field: "timeconditions.time",
      from: null,
      to: "time group Office hours (new)",
    });
    await apply("all");
    const g = (await one("SELECT * FROM timegroups_groups WHERE description = 'Office hours'")) as Row;
    expect(await hours(g.id)).toEqual(["*|*|25|dec", "08:00-12:00|mon-fri|*|*", "13:00-17:00|mon-thu|*|*"]);
    const tc = (await one("SELECT * FROM timeconditions WHERE displayname = 'Office'")) as Row;
    // The row as FreePBX's addTimeCondition() writes it, with the console's values and FreePBX's ids.
    expect(tc).toMatchObject({
      time: g.id,
      timezone: "Europe/Berlin",
      truegoto: "from-did-direct,1001,1",
      falsegoto: "ext-local,vmu1002,1",
      deptname: "",
      generate_hint: 1,
      invert_hint: 0,
      fcc_password: "",
      mode: "time-group",
      calendar_id: "",
      calendar_group_id: "",
    });
    expect(await featureCode(tc.timeconditions_id)).toEqual({
      modulename: "timeconditions",
      featurename: `toggle-mode-${tc.timeconditions_id}`,
      description: `${tc.timeconditions_id}: Office`,
      helptext: "",
      defaultcode: `*27${tc.timeconditions_id}`,
      customcode: "",
      enabled: 1,
      providedest: 1,
      depend: "",
    });
    expect((await one("SELECT destination FROM incoming WHERE extension = '5550100'"))?.destination).toBe(
      `timeconditions,${tc.timeconditions_id},1`,
    );
    // FreePBX's reload wrote the time condition's dialplan from the rows, with its toggle code.
    const conf = dialplan();
    expect(conf).toContain(`exten => ${tc.timeconditions_id},`);
    expect(conf).toContain("08:00-12:00,mon-fri,*,*");
    expect(conf).toContain(`*27${tc.timeconditions_id}`);
    expect((await plan("all")).items.filter((i) => i.action !== "unchanged")).toEqual([]);

    // New hours: exactly the rows change, on the same group.
    await call("PATCH", `/api/time-groups/${group.id}`, {
      weekly: [{ fromDay: "mon", toDay: "fri", start: "09:00", end: "18:00" }],
    });
    const p2 = await plan("time-conditions");
    expect(p2.items.filter((i) => i.action === "update").map((i) => [i.id, i.changes])).toEqual([
      [
        "timeGroup:Office hours",
        [
          {
            field: "timegroups_details (hours)",
            from: "*|*|25|dec, 08:00-12:00|mon-fri|*|*, 13:00-17:00|mon-thu|*|*",
            to: "*|*|25|dec, 09:00-18:00|mon-fri|*|*",
          },
        ],
      ],
    ]);
    const afterFirst = sorted(await snapshot(pbx));
    await apply("time-conditions");
    expect(await hours(g.id)).toEqual(["*|*|25|dec", "09:00-18:00|mon-fri|*|*"]);
    await rollbackNewest();
    expect(sorted(await snapshot(pbx))).toEqual(afterFirst);
    await rollbackNewest();
    expect(sorted(await snapshot(pbx))).toEqual(before);
    expect(await featureCode(tc.timeconditions_id)).toBeUndefined();
  });

  test("a time condition FreePBX made keeps what the console does not own when adopted; deleted, its row and toggle go", async () => {
    // As FreePBX's addTimeGroup()/editTimes() and addTimeCondition()/createFeatureCode() write them.
    await pbx.query("INSERT INTO timegroups_groups (description) VALUES ('Shop hours')");
    const g = (await one("SELECT id FROM timegroups_groups WHERE description = 'Shop hours'")) as Row;
    await pbx.query("INSERT INTO timegroups_details (timegroupid, time) VALUES (?, '10:00-16:00|sat|*|*')", [g.id]);
    await pbx.query(
      "INSERT INTO timeconditions (displayname, time, truegoto, falsegoto, deptname, generate_hint, fcc_password, invert_hint, timezone, mode, calendar_id, calendar_group_id) VALUES ('Shop', ?, 'app-blackhole,hangup,1', 'app-blackhole,hangup,1', 'sales', '1', '4321', '1', '', 'time-group', '', '')",
      [g.id],
    );
    const made = (await one("SELECT * FROM timeconditions WHERE displayname = 'Shop'")) as Row;
    await pbx.query(
      "INSERT INTO featurecodes (modulename, featurename, description, helptext, defaultcode, customcode, enabled, providedest, depend) VALUES ('timeconditions', ?, ?, '', ?, '', 1, 1, '')",
      [`toggle-mode-${made.timeconditions_id}`, `${made.timeconditions_id}: Shop`, `*27${made.timeconditions_id}`],
    );
    await call("POST", "/api/extensions", { extension: "1001", name: "Front desk" });
    await apply("extensions");
    const group = await call("POST", "/api/time-groups", {
      name: "Shop hours",
      weekly: [{ fromDay: "sat", start: "10:00", end: "14:00" }],
    });
    const tc = await call("POST", "/api/time-conditions", {
      name: "Shop",
      timeGroup: group.id,
      match: { kind: "extension", target: "1001" },
    });
    const p = await plan("time-conditions");
    expect(p.items.map((i) => [i.id, i.action, i.pbxId])).toEqual([
      ["timeGroup:Shop hours", "conflict", String(g.id)],
      ["timeCondition:Shop", "conflict", String(made.timeconditions_id)],
    ]);
    await apply("time-conditions", { "timeGroup:Shop hours": "adopt", "timeCondition:Shop": "adopt" });
    const now = (await one("SELECT * FROM timeconditions WHERE timeconditions_id = ?", [
      made.timeconditions_id,
    ])) as Row;
    const owned = ["displayname", "time", "timezone", "truegoto", "falsegoto"];
    const foreign = (r: Row) => Object.fromEntries(Object.entries(r).filter(([k]) => !owned.includes(k)));
    expect(foreign(now)).toEqual(foreign(made));
    expect(now).toMatchObject({ time: g.id, truegoto: "from-did-direct,1001,1", falsegoto: "app-blackhole,hangup,1" });
    expect(await hours(g.id)).toEqual(["10:00-14:00|sat|*|*"]);
    expect((await plan("time-conditions")).items.map((i) => i.action)).toEqual(["unchanged", "unchanged"]);

    await call("DELETE", `/api/time-conditions/${tc.id}`);
    await apply("time-conditions");
    expect(
      await one("SELECT * FROM timeconditions WHERE timeconditions_id = ?", [made.timeconditions_id]),
    ).toBeUndefined();
    expect(await featureCode(made.timeconditions_id)).toBeUndefined();
    expect(await hours(g.id)).toEqual(["10:00-14:00|sat|*|*"]);
  });
});
