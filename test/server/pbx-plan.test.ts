/**
 * Plan, then apply; ownership; deletes (ADR 0025) over HTTP, against a REAL
 * MariaDB over REAL SSH (test/pbx-host) preloaded with GUI-made FreePBX objects that carry settings the
 * console does not model.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { DeployPlan, PlanItem } from "../../src/shared/plan";
import { applyPlan, consoleOnPbx, type PlanTarget, planItem, planOf } from "../pbx-host/console-on-pbx";
import { GUI, type Snapshot, seedGuiObjects, snapshot } from "../pbx-host/gui-objects";

setDefaultTimeout(60_000);
const { pbx, s } = consoleOnPbx({});

const plan = (target: PlanTarget) => planOf(s, target);
const apply = (p: DeployPlan, resolutions: Record<string, "adopt" | "skip"> = {}) => applyPlan(s, p, resolutions);
const item = planItem;
const actions = (p: DeployPlan) => Object.fromEntries(p.items.map((i) => [i.id, i.action]));
const fields = (i: PlanItem) => i.changes.map((c) => c.field).sort();
const records = () =>
  s.db.$client.query("SELECT kind, key, pbx_id AS pbxId, origin FROM pbx_objects ORDER BY kind, key").all();

const post = async (path: string, body: unknown) => {
  const r = await s.call("POST", path, body);
  expect(r.status, r.text).toBe(201);
  return r.json;
};

/** The console's objects with the identities of the GUI-made ones, plus a new extension 1002. */
async function seedConsole() {
  await post("/api/extensions", {
    extension: "1001",
    name: "Alice Console",
    voicemail: true,
    secret: "console-secret-1001",
  });
  await post("/api/extensions", { extension: "1002", name: "Bob", secret: "console-secret-1002" });
  const trunk = await post("/api/trunks", {
    name: GUI.trunk.name,
    type: "sip",
    host: "sip.new-carrier.example",
    port: 5070,
    username: "acme",
    secret: "new-trunk-secret-9",
    registrationEnabled: true,
  });
  await post("/api/outbound-routes", { name: GUI.route.name, dialPatterns: ["NXXNXXXXXX", "011."], trunkId: trunk.id });
  await post("/api/inbound-routes", {
    description: "Main line",
    didNumber: GUI.did,
    destination: "1002",
    destinationType: "extension",
  });
}

/** The rows of one extension (every table), to prove they did not move. */
const extensionRows = (snap: Snapshot, n: string) => ({
  devices: snap.devices.filter((r) => r.id === n),
  users: snap.users.filter((r) => r.extension === n),
  sip: snap.sip.filter((r) => r.id === n),
});
const trunkRows = (snap: Snapshot, id: number) => ({
  trunks: snap.trunks.filter((r) => r.trunkid === String(id)),
  pjsip: snap.pjsip.filter((r) => r.id === String(id)),
});

