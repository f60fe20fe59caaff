/**
 * Sync import of IVRs and announcements over a real FreePBX copy and real SSH (test/pbx-host): rows written the way
 * FreePBX's Ivr::saveDetails()/saveEntries() and Announcement::addAnnouncement() write them are compared, planned and
 * imported through the console's own create and update; destinations map FreePBX's ids to the console's (objects
 * pointing at each other across the two kinds come in one import), one the console cannot hold is refused with its
 * reason, the records hold FreePBX's ids, and the next deploy plans them unchanged and changes no byte of them.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type PbxCallFlow, readPbxCallFlow } from "../../src/server/pbx/sync/call-flow";
import { importCallFlow, planCallFlowImport } from "../../src/server/pbx/sync/call-flow-plan";
import type { DeployPlan } from "../../src/shared/plan";
import { startTestServer, type TestServer } from "../helpers/server";
import { emptyFreepbx, snapshot } from "../pbx-host/gui-objects";
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
  s = await startTestServer(pbx.consoleEnv());
  await s.setup();
});
afterEach(async () => {
  await s?.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const r = await s.call(method, path, body);
  expect(r.status, r.text).toBeLessThan(300);
  return r.json;
}

/**
 * Ivr::saveDetails() as doConfigPageInit() calls it: the form's values over Ivr::DEFAULTS (no greeting is NULL);
 * REPLACE with an id (an edit), else INSERT.
 */
