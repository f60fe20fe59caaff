/**
 * Merge, never clobber (ADR 0023) and complete extensions, against a REAL MariaDB over REAL SSH
 * (test/pbx-host) preloaded with GUI-made FreePBX objects that carry settings the console does not
 * model. Each expectation is the snapshot before, with exactly the console-owned values changed: any
 * other byte that moves fails the test.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, spyOn, test } from "bun:test";
import { deployTarget } from "../../src/server/pbx/deploy/apply";
import type { DeployTarget } from "../../src/server/pbx/deploy/deploy";
import { astdbLines, cliArg } from "../../src/server/pbx/host/astdb";
import { PbxRemote } from "../../src/server/pbx/host/host";
import { UnsafeValueError } from "../../src/server/pbx/host/sql";
import { startTestServer, type TestServer } from "../helpers/server";
import { emptyFreepbx, GUI, type Snapshot, seedGuiObjects, snapshot } from "../pbx-host/gui-objects";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);
let pbx: PbxHost;
beforeAll(async () => {
  pbx = await startPbxHost();
}, 60_000);
afterAll(async () => {
  await pbx?.stop();
});

let s: TestServer;
const sshEnv = () => pbx.consoleEnv();
beforeEach(async () => {
  await emptyFreepbx(pbx);
  pbx.setReloadFailure(false);
  await pbx.setAsteriskDown(false);
  await pbx.setAstdb({});
  pbx.clearFwconsoleCalls();
  s = await startTestServer(sshEnv());
  await s.setup();
});
afterEach(async () => {
  await s?.stop();
});

/**
 * Deploys through the domain function (the HTTP routes start a job around the same call), adopting the
 * GUI-made objects (conflicts, ADR 0025) as a user resolving them in the review would.
 */
const deploy = async (target: DeployTarget): Promise<any> =>
  deployTarget(s.app, target as "all", undefined, { mode: "direct", adoptConflicts: true });

const CONSOLE = {
  name: "Alice Console",
  secret: "console-secret-1001",
  trunkSecret: "new-trunk-secret-9",
};

/** The console's objects with the same identities as the GUI-made ones, plus a new extension 1002. */
async function seedConsole() {
  const post = async (path: string, body: unknown) => {
    const r = await s.call("POST", path, body);
    expect(r.status).toBe(201);
    return r.json;
  };
  await post("/api/extensions", { extension: "1001", name: CONSOLE.name, voicemail: true, secret: CONSOLE.secret });
  await post("/api/extensions", { extension: "1002", name: "Bob", secret: "console-secret-1002" });
  const trunk = await post("/api/trunks", {
    name: GUI.trunk.name,
    type: "sip",
    host: "sip.new-carrier.example",
    port: 5070,
    username: "acme",
    secret: CONSOLE.trunkSecret,
    registrationEnabled: true,
  });
  await post("/api/outbound-routes", {
    name: GUI.route.name,
    dialPatterns: ["NXXNXXXXXX", "011."],
    trunkId: trunk.id,
  });
  await post("/api/inbound-routes", {
    description: "Main line",
    didNumber: GUI.did,
    destination: "1002",
    destinationType: "extension",
  });
  await post("/api/ptt-groups", {
    name: "Floor",
    extension: GUI.page,
    description: "Console-only note",
    members: ["1001", "1002"],
    duplex: true,
  });
}

