/**
 * The review of a Sync import (ADR 0025 "Sync import") over HTTP, against a REAL MariaDB
 * over REAL SSH (test/pbx-host) holding GUI-made FreePBX objects: the plan says per PBX object what the
 * import does in the console (create, update field by field, unchanged, refused with the reason, and
 * whether the console starts managing it); the import with the plan's fingerprint does exactly that, or
 * answers 409 with the new plan when the PBX or the console changed since.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { importExtensions } from "../../src/server/pbx/sync/import";
import type { ImportPlan, ImportPlanItem } from "../../src/shared/plan";
import { consoleOnPbx } from "../pbx-host/console-on-pbx";
import { GUI, seedGuiObjects, snapshot } from "../pbx-host/gui-objects";

setDefaultTimeout(60_000);
const { pbx, s } = consoleOnPbx({});

const STALE = "The PBX or the console changed since this plan: review the new plan";
/** A name the console refuses (it ends up in Asterisk's config files). */
const BAD_NAME = "Lobby\tPhone";

async function plan(kind: "extensions" | "trunks", body: Record<string, unknown> = { mode: "all" }) {
  const res = await s.call("POST", `/api/sync/${kind}/plan`, body);
  expect(res.status, res.text).toBe(200);
  return res.json as ImportPlan;
}

/** Starts the import of a reviewed plan and waits for its job; answers the job. */
async function importPlan(kind: "extensions" | "trunks", p: ImportPlan, selection: string[] = []) {
  const res = await s.call("POST", `/api/sync/${kind}/import`, {
    mode: p.mode,
    [kind]: selection,
    fingerprint: p.fingerprint,
  });
  expect(res.status, res.text).toBe(202);
  await s.app.jobs.idle();
  return (await s.call("GET", `/api/jobs/${res.json.jobId}`)).json;
}

const item = (p: ImportPlan, id: string): ImportPlanItem => {
  const found = p.items.find((i) => i.id === id);
  if (!found) throw new Error(`${id} is not in the plan: ${p.items.map((i) => i.id).join(", ")}`);
  return found;
};
const actions = (p: ImportPlan) => Object.fromEntries(p.items.map((i) => [i.id, i.action]));
const records = () =>
  s.db.$client.query("SELECT kind, key, pbx_id AS pbxId, origin FROM pbx_objects ORDER BY kind, key").all();
const consoleExtensions = () =>
  (
    s.db.$client.query("SELECT extension, name, voicemail, secret FROM extensions ORDER BY extension").all() as {
      extension: string;
      name: string;
      voicemail: number;
      secret: string | null;
    }[]
  ).map((e) => ({ ...e, secret: s.app.box.open(e.secret) }));

async function pbxExtension(n: string, name: string, secret: string, voicemail = "novm") {
  await pbx.query(
    "INSERT INTO devices (id, tech, dial, devicetype, user, description) VALUES (?, 'pjsip', ?, 'fixed', ?, ?)",
    [n, `PJSIP/${n}`, n, name],
  );
  await pbx.query("INSERT INTO users (extension, name, voicemail) VALUES (?, ?, ?)", [n, name, voicemail]);
  await pbx.query("INSERT INTO sip (id, keyword, data) VALUES (?, 'secret', ?)", [n, secret]);
}

const post = async (path: string, body: unknown) => {
  const r = await s.call("POST", path, body);
  expect(r.status, r.text).toBe(201);
  return r.json;
};

/**
 * The PBX: GUI-made 1001 "Alice GUI" (voicemail on), 1003 with a name the console refuses (a tab), 1004 new,
 * 1005 as the console has it, 1006 deployed by the console then renamed in FreePBX, 7001 whose number a
 * console PTT group holds. The console: 1001 "Alice" (voicemail off, its own secret), 1005, 1006, group 7001.
 */
