/**
 * Edits reaching FreePBX (ADR 0036 "Changing the key of a deployed object"), against a REAL
 * MariaDB over REAL SSH (test/pbx-host) preloaded with GUI-made objects. Per kind: the console's object is
 * deployed, an administrator changes settings the console does not own in FreePBX, the console edits its
 * key and other fields, then plan → apply. The PBX must hold exactly the edit: the same FreePBX object
 * (no second one, no orphan), every setting the console does not own kept, the GUI-made objects
 * byte-identical. A deployed extension's or PTT group's number is refused (409) instead; a member removed
 * from a PTT group leaves the FreePBX page group while members added in FreePBX stay.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { DeployPlan } from "../../src/shared/plan";
import { applyPlan, consoleOnPbx, type PlanTarget, planItem, planOf } from "../pbx-host/console-on-pbx";
import { GUI, type Snapshot, snapshot } from "../pbx-host/gui-objects";

setDefaultTimeout(60_000);
const { pbx, s } = consoleOnPbx({ seedGui: true });

const plan = (target: PlanTarget) => planOf(s, target);
const actions = (p: DeployPlan) => Object.fromEntries(p.items.map((i) => [i.id, i.action]));
const records = () =>
  s.db.$client
    .query("SELECT kind, key, pbx_id AS pbxId, deployed_members AS members FROM pbx_objects ORDER BY kind, key")
    .all()
    // A page group's record keeps its deployed members too; other kinds have none.
    .map((r) => {
      const { members, ...rest } = r as { kind: string; key: string; pbxId: string | null; members: string | null };
      return members === null ? rest : { ...rest, members };
    });

const send = async (method: string, path: string, body: unknown, status: number) => {
  const r = await s.call(method, path, body);
  expect(r.status, r.text).toBe(status);
  return r.json;
};
const post = (path: string, body: unknown) => send("POST", path, body, 201);
const patch = (path: string, body: unknown) => send("PATCH", path, body, 200);

/** Plans, applies what was planned (no conflicts expected), and checks every written item succeeded. */
async function deploy(target: PlanTarget): Promise<DeployPlan> {
  const p = await plan(target);
  const job = await applyPlan(s, p);
  expect(job.state, JSON.stringify(job)).toBe("succeeded");
  for (const r of job.results) expect(r.status, JSON.stringify(r)).toBe("success");
  return p;
}

// ---- what the console does not own, for a whole-database compare (ADR 0023's ownership table) ----

const TRUNK_KEYWORDS = new Set([
  "trunk_name",
  "sip_server",
  "sip_server_port",
  "username",
  "auth_username",
  "secret",
  "authentication",
  "registration",
  "from_domain",
  "from_user",
  "contact_user",
  "rewrite_contact",
  "trust_rpid",
  "sendrpid",
]);
const drop = (row: Record<string, unknown>, ...cols: string[]) =>
  Object.fromEntries(Object.entries(row).filter(([c]) => !cols.includes(c)));
