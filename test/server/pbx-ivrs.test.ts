/**
 * IVRs and announcements on a real FreePBX 17 copy over real SSH (test/pbx-host), ADR 0059: objects FreePBX numbers
 * itself, pointing at one another. One apply writes them all (their ids allocated by FreePBX's AUTO_INCREMENT,
 * their destinations written after every row), FreePBX's own reload generates their dialplan, the plan afterwards is
 * unchanged; a rename keeps the same FreePBX row; roll backs restore the exact former state; an IVR written the
 * way FreePBX's IVR form writes it keeps what the console does not own when the console adopts it; a delete
 * removes its rows; and a deploy of IVRs alone says which announcement it needs first.
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

async function plan(target: string): Promise<DeployPlan> {
  return call("POST", "/api/deploy/plan", { target });
}

/** Reviews and applies a target's plan (conflicts resolved as given), as the web does; the finished job. */
async function apply(target: string, resolutions: Record<string, "adopt" | "skip"> = {}, ok = true) {
  const p = await plan(target);
  const r = await s.call("POST", "/api/deploy/apply", { target, fingerprint: p.fingerprint, resolutions });
  expect(r.status, r.text).toBe(202);
  await s.app.jobs.idle();
  const job = s.app.jobs.get(r.json.jobId);
  expect(job.state, JSON.stringify(job.results)).toBe(ok ? "succeeded" : "failed");
  return job;
}

async function rollbackNewest() {
  const runs = (await call("GET", "/api/deploy/history")) as DeployHistoryEntry[];
  const entry = runs.find((r) => r.backup?.restorable);
  const r = await s.call("POST", `/api/deploy/history/${entry?.backup?.id}/rollback`, {});
  expect(r.status, r.text).toBe(202);
  await s.app.jobs.idle();
  const job = s.app.jobs.get(r.json.jobId);
  expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
  return job;
}

type Row = Record<string, unknown>;
const ivrRow = async (name: string) => (await pbx.query("SELECT * FROM ivr_details WHERE name = ?", [name]))[0];
const entries = async (id: unknown) =>
  (await pbx.query("SELECT selection, dest, ivr_ret FROM ivr_entries WHERE ivr_id = ? ORDER BY selection", [id])).map(
    (e) => `${e.selection} → ${e.dest} (${e.ivr_ret})`,
  );