async function saveDetails(vals: Record<string, string | number | null>): Promise<number> {
  const row: Record<string, string | number | null> = {
    invalid_destination: "app-blackhole,hangup,1",
    timeout_destination: "app-blackhole,hangup,1",
    name: "New IVR",
    description: "",
    announcement: null,
    directdial: "ext-local",
    timeout_time: 10,
    alertinfo: "",
    rvolume: "",
    invalid_loops: 3,
    invalid_retry_recording: "default",
    invalid_append_announce: 0,
    invalid_ivr_ret: 0,
    invalid_recording: "",
    timeout_loops: 3,
    timeout_retry_recording: "default",
    timeout_append_announce: 0,
    timeout_ivr_ret: 0,
    strict_dial_timeout: 2,
    timeout_recording: "default",
    retvm: "",
    accept_pound_key: 0,
    ...vals,
  };
  const cols = Object.keys(row);
  const verb = "id" in vals ? "REPLACE" : "INSERT";
  await pbx.query(
    `${verb} INTO ivr_details (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
    Object.values(row),
  );
  if ("id" in vals) return Number(vals.id);
  // The pool may answer on another connection than the insert's: the newest row instead of LAST_INSERT_ID().
  return Number((await pbx.query("SELECT MAX(id) AS id FROM ivr_details"))[0]?.id);
}

/** Ivr::saveEntries(): the IVR's entries replaced by the form's keys and destinations. */
async function saveEntries(id: number, entries: [string, string][]) {
  await pbx.query("DELETE FROM ivr_entries WHERE ivr_id = ?", [id]);
  for (const [selection, dest] of entries)
    await pbx.query("INSERT INTO ivr_entries VALUES (?, ?, ?, ?)", [id, selection, dest, 0]);
}

/** Announcement::addAnnouncement(). */
async function addAnnouncement(description: string, recordingId: number | null, allowSkip: number, postDest: string) {
  await pbx.query(
    "INSERT INTO announcement (description, recording_id, allow_skip, post_dest, return_ivr, noanswer, repeat_msg) VALUES (?, ?, ?, ?, 0, 0, '')",
    [description, recordingId, allowSkip, postDest],
  );
  return Number((await pbx.query("SELECT MAX(announcement_id) AS id FROM announcement"))[0]?.id);
}

const ivr = (id: number) => `ivr-${id},s,1`;
const ann = (id: number) => `app-announcement-${id},s,1`;
const CALL_FLOW_TABLES = ["ivr_details", "ivr_entries", "announcement"] as const;
const callFlowRows = async () => {
  const all = await snapshot(pbx);
  return CALL_FLOW_TABLES.map((t) => all[t]);
};

interface PlanItem {
  id: string;
  key: string;
  action: string;
  adopt: boolean;
  pbxId: string | null;
  reason?: string;
  note?: string;
  changes: { field: string; from: string | null; to: string | null }[];
}

/**
 * Main (1 → extension 1001, 9 → announcement Closed, no key → Night), Closed (then Night), Night (0 → back to Main),
 * as FreePBX's forms make them: Main first, Night pointing back at it, Closed, then Main edited with its keys and no-key
 * destination. Holiday sends key 1 to a time condition.
 */
async function freepbxFlow() {
  const main = await saveDetails({
    name: "Main",
    announcement: 3,
    timeout_time: 7,
    invalid_loops: 2,
    timeout_loops: 2,
  });
  const night = await saveDetails({ name: "Night", description: "after hours" });
  await saveEntries(night, [["0", ivr(main)]]);
  const closed = await addAnnouncement("Closed", 4, 1, ivr(night));
  await saveDetails({
    id: main,
    name: "Main",
    announcement: 3,
    timeout_time: 7,
    invalid_loops: 2,
    timeout_loops: 2,
    timeout_destination: ivr(night),
  });
  await saveEntries(main, [
    ["1", "from-did-direct,1001,1"],
    ["9", ann(closed)],
  ]);
  const holiday = await saveDetails({ name: "Holiday" });
  await saveEntries(holiday, [["1", "timeconditions,1,1"]]);
  return { main, night, closed, holiday };
}

describe("IVRs and announcements imported from FreePBX over SSH", () => {
  test("compare, plan, import: the console then holds them as the PBX has them, by FreePBX's ids; a deploy changes nothing", async () => {
    // The extension an option rings is the console's, already on the PBX.
    await call("POST", "/api/extensions", { extension: "1001", name: "Alice" });
    const deployed = await call("POST", "/api/deploy/plan", { target: "extensions" });
    const applied = await s.call("POST", "/api/deploy/apply", {
      target: "extensions",
      fingerprint: deployed.fingerprint,
      resolutions: {},
    });
    expect(applied.status, applied.text).toBe(202);
    await s.app.jobs.idle();
    const { main, night, closed, holiday } = await freepbxFlow();

    const ivrs = await call("GET", "/api/sync/ivrs/compare");
    expect(ivrs).toEqual({
      freepbxCount: 3,
      dashboardCount: 0,
      via: "ssh",
      comparison: [
        [main, "Main"],
        [night, "Night"],
        [holiday, "Holiday"],
      ].map(([id, name]) => ({
        pbxId: String(id),
        inDashboard: false,
        needsSync: false,
        freepbx: { name },
        dashboard: { name: null },
      })),
    });
    const anns = await call("GET", "/api/sync/announcements/compare");
    expect(anns.comparison).toEqual([
      {
        pbxId: String(closed),
        inDashboard: false,
        needsSync: false,
        freepbx: { name: "Closed" },
        dashboard: { name: null },
      },
    ]);

    // Everything: the announcement comes along, targets first, the cycle closed after; Holiday refused.
    const all = await call("POST", "/api/sync/ivrs/plan", { mode: "all" });
    const items = all.items as PlanItem[];
    expect(items.map((i) => [i.id, i.action])).toEqual([
      [`ivr:${night}`, "create"],
      [`announcement:${closed}`, "create"],
      [`ivr:${main}`, "create"],
      [`ivr:${holiday}`, "refused"],
    ]);
    expect(items[3]?.reason).toBe(
      "Holiday: Its option 1 goes to FreePBX's time condition 1 (timeconditions,1,1), which the Sync screen does not import",
    );
    expect(items[1]?.note).toBe(
      "Imported with IVR Main, which sends calls to it. The console starts managing it on the PBX (imported)",
    );
    expect(items[2]).toMatchObject({ key: String(main), pbxId: String(main), adopt: true });
    expect(items[2]?.changes).toEqual([
      { field: "name", from: null, to: "Main" },
      { field: "greeting", from: null, to: "3" },
      { field: "timeout", from: null, to: "7" },
      { field: "retries", from: null, to: "2" },
      { field: "options", from: null, to: "1 → extension 1001, 9 → announcement Closed" },
      { field: "invalidDestination", from: null, to: "hang up" },
      { field: "timeoutDestination", from: null, to: "IVR Night" },
    ]);
    expect(all.counts).toEqual({ create: 3, update: 0, unchanged: 0, refused: 1 });
    // The plan tried every write and kept none.
    expect(await call("GET", "/api/ivrs")).toEqual([]);
    expect(await call("GET", "/api/announcements")).toEqual([]);

    // The import of the two menus the console can hold (Closed comes with Main).
    const selection = { mode: "selected", ivrs: [String(main), String(night)] };
    const plan = await call("POST", "/api/sync/ivrs/plan", selection);
    const started = await s.call("POST", "/api/sync/ivrs/import", { ...selection, fingerprint: plan.fingerprint });
    expect(started.status, started.text).toBe(202);
    await s.app.jobs.idle();
    const job = s.app.jobs.get(started.json.jobId);
    expect(job.state, JSON.stringify(job)).toBe("succeeded");
    expect(job.summary).toMatchObject({ created: 3, updated: 0, failed: 0 });

    const byName = (xs: { id: number; name: string }[]) => Object.fromEntries(xs.map((x) => [x.name, x]));
    const menus = byName(await call("GET", "/api/ivrs"));
    const played = byName(await call("GET", "/api/announcements"));
    const [mainId, nightId, closedId] = [menus.Main?.id, menus.Night?.id, played.Closed?.id].map(String);
    expect(menus.Main).toMatchObject({
      greeting: 3,
      timeout: 7,
      retries: 2,
      options: [
        { digits: "1", destination: { kind: "extension", target: "1001" } },
        { digits: "9", destination: { kind: "announcement", target: closedId } },
      ],
      invalidDestination: { kind: "hangup", target: "" },
      timeoutDestination: { kind: "ivr", target: nightId },
    });
    expect(menus.Night).toMatchObject({
      greeting: null,
      timeout: 10,
      retries: 3,
      options: [{ digits: "0", destination: { kind: "ivr", target: mainId } }],
      invalidDestination: { kind: "hangup", target: "" },
      timeoutDestination: { kind: "hangup", target: "" },
    });
    expect(played.Closed).toMatchObject({ recording: 4, allowSkip: true, after: { kind: "ivr", target: nightId } });
    expect(menus.Holiday).toBeUndefined();
    const records = s.db.$client
      .query(
        "SELECT kind, key, pbx_id, console_id, origin FROM pbx_objects WHERE kind IN ('ivr', 'announcement') ORDER BY key",
      )
      .all();
    expect(records).toEqual([
      { kind: "announcement", key: "Closed", pbx_id: String(closed), console_id: Number(closedId), origin: "import" },
      { kind: "ivr", key: "Main", pbx_id: String(main), console_id: Number(mainId), origin: "import" },
      { kind: "ivr", key: "Night", pbx_id: String(night), console_id: Number(nightId), origin: "import" },
    ]);

    // In step now: the comparison says so, and planned again there is nothing to do.
    const again = await call("GET", "/api/sync/ivrs/compare");
    expect(again.comparison.map((r: { pbxId: string; inDashboard: boolean; needsSync: boolean }) => r)).toEqual([
      {
        pbxId: String(main),
        inDashboard: true,
        needsSync: false,
        freepbx: { name: "Main" },
        dashboard: { name: "Main" },
      },
      {
        pbxId: String(night),
        inDashboard: true,
        needsSync: false,
        freepbx: { name: "Night" },
        dashboard: { name: "Night" },
      },
      {
        pbxId: String(holiday),
        inDashboard: false,
        needsSync: false,
        freepbx: { name: "Holiday" },
        dashboard: { name: null },
      },
    ]);
    const replanned = await call("POST", "/api/sync/announcements/plan", { mode: "all" });
    expect(replanned.items.map((i: PlanItem) => [i.id, i.action, i.adopt])).toEqual([
      [`announcement:${closed}`, "unchanged", false],
    ]);

    // The console's next deployment finds each by its FreePBX id and changes nothing.
    const before = await callFlowRows();
    const p: DeployPlan = await call("POST", "/api/deploy/plan", { target: "all" });
    const mine = p.items.filter((i) => i.kind === "ivr" || i.kind === "announcement");
    expect(mine.map((i) => [i.id, i.action, i.pbxId])).toEqual(
      expect.arrayContaining([
        ["ivr:Main", "unchanged", String(main)],
        ["ivr:Night", "unchanged", String(night)],
        ["announcement:Closed", "unchanged", String(closed)],
      ]),
    );
    expect(p.items.filter((i) => i.action !== "unchanged")).toEqual([]);
    const r = await s.call("POST", "/api/deploy/apply", { target: "all", fingerprint: p.fingerprint, resolutions: {} });
    expect(r.status, r.text).toBe(202);
    await s.app.jobs.idle();
    expect(s.app.jobs.get(r.json.jobId).state).toBe("succeeded");
    expect(await callFlowRows()).toEqual(before);
  });

  test("what the console cannot hold is refused in its own words, and what needs it too; retries that differ are noted", async () => {
    const loop = await saveDetails({ name: "Loop" });
    const again = await addAnnouncement("Again", null, 0, ivr(loop));
    // A wrong key plays Again, which goes back to Loop: a loop no caller leaves.
    await saveDetails({ id: loop, name: "Loop", invalid_destination: ann(again) });
    const front = await saveDetails({ name: "Front" });
    await saveEntries(front, [["1", ivr(loop)]]);
    const off = await saveDetails({ name: "Off", invalid_loops: "disabled" });
    const uneven = await saveDetails({ name: "Uneven", invalid_loops: 2, timeout_loops: 4 });
    await saveEntries(uneven, [
      ["1", "app-blackhole,hangup,1"],
      ["t", "app-blackhole,hangup,1"],
    ]);
    const rows: PbxCallFlow[] = (await readPbxCallFlow(s.app, "ivrs")).rows;
    const entries = planCallFlowImport(s.app, "ivr", rows, { mode: "all", ivrs: [] });
    const byId = Object.fromEntries(entries.map((e) => [`${e.kind}:${e.pbxId}`, e]));
    expect(byId[`ivr:${uneven}`]).toMatchObject({ action: "create" });
    expect(byId[`ivr:${uneven}`]?.notes).toEqual([
      "FreePBX retries a wrong key 2 times and no key 4 times; the console keeps one number for both: 4 (its next deploy writes it for both)",
      "FreePBX's entries t are not keys (FreePBX uses them only while its retries are disabled): the console leaves them out, and its next deploy removes them",
    ]);
    expect(byId[`ivr:${off}`]?.reason).toBe(
      'Off: Its wrong-key retries are "disabled" in FreePBX, which the console does not model',
    );
    // The loop closes when Again is written after Loop: the console's loop rule refuses it, and Loop and Front need it.
    expect(byId[`announcement:${again}`]?.action).toBe("refused");
    expect(byId[`announcement:${again}`]?.reason).toStartWith("Again: This makes a loop: ");
    expect(byId[`announcement:${again}`]?.reason).toContain("Again → IVR");
    expect(byId[`ivr:${loop}`]?.reason).toBe("Loop: It sends calls to announcement Again, which cannot be imported");
    expect(byId[`ivr:${front}`]?.reason).toBe("Front: It sends calls to IVR Loop, which cannot be imported");
    expect(entries.filter((e) => e.action !== "refused").map((e) => e.pbxId)).toEqual([String(uneven)]);

    // An IVR the console has by name (no record) is updated field by field and becomes managed.
    await call("POST", "/api/ivrs", { name: "Uneven", timeout: 5, retries: 4 });
    const [update] = planCallFlowImport(s.app, "ivr", rows, { mode: "selected", ivrs: [String(uneven)] });
    expect(update).toMatchObject({ action: "update", adopt: true });
    expect(update?.raw).toEqual([
      { field: "timeout", from: "5", to: "10" },
      { field: "options", from: null, to: "1 → hang up" },
      { field: "invalidDestination", from: null, to: "hang up" },
      { field: "timeoutDestination", from: null, to: "hang up" },
    ]);
    expect((await call("GET", "/api/ivrs")).map((i: { timeout: number }) => i.timeout)).toEqual([5]);

    // Imported: the console's IVR takes the PBX's values and its record FreePBX's id; a record left by a console
    // IVR deleted since that names the same FreePBX id goes (the next deploy must not delete what was taken back).
    s.db.$client
      .query("INSERT INTO pbx_objects (kind, key, pbx_id, console_id, origin, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run("ivr", "Deleted since", String(uneven), 999, "deploy", Date.now());
    const selected = { mode: "selected" as const, ivrs: [String(uneven)] };
    const planned = planCallFlowImport(s.app, "ivr", rows, selected);
    const [done] = importCallFlow(s.app, "ivr", rows, selected, planned);
    expect(done).toMatchObject({ action: "update", consoleId: update?.consoleId });
    expect((await call("GET", "/api/ivrs")).map((i: { timeout: number }) => i.timeout)).toEqual([10]);
    expect(
      s.db.$client.query("SELECT key, pbx_id, console_id, origin FROM pbx_objects WHERE kind = 'ivr'").all(),
    ).toEqual([{ key: "Uneven", pbx_id: String(uneven), console_id: update?.consoleId, origin: "import" }]);
    // Planned against what the console holds now, the same import is refused as stale: nothing is written.
    expect(() => importCallFlow(s.app, "ivr", rows, selected, planned)).toThrow(
      "The PBX or the console changed since this plan",
    );
  });
});
