// The PBX as a document (ADR 0075) over HTTP against the real server: every kind the console owns exported with
// references by name and secrets as references; export → plan on the same console changes nothing (JSON and YAML);
// a hand-edited document gives the field-level plan it should, and its apply makes the console hold exactly that;
// deletes only with prune and only in the lists the document names; refusals at their paths with nothing stored;
// objects that name each other are created in two passes; apply is by the reviewed plan's fingerprint only.
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { CONFIG_KINDS, type ConfigPlan, type ConfigPlanItem } from "../../src/shared/config-document";
import { signedInServer } from "../helpers/server";

setDefaultTimeout(60_000);

const TABLES = [
  "ai_routing_rules",
  "ai_assistants",
  "inbound_routes",
  "outbound_routes",
  "time_conditions",
  "ring_groups",
  "queues",
  "ivrs",
  "announcements",
  "time_groups",
  "ptt_groups",
  "extensions",
  "trunks",
];
const s = signedInServer({ clean: TABLES });

const EXT_SECRET = "Ext-Secret-4711-abcdef";
const TRUNK_SECRET = "Trunk-Secret-0815-xyz";

async function ok(method: string, path: string, body?: unknown) {
  const res = await s.call(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.json;
}

/** One object of every kind, naming each other: what a real PBX's console holds. */
async function seed() {
  const trunk = await ok("POST", "/api/trunks", {
    name: "carrier",
    type: "sip",
    host: "sip.carrier.example",
    username: "acct1",
    secret: TRUNK_SECRET,
    registrationEnabled: true,
  });
  const group = await ok("POST", "/api/time-groups", {
    name: "Office hours",
    weekly: [{ fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" }],
  });
  await ok("POST", "/api/extensions", { extension: "1001", name: "Alice", secret: EXT_SECRET, voicemail: true });
  await ok("POST", "/api/extensions", { extension: "1002", name: "Bob" });
  await ok("POST", "/api/ptt-groups", { name: "Floor", extension: "700", members: ["1001", "1002"] });
  const welcome = await ok("POST", "/api/announcements", { name: "Welcome", allowSkip: true });
  const ivr = await ok("POST", "/api/ivrs", {
    name: "Main menu",
    options: [{ digits: "1", destination: { kind: "extension", target: "1001" } }],
    invalidDestination: { kind: "announcement", target: String(welcome.id) },
  });
  await ok("POST", "/api/ring-groups", {
    number: "600",
    name: "Sales",
    members: ["1001", "1002"],
    noAnswer: { kind: "ivr", target: String(ivr.id) },
  });
  await ok("POST", "/api/queues", { number: "400", name: "Support", agents: ["1002"], maxWait: 60 });
  const tc = await ok("POST", "/api/time-conditions", {
    name: "Daytime",
    timeGroup: group.id,
    match: { kind: "ivr", target: String(ivr.id) },
    noMatch: { kind: "voicemail", target: "1001" },
  });
  await ok("POST", "/api/outbound-routes", { name: "National", dialPatterns: ["0NXXXXXXXX"], trunkId: trunk.id });
  await ok("POST", "/api/inbound-routes", {
    description: "Main number",
    didNumber: "4930123456",
    destinationType: "time-condition",
    destination: String(tc.id),
  });
  const assistant = await ok("POST", "/api/ai/assistants", {
    name: "Receptionist",
    model: "gpt-realtime",
    systemPrompt: "You answer the phone for the office politely.",
    extensionId: "800",
  });
  await ok("POST", "/api/ai/routing-rules", {
    name: "Billing to the assistant",
    conditions: JSON.stringify({ calledNumber: "800" }),
    action: "transfer_to_ai",
    actionParams: JSON.stringify({ assistantId: assistant.id }),
  });
}

const exported = async () => (await ok("GET", "/api/config/export")) as Record<string, any>;
const plan = (document: unknown, prune = false) => s.call("POST", "/api/config/plan", { document, prune });
const itemsOf = (p: ConfigPlan, action: ConfigPlanItem["action"]) => p.items.filter((i) => i.action === action);

beforeEach(async () => {
  await seed();
});

describe("export", () => {
  test("every kind, named by number or name, references by name, secrets as references only", async () => {
    const res = await s.call("GET", "/api/config/export");
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(EXT_SECRET);
    expect(res.text).not.toContain(TRUNK_SECRET);
    const doc = res.json;
    expect(doc.version).toBe(1);
    for (const kind of CONFIG_KINDS) expect([kind, doc[kind].length]).toEqual([kind, kind === "extensions" ? 2 : 1]);
    expect(doc.extensions[0]).toMatchObject({ extension: "1001", name: "Alice", secret: { ref: "extensions/1001" } });
    expect(doc.trunks[0].secret).toEqual({ ref: "trunks/carrier" });
    expect(doc.outboundRoutes[0]).toMatchObject({ name: "National", trunk: "carrier" });
    expect(doc.outboundRoutes[0].trunkId).toBeUndefined();
    expect(doc.timeConditions[0]).toMatchObject({
      timeGroup: "Office hours",
      match: { kind: "ivr", target: "Main menu" },
    });
    expect(doc.ringGroups[0].noAnswer).toEqual({ kind: "ivr", target: "Main menu" });
    expect(doc.ivrs[0].invalidDestination).toEqual({ kind: "announcement", target: "Welcome" });
    expect(doc.inboundRoutes[0]).toMatchObject({ destinationType: "time-condition", destination: "Daytime" });
    for (const list of Object.values(doc).filter(Array.isArray))
      for (const o of list as Record<string, unknown>[]) {
        expect(o.id).toBeUndefined();
        expect(o.createdAt).toBeUndefined();
      }
  });

  test("export → plan on the same console: no changes on every kind, from JSON and from YAML", async () => {
    const doc = await exported();
    const fromJson = await plan(doc, true);
    expect(fromJson.status).toBe(200);
    expect(fromJson.json.counts).toEqual({ create: 0, update: 0, delete: 0, unchanged: 14 });
    expect(new Set(fromJson.json.items.map((i: ConfigPlanItem) => i.kind)).size).toBe(13);
    const yaml = await s.call("GET", "/api/config/export?format=yaml");
    expect(yaml.headers.get("content-type")).toContain("yaml");
    expect(yaml.text).toContain('extension: "1001"');
    const fromYaml = await plan(yaml.text, true);
    expect(fromYaml.status).toBe(200);
    expect(fromYaml.json.counts).toEqual({ create: 0, update: 0, delete: 0, unchanged: 14 });
  });
});

describe("the published JSON Schema", () => {
  test("describes what export writes: every list, every field, references by name, secrets as references", async () => {
    const schema = await ok("GET", "/api/config/schema");
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.properties.version).toEqual({ const: 1 });
    const doc = await exported();
    for (const [kind, list] of Object.entries(doc)) {
      if (kind === "version") continue;
      const items = schema.properties[kind]?.items;
      expect([kind, items?.type]).toEqual([kind, "object"]);
      for (const o of list as Record<string, unknown>[]) {
        // Every field export writes is one the schema names, and every field it requires is written.
        expect([kind, Object.keys(o).filter((f) => !(f in items.properties))]).toEqual([kind, []]);
        expect([kind, (items.required as string[]).filter((f) => !(f in o))]).toEqual([kind, []]);
      }
    }
    const route = schema.properties.outboundRoutes.items;
    expect(route.properties.trunkId).toBeUndefined();
    expect(route.properties.trunk.type).toBe("string");
    expect(route.required).toContain("trunk");
    expect(schema.properties.extensions.items.properties.secret.anyOf[0].required).toEqual(["ref"]);
    expect(schema.properties.extensions.items.properties.status).toBeUndefined();
    expect(schema.properties.aiAssistants.items.properties.status).toBeDefined();
  });
});

describe("plan and apply", () => {
  test("a hand-edited document: the field-level plan, and its apply makes the console hold it", async () => {
    const doc = await exported();
    doc.extensions[1].name = "Robert";
    doc.extensions.push({ extension: "1003", name: "Carol", secret: "Carol-Secret-9876543" });
    doc.ringGroups[0].noAnswer = { kind: "announcement", target: "Welcome" };
    doc.ringGroups[0].members = ["1001", "1002", "1003"];
    doc.outboundRoutes[0].dialPatterns = ["0nxxxxxxxx", "00."];
    const res = await plan(doc);
    expect(res.status).toBe(200);
    const p = res.json as ConfigPlan;
    expect(p.counts).toEqual({ create: 1, update: 3, delete: 0, unchanged: 11 });
    const by = (id: string) => p.items.find((i) => i.id === id) as ConfigPlanItem;
    expect(by("extensions:1002")).toMatchObject({
      action: "update",
      changes: [{ field: "name", from: "Bob", to: "Robert" }],
    });
    const carol = by("extensions:1003");
    expect(carol.action).toBe("create");
    expect(carol.changes).toContainEqual({ field: "secret", from: null, to: "••••••", secret: true });
    expect(JSON.stringify(p)).not.toContain("Carol-Secret");
    expect(by("ringGroups:600").changes).toEqual([
      { field: "members", from: '["1001","1002"]', to: '["1001","1002","1003"]' },
      {
        field: "noAnswer",
        from: '{"kind":"ivr","target":"Main menu"}',
        to: '{"kind":"announcement","target":"Welcome"}',
      },
    ]);
    // The patterns as the console stores them: upper case.
    expect(by("outboundRoutes:National").changes).toEqual([
      { field: "dialPatterns", from: '["0NXXXXXXXX"]', to: '["0NXXXXXXXX","00."]' },
    ]);
    // Nothing was written by the plan.
    expect((await ok("GET", "/api/extensions")).map((e: { name: string }) => e.name)).toEqual(["Alice", "Bob"]);

    const applied = await s.call("POST", "/api/config/apply", { fingerprint: p.fingerprint });
    expect(applied.status).toBe(200);
    expect(applied.json.counts).toEqual(p.counts);
    const exts = await ok("GET", "/api/extensions");
    expect(exts.map((e: { name: string }) => e.name)).toEqual(["Alice", "Robert", "Carol"]);
    const carolId = exts[2].id;
    const prov = await ok("GET", `/api/extensions/${carolId}/provisioning`);
    expect(prov.config.password).toBe("Carol-Secret-9876543");
    const after = await plan(await exported());
    expect(after.json.counts).toEqual({ create: 0, update: 0, delete: 0, unchanged: 15 });
    // The same plan cannot be applied twice.
    expect((await s.call("POST", "/api/config/apply", { fingerprint: p.fingerprint })).status).toBe(410);
  });

  test("deletes only with prune, and only in the lists the document names", async () => {
    const doc = await exported();
    doc.extensions = doc.extensions.filter((e: { extension: string }) => e.extension !== "1002");
    doc.queues = [];
    doc.pttGroups[0].members = ["1001"];
    doc.ringGroups[0].members = ["1001"];
    const kept = await plan(doc);
    expect(kept.json.counts.delete).toBe(0);
    const pruned = (await plan(doc, true)).json as ConfigPlan;
    expect(itemsOf(pruned, "delete").map((i) => i.id)).toEqual(["extensions:1002", "queues:400"]);
    expect((await s.call("POST", "/api/config/apply", { fingerprint: pruned.fingerprint })).status).toBe(200);
    expect((await ok("GET", "/api/extensions")).map((e: { extension: string }) => e.extension)).toEqual(["1001"]);
    expect(await ok("GET", "/api/queues")).toEqual([]);

    // A prune the console's own rules refuse (the page group, not in the fragment, still pages 1001): named.
    const refused = await s.refused("extensions", () => plan({ version: 1, extensions: [] }, true), 400);
    expect(refused.fields?.extensions).toStartWith("Extension 1001 cannot be deleted:");
    expect(refused.fields?.extensions).toContain("Floor");

    // A fragment names one list: the others are neither compared nor pruned.
    const fragment = { version: 1, outboundRoutes: [{ name: "Emergency", trunk: "carrier", dialPatterns: ["112"] }] };
    const f = (await plan(fragment, true)).json as ConfigPlan;
    expect(f.kinds).toEqual(["outboundRoutes"]);
    expect(f.items.map((i) => [i.id, i.action])).toEqual([
      ["outboundRoutes:Emergency", "create"],
      ["outboundRoutes:National", "delete"],
    ]);
  });

  test("objects that name each other are created together (a second pass); a loop they would make is refused", async () => {
    const doc = {
      version: 1,
      // Each names one written after it: the ring group an announcement, the announcement an IVR.
      ringGroups: [
        { number: "601", name: "Night", members: ["1001"], noAnswer: { kind: "announcement", target: "Closed" } },
      ],
      announcements: [{ name: "Closed", after: { kind: "ivr", target: "Night menu" } }],
      ivrs: [
        {
          name: "Night menu",
          options: [{ digits: "1", destination: { kind: "ring-group", target: "600" } }],
          timeoutDestination: { kind: "hangup", target: "" },
        },
      ],
    };
    const res = await plan(doc);
    expect([res.status, res.json.error]).toEqual([200, undefined]);
    const p = res.json as ConfigPlan;
    expect(p.items.filter((i) => i.action === "create").map((i) => i.id)).toEqual([
      "ringGroups:601",
      "announcements:Closed",
      "ivrs:Night menu",
    ]);
    expect(p.items.find((i) => i.id === "ringGroups:601")?.changes).toContainEqual({
      field: "noAnswer",
      from: null,
      to: '{"kind":"announcement","target":"Closed"}',
    });
    expect((await s.call("POST", "/api/config/apply", { fingerprint: p.fingerprint })).status).toBe(200);
    const after = await exported();
    expect(after.announcements.find((a: { name: string }) => a.name === "Closed").after).toEqual({
      kind: "ivr",
      target: "Night menu",
    });
    expect(after.ringGroups.find((g: { number: string }) => g.number === "601").noAnswer).toEqual({
      kind: "announcement",
      target: "Closed",
    });

    // The IVR's no-key destination back to the announcement closes a loop: refused where it is written.
    const loop = structuredClone(doc);
    loop.ivrs = [{ ...doc.ivrs[0], timeoutDestination: { kind: "announcement", target: "Closed" } }] as typeof doc.ivrs;
    const err = await s.refused("ivrs", () => plan(loop), 400);
    expect(Object.keys(err.fields ?? {})).toEqual(["ivrs[0].timeoutDestination.target"]);
    expect(err.fields?.["ivrs[0].timeoutDestination.target"]).toContain("This makes a loop");
  });

  test("a console changed since the plan: 409 with the new plan, nothing written; an unknown fingerprint is 410", async () => {
    const doc = await exported();
    doc.extensions[0].name = "Alicia";
    const p = (await plan(doc)).json as ConfigPlan;
    await ok("PATCH", `/api/extensions/${(await ok("GET", "/api/extensions"))[1].id}`, { name: "Bobby" });
    const before = s.snapshot("extensions");
    const stale = await s.call("POST", "/api/config/apply", { fingerprint: p.fingerprint });
    expect(stale.status).toBe(409);
    expect(stale.json.plan.fingerprint).not.toBe(p.fingerprint);
    expect(stale.json.plan.items.find((i: ConfigPlanItem) => i.id === "extensions:1002").changes).toEqual([
      { field: "name", from: "Bobby", to: "Bob" },
    ]);
    expect(s.snapshot("extensions")).toBe(before);
    // The new plan is the one to review and apply.
    expect((await s.call("POST", "/api/config/apply", { fingerprint: stale.json.plan.fingerprint })).status).toBe(200);
    expect((await ok("GET", "/api/extensions")).map((e: { name: string }) => e.name)).toEqual(["Alicia", "Bob"]);
    const unknown = await s.call("POST", "/api/config/apply", { fingerprint: "a".repeat(64) });
    expect(unknown.status).toBe(410);
  });
});

describe("refused documents", () => {
  test("each problem at its path, and nothing stored", async () => {
    const doc = await exported();
    doc.extensions.push({ extension: "1003", name: "Carol" });
    doc.extensions.push({ extension: "1004", name: "Dave", secret: "short" });
    doc.extensions.push({ extension: "1001", name: "Again" });
    doc.outboundRoutes[0].trunk = "nobody";
    doc.timeConditions[0].match = { kind: "ivr", target: "No such menu" };
    doc.trunks[0].secret = { ref: "trunks/other" };
    doc.ringGroups[0].strategy = "loudest";
    doc.fax = [];
    const err = await s.refused("extensions", () => plan(doc), 400);
    expect(err.fields).toEqual({
      "trunks[0].secret": "A secret reference names its own object: trunks/carrier",
      "extensions[3].secret": "Secret must be at least 12 characters (leave it empty to generate one)",
      "extensions[4].extension": "Extension 1001 is listed twice (also extensions[0])",
      "ringGroups[0].strategy": expect.stringContaining("Strategy must be one of"),
      "timeConditions[0].match.target": "No ivr named No such menu in the document or the console",
      "outboundRoutes[0].trunk": "No trunk named nobody in the document or the console",
      fax: expect.stringContaining("Unknown list fax"),
    });
  });

  test("the console's own rules, at the object's path: a number a page group holds", async () => {
    const doc = await exported();
    doc.extensions.push({ extension: "700", name: "Clash" });
    const err = await s.refused("extensions", () => plan(doc), 400);
    expect(Object.keys(err.fields ?? {})).toEqual(["extensions[2].extension"]);
    expect(err.fields?.["extensions[2].extension"]).toContain("700");
  });

  test("not a document: text that is neither YAML nor JSON, a wrong version, a list that is not one", async () => {
    expect((await plan("version: [1")).json.error.fields.document).toContain("neither YAML nor JSON");
    expect((await plan({ version: 2 })).json.error.fields.version).toContain("version must be 1");
    expect((await plan({ version: 1, extensions: { a: 1 } })).json.error.fields.extensions).toBe(
      "extensions must be a list",
    );
    expect((await plan({ version: 1, extensions: [1] })).json.error.fields["extensions[0]"]).toBe(
      "Each entry must be an object",
    );
  });
});

describe("who may", () => {
  test("a viewer's token plans and exports but cannot apply; an operator's token applies", async () => {
    const token = async (role: string) =>
      (await ok("POST", "/api/tokens", { name: `${role}-${Math.random()}`, role })).token as string;
    const viewer = await token("viewer");
    const operator = await token("operator");
    const as = async (t: string, method: string, path: string, body?: unknown) =>
      s.call(method, path, body, { authorization: `Bearer ${t}`, cookie: "" });
    const doc = (await as(viewer, "GET", "/api/config/export")).json;
    doc.extensions[0].name = "Alice Token";
    const p = await as(viewer, "POST", "/api/config/plan", { document: doc });
    expect(p.status).toBe(200);
    expect((await as(viewer, "POST", "/api/config/apply", { fingerprint: p.json.fingerprint })).status).toBe(403);
    expect((await ok("GET", "/api/extensions"))[0].name).toBe("Alice");
    expect((await as(operator, "POST", "/api/config/apply", { fingerprint: p.json.fingerprint })).status).toBe(200);
    expect((await ok("GET", "/api/extensions"))[0].name).toBe("Alice Token");
  });
});