const sorted = (rows: Record<string, unknown>[]) =>
  rows.map((r) => JSON.stringify(r)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Every row of every FreePBX table the console writes, without the console's owned columns, keywords and
 * list entries of the objects `mine` names (the GUI-made objects are compared whole). `did` maps a moved
 * DID back to the old one so the same route compares equal.
 */
function unowned(
  snap: Snapshot,
  mine: { routeIds?: string[]; groups?: string[]; did?: [string, string] } = {},
): Record<string, string[]> {
  const isGuiRoute = (id: unknown) => !(mine.routeIds ?? []).includes(String(id));
  return {
    devices: sorted(snap.devices.map((r) => drop(r, "description"))),
    users: sorted(snap.users.map((r) => drop(r, "name", "voicemail"))),
    sip: sorted(snap.sip.filter((r) => r.keyword !== "callerid" && r.keyword !== "secret")),
    trunks: sorted(snap.trunks.map((r) => drop(r, "name", "channelid"))),
    pjsip: sorted(snap.pjsip.filter((r) => !TRUNK_KEYWORDS.has(String(r.keyword)))),
    outbound_routes: sorted(snap.outbound_routes.map((r) => drop(r, "name"))),
    // A console route's pattern list and first trunk are the console's; a GUI route's are compared whole.
    outbound_route_patterns: sorted(snap.outbound_route_patterns.filter((r) => isGuiRoute(r.route_id))),
    outbound_route_trunks: sorted(
      snap.outbound_route_trunks.filter((r) => isGuiRoute(r.route_id) || String(r.seq) !== "0"),
    ),
    outbound_route_sequence: sorted(snap.outbound_route_sequence),
    incoming: sorted(
      snap.incoming.map((r) => ({
        ...drop(r, "destination", "description"),
        extension: mine.did && r.extension === mine.did[1] ? mine.did[0] : r.extension,
      })),
    ),
    paging_config: sorted(
      snap.paging_config.map((r) =>
        (mine.groups ?? []).includes(String(r.page_group)) ? drop(r, "description", "duplex") : r,
      ),
    ),
    paging_groups: sorted(snap.paging_groups.filter((r) => !(mine.groups ?? []).includes(String(r.page_number)))),
  };
}

/** The GUI-made objects' rows (whole), which no edit of the console's objects may touch. */
function guiRows(snap: Snapshot) {
  const trunkIds = [String(GUI.trunk.id), String(GUI.failover.id)];
  return {
    devices: snap.devices.filter((r) => r.id === GUI.extension),
    users: snap.users.filter((r) => r.extension === GUI.extension),
    sip: snap.sip.filter((r) => r.id === GUI.extension),
    trunks: snap.trunks.filter((r) => trunkIds.includes(String(r.trunkid))),
    pjsip: snap.pjsip.filter((r) => trunkIds.includes(String(r.id))),
    outbound_routes: snap.outbound_routes.filter((r) => r.route_id === String(GUI.route.id)),
    outbound_route_patterns: snap.outbound_route_patterns.filter((r) => r.route_id === String(GUI.route.id)),
    outbound_route_trunks: snap.outbound_route_trunks.filter((r) => r.route_id === String(GUI.route.id)),
    incoming: snap.incoming.filter((r) => r.extension === GUI.did),
    paging_config: snap.paging_config.filter((r) => r.page_group === GUI.page),
    paging_groups: snap.paging_groups.filter((r) => r.page_number === GUI.page),
  };
}

describe("editing deployed trunks and outbound routes", () => {
  test("a rename updates the same FreePBX trunk and route (recorded ids), keeping what FreePBX set", async () => {
    const trunk = await post("/api/trunks", {
      name: "Telco",
      type: "sip",
      host: "sip.telco.example",
      username: "acme",
      secret: "telco-secret-1",
      registrationEnabled: true,
    });
    const route = await post("/api/outbound-routes", { name: "Local", dialPatterns: ["NXXXXXX"], trunkId: trunk.id });
    await deploy("all");
    const trunkid = (await pbx.query("SELECT trunkid FROM trunks WHERE name = 'Telco'"))[0]?.trunkid as number;
    const route_id = (await pbx.query("SELECT route_id FROM outbound_routes WHERE name = 'Local'"))[0]
      ?.route_id as number;
    expect(trunkid).toBeGreaterThan(GUI.failover.id);
    const tid = String(trunkid);
    const rid = String(route_id);
    expect(records().filter((r) => r.kind !== "extension")).toEqual([
      { kind: "outboundRoute", key: "Local", pbxId: rid },
      { kind: "trunk", key: "Telco", pbxId: tid },
    ]);

    // An administrator tunes both in FreePBX: max channels, codecs, the route's caller ID and a failover trunk.
    await pbx.query("UPDATE trunks SET maxchans = '7', outcid = '5559000' WHERE trunkid = ?", [trunkid]);
    await pbx.query("UPDATE pjsip SET data = 'g722,ulaw' WHERE id = ? AND keyword = 'codecs'", [tid]);
    await pbx.query("UPDATE outbound_routes SET outcid = '5559999', emergency_route = 'YES' WHERE route_id = ?", [
      route_id,
    ]);
    await pbx.query("INSERT INTO outbound_route_trunks (route_id, trunk_id, seq) VALUES (?, ?, 1)", [
      route_id,
      GUI.failover.id,
    ]);
    const before = await snapshot(pbx);

    await patch(`/api/trunks/${trunk.id}`, { name: "Telco Two", host: "sip2.telco.example" });
    await patch(`/api/outbound-routes/${route.id}`, { name: "Local Two", dialPatterns: ["NXXXXXX", "1NXXNXXXXXX"] });
    const p = await plan("all");
    // The same objects, updated in place: no create, no delete.
    expect(actions(p)).toEqual({ "trunk:Telco Two": "update", "outboundRoute:Local Two": "update" });
    const t = planItem(p, "trunk:Telco Two");
    expect(t.pbxId).toBe(tid);
    expect(t.note).toBe(`Renamed from Telco (trunkid ${tid})`);
    expect(t.changes.map((c) => [c.field, c.from, c.to])).toEqual(
      expect.arrayContaining([
        ["trunks.name", "Telco", "Telco Two"],
        ["trunks.channelid", "Telco", "Telco_Two"],
        ["pjsip.sip_server", "sip.telco.example", "sip2.telco.example"],
      ]),
    );
    const r = planItem(p, "outboundRoute:Local Two");
    expect(r.pbxId).toBe(rid);
    expect(r.changes).toEqual(
      expect.arrayContaining([
        { field: "outbound_routes.name", from: "Local", to: "Local Two" },
        { field: "outbound_route_patterns", from: "NXXXXXX", to: "1NXXNXXXXXX, NXXXXXX" },
      ]),
    );
    await deploy("all");

    const after = await snapshot(pbx);
    expect(await pbx.query("SELECT trunkid, name, channelid, maxchans, outcid FROM trunks ORDER BY trunkid")).toEqual([
      {
        trunkid: GUI.trunk.id,
        name: GUI.trunk.name,
        channelid: GUI.trunk.name,
        maxchans: "10",
        outcid: '"ACME" <5551000>',
      },
      { trunkid: GUI.failover.id, name: GUI.failover.name, channelid: GUI.failover.name, maxchans: "", outcid: "" },
      { trunkid: Number(tid), name: "Telco Two", channelid: "Telco_Two", maxchans: "7", outcid: "5559000" },
    ]);
    expect(
      await pbx.query("SELECT data FROM pjsip WHERE id = ? AND keyword IN ('codecs', 'sip_server') ORDER BY keyword", [
        tid,
      ]),
    ).toEqual([{ data: "g722,ulaw" }, { data: "sip2.telco.example" }]);
    expect(
      await pbx.query("SELECT route_id, name, outcid, emergency_route FROM outbound_routes WHERE route_id <> ?", [
        GUI.route.id,
      ]),
    ).toEqual([{ route_id: Number(rid), name: "Local Two", outcid: "5559999", emergency_route: "YES" }]);
    // The console's trunk first, the failover trunk the administrator added still second.
    expect(
      await pbx.query("SELECT trunk_id, seq FROM outbound_route_trunks WHERE route_id = ? ORDER BY seq", [route_id]),
    ).toEqual([
      { trunk_id: Number(tid), seq: 0 },
      { trunk_id: GUI.failover.id, seq: 1 },
    ]);
    expect(unowned(after, { routeIds: [rid] })).toEqual(unowned(before, { routeIds: [rid] }));
    expect(guiRows(after)).toEqual(guiRows(before));
    expect(records().filter((x) => x.kind !== "extension")).toEqual([
      { kind: "outboundRoute", key: "Local Two", pbxId: rid },
      { kind: "trunk", key: "Telco Two", pbxId: tid },
    ]);
    expect(actions(await plan("all"))).toEqual({
      "trunk:Telco Two": "unchanged",
      "outboundRoute:Local Two": "unchanged",
    });
  });
});

describe("editing a deployed inbound route's DID", () => {
  async function deployedRoute() {
    await post("/api/extensions", { extension: "1005", name: "Dana", secret: "console-secret-1005" });
    const route = await post("/api/inbound-routes", {
      description: "Sales line",
      didNumber: "5550001",
      destination: "1005",
      destinationType: "extension",
    });
    await deploy("all");
    // FreePBX settings the console does not model, set on the console's route.
    await pbx.query(
      "UPDATE incoming SET privacyman = 1, mohclass = 'jazz', alertinfo = '<http://y>;info=ring3', delay_answer = 4 WHERE extension = '5550001'",
    );
    return route;
  }
  const dids = async () =>
    (await pbx.query("SELECT extension FROM incoming ORDER BY extension")).map(
      (r: Record<string, unknown>) => r.extension,
    );

  test("the same FreePBX route moves to the new DID with its settings; the old DID routes nothing", async () => {
    const route = await deployedRoute();
    const before = await snapshot(pbx);
    await patch(`/api/inbound-routes/${route.id}`, { didNumber: "5550002", description: "Sales line (new number)" });
    const p = await plan("all");
    expect(actions(p)).toEqual({ "extension:1005": "unchanged", "inboundRoute:5550002": "update" });
    const item = planItem(p, "inboundRoute:5550002");
    expect(item.changes).toEqual([
      { field: "incoming.extension", from: "5550001", to: "5550002" },
      { field: "incoming.description", from: "Sales line", to: "Sales line (new number)" },
    ]);
    expect(item.note).toContain("moves to 5550002 and keeps its settings; 5550001 no longer routes calls");
    await deploy("all");

    expect(await dids()).toEqual(["5550002", GUI.did]);
    expect(
      await pbx.query(
        "SELECT destination, description, privacyman, mohclass, alertinfo, delay_answer FROM incoming WHERE extension = '5550002'",
      ),
    ).toEqual([
      {
        destination: "from-did-direct,1005,1",
        description: "Sales line (new number)",
        privacyman: 1,
        mohclass: "jazz",
        alertinfo: "<http://y>;info=ring3",
        delay_answer: 4,
      },
    ]);
    const after = await snapshot(pbx);
    expect(unowned(after, { did: ["5550001", "5550002"] })).toEqual(unowned(before));
    expect(guiRows(after)).toEqual(guiRows(before));
    expect(records().filter((r) => r.kind === "inboundRoute")).toEqual([
      { kind: "inboundRoute", key: "5550002", pbxId: null },
    ]);
    expect(actions(await plan("all"))).toEqual({ "extension:1005": "unchanged", "inboundRoute:5550002": "unchanged" });

    // Rolling the deployment back puts the row back on the old DID, byte for byte, and the record with it.
    const [last] = (await s.call("GET", "/api/deploy/history")).json;
    const rolled = await s.call("POST", `/api/deploy/history/${last.backup.id}/rollback`, {});
    expect(rolled.status, rolled.text).toBe(202);
    await s.app.jobs.idle();
    expect(await snapshot(pbx)).toEqual(before);
    expect(records().filter((r) => r.kind === "inboundRoute")).toEqual([
      { kind: "inboundRoute", key: "5550001", pbxId: null },
    ]);
    expect(planItem(await plan("all"), "inboundRoute:5550002").changes[0]).toEqual({
      field: "incoming.extension",
      from: "5550001",
      to: "5550002",
    });

    // Without a review (the API clients' deploy), a DID change moves the route the same way: no orphan.
    await patch(`/api/inbound-routes/${route.id}`, { didNumber: "5550003" });
    const direct = await s.call("POST", "/api/deploy/all", {});
    expect(direct.status, direct.text).toBeLessThan(300);
    await s.app.jobs.idle();
    expect(await dids()).toEqual(["5550003", GUI.did]);
    expect(await pbx.query("SELECT privacyman, mohclass FROM incoming WHERE extension = '5550003'")).toEqual([
      { privacyman: 1, mohclass: "jazz" },
    ]);
  });

  test("a new DID that FreePBX already routes is refused in the plan: nothing moves, nothing is taken over", async () => {
    const route = await deployedRoute();
    const before = await snapshot(pbx);
    // The console knows no route with the GUI's DID, so the edit is valid in the console.
    await patch(`/api/inbound-routes/${route.id}`, { didNumber: GUI.did });
    const p = await plan("all");
    expect(p.items.map((i) => i.id)).toEqual(["extension:1005"]);
    expect(p.refused).toEqual([
      {
        kind: "inboundRoute",
        key: GUI.did,
        reason: `The DID changed from 5550001, but ${GUI.did} already has an inbound route on the PBX: this route stays on 5550001 until that one is gone (removed in FreePBX, or deleted by a deploy of the console's)`,
      },
    ]);
    const job = await applyPlan(s, p);
    // Reported as failed with the reason: never a success that did not happen.
    expect(job.results).toEqual([{ label: GUI.did, status: "failed", message: p.refused[0]?.reason }]);
    expect(await snapshot(pbx)).toEqual(before);
    expect(records().filter((r) => r.kind === "inboundRoute")).toEqual([
      { kind: "inboundRoute", key: "5550001", pbxId: null },
    ]);
  });
});

describe("editing deployed extensions and PTT groups", () => {
  test("their numbers cannot change (409 naming the way); other fields deploy and FreePBX's settings stay", async () => {
    await post("/api/extensions", { extension: "1005", name: "Dana", secret: "console-secret-1005" });
    await post("/api/extensions", { extension: "1006", name: "Eve", secret: "console-secret-1006" });
    const group = await post("/api/ptt-groups", { name: "Yard", extension: "7100", members: ["1005", "1006"] });
    const dana = (await s.call("GET", "/api/extensions")).json.find(
      (e: { extension: string }) => e.extension === "1005",
    );
    await deploy("all");
    await deploy("ptt-groups");
    await pbx.query("UPDATE users SET ringtimer = 33, outboundcid = '5551005' WHERE extension = '1005'");
    await pbx.query("UPDATE paging_config SET force_page = 2, volume = 4 WHERE page_group = '7100'");

    const ext = await s.call("PATCH", `/api/extensions/${dana.id}`, { extension: "1007" });
    expect(ext.status).toBe(409);
    const extMessage =
      "Extension 1005 is deployed to the PBX, and an extension's number cannot change in FreePBX (it would be deleted and created again, losing what was set for it in FreePBX). To use 1007: create extension 1007, move its users and phones to it, then delete 1005.";
    expect(ext.json.error).toEqual({ message: extMessage, fields: { extension: extMessage } });
    const ptt = await s.call("PATCH", `/api/ptt-groups/${group.id}`, { extension: "7101" });
    expect(ptt.status).toBe(409);
    expect(ptt.json.error.message).toBe(
      "PTT group 7100 is deployed to the PBX as page group 7100, and its number cannot change there (it would be deleted and created again, losing what was set for it in FreePBX). To use 7101: create a PTT group 7101 with the same members, then delete 7100.",
    );
    // Nothing changed in the console.
    expect((await s.call("GET", "/api/extensions")).json.map((e: { extension: string }) => e.extension)).toEqual([
      "1005",
      "1006",
    ]);
    expect((await s.call("GET", "/api/ptt-groups")).json.map((g: { extension: string }) => g.extension)).toEqual([
      "7100",
    ]);

    // Not deployed yet: renumbered freely.
    const fresh = await post("/api/extensions", { extension: "1008", name: "Finn" });
    expect((await patch(`/api/extensions/${fresh.id}`, { extension: "1009" })).extension).toBe("1009");

    // Other fields of a deployed extension: the same FreePBX extension is updated.
    const before = await snapshot(pbx);
    await patch(`/api/extensions/${dana.id}`, { name: "Dana B" });
    const p = await plan("extensions");
    expect(actions(p)).toEqual({
      "extension:1005": "update",
      "extension:1006": "unchanged",
      "extension:1009": "create",
    });
    expect(
      planItem(p, "extension:1005")
        .changes.map((c) => c.field)
        .sort(),
    ).toEqual(["devices.description", "sip.callerid", "users.name"]);
    await deploy("extensions");
    expect(await pbx.query("SELECT name, ringtimer, outboundcid FROM users WHERE extension = '1005'")).toEqual([
      { name: "Dana B", ringtimer: 33, outboundcid: "5551005" },
    ]);
    const after = await snapshot(pbx);
    const without1009 = (snap: Snapshot) =>
      unowned({
        ...snap,
        devices: snap.devices.filter((r) => r.id !== "1009"),
        users: snap.users.filter((r) => r.extension !== "1009"),
        sip: snap.sip.filter((r) => r.id !== "1009"),
      });
    expect(without1009(after)).toEqual(without1009(before));
    expect(guiRows(after)).toEqual(guiRows(before));
  });

  test("a member removed in the console leaves the FreePBX page group; members added in FreePBX stay", async () => {
    await post("/api/extensions", { extension: "1005", name: "Dana" });
    await post("/api/extensions", { extension: "1006", name: "Eve" });
    const group = await post("/api/ptt-groups", { name: "Yard", extension: "7100", members: ["1005", "1006"] });
    await deploy("ptt-groups");
    // The record keeps the members the console wrote; the plan shows no PBX id for a page group.
    expect(records()).toEqual([{ kind: "pttGroup", key: "7100", pbxId: null, members: '["1005","1006"]' }]);
    // In FreePBX: the GUI's extension 1001 joins the group, busy handling and volume are set.
    await pbx.query("INSERT INTO paging_groups (page_number, ext) VALUES ('7100', '1001')");
    await pbx.query("UPDATE paging_config SET force_page = 1, volume = 5 WHERE page_group = '7100'");
    const before = await snapshot(pbx);
    const members = async () =>
      (await pbx.query("SELECT ext FROM paging_groups WHERE page_number = '7100' ORDER BY ext")).map(
        (r: Record<string, unknown>) => r.ext,
      );

    await patch(`/api/ptt-groups/${group.id}`, { members: ["1005"], name: "Yard crew" });
    const p = await plan("ptt-groups");
    const item = planItem(p, "pttGroup:7100");
    expect(item.action).toBe("update");
    expect(item.pbxId).toBeNull();
    expect(item.changes).toEqual([
      { field: "paging_config.description", from: "Yard", to: "Yard crew" },
      { field: "paging_groups", from: "1001, 1005, 1006", to: "1001, 1005" },
    ]);
    await deploy("ptt-groups");
    expect(await members()).toEqual(["1001", "1005"]);
    expect(
      await pbx.query("SELECT description, force_page, volume FROM paging_config WHERE page_group = '7100'"),
    ).toEqual([{ description: "Yard crew", force_page: 1, volume: 5 }]);
    const after = await snapshot(pbx);
    expect(unowned(after, { groups: ["7100"] })).toEqual(unowned(before, { groups: ["7100"] }));
    expect(guiRows(after)).toEqual(guiRows(before));
    expect(records()).toEqual([{ kind: "pttGroup", key: "7100", pbxId: null, members: '["1005"]' }]);
    expect(actions(await plan("ptt-groups"))).toEqual({ "pttGroup:7100": "unchanged" });

    // Removed in FreePBX too? Nothing more to remove. Added back in the console: written again.
    await patch(`/api/ptt-groups/${group.id}`, { members: ["1005", "1006"] });
    await deploy("ptt-groups");
    expect(await members()).toEqual(["1001", "1005", "1006"]);
    // A member the console never wrote (1001, FreePBX's) is never removed, even when the console drops all of its own but one.
    await patch(`/api/ptt-groups/${group.id}`, { members: ["1006"] });
    await deploy("ptt-groups");
    expect(await members()).toEqual(["1001", "1006"]);

    // A record from before the console kept its members: they are not known, so nothing is removed; the
    // write records them.
    s.db.$client.query("UPDATE pbx_objects SET deployed_members = NULL").run();
    await patch(`/api/ptt-groups/${group.id}`, { members: ["1005"] });
    expect(planItem(await plan("ptt-groups"), "pttGroup:7100").changes).toEqual([
      { field: "paging_groups", from: "1001, 1006", to: "1001, 1006, 1005" },
    ]);
    await deploy("ptt-groups");
    expect(await members()).toEqual(["1001", "1005", "1006"]);
    expect(records()).toEqual([{ kind: "pttGroup", key: "7100", pbxId: null, members: '["1005"]' }]);
  });
});