const annRow = async (name: string) => (await pbx.query("SELECT * FROM announcement WHERE description = ?", [name]))[0];
const dialplan = () => readFileSync(join(pbx.root, "etc/asterisk/extensions_additional.conf"), "utf8");
const sorted = (snap: Snapshot): Snapshot =>
  Object.fromEntries(
    Object.entries(snap).map(([t, rows]) => [
      t,
      [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ]),
  ) as Snapshot;

/**
 * Main (1 → 1001, 9 → announcement Closed, no key → IVR Night), Closed (then IVR Night), Night (1 → 1002), and
 * DID 5550100 → Main: an IVR pointing back at an announcement written after it, which points at an IVR after that.
 */
async function flow() {
  await call("POST", "/api/extensions", { extension: "1001", name: "Alice" });
  await call("POST", "/api/extensions", { extension: "1002", name: "Bob" });
  const night = await call("POST", "/api/ivrs", {
    name: "Night",
    options: [{ digits: "1", destination: { kind: "extension", target: "1002" } }],
  });
  const closed = await call("POST", "/api/announcements", {
    name: "Closed",
    recording: 4,
    after: { kind: "ivr", target: String(night.id) },
  });
  const main = await call("POST", "/api/ivrs", {
    name: "Main",
    greeting: 3,
    timeout: 7,
    retries: 2,
    options: [
      { digits: "1", destination: { kind: "extension", target: "1001" } },
      { digits: "9", destination: { kind: "announcement", target: String(closed.id) } },
    ],
    timeoutDestination: { kind: "ivr", target: String(night.id) },
  });
  await call("POST", "/api/inbound-routes", {
    description: "Main line",
    didNumber: "5550100",
    destinationType: "ivr",
    destination: String(main.id),
  });
  return { night, closed, main };
}

describe("IVRs and announcements deployed over SSH", () => {
  test("one apply writes objects that point at one another; FreePBX's reload makes their dialplan; plan again: unchanged", async () => {
    await flow();
    const before = sorted(await snapshot(pbx));
    const p = await plan("all");
    const byId = Object.fromEntries(p.items.map((i) => [i.id, i]));
    // New objects have no FreePBX id yet: the plan names them.
    expect(byId["ivr:Main"]?.changes).toContainEqual({
      field: "ivr_details.timeout_destination",
      from: null,
      to: "IVR Night (new)",
    });
    expect(byId["ivr:Main"]?.changes).toContainEqual({
      field: "ivr_entries (options)",
      from: null,
      to: "1 → from-did-direct,1001,1, 9 → announcement Closed (new)",
    });
    expect(byId["inboundRoute:5550100"]?.changes).toContainEqual({
      field: "incoming.destination",
      from: null,
      to: "IVR Main (new)",
    });
    await apply("all");
    const main = (await ivrRow("Main")) as Row;
    const night = (await ivrRow("Night")) as Row;
    const closed = (await annRow("Closed")) as Row;
    // The rows as FreePBX's IVR form writes a new one, with the console's values and FreePBX's own ids.
    expect(main).toMatchObject({
      name: "Main",
      description: "",
      announcement: 3,
      directdial: "ext-local",
      timeout_time: 7,
      invalid_loops: "2",
      timeout_loops: "2",
      invalid_destination: "app-blackhole,hangup,1",
      timeout_destination: `ivr-${night.id},s,1`,
      invalid_retry_recording: "default",
      timeout_recording: "default",
      strict_dial_timeout: 2,
    });
    expect(await entries(main.id)).toEqual([
      "1 → from-did-direct,1001,1 (0)",
      `9 → app-announcement-${closed.announcement_id},s,1 (0)`,
    ]);
    expect(closed).toMatchObject({
      recording_id: 4,
      allow_skip: 0,
      post_dest: `ivr-${night.id},s,1`,
      return_ivr: 0,
      noanswer: 0,
      repeat_msg: "",
    });
    expect((await pbx.query("SELECT destination FROM incoming WHERE extension = '5550100'"))[0]?.destination).toBe(
      `ivr-${main.id},s,1`,
    );
    // FreePBX's own reload generated each IVR's context from the rows.
    const conf = dialplan();
    expect(conf).toContain(`[ivr-${main.id}]`);
    expect(conf).toContain(`[ivr-${night.id}]`);
    expect(conf).toContain(`[app-announcement-${closed.announcement_id}]`);
    // Planned again: nothing to do, and the records hold FreePBX's ids.
    expect((await plan("all")).items.filter((i) => i.action !== "unchanged")).toEqual([]);
    const records = s.db.$client
      .query("SELECT kind, key, pbx_id FROM pbx_objects WHERE kind IN ('ivr', 'announcement') ORDER BY key")
      .all();
    expect(records).toEqual([
      { kind: "announcement", key: "Closed", pbx_id: String(closed.announcement_id) },
      { kind: "ivr", key: "Main", pbx_id: String(main.id) },
      { kind: "ivr", key: "Night", pbx_id: String(night.id) },
    ]);

    // A rename and a changed option: the same FreePBX row (its id), its option rows rewritten.
    const [ivr] = ((await call("GET", "/api/ivrs")) as { id: number; name: string }[]).filter((i) => i.name === "Main");
    await call("PATCH", `/api/ivrs/${ivr?.id}`, {
      name: "Reception",
      options: [{ digits: "2", destination: { kind: "extension", target: "1002" } }],
    });
    const p2 = await plan("ivrs");
    const item = p2.items.find((i) => i.kind === "ivr" && i.action === "update");
    expect(item?.note).toBe(`Renamed from Main (id ${main.id})`);
    expect(item?.changes).toEqual([
      { field: "ivr_details.name", from: "Main", to: "Reception" },
      {
        field: "ivr_entries (options)",
        from: `1 → from-did-direct,1001,1, 9 → app-announcement-${closed.announcement_id},s,1`,
        to: "2 → from-did-direct,1002,1",
      },
    ]);
    const afterFirst = sorted(await snapshot(pbx));
    await apply("ivrs");
    expect(await ivrRow("Main")).toBeUndefined();
    expect((await ivrRow("Reception"))?.id).toBe(main.id);
    expect(await entries(main.id)).toEqual(["2 → from-did-direct,1002,1 (0)"]);

    // Roll back the edit, then the first deployment: the rows exactly as they were each time.
    await rollbackNewest();
    expect(sorted(await snapshot(pbx))).toEqual(afterFirst);
    const rolled = await rollbackNewest();
    expect(rolled.results.map((r) => r.label)).toContain("IVR Main");
    expect(sorted(await snapshot(pbx))).toEqual(before);
  });

  test("an IVR made with FreePBX's form keeps what the console does not own when it is adopted", async () => {
    // As FreePBX's Ivr::saveDetails() and saveEntries() write it, with settings changed in its form.
    await pbx.query(
      "INSERT INTO ivr_details (name, description, announcement, directdial, invalid_loops, invalid_retry_recording, invalid_destination, invalid_recording, retvm, timeout_time, timeout_recording, timeout_retry_recording, timeout_destination, timeout_loops, timeout_append_announce, invalid_append_announce, timeout_ivr_ret, invalid_ivr_ret, alertinfo, rvolume, strict_dial_timeout, accept_pound_key) VALUES ('Front desk', 'made in FreePBX', NULL, '', '5', '2', 'app-blackhole,hangup,1', '6', 'RETURN', 4, 'default', 'default', 'app-blackhole,hangup,1', '5', 1, 1, 0, 0, '<http://x>;info=ring2', '3', 1, 1)",
    );
    const [gui] = await pbx.query("SELECT * FROM ivr_details WHERE name = 'Front desk'");
    await pbx.query("INSERT INTO ivr_entries VALUES (?, '1', 'app-blackhole,hangup,1', 0)", [gui?.id]);
    await call("POST", "/api/extensions", { extension: "1001", name: "Alice" });
    await apply("extensions");
    await call("POST", "/api/ivrs", {
      name: "Front desk",
      options: [{ digits: "1", destination: { kind: "extension", target: "1001" } }],
      timeout: 4,
      retries: 5,
    });
    const p = await plan("ivrs");
    expect(p.items).toMatchObject([{ id: "ivr:Front desk", action: "conflict", pbxId: String(gui?.id) }]);
    await apply("ivrs", { "ivr:Front desk": "adopt" });
    const now = await ivrRow("Front desk");
    // The console's columns; FreePBX's as they were, byte for byte.
    const owned = [
      "name",
      "announcement",
      "timeout_time",
      "invalid_loops",
      "timeout_loops",
      "invalid_destination",
      "timeout_destination",
    ];
    const foreign = (r: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(r).filter(([k]) => !owned.includes(k)));
    expect(foreign(now as Row)).toEqual(foreign(gui as Record<string, unknown>));
    expect(now).toMatchObject({ announcement: null, invalid_loops: "5", timeout_loops: "5", timeout_time: 4 });
    expect(await entries(gui?.id)).toEqual(["1 → from-did-direct,1001,1 (0)"]);
    expect((await plan("ivrs")).items.map((i) => i.action)).toEqual(["unchanged"]);
  });

  test("a deploy of IVRs alone names the announcement they need first; deleted in the console, an IVR's rows go", async () => {
    const { main } = await flow();
    const job = await apply("ivrs", {}, false);
    const failed = job.results.filter((r) => r.status === "failed");
    expect(failed.map((r) => r.label)).toContain("Main");
    expect(failed.find((r) => r.label === "Main")?.message).toContain(
      "It sends calls to announcement Closed, which is not on the PBX: deploy it too (or first)",
    );
    // Night needs nothing else: it was written.
    expect(await ivrRow("Night")).toBeDefined();
    expect(await ivrRow("Main")).toBeUndefined();
    await apply("all");
    const written = (await ivrRow("Main")) as Row;
    expect(written).toBeDefined();

    // Deleted in the console (once nothing sends calls to it): deleted on the PBX with its options.
    const route = ((await call("GET", "/api/inbound-routes")) as { id: number }[])[0];
    await call("DELETE", `/api/inbound-routes/${route?.id}`);
    await call("DELETE", `/api/ivrs/${main.id}`);
    const p = await plan("all");
    expect(p.items.filter((i) => i.action === "delete").map((i) => i.id)).toEqual(["inboundRoute:5550100", "ivr:Main"]);
    await apply("all");
    expect(await ivrRow("Main")).toBeUndefined();
    expect(await entries(written.id)).toEqual([]);
    expect(await annRow("Closed")).toBeDefined();
  });
});