async function seedExtensions() {
  await post("/api/extensions", { extension: "1006", name: "Desk", secret: "desk-secret-1006" });
  const deployed = await s.call("POST", "/api/deploy/extensions");
  expect(deployed.status).toBe(202);
  await s.app.jobs.idle();
  await pbx.query("UPDATE users SET name = 'Front Desk' WHERE extension = '1006'");
  await seedGuiObjects(pbx);
  await pbxExtension("1003", BAD_NAME, "secret-1003-abcdef");
  await pbxExtension("1004", "Lobby", "secret-1004-abcdef", "default");
  await pbxExtension("1005", "Kitchen", "secret-1005-abcdef");
  await pbxExtension("7001", "Paging desk", "secret-7001-abcdef");
  await post("/api/extensions", { extension: "1001", name: "Alice", secret: "console-secret-1001" });
  await post("/api/extensions", { extension: "1005", name: "Kitchen", secret: "secret-1005-abcdef" });
  await post("/api/ptt-groups", { name: "Floor", extension: "7001", members: ["1001"] });
}

describe("the import plan (extensions)", () => {
  test("create / update field by field / unchanged / refused, with adoption; secrets masked; nothing stored", async () => {
    await seedExtensions();
    const before = { console: consoleExtensions(), records: records(), pbx: await snapshot(pbx) };
    const p = await plan("extensions");
    expect(p).toMatchObject({ kind: "extensions", mode: "all", via: "ssh" });
    expect(p.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(actions(p)).toEqual({
      "extension:1001": "update",
      "extension:1003": "refused",
      "extension:1004": "create",
      "extension:1005": "unchanged",
      "extension:1006": "update",
      "extension:7001": "refused",
    });
    expect(p.counts).toEqual({ create: 1, update: 2, unchanged: 1, refused: 2 });

    // Made in FreePBX: the console's 1001 takes its values, and the console starts managing it.
    const alice = item(p, "extension:1001");
    expect(alice).toMatchObject({ label: "1001 - Alice GUI", adopt: true });
    expect(alice.changes).toEqual([
      { field: "name", from: "Alice", to: "Alice GUI" },
      { field: "voicemail", from: "off", to: "on" },
      { field: "secret", from: "••••••", to: "••••••", secret: true },
    ]);
    expect(JSON.stringify(p)).not.toContain(GUI.extensionSecret);
    expect(JSON.stringify(p)).not.toContain("console-secret-1001");

    // Deployed by the console (already managed), renamed in FreePBX: only the name changes.
    expect(item(p, "extension:1006")).toMatchObject({
      adopt: false,
      changes: [{ field: "name", from: "Desk", to: "Front Desk" }],
    });
    expect(item(p, "extension:1004")).toMatchObject({
      adopt: true,
      consoleId: null,
      changes: [
        { field: "name", from: null, to: "Lobby" },
        { field: "voicemail", from: null, to: "on" },
        { field: "secret", from: null, to: "••••••", secret: true },
      ],
    });
    expect(item(p, "extension:1005")).toMatchObject({ adopt: true, changes: [] });
    // Refused with the console's own validator message, and the number rule's.
    expect(item(p, "extension:1003").reason).toBe("1003: Name contains a control character (e.g. a newline)");
    expect(item(p, "extension:7001").reason).toBe("7001 is already the number of PTT group Floor");
    expect(p.adopts).toBe(3);

    // A selection: only those, and one that is not on the PBX is refused.
    const selected = await plan("extensions", { mode: "selected", extensions: ["1004", "9999"] });
    expect(actions(selected)).toEqual({ "extension:1004": "create", "extension:9999": "refused" });
    expect(item(selected, "extension:9999").reason).toBe("Extension 9999 is not on the PBX (any more)");

    // The plan stores nothing, on either side; the audit has it with its counts.
    expect(consoleExtensions()).toEqual(before.console);
    expect(records()).toEqual(before.records);
    expect(await snapshot(pbx)).toEqual(before.pbx);
    const audit = (await s.call("GET", "/api/audit?action=sync.plan")).json;
    expect(JSON.stringify(audit)).toContain("1 create, 2 update, 1 unchanged, 2 refused");
  });

  test("the import does exactly the plan: writes, ownership recorded as import, the PBX untouched", async () => {
    await seedExtensions();
    const pbxBefore = await snapshot(pbx);
    const p = await plan("extensions");
    const job = await importPlan("extensions", p);
    expect(job.state).toBe("failed"); // two refused items
    expect(job.summary).toEqual({
      created: 1,
      updated: 2,
      unchanged: 1,
      failed: 2,
      errors: [
        "1003: Name contains a control character (e.g. a newline)",
        "7001 is already the number of PTT group Floor",
      ],
    });
    expect(job.results).toEqual([
      { label: "1001 - Alice GUI", status: "success", message: "Updated" },
      {
        label: `1003 - ${BAD_NAME}`,
        status: "failed",
        message: "1003: Name contains a control character (e.g. a newline)",
      },
      { label: "1004 - Lobby", status: "success", message: "Created" },
      { label: "1005 - Kitchen", status: "success", message: "Unchanged; now managed by the console" },
      { label: "1006 - Front Desk", status: "success", message: "Updated" },
      { label: "7001 - Paging desk", status: "failed", message: "7001 is already the number of PTT group Floor" },
    ]);
    expect(consoleExtensions()).toEqual([
      { extension: "1001", name: "Alice GUI", voicemail: 1, secret: GUI.extensionSecret },
      { extension: "1004", name: "Lobby", voicemail: 1, secret: "secret-1004-abcdef" },
      { extension: "1005", name: "Kitchen", voicemail: 0, secret: "secret-1005-abcdef" },
      { extension: "1006", name: "Front Desk", voicemail: 0, secret: "desk-secret-1006" },
    ]);
    // Adopted ones are recorded as imported; the deployed one keeps its origin.
    expect(records()).toEqual([
      { kind: "extension", key: "1001", pbxId: null, origin: "import" },
      { kind: "extension", key: "1004", pbxId: null, origin: "import" },
      { kind: "extension", key: "1005", pbxId: null, origin: "import" },
      { kind: "extension", key: "1006", pbxId: null, origin: "deploy" },
    ]);
    // An import writes the console only.
    expect(await snapshot(pbx)).toEqual(pbxBefore);

    // Planned again: everything imported is unchanged and managed.
    const again = await plan("extensions");
    expect(again.counts).toEqual({ create: 0, update: 0, unchanged: 4, refused: 2 });
    expect(again.adopts).toBe(0);
    // …and a deploy now sees 1001 as the console's (an update or unchanged, never a conflict).
    const deployPlan = (await s.call("POST", "/api/deploy/plan", { target: "extensions" })).json;
    expect(deployPlan.items.find((i: { id: string }) => i.id === "extension:1001").action).not.toBe("conflict");
  });

  test("a stale fingerprint is 409 with the new plan and imports nothing; the job re-checks before writing", async () => {
    await seedExtensions();
    const consoleBefore = consoleExtensions();
    const recordsBefore = records();
    const p = await plan("extensions");

    // Changed on the PBX since the review.
    await pbx.query("UPDATE users SET name = 'Lobby 2' WHERE extension = '1004'");
    const res = await s.call("POST", "/api/sync/extensions/import", {
      mode: "all",
      extensions: [],
      fingerprint: p.fingerprint,
    });
    expect(res.status).toBe(409);
    expect(res.json.error.message).toBe(STALE);
    const fresh = res.json.plan as ImportPlan;
    expect(fresh.fingerprint).not.toBe(p.fingerprint);
    expect(item(fresh, "extension:1004").changes[0]).toEqual({ field: "name", from: null, to: "Lobby 2" });
    expect(
      (await s.call("GET", "/api/jobs?limit=5")).json.filter((j: { kind: string }) => j.kind === "import"),
    ).toEqual([]);

    // Changed in the console since the review (1005 deleted there).
    const kitchen = (await s.call("GET", "/api/extensions")).json.find(
      (e: { extension: string }) => e.extension === "1005",
    );
    expect((await s.call("DELETE", `/api/extensions/${kitchen.id}`)).status).toBe(200);
    const stale = await s.call("POST", "/api/sync/extensions/import", {
      mode: "all",
      extensions: [],
      fingerprint: fresh.fingerprint,
    });
    expect(stale.status).toBe(409);
    expect(item(stale.json.plan, "extension:1005")).toMatchObject({ action: "create", consoleId: null });

    // The job itself plans again from its own read: a fingerprint that no longer matches writes nothing.
    await expect(
      importExtensions(s.app, { mode: "all", extensions: [], fingerprint: fresh.fingerprint }),
    ).rejects.toThrow(STALE);
    expect(consoleExtensions()).toEqual(consoleBefore.filter((e) => e.extension !== "1005"));
    expect(records()).toEqual(recordsBefore);

    // The new plan imports.
    const job = await importPlan("extensions", stale.json.plan);
    expect(job.summary).toMatchObject({ created: 2, updated: 2, failed: 2 });
    expect(consoleExtensions().find((e) => e.extension === "1004")?.name).toBe("Lobby 2");

    // A malformed fingerprint is a 400; none at all is the API clients' import without a review.
    const bad = await s.call("POST", "/api/sync/extensions/import", { mode: "all", fingerprint: "abc" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields.fingerprint).toBe("Not a plan fingerprint");
  });
});

describe("the import plan (trunks)", () => {
  test("create, update, refused; imported trunks are managed by trunkid, so a rename on the PBX is an update", async () => {
    await seedGuiObjects(pbx);
    await pbx.query("INSERT INTO trunks (trunkid, name, tech, channelid) VALUES (4, 'Bad;Name', 'pjsip', 'Bad')");
    await pbx.query("INSERT INTO pjsip (id, keyword, data) VALUES ('4', 'sip_server', 'sip.bad.example')");
    await post("/api/trunks", {
      name: GUI.trunk.name,
      type: "sip",
      host: "sip.old-carrier.example",
      port: 5060,
      username: "carrier-user",
      secret: "carrier-secret-1",
    });
    const p = await plan("trunks");
    expect(actions(p)).toEqual({ "trunk:Carrier": "update", "trunk:Failover": "create", "trunk:Bad;Name": "refused" });
    expect(item(p, "trunk:Carrier")).toMatchObject({
      pbxId: String(GUI.trunk.id),
      adopt: true,
      changes: [{ field: "host", from: "sip.old-carrier.example", to: "sip.carrier.example" }],
    });
    expect(item(p, "trunk:Failover").changes.map((c) => c.field)).toEqual([
      "name",
      "type",
      "host",
      "port",
      "username",
      "secret",
      "authMode",
    ]);
    expect(item(p, "trunk:Bad;Name").reason).toBe(
      "Bad;Name: Trunk name may only contain letters, digits, spaces and . _ @ ( ) + - (at most 50 characters)",
    );

    const job = await importPlan("trunks", p);
    expect(job.summary).toMatchObject({ created: 1, updated: 1, failed: 1 });
    expect(records()).toEqual([
      { kind: "trunk", key: "Carrier", pbxId: String(GUI.trunk.id), origin: "import" },
      { kind: "trunk", key: "Failover", pbxId: String(GUI.failover.id), origin: "import" },
    ]);
    const consoleTrunks = (await s.call("GET", "/api/trunks")).json.map((t: { name: string; host: string }) => [
      t.name,
      t.host,
    ]);
    expect(consoleTrunks).toEqual([
      ["Carrier", "sip.carrier.example"],
      ["Failover", "sip.failover.example"],
    ]);

    // Renamed in FreePBX: the same trunk (its trunkid), so the console's Carrier is renamed, not duplicated.
    await pbx.query("UPDATE trunks SET name = 'Carrier Two' WHERE trunkid = ?", [GUI.trunk.id]);
    const renamed = await plan("trunks", { mode: "selected", trunks: ["Carrier Two"] });
    expect(item(renamed, "trunk:Carrier Two")).toMatchObject({
      action: "update",
      adopt: false,
      changes: [{ field: "name", from: "Carrier", to: "Carrier Two" }],
    });
    await importPlan("trunks", renamed, ["Carrier Two"]);
    expect((await s.call("GET", "/api/trunks")).json.map((t: { name: string }) => t.name)).toEqual([
      "Carrier Two",
      "Failover",
    ]);
    expect(records()).toContainEqual({
      kind: "trunk",
      key: "Carrier Two",
      pbxId: String(GUI.trunk.id),
      origin: "import",
    });
  });
});
