/**
 * The call recording policy (ADR 0061) on a real FreePBX 17 copy over real SSH (test/pbx-host): an extension's
 * modes go to AstDB `AMPUSER/<n>/recording/…` and a route's to the callrecording module's `callrecording_module`
 * row, as FreePBX's own pages write them; the plan shows each from → to; FreePBX's reload generates the
 * `sub-record-check` hooks from those rows; a field the console leaves to the PBX (null) keeps FreePBX's value;
 * a delete removes the route's row; a roll back puts keys and rows back; Sync import reads the policy back.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DeployHistoryEntry } from "../../src/shared/deploy-history";
import type { DeployPlan, ImportPlan, PlanItem } from "../../src/shared/plan";
import { applyPlan, consoleOnPbx, planItem, planOf } from "../pbx-host/console-on-pbx";

setDefaultTimeout(90_000);
const { pbx, s } = consoleOnPbx({});

const post = async (path: string, body: unknown) => {
  const r = await s.call("POST", path, body);
  expect(r.status, r.text).toBe(201);
  return r.json;
};
const patch = async (path: string, body: unknown) => {
  const r = await s.call("PATCH", path, body);
  expect(r.status, r.text).toBe(200);
  return r.json;
};
const applied = async (p: DeployPlan) => {
  const job = await applyPlan(s, p);
  expect(job.state, JSON.stringify(job.results)).toBe("succeeded");
};
const recordingChanges = (i: PlanItem) =>
  i.changes.filter((c) => c.field.includes("recording")).map((c) => `${c.field}: ${c.from} → ${c.to}`);
const actions = (p: DeployPlan) => Object.fromEntries(p.items.map((i) => [i.id, i.action]));
const rows = () =>
  pbx.query("SELECT display, extension, cidnum, callrecording FROM callrecording_module ORDER BY display, extension");
const policy = async (n: string) => {
  const all = await pbx.astdb();
  return Object.fromEntries(
    Object.entries(all)
      .filter(([k]) => k.startsWith(`/AMPUSER/${n}/recording/`))
      .map(([k, v]) => [k.slice(`/AMPUSER/${n}/recording/`.length), v]),
  );
};
const dialplan = () => readFileSync(join(pbx.root, "etc/asterisk/extensions_additional.conf"), "utf8");

describe("an extension's policy", () => {
  test("the plan shows each AstDB key from → to; the apply puts them as core's Extensions page does; null keeps the PBX's", async () => {
    const ext = await post("/api/extensions", {
      extension: "2001",
      name: "Dora",
      recordingOutInternal: "force",
      recordingInExternal: null,
    });
    expect(ext).toMatchObject({
      recordingOutInternal: "force",
      recordingInExternal: null,
      recordingOnDemand: "disabled",
    });
    const p = await planOf(s, "extensions");
    // A new extension: its modes as written (no key is there yet, and none FreePBX reads as don't care is listed).
    expect(recordingChanges(planItem(p, "extension:2001"))).toEqual([
      "AMPUSER/2001/recording/out/internal: null → force",
      "AMPUSER/2001/recording/ondemand: null → disabled",
    ]);
    await applied(p);
    // Core's addUser writes every key; the console's values where it holds one, FreePBX's default elsewhere.
    expect(await policy("2001")).toEqual({
      "in/external": "dontcare",
      "out/external": "dontcare",
      "in/internal": "dontcare",
      "out/internal": "force",
      ondemand: "disabled",
      priority: "10",
    });

    // Changed in FreePBX: the console's field is set back (shown in the plan), the PBX's own field stays.
    await pbx.cli("database put AMPUSER 2001/recording/out/internal yes");
    await pbx.cli("database put AMPUSER 2001/recording/in/external never");
    const again = await planOf(s, "extensions");
    expect(planItem(again, "extension:2001").action).toBe("update");
    expect(recordingChanges(planItem(again, "extension:2001"))).toEqual([
      "AMPUSER/2001/recording/out/internal: yes → force",
    ]);
    await applied(again);
    expect(await policy("2001")).toMatchObject({ "out/internal": "force", "in/external": "never" });
    expect(actions(await planOf(s, "extensions"))).toEqual({ "extension:2001": "unchanged" });

    // Left to the PBX from now on: FreePBX's value is no change, and a deploy does not touch it.
    await patch(`/api/extensions/${ext.id}`, { recordingOutInternal: null });
    await pbx.cli("database put AMPUSER 2001/recording/out/internal no");
    expect(actions(await planOf(s, "extensions"))).toEqual({ "extension:2001": "unchanged" });
  });

  test("a roll back puts the keys back as they were", async () => {
    await post("/api/extensions", { extension: "2002", name: "Eve", recordingInInternal: "never" });
    await applied(await planOf(s, "extensions"));
    const ext = (await s.call("GET", "/api/extensions")).json[0];
    await patch(`/api/extensions/${ext.id}`, { recordingInInternal: "force", recordingOnDemand: "override" });
    await applied(await planOf(s, "extensions"));
    expect(await policy("2002")).toMatchObject({ "in/internal": "force", ondemand: "override" });
    const [latest] = (await s.call("GET", "/api/deploy/history")).json as DeployHistoryEntry[];
    const r = await s.call("POST", `/api/deploy/history/${latest?.backup?.id}/rollback`, {});
    expect(r.status, r.text).toBe(202);
    await s.app.jobs.idle();
    expect(s.app.jobs.get(r.json.jobId).state).toBe("succeeded");
    expect(await policy("2002")).toMatchObject({ "in/internal": "never", ondemand: "disabled" });
  });
});

describe("a route's policy", () => {
  test("callrecording_module rows as FreePBX writes them, the hooks its reload generates; don't care and null add no row; a delete removes it", async () => {
    const trunk = await post("/api/trunks", { name: "Carrier", type: "sip", host: "sip.example.com" });
    const out = await post("/api/outbound-routes", {
      name: "Out",
      dialPatterns: ["NXXNXXXXXX"],
      trunkId: trunk.id,
      recording: "never",
    });
    await post("/api/inbound-routes", {
      description: "Sales",
      didNumber: "5550100",
      destination: "",
      destinationType: "hangup",
      recording: "force",
    });
    await post("/api/inbound-routes", {
      description: "Support",
      didNumber: "5550101",
      destination: "",
      destinationType: "hangup",
    });
    const p = await planOf(s, "all");
    expect(recordingChanges(planItem(p, "inboundRoute:5550100"))).toEqual([
      "callrecording_module.callrecording: dontcare → force",
    ]);
    expect(recordingChanges(planItem(p, "inboundRoute:5550101"))).toEqual([]);
    expect(recordingChanges(planItem(p, "outboundRoute:Out"))).toEqual([
      "callrecording_module.callrecording: dontcare → never",
    ]);
    await applied(p);
    const routeId = String((await pbx.query("SELECT route_id FROM outbound_routes WHERE name = 'Out'"))[0]?.route_id);
    // callrecording_display_update: a DID's row has its caller ID ('' for any), a route's a NULL one.
    expect(await rows()).toEqual([
      { display: "did", extension: "5550100", cidnum: "", callrecording: "force" },
      { display: "routing", extension: routeId, cidnum: null, callrecording: "never" },
    ]);
    // The module's own hook finds the DID's row (joined to `incoming`), and FreePBX's reload spliced both checks.
    const hooked = await pbx.query(
      "SELECT callrecording_module.extension FROM callrecording_module, incoming WHERE callrecording_module.cidnum = incoming.cidnum AND callrecording_module.extension = incoming.extension AND callrecording_module.display = 'did'",
    );
    expect(hooked).toEqual([{ extension: "5550100" }]);
    const text = dialplan();
    // FreePBX splices each check right after the context's first line.
    expect(text).toContain(`exten => 5550100,n,Gosub(sub-record-check,s,1(in,\${EXTEN},force))`);
    const outrt = text.slice(text.indexOf(`[outrt-${routeId}]`), text.indexOf(`end of [outrt-${routeId}]`));
    expect(outrt).toContain(`exten => _NXXNXXXXXX,n,Gosub(sub-record-check,s,1(out,\${EXTEN},never))`);
    expect(Object.values(actions(await planOf(s, "all")))).toEqual([
      "unchanged",
      "unchanged",
      "unchanged",
      "unchanged",
    ]);

    // A mode set in FreePBX on a don't-care route: set back (only the row that is there is updated).
    await pbx.query(
      "INSERT INTO callrecording_module (display, extension, cidnum, callrecording) VALUES ('did', '5550101', '', 'yes')",
    );
    const back = await planOf(s, "all");
    expect(recordingChanges(planItem(back, "inboundRoute:5550101"))).toEqual([
      "callrecording_module.callrecording: yes → dontcare",
    ]);
    await applied(back);
    expect((await rows()).find((r) => r.extension === "5550101")?.callrecording).toBe("dontcare");

    // Left to the PBX: FreePBX's value stays.
    const sales = (await s.call("GET", "/api/inbound-routes")).json.find(
      (r: { didNumber: string }) => r.didNumber === "5550100",
    );
    await patch(`/api/inbound-routes/${sales.id}`, { recording: null });
    await pbx.query("UPDATE callrecording_module SET callrecording = 'no' WHERE extension = '5550100'");
    expect(actions(await planOf(s, "all"))["inboundRoute:5550100"]).toBe("unchanged");

    // A managed route deleted in the console: its row goes with it (the module's delroute hook).
    expect((await s.call("DELETE", `/api/outbound-routes/${out.id}`)).status).toBe(200);
    const gone = await planOf(s, "all");
    expect(planItem(gone, "outboundRoute:Out").action).toBe("delete");
    await applied(gone);
    expect((await rows()).filter((r) => r.display === "routing")).toEqual([]);
  });
});

describe("Sync import", () => {
  test("reads each extension's policy back from AstDB: an adopted extension keeps it", async () => {
    await pbx.query(
      "INSERT INTO devices (id, tech, dial, devicetype, user, description, emergency_cid) VALUES ('2003', 'pjsip', 'PJSIP/2003', 'fixed', '2003', 'Finn', '')",
    );
    await pbx.query(
      "INSERT INTO users (extension, password, name, voicemail, ringtimer, noanswer, recording, outboundcid, sipname, noanswer_cid, busy_cid, chanunavail_cid, noanswer_dest, busy_dest, chanunavail_dest) VALUES ('2003', '', 'Finn', 'novm', 0, '', '', '', '', '', '', '', '', '', '')",
    );
    await pbx.setAstdb({
      "/DEVICE/2003/dial": "PJSIP/2003",
      "/AMPUSER/2003/recording/in/external": "force",
      "/AMPUSER/2003/recording/out/external": "dontcare",
      "/AMPUSER/2003/recording/in/internal": "Always",
      "/AMPUSER/2003/recording/out/internal": "never",
      "/AMPUSER/2003/recording/ondemand": "disabled",
    });
    const r = await s.call("POST", "/api/sync/extensions/plan", { mode: "all" });
    expect(r.status, r.text).toBe(200);
    const plan = r.json as ImportPlan;
    const item = plan.items.find((i) => i.key === "2003");
    // The defaults are not listed (a new console extension has them); FreePBX's legacy "Always" is Force.
    expect(item?.changes.filter((c) => c.field.startsWith("recording"))).toEqual([
      { field: "recordingInExternal", from: null, to: "force" },
      { field: "recordingInInternal", from: null, to: "force" },
      { field: "recordingOutInternal", from: null, to: "never" },
    ]);
    const imported = await s.call("POST", "/api/sync/extensions/import", {
      mode: "all",
      fingerprint: plan.fingerprint,
    });
    expect(imported.status, imported.text).toBe(202);
    await s.app.jobs.idle();
    const ext = (await s.call("GET", "/api/extensions")).json.find(
      (e: { extension: string }) => e.extension === "2003",
    );
    expect(ext).toMatchObject({
      recordingInExternal: "force",
      recordingOutExternal: "dontcare",
      recordingInInternal: "force",
      recordingOutInternal: "never",
      recordingOnDemand: "disabled",
    });
    // Deploying the adopted extension changes nothing of its policy but spelling FreePBX's legacy value.
    const p = await planOf(s, "extensions");
    expect(recordingChanges(planItem(p, "extension:2003"))).toEqual([
      "AMPUSER/2003/recording/in/internal: Always → force",
    ]);
  });
});