type Row = Record<string, unknown>;
/** Changes the rows of `table` that match `where`; fails if none does (the expectation would be vacuous). */
function patch(snap: Snapshot, table: keyof Snapshot, where: Row, changes: Row) {
  const hits = snap[table].filter((r) => Object.entries(where).every(([k, v]) => r[k] === v));
  expect(hits.length).toBeGreaterThan(0);
  for (const r of hits) Object.assign(r, changes);
}
const sorted = (snap: Snapshot): Snapshot =>
  Object.fromEntries(
    Object.entries(snap).map(([t, rows]) => [
      t,
      [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ]),
  ) as Snapshot;

/**
 * The GUI snapshot with exactly the console-owned values of the GUI objects changed. The rows of
 * the console's NEW extension 1002 are excluded (checked separately).
 */
function expectedAfterDeploy(before: Snapshot): Snapshot {
  const e = structuredClone(before);
  patch(e, "devices", { id: "1001" }, { description: CONSOLE.name });
  // Voicemail on: the GUI's voicemail context "sales" is kept.
  patch(e, "users", { extension: "1001" }, { name: CONSOLE.name });
  patch(e, "sip", { id: "1001", keyword: "callerid" }, { data: `${CONSOLE.name} <1001>` });
  patch(e, "sip", { id: "1001", keyword: "secret" }, { data: CONSOLE.secret });
  const tid = String(GUI.trunk.id);
  for (const [k, v] of Object.entries({
    sip_server: "sip.new-carrier.example",
    sip_server_port: "5070",
    username: "acme",
    auth_username: "acme",
    secret: CONSOLE.trunkSecret,
  }))
    patch(e, "pjsip", { id: tid, keyword: k }, { data: v });
  // The console's pattern list: the GUI's 911 goes, 011. comes; NXXNXXXXXX keeps its prefix 9 / prepend 1.
  e.outbound_route_patterns = e.outbound_route_patterns.filter((r) => r.match_pattern_pass !== "911");
  e.outbound_route_patterns.push({
    route_id: String(GUI.route.id),
    match_pattern_prefix: "",
    match_pattern_pass: "011.",
    match_cid: "",
    prepend_digits: "",
  });
  patch(e, "incoming", { extension: GUI.did }, { destination: "from-did-direct,1002,1", description: "Main line" });
  // The page group's label is the console's NAME (not its description); members are added, never removed.
  patch(e, "paging_config", { page_group: GUI.page }, { description: "Floor", duplex: "1" });
  e.paging_groups.push({ page_number: GUI.page, ext: "1002" });
  return sorted(e);
}

const without1002 = (snap: Snapshot): Snapshot => {
  const c = structuredClone(snap);
  c.devices = c.devices.filter((r) => r.id !== "1002");
  c.users = c.users.filter((r) => r.extension !== "1002");
  c.sip = c.sip.filter((r) => r.id !== "1002");
  return sorted(c);
};

describe("merge into GUI-made objects over SSH", () => {
  test("deploy changes only console-owned values; a second deploy changes nothing", async () => {
    await seedGuiObjects(pbx);
    await seedConsole();
    const before = await snapshot(pbx);
    const all = { json: await deploy("all") };
    for (const g of ["trunks", "extensions", "outboundRoutes", "inboundRoutes"])
      expect(all.json[g]).toMatchObject({ failed: 0 });
    const ptt = { json: await deploy("ptt-groups") };
    expect(ptt.json).toMatchObject({ deployed: 1, failed: 0 });
    const after = await snapshot(pbx);
    expect(without1002(after)).toEqual(expectedAfterDeploy(before));

    await deploy("all");
    await deploy("ptt-groups");
    expect(sorted(await snapshot(pbx))).toEqual(sorted(after));
  });

  test("renaming the console's extension and PTT group changes only their names", async () => {
    await seedGuiObjects(pbx);
    await seedConsole();
    await deploy("extensions");
    await deploy("ptt-groups");
    const before = await snapshot(pbx);
    s.db.$client.query("UPDATE extensions SET name = 'Alice Renamed' WHERE extension = '1001'").run();
    s.db.$client.query("UPDATE ptt_groups SET name = 'Floor Renamed' WHERE extension = ?").run(GUI.page);
    expect((await deploy("extensions")).failed).toBe(0);
    expect((await deploy("ptt-groups")).failed).toBe(0);
    const e = structuredClone(before);
    patch(e, "devices", { id: "1001" }, { description: "Alice Renamed" });
    patch(e, "users", { extension: "1001" }, { name: "Alice Renamed" });
    patch(e, "sip", { id: "1001", keyword: "callerid" }, { data: "Alice Renamed <1001>" });
    patch(e, "paging_config", { page_group: GUI.page }, { description: "Floor Renamed" });
    expect(sorted(await snapshot(pbx))).toEqual(sorted(e));
  });

  test("deleting and creating neighbours leaves the GUI-made extension byte-identical", async () => {
    await seedGuiObjects(pbx);
    await s.call("POST", "/api/extensions", { extension: "1001", name: CONSOLE.name, secret: CONSOLE.secret });
    await s.call("POST", "/api/extensions", { extension: "1002", name: "Bob" });
    await deploy("extensions");
    const before = await snapshot(pbx);
    const list = (await s.call("GET", "/api/extensions")).json as { id: number; extension: string }[];
    const bob = list.find((x) => x.extension === "1002");
    expect((await s.call("DELETE", `/api/extensions/${bob?.id}`)).status).toBe(200);
    await s.call("POST", "/api/extensions", { extension: "1003", name: "Carol" });
    expect(await deploy("extensions")).toMatchObject({ deployed: 2, failed: 0 });
    const after = await snapshot(pbx);
    const gui = (snap: Snapshot) => ({
      devices: snap.devices.filter((r) => r.id === "1001"),
      users: snap.users.filter((r) => r.extension === "1001"),
      sip: snap.sip.filter((r) => r.id === "1001"),
    });
    expect(gui(after)).toEqual(gui(before));
    // Deletes do not reach the PBX yet: 1002 stays as it was.
    expect(after.sip.filter((r) => r.id === "1002")).toEqual(before.sip.filter((r) => r.id === "1002"));
    expect(after.devices.map((r) => r.id).sort()).toEqual(["1001", "1002", "1003"]);
  });
});

describe("a failing write", () => {
  test("MariaDB's error text that quotes a SIP secret is passed on with the secret redacted", async () => {
    const secret = "quoted-secret-7f3a9c21";
    // A trigger (as a FreePBX module or an administrator might add) whose error quotes the row's value.
    await pbx.query(
      "CREATE TRIGGER echo_secret BEFORE INSERT ON sip FOR EACH ROW BEGIN DECLARE msg VARCHAR(255); IF NEW.keyword = 'secret' THEN SET msg = CONCAT('refused value ', NEW.data); SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = msg; END IF; END",
    );
    try {
      await s.call("POST", "/api/extensions", { extension: "1401", name: "Echo", secret });
      const res = await deploy("extensions");
      expect(res.failed).toBe(1);
      const message = res.results[0].message as string;
      expect(message).toContain("refused value");
      expect(message).not.toContain(secret);
      expect(JSON.stringify(res)).not.toContain(secret);
    } finally {
      await pbx.query("DROP TRIGGER IF EXISTS echo_secret");
    }
  });
});

describe("the Config Generator's script", () => {
  test("run by hand on a PBX with those objects it merges like deploy; run twice it changes nothing", async () => {
    await seedGuiObjects(pbx);
    await seedConsole();
    const before = await snapshot(pbx);
    const gen = await s.call("GET", "/api/config/generate");
    expect(gen.json.refused).toEqual([]);
    const script = (await s.call("GET", "/api/config/script.sql")).text;
    expect(script).not.toContain("DELETE FROM devices");
    expect(script).not.toContain("DELETE FROM sip ");
    const first = pbx.runScript(script);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    const after = await snapshot(pbx);
    expect(without1002(after)).toEqual(expectedAfterDeploy(before));
    expect(pbx.runScript(script).code).toBe(0);
    expect(sorted(await snapshot(pbx))).toEqual(sorted(after));
  });
});

/** FreePBX's form defaults for a PJSIP extension (reference §2.8), with the console's owned values. */
const NEW_EXTENSION_KEYWORDS = {
  account: "2001",
  accountcode: "",
  aggregate_mwi: "no",
  allow: "",
  avpf: "no",
  bundle: "no",
  callerid: "Dora <2001>",
  context: "from-internal",
  defaultuser: "",
  device_state_busy_at: "0",
  dial: "PJSIP/2001",
  direct_media: "yes",
  disallow: "",
  dtmfmode: "rfc4733",
  force_callerid: "no",
  force_rport: "yes",
  icesupport: "no",
  mailbox: "2001@device",
  match: "",
  max_audio_streams: "1",
  max_contacts: "5",
  max_video_streams: "1",
  maximum_expiration: "7200",
  md5_cred: "",
  media_address: "",
  media_encryption: "no",
  media_encryption_optimistic: "no",
  media_use_received_transport: "no",
  message_context: "",
  minimum_expiration: "60",
  mwi_subscription: "auto",
  namedcallgroup: "",
  namedpickupgroup: "",
  outbound_auth: "no",
  outbound_proxy: "",
  qualifyfreq: "60",
  refer_blind_progress: "yes",
  remove_existing: "no",
  rewrite_contact: "yes",
  rtcp_mux: "no",
  rtp_symmetric: "yes",
  rtp_timeout: "0",
  rtp_timeout_hold: "0",
  secret: "console-secret-2001",
  send_connected_line: "no",
  sendrpid: "pai",
  sipdriver: "chan_pjsip",
  timers: "yes",
  timers_min_se: "90",
  transport: "",
  trustrpid: "yes",
  user_eq_phone: "no",
  vmexten: "",
  webrtc: "no",
};

describe("new objects get FreePBX's form defaults", () => {
  test("extension, trunk, routes and page group rows as FreePBX's GUI writes them", async () => {
    await s.call("POST", "/api/extensions", {
      extension: "2001",
      name: "Dora",
      voicemail: true,
      secret: "console-secret-2001",
    });
    const t = await s.call("POST", "/api/trunks", { name: "New Trunk", type: "sip", host: "sip.example.com" });
    await s.call("POST", "/api/outbound-routes", { name: "Out", dialPatterns: ["9."], trunkId: t.json.id });
    await s.call("POST", "/api/inbound-routes", {
      description: "Main",
      didNumber: "5550001",
      destination: "2001",
      destinationType: "extension",
    });
    await s.call("POST", "/api/ptt-groups", { name: "Team", extension: "7100", members: ["2001"] });
    expect((await deploy("all")).extensions.failed).toBe(0);
    expect((await deploy("ptt-groups")).failed).toBe(0);
    const snap = await snapshot(pbx);
    expect(snap.devices).toEqual([
      {
        id: "2001",
        tech: "pjsip",
        dial: "PJSIP/2001",
        devicetype: "fixed",
        user: "2001",
        description: "Dora",
        emergency_cid: "",
        hint_override: null,
      },
    ]);
    expect(snap.users).toEqual([
      {
        extension: "2001",
        password: "",
        name: "Dora",
        voicemail: "default",
        ringtimer: "0",
        noanswer: "",
        recording: "",
        outboundcid: "",
        sipname: "",
        noanswer_cid: "",
        busy_cid: "",
        chanunavail_cid: "",
        noanswer_dest: "",
        busy_dest: "",
        chanunavail_dest: "",
        mohclass: "default",
      },
    ]);
    expect(Object.fromEntries(snap.sip.map((r) => [r.keyword, r.data]))).toEqual(NEW_EXTENSION_KEYWORDS);
    expect(snap.trunks).toEqual([
      {
        trunkid: "1",
        name: "New Trunk",
        tech: "pjsip",
        outcid: "",
        keepcid: "off",
        maxchans: "",
        failscript: "",
        dialoutprefix: "",
        channelid: "New_Trunk",
        usercontext: null,
        provider: null,
        disabled: "off",
        continue: "off",
        routedisplay: "on",
      },
    ]);
    const pj = Object.fromEntries(snap.pjsip.map((r) => [r.keyword, r.data]));
    expect(pj).toMatchObject({
      trunk_name: "New Trunk",
      sip_server: "sip.example.com",
      context: "from-pstn",
      codecs: "ulaw,alaw,g722,gsm",
      qualify_frequency: "60",
      registration: "none",
    });
    // route_id is MariaDB's AUTO_INCREMENT (it does not restart after the tables are emptied).
    const rid = snap.outbound_routes[0]?.route_id;
    expect(snap.outbound_routes).toEqual([
      {
        route_id: rid,
        name: "Out",
        outcid: "",
        outcid_mode: "",
        password: "",
        emergency_route: "",
        intracompany_route: "",
        mohclass: "default",
        time_group_id: null,
        dest: "",
        time_mode: "",
        calendar_id: null,
        calendar_group_id: null,
        timezone: null,
        notification_on: "call",
      },
    ]);
    expect(snap.outbound_route_trunks).toEqual([{ route_id: rid, trunk_id: "1", seq: "0" }]);
    expect(snap.outbound_route_sequence).toEqual([{ route_id: rid, seq: "0" }]);
    expect(snap.incoming).toEqual([
      {
        cidnum: "",
        extension: "5550001",
        destination: "from-did-direct,2001,1",
        privacyman: "0",
        alertinfo: "",
        ringing: "",
        fanswer: "",
        mohclass: "default",
        description: "Main",
        grppre: "",
        delay_answer: "0",
        pricid: "",
        pmmaxretries: "3",
        pmminlength: "10",
        reversal: "",
        rvolume: "0",
        indication_zone: "default",
      },
    ]);
    expect(snap.paging_config).toEqual([
      { page_group: "7100", force_page: "0", duplex: "0", description: "Team", announcement: null, volume: "0" },
    ]);
  });
});

describe("complete extensions: AstDB", () => {
  test("deploy writes Core's AstDB entries from the merged rows, keeps AstDB-only choices, then reloads", async () => {
    await seedGuiObjects(pbx);
    await pbx.setAstdb({ "/AMPUSER/1001/answermode": "intercom", "/CW/1001": "DISABLED" });
    const hostile = 'O\'Brien \\ "Desk" ; $(reboot) `id` ☎';
    await s.call("POST", "/api/extensions", { extension: "1001", name: CONSOLE.name, voicemail: true });
    await s.call("POST", "/api/extensions", { extension: "1002", name: hostile });
    const res = { json: await deploy("extensions") };
    expect(res.json).toMatchObject({ deployed: 2, failed: 0 });
    expect(res.json.results[0].message).toContain("AstDB");
    const db = await pbx.astdb();
    expect(db).toMatchObject({
      "/DEVICE/1001/dial": "PJSIP/1001",
      "/DEVICE/1001/type": "fixed",
      "/DEVICE/1001/user": "1001",
      "/DEVICE/1001/default_user": "1001",
      "/DEVICE/1001/tech": "pjsip",
      "/DEVICE/1001/emergency_cid": "5559110",
      "/AMPUSER/1001/device": "1001",
      "/AMPUSER/1001/cidname": CONSOLE.name,
      "/AMPUSER/1001/cidnum": "1001",
      // From the GUI's columns the console does not own:
      "/AMPUSER/1001/ringtimer": "25",
      "/AMPUSER/1001/outboundcid": '"Alice" <5551000>',
      "/AMPUSER/1001/voicemail": "sales",
      // AstDB-only settings an administrator chose are kept:
      "/AMPUSER/1001/answermode": "intercom",
      "/CW/1001": "DISABLED",
      "/AMPUSER/1002/cidname": hostile,
      "/AMPUSER/1002/voicemail": "novm",
      "/AMPUSER/1002/ringtimer": "0",
      "/CW/1002": "ENABLED",
    });
    // Then FreePBX was reloaded, after the AstDB writes: as the reload began, Asterisk held them already.
    expect(pbx.fwconsoleCalls().find((c) => c.argv[0] === "reload")).toBeDefined();
    // FreePBX's reload writes each extension's hint from its device; everything else was there before it.
    const { "/AMPUSER/1001/hint": hint1001, "/AMPUSER/1002/hint": hint1002, ...written } = db;
    expect([hint1001, hint1002]).toEqual(["PJSIP/1001,CustomPresence:1001", "PJSIP/1002,CustomPresence:1002"]);
    expect(pbx.asteriskAtReloads()[0]?.astdb).toEqual(written);

    // Deploying again puts the same values: AstDB is unchanged.
    await deploy("extensions");
    expect(await pbx.astdb()).toEqual(db);
  });

  test("FreePBX's manager login refused: AstDB is written through `asterisk -rx`, the same; the reload fails with FreePBX's reason", async () => {
    await s.call("POST", "/api/extensions", { extension: "3001", name: "Eve", voicemail: true });
    expect(await deploy("extensions")).toMatchObject({ deployed: 1, failed: 0 });
    // What the manager connection wrote, before FreePBX's reload added the hint.
    const viaManager = pbx.asteriskAtReloads()[0]?.astdb;
    expect(viaManager?.["/AMPUSER/3001/cidname"]).toBe("Eve");
    await pbx.setAstdb({});
    pbx.clearFwconsoleCalls();
    const [{ value: secret }] = (await pbx.query(
      "SELECT value FROM freepbx_settings WHERE keyword = 'AMPMGRPASS'",
    )) as [{ value: string }];
    await pbx.query("UPDATE freepbx_settings SET value = 'not-the-secret' WHERE keyword = 'AMPMGRPASS'");
    try {
      const res = await deploy("extensions");
      expect(await pbx.astdb()).toEqual(viaManager as Record<string, string>);
      expect(res.reload).toMatchObject({ ok: false, reason: "Unable to connect to Asterisk Manager" });
    } finally {
      await pbx.query("UPDATE freepbx_settings SET value = ? WHERE keyword = 'AMPMGRPASS'", [secret]);
    }
  });

  test("an extension deleted in FreePBX between the apply's read and its write fails with why; nothing half-made", async () => {
    const { id } = (await s.call("POST", "/api/extensions", { extension: "3001", name: "Eve" })).json;
    expect(await deploy("extensions")).toMatchObject({ deployed: 1, failed: 0 });
    expect((await s.call("PATCH", `/api/extensions/${id}`, { name: "Eve Renamed" })).status).toBe(200);
    // An administrator deletes it in FreePBX's GUI just after the apply read it (an update: no defaults written).
    const original = PbxRemote.prototype.runScript;
    const run = spyOn(PbxRemote.prototype, "runScript").mockImplementationOnce(async function (
      this: PbxRemote,
      ...args: Parameters<PbxRemote["runScript"]>
    ) {
      for (const sql of [
        "DELETE FROM devices WHERE id = '3001'",
        "DELETE FROM users WHERE extension = '3001'",
        "DELETE FROM sip WHERE id = '3001'",
      ])
        await pbx.query(sql);
      return original.apply(this, args);
    });
    try {
      const res = await deploy("extensions");
      expect(res).toMatchObject({ deployed: 0, failed: 1 });
      expect(res.results[0].message).toBe(
        "It was deleted on the PBX after the plan was read: review the plan again (POST /api/deploy/plan) (rolled back)",
      );
    } finally {
      run.mockRestore();
    }
    for (const table of ["devices", "users", "sip"])
      expect(
        await pbx.query(`SELECT * FROM ${table} WHERE ${table === "users" ? "extension" : "id"} = '3001'`),
      ).toEqual([]);
  });

  test("Asterisk not running: the rows are merged, the extension fails with the reason", async () => {
    await pbx.setAsteriskDown(true);
    await s.call("POST", "/api/extensions", { extension: "3001", name: "Eve" });
    const res = { json: await deploy("extensions") };
    expect(res.json.failed).toBe(1);
    expect(res.json.results[0].message).toContain(
      "(AstDB) was not written: database put DEVICE 3001/dial: Unable to connect to remote asterisk",
    );
    expect(await pbx.query("SELECT id FROM devices")).toEqual([{ id: "3001" }]);
    await pbx.setAsteriskDown(false);
    expect(await pbx.astdb()).toEqual({});
  });
});

describe("AstDB lines", () => {
  test("values are quoted for Asterisk's CLI; control characters and foreign keys are refused", () => {
    expect(cliArg('a "b" \\ c')).toBe('"a \\"b\\" \\\\ c"');
    expect(() => cliArg("line\nbreak")).toThrow(UnsafeValueError);
    expect(astdbLines([{ family: "AMPUSER", key: "1001/cidname", value: "", mode: "set" }])).toBe(
      'set\tAMPUSER\t1001/cidname\t""\n',
    );
    expect(() => astdbLines([{ family: "AMPUSER", key: "1001/../x", value: "v", mode: "set" }])).toThrow(
      UnsafeValueError,
    );
  });
});