describe("the plan", () => {
  test("objects made in FreePBX are conflicts with the owned fields adopting would change; new ones are creates", async () => {
    await seedGuiObjects(pbx);
    // FreePBX wrote 1001's AstDB entries (a missing one would be an "astdb" change to adopt).
    await pbx.setAstdb({ "/DEVICE/1001/dial": "PJSIP/1001" });
    await seedConsole();
    const before = await snapshot(pbx);
    const p = await plan("all");
    expect(p.via).toBe("ssh");
    expect(p.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(actions(p)).toEqual({
      "trunk:Carrier": "conflict",
      "extension:1001": "conflict",
      "extension:1002": "create",
      "outboundRoute:Outbound": "conflict",
      [`inboundRoute:${GUI.did}`]: "conflict",
    });
    expect(p.counts).toEqual({ create: 1, update: 0, delete: 0, conflict: 4, unchanged: 0 });
    // Only console-owned fields: ring time, outbound CID, max_contacts, codecs… never appear.
    const alice = item(p, "extension:1001");
    // Its AstDB has no on-demand key, which FreePBX reads as allowed: the console's default (disabled) differs.
    expect(fields(alice)).toEqual([
      "AMPUSER/1001/recording/ondemand",
      "devices.description",
      "sip.callerid",
      "sip.secret",
      "users.name",
    ]);
    expect(alice.changes.find((c) => c.field === "users.name")).toEqual({
      field: "users.name",
      from: "Alice GUI",
      to: "Alice Console",
    });
    // Secrets are masked; only the fact that it changes shows.
    expect(alice.changes.find((c) => c.field === "sip.secret")).toEqual({
      field: "sip.secret",
      from: "••••••",
      to: "••••••",
      secret: true,
    });
    expect(JSON.stringify(p)).not.toContain(GUI.extensionSecret);
    expect(JSON.stringify(p)).not.toContain("console-secret-1001");
    expect(alice.note).toContain("not managed by the console");
    const carrier = item(p, "trunk:Carrier");
    expect(carrier.pbxId).toBe(String(GUI.trunk.id));
    expect(fields(carrier)).toEqual([
      "pjsip.auth_username",
      "pjsip.secret",
      "pjsip.sip_server",
      "pjsip.sip_server_port",
      "pjsip.username",
    ]);
    expect(carrier.changes.find((c) => c.field === "pjsip.sip_server")).toMatchObject({
      from: "sip.carrier.example",
      to: "sip.new-carrier.example",
    });
    // The route: the pattern list (911 goes, 011. comes); its first trunk is already Carrier.
    expect(item(p, "outboundRoute:Outbound").changes).toEqual([
      { field: "outbound_route_patterns", from: "911, NXXNXXXXXX", to: "011., NXXNXXXXXX" },
    ]);
    expect(fields(item(p, `inboundRoute:${GUI.did}`))).toEqual(["incoming.description", "incoming.destination"]);
    // A plan writes nothing, and the audit has it.
    expect(await snapshot(pbx)).toEqual(before);
    const audit = (await s.call("GET", "/api/audit?action=deploy.plan")).json;
    expect(JSON.stringify(audit)).toContain("1 create, 0 update, 0 delete, 4 conflict, 0 unchanged");
  });

  test("a managed object: a PBX-side change of an owned field is an update from → to; other fields are not the console's", async () => {
    await post("/api/extensions", { extension: "2001", name: "Dora" });
    const first = await plan("extensions");
    expect(actions(first)).toEqual({ "extension:2001": "create" });
    expect((await apply(first)).state).toBe("succeeded");
    expect(records()).toEqual([{ kind: "extension", key: "2001", pbxId: null, origin: "deploy" }]);
    expect(actions(await plan("extensions"))).toEqual({ "extension:2001": "unchanged" });

    await pbx.query("UPDATE users SET ringtimer = 40, outboundcid = '5550000' WHERE extension = '2001'");
    expect(actions(await plan("extensions"))).toEqual({ "extension:2001": "unchanged" });
    await pbx.query("UPDATE users SET name = 'Dora (PBX)' WHERE extension = '2001'");
    const p = await plan("extensions");
    expect(item(p, "extension:2001")).toMatchObject({
      action: "update",
      changes: [{ field: "users.name", from: "Dora (PBX)", to: "Dora" }],
    });
    expect((await apply(p)).state).toBe("succeeded");
    expect(await pbx.query("SELECT name, ringtimer, outboundcid FROM users WHERE extension = '2001'")).toEqual([
      { name: "Dora", ringtimer: 40, outboundcid: "5550000" },
    ]);
  });

  test("a managed extension without its AstDB entries is an update that writes them", async () => {
    await post("/api/extensions", { extension: "2001", name: "Dora" });
    await apply(await plan("extensions"));
    await pbx.setAstdb({});
    const p = await plan("extensions");
    // The recording modes FreePBX reads as don't care while absent are no change; on-demand's absence allows it.
    expect(item(p, "extension:2001")).toMatchObject({
      action: "update",
      changes: [
        { field: "AMPUSER/2001/recording/ondemand", from: null, to: "disabled" },
        { field: "astdb", from: null },
      ],
    });
    await apply(p);
    expect((await pbx.astdb())["/DEVICE/2001/dial"]).toBe("PJSIP/2001");
    expect((await pbx.astdb())["/AMPUSER/2001/recording/out/internal"]).toBe("dontcare");
  });

  test("deployed before ownership records existed: conflicts that already have the console's values", async () => {
    await post("/api/extensions", { extension: "2001", name: "Dora" });
    await apply(await plan("extensions"));
    s.db.$client.query("DELETE FROM pbx_objects").run();
    const p = await plan("extensions");
    expect(item(p, "extension:2001")).toMatchObject({ action: "conflict", changes: [] });
    expect(item(p, "extension:2001").note).toContain("It already has the console's values");
    await apply(p, { "extension:2001": "adopt" });
    expect(records()).toEqual([{ kind: "extension", key: "2001", pbxId: null, origin: "adopt" }]);
    expect(actions(await plan("extensions"))).toEqual({ "extension:2001": "unchanged" });
  });
});

describe("apply", () => {
  test("adopt vs skip: the adopted object is merged and managed, the skipped one stays byte-identical", async () => {
    await seedGuiObjects(pbx);
    await seedConsole();
    const before = await snapshot(pbx);
    const p = await plan("all");
    const job = await apply(p, {
      "extension:1001": "adopt",
      "trunk:Carrier": "skip",
      "outboundRoute:Outbound": "skip",
    });
    // The inbound route's conflict has no resolution: it is skipped too.
    expect(job.state).toBe("succeeded");
    expect(job.results.map((r: any) => r.label).sort()).toEqual(["1001 - Alice Console", "1002 - Bob"]);
    const after = await snapshot(pbx);
    expect(trunkRows(after, GUI.trunk.id)).toEqual(trunkRows(before, GUI.trunk.id));
    expect(after.outbound_routes).toEqual(before.outbound_routes);
    expect(after.outbound_route_patterns).toEqual(before.outbound_route_patterns);
    expect(after.incoming).toEqual(before.incoming);
    // Adopted: only owned fields moved; ring time, outbound CID, voicemail context "sales" stay.
    const alice = await pbx.query("SELECT name, ringtimer, outboundcid, voicemail FROM users WHERE extension = '1001'");
    expect(alice).toEqual([
      { name: "Alice Console", ringtimer: 25, outboundcid: '"Alice" <5551000>', voicemail: "sales" },
    ]);
    expect(extensionRows(after, "1002").devices).toHaveLength(1);
    expect(records()).toEqual([
      { kind: "extension", key: "1001", pbxId: null, origin: "adopt" },
      { kind: "extension", key: "1002", pbxId: null, origin: "deploy" },
    ]);
    const next = await plan("all");
    expect(actions(next)).toMatchObject({
      "extension:1001": "unchanged",
      "extension:1002": "unchanged",
      "trunk:Carrier": "conflict",
    });
  });

  test("a stale plan is refused with 409 and the new plan; nothing is written and no job starts", async () => {
    await post("/api/extensions", { extension: "2001", name: "Dora" });
    const p = await plan("extensions");
    const before = await snapshot(pbx);
    // The PBX changes after the review: someone makes 2001 in FreePBX.
    await pbx.query(
      "INSERT INTO devices (id, tech, dial, devicetype, user, description) VALUES ('2001', 'pjsip', 'PJSIP/2001', 'fixed', '2001', 'Lobby')",
    );
    const jobsBefore = (await s.call("GET", "/api/jobs")).json.length;
    const res = await s.call("POST", "/api/deploy/apply", {
      target: "extensions",
      fingerprint: p.fingerprint,
      resolutions: {},
    });
    expect(res.status).toBe(409);
    expect(res.json.error.message).toBe("The PBX or the console changed since this plan: review the new plan");
    expect(actions(res.json.plan)).toEqual({ "extension:2001": "conflict" });
    expect(res.json.plan.fingerprint).not.toBe(p.fingerprint);
    expect((await s.call("GET", "/api/jobs")).json.length).toBe(jobsBefore);
    const after = await snapshot(pbx);
    expect({ ...after, devices: [] }).toEqual({ ...before, devices: [] });
    // A change in the console makes a plan stale too.
    const fresh = res.json.plan as DeployPlan;
    await post("/api/extensions", { extension: "2002", name: "Eve" });
    const again = await s.call("POST", "/api/deploy/apply", {
      target: "extensions",
      fingerprint: fresh.fingerprint,
      resolutions: {},
    });
    expect(again.status).toBe(409);
    expect(await pbx.query("SELECT id FROM devices ORDER BY id")).toEqual([{ id: "2001" }]);
  });

  test("renaming a managed trunk and route updates the same trunkid and route_id", async () => {
    await seedGuiObjects(pbx);
    const trunk = await post("/api/trunks", { name: "Acme", type: "sip", host: "sip.acme.example" });
    await post("/api/outbound-routes", { name: "Acme out", dialPatterns: ["NXXXXXX"], trunkId: trunk.id });
    const first = await plan("all");
    expect(actions(first)).toEqual({ "trunk:Acme": "create", "outboundRoute:Acme out": "create" });
    expect((await apply(first)).state).toBe("succeeded");
    const acme = (await pbx.query("SELECT trunkid FROM trunks WHERE name = 'Acme'"))[0] as { trunkid: number };
    const route = (await pbx.query("SELECT route_id FROM outbound_routes WHERE name = 'Acme out'"))[0] as {
      route_id: number;
    };
    expect(records()).toEqual([
      { kind: "outboundRoute", key: "Acme out", pbxId: String(route.route_id), origin: "deploy" },
      { kind: "trunk", key: "Acme", pbxId: String(acme.trunkid), origin: "deploy" },
    ]);
    const before = await snapshot(pbx);

    s.db.$client.query("UPDATE trunks SET name = 'Acme Two' WHERE id = ?").run(trunk.id);
    s.db.$client.query("UPDATE outbound_routes SET name = 'Acme out 2' WHERE name = 'Acme out'").run();
    const p = await plan("all");
    const renamed = item(p, "trunk:Acme Two");
    expect(renamed).toMatchObject({ action: "update", pbxId: String(acme.trunkid) });
    expect(renamed.note).toContain("Renamed from Acme");
    expect(renamed.changes).toContainEqual({ field: "trunks.name", from: "Acme", to: "Acme Two" });
    expect(item(p, "outboundRoute:Acme out 2")).toMatchObject({ action: "update", pbxId: String(route.route_id) });
    expect((await apply(p)).state).toBe("succeeded");
    expect(await pbx.query("SELECT trunkid, name FROM trunks ORDER BY trunkid")).toEqual([
      { trunkid: GUI.trunk.id, name: GUI.trunk.name },
      { trunkid: GUI.failover.id, name: GUI.failover.name },
      { trunkid: acme.trunkid, name: "Acme Two" },
    ]);
    expect(await pbx.query("SELECT route_id, name FROM outbound_routes ORDER BY route_id")).toEqual([
      { route_id: GUI.route.id, name: GUI.route.name },
      { route_id: route.route_id, name: "Acme out 2" },
    ]);
    // Its route still uses it, by id; the GUI-made objects did not move.
    expect(await pbx.query("SELECT trunk_id FROM outbound_route_trunks WHERE route_id = ?", [route.route_id])).toEqual([
      { trunk_id: acme.trunkid },
    ]);
    const after = await snapshot(pbx);
    expect(trunkRows(after, GUI.trunk.id)).toEqual(trunkRows(before, GUI.trunk.id));
    expect(extensionRows(after, GUI.extension)).toEqual(extensionRows(before, GUI.extension));
    expect(records()).toMatchObject([
      { key: "Acme out 2", pbxId: String(route.route_id) },
      { key: "Acme Two", pbxId: String(acme.trunkid) },
    ]);
    expect(Object.values(actions(await plan("all"))).filter((a) => a !== "conflict")).toEqual([
      "unchanged",
      "unchanged",
    ]);
  });
});

describe("deletes reach the PBX", () => {
  test("managed objects removed in the console are deleted (rows and AstDB); unmanaged ones never", async () => {
    await seedGuiObjects(pbx);
    const guiAstdb = { "/DEVICE/1001/dial": "PJSIP/1001", "/AMPUSER/1001/cidname": "Alice GUI" };
    await pbx.setAstdb(guiAstdb);
    const bob = await post("/api/extensions", { extension: "1002", name: "Bob" });
    const trunk = await post("/api/trunks", { name: "Acme", type: "sip", host: "sip.acme.example" });
    const route = await post("/api/outbound-routes", {
      name: "Acme out",
      dialPatterns: ["NXXXXXX"],
      trunkId: trunk.id,
    });
    const inbound = await post("/api/inbound-routes", {
      description: "Bob's line",
      didNumber: "5550002",
      destination: "1002",
      destinationType: "extension",
    });
    expect((await apply(await plan("all"))).state).toBe("succeeded");
    const group = await post("/api/ptt-groups", { name: "Team", extension: "7100", members: ["1002"] });
    expect((await apply(await plan("ptt-groups"))).state).toBe("succeeded");
    expect((await pbx.astdb())["/DEVICE/1002/dial"]).toBe("PJSIP/1002");
    const before = await snapshot(pbx);

    // The console also had 1001 once (never managed: FreePBX's own) — deleting it in the console does nothing.
    for (const [path, id] of [
      ["/api/ptt-groups", group.id],
      ["/api/inbound-routes", inbound.id],
      ["/api/outbound-routes", route.id],
      ["/api/trunks", trunk.id],
      ["/api/extensions", bob.id],
    ])
      expect((await s.call("DELETE", `${path}/${id}`)).status).toBe(200); // with an undo token (ADR 0037)

    const p = await plan("all");
    expect(actions(p)).toEqual({
      "inboundRoute:5550002": "delete",
      "outboundRoute:Acme out": "delete",
      "extension:1002": "delete",
      "trunk:Acme": "delete",
    });
    // Routes before the trunk they use.
    expect(p.items.map((i) => i.kind)).toEqual(["inboundRoute", "outboundRoute", "extension", "trunk"]);
    expect(actions(await plan("ptt-groups"))).toEqual({ "pttGroup:7100": "delete" });
    const job = await apply(p);
    expect(job.state).toBe("succeeded");
    expect(job.results.find((r: any) => r.label.startsWith("1002"))?.message).toBe(
      "Deleted from the FreePBX database and Asterisk's database (AstDB)",
    );
    expect((await apply(await plan("ptt-groups"))).state).toBe("succeeded");

    // Exactly the managed objects' rows are gone: the snapshot before, without them.
    const after = await snapshot(pbx);
    const acme = before.trunks.find((r) => r.name === "Acme")?.trunkid;
    const rid = before.outbound_routes.find((r) => r.name === "Acme out")?.route_id;
    const expected: Snapshot = {
      ...before,
      devices: before.devices.filter((r) => r.id !== "1002"),
      users: before.users.filter((r) => r.extension !== "1002"),
      sip: before.sip.filter((r) => r.id !== "1002"),
      trunks: before.trunks.filter((r) => r.trunkid !== acme),
      pjsip: before.pjsip.filter((r) => r.id !== acme),
      outbound_routes: before.outbound_routes.filter((r) => r.route_id !== rid),
      outbound_route_patterns: before.outbound_route_patterns.filter((r) => r.route_id !== rid),
      outbound_route_trunks: before.outbound_route_trunks.filter((r) => r.route_id !== rid),
      outbound_route_sequence: before.outbound_route_sequence.filter((r) => r.route_id !== rid),
      incoming: before.incoming.filter((r) => r.extension !== "5550002"),
      paging_config: before.paging_config.filter((r) => r.page_group !== "7100"),
      paging_groups: before.paging_groups.filter((r) => r.page_number !== "7100"),
    };
    expect(after).toEqual(expected);
    expect(after.devices.map((r) => r.id)).toEqual(["1001"]);
    // AstDB: 1002's trees are gone, FreePBX's own 1001 stays.
    const astdb = await pbx.astdb();
    expect(Object.keys(astdb).filter((k) => k.includes("/1002"))).toEqual([]);
    expect(astdb).toMatchObject(guiAstdb);
    expect(records()).toEqual([]);
    expect(actions(await plan("all"))).toEqual({});
  });

  test("without a review (the API's deploy routes) nothing is deleted and conflicts are not written", async () => {
    await seedGuiObjects(pbx);
    const bob = await post("/api/extensions", { extension: "1002", name: "Bob" });
    await post("/api/extensions", { extension: "1001", name: "Alice Console" });
    const before = await snapshot(pbx);
    const started = await s.call("POST", "/api/deploy/extensions");
    expect(started.status).toBe(202);
    await s.app.jobs.idle();
    const job = (await s.call("GET", `/api/jobs/${started.json.jobId}`)).json;
    expect(job.summary).toMatchObject({ deployed: 1, failed: 1 });
    expect(job.summary.results.find((r: any) => r.name === "1001").message).toContain(
      "is on the PBX but the console does not manage it",
    );
    expect(extensionRows(await snapshot(pbx), "1001")).toEqual(extensionRows(before, "1001"));
    expect((await s.call("DELETE", `/api/extensions/${bob.id}`)).status).toBe(200);
    await s.call("POST", "/api/deploy/extensions");
    await s.app.jobs.idle();
    expect((await pbx.query("SELECT id FROM devices ORDER BY id")).map((r) => r.id)).toEqual(["1001", "1002"]);
    expect(actions(await plan("extensions"))).toEqual({ "extension:1001": "conflict", "extension:1002": "delete" });
  });
});

describe("sync import adopts what it imports", () => {
  test("an imported trunk and extension are managed (the trunk by its trunkid): no conflict afterwards", async () => {
    await seedGuiObjects(pbx);
    const imp = await s.call("POST", "/api/sync/trunks/import", { mode: "selected", trunks: [GUI.trunk.name] });
    expect(imp.status).toBe(202);
    await s.app.jobs.idle();
    await s.call("POST", "/api/sync/extensions/import", { mode: "selected", extensions: [GUI.extension] });
    await s.app.jobs.idle();
    expect(records()).toEqual([
      { kind: "extension", key: "1001", pbxId: null, origin: "import" },
      { kind: "trunk", key: "Carrier", pbxId: String(GUI.trunk.id), origin: "import" },
    ]);
    const p = await plan("all");
    expect(item(p, "extension:1001").action).not.toBe("conflict");
    expect(item(p, "trunk:Carrier").action).not.toBe("conflict");
  });
});
