/**
 * Every call of the spec's section 7 ("The calls it makes", ../shared/spec/console-spec.md) against the real
 * console server, with the spec's request bodies, each answer checked for the shape sections 3 and 7 document.
 * One test per subsection of section 7. Outside services are the fakes; SSH-backed calls (deploy, sync) go to a
 * real PBX host (test/pbx-host). Fields beyond the spec are fine; a documented field or call missing is not.
 */
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeDialer } from "../fakes/dialer";
import { FREEPBX_TEST_CLIENT, startFakeFreePbx } from "../fakes/freepbx";
import {
  HOSTINGER_DEFAULT_TOKEN,
  makeHostingerVm,
  sampleHostingerMetrics,
  startFakeHostinger,
} from "../fakes/hostinger";
import { makeTelnyxPhoneNumber, makeTelnyxRequirement, startFakeTelnyx, TELNYX_DEFAULT_KEY } from "../fakes/telnyx";
import { startFakeTinyMdm, TINYMDM_DEFAULT_KEYS } from "../fakes/tinymdm";
import { startTestServer, type TestServer } from "../helpers/server";
import { emptyFreepbx, seedGuiObjects } from "../pbx-host/gui-objects";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(120_000);

const fakes = {
  hostinger: await startFakeHostinger(),
  telnyx: await startFakeTelnyx(),
  tinymdm: await startFakeTinyMdm(),
  freepbx: await startFakeFreePbx(),
  dialer: await startFakeDialer(),
};
let pbx: PbxHost;
beforeAll(async () => {
  pbx = await startPbxHost();
}, 60_000);
afterAll(async () => {
  await Promise.all([...Object.values(fakes).map((f) => f.stop()), pbx?.stop()]);
});

const servers: TestServer[] = [];
/** A signed-in console pointed at the fakes (plus `env`). */
async function server(env: Record<string, string> = {}) {
  const s = await startTestServer({
    PBX_HOSTINGER_URL: fakes.hostinger.baseUrl,
    PBX_TELNYX_URL: fakes.telnyx.baseUrl,
    PBX_TINYMDM_URL: fakes.tinymdm.baseUrl,
    ...env,
  });
  await s.setup();
  servers.push(s);
  return s;
}
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

// ---------- shapes ----------

type Kind = "string" | "number" | "boolean" | "array" | "object";
/** A key's kind; `?` also allows null. */
type Shape = Record<string, Kind | `${Kind}?`>;

const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** `value` is an object with every key of `shape`, each of its kind (other keys are fine). */
function expectShape(value: unknown, shape: Shape) {
  expect(kindOf(value)).toBe("object");
  const got = Object.fromEntries(
    Object.entries(shape).map(([key, want]) => {
      const kind = key in (value as object) ? kindOf((value as Record<string, unknown>)[key]) : "missing";
      const ok = kind === want.replace("?", "") || (want.endsWith("?") && kind === "null");
      return [key, ok ? want : kind];
    }),
  );
  expect(got).toEqual(shape);
}

/** A non-empty list whose every item has `shape`. */
function expectList(value: unknown, shape: Shape) {
  expect(kindOf(value)).toBe("array");
  expect((value as unknown[]).length).toBeGreaterThan(0);
  for (const item of value as unknown[]) expectShape(item, shape);
}

/** Section 3's entities as the console answers them. */
const ENTITY = {
  extension: {
    id: "number",
    extension: "string",
    name: "string",
    email: "string?",
    position: "string?",
    personalPhone: "string?",
    voicemail: "boolean",
    status: "string",
    userId: "string?",
    createdAt: "string",
  },
  trunk: {
    id: "number",
    name: "string",
    type: "string",
    host: "string",
    port: "number?",
    username: "string?",
    fromDomain: "string?",
    fromUser: "string?",
    contactUser: "string?",
    authType: "string",
    registrationEnabled: "boolean",
    rewriteContact: "boolean",
    trustRpid: "boolean",
    sendRpid: "boolean",
    status: "string",
    createdAt: "string",
  },
  inboundRoute: {
    id: "number",
    description: "string",
    didNumber: "string?",
    destination: "string",
    destinationType: "string",
    createdAt: "string",
  },
  outboundRoute: {
    id: "number",
    name: "string",
    dialPatterns: "array",
    trunkId: "number",
    routeOrder: "number",
    createdAt: "string",
  },
  pttGroup: {
    id: "number",
    name: "string",
    extension: "string",
    description: "string?",
    members: "array",
    duplex: "boolean",
    createdAt: "string",
  },
  assistant: {
    id: "number",
    name: "string",
    description: "string?",
    provider: "string",
    model: "string",
    systemPrompt: "string",
    voice: "string",
    temperature: "number",
    tools: "array",
    extensionId: "string?",
    ivrId: "string?",
    status: "string",
    createdAt: "string",
    updatedAt: "string",
  },
  transcript: {
    id: "number",
    callId: "string?",
    extensionId: "string?",
    phoneNumber: "string?",
    direction: "string?",
    transcript: "string",
    summary: "string?",
    sentiment: "string?",
    keywords: "array",
    duration: "number?",
    recordingUrl: "string?",
    createdAt: "string",
  },
  rule: {
    id: "number",
    name: "string",
    description: "string?",
    priority: "number",
    conditions: "string",
    action: "string",
    actionParams: "string",
    enabled: "boolean",
    createdAt: "string",
  },
} satisfies Record<string, Shape>;
type Entity = keyof typeof ENTITY;

const SPEC_FIELDS_NOT_ANSWERED: Partial<Record<Entity, string[]>> = {
  extension: ["secret"],
  trunk: ["secret"],
  inboundRoute: ["trunkId"],
  pttGroup: ["autoAnswer"],
};

/** A record of section 3's entity, as the console answers it. */
function expectEntity(entity: Entity, value: unknown) {
  expectShape(value, ENTITY[entity]);
  for (const key of SPEC_FIELDS_NOT_ANSWERED[entity] ?? []) expect(value).not.toHaveProperty(key);
}

/** The undo answer of a delete (the spec shows no delete's answer). */
const UNDO: Shape = { undoToken: "string", expiresInMs: "number" };
const DEPLOY_GROUP: Shape = { deployed: "number", failed: "number", results: "array" };
const IMPORT_RESULT: Shape = { created: "number", updated: "number", failed: "number" };

// ---------- the spec's request bodies ----------

const EXTENSION_BODY = {
  extension: "1001",
  name: "Alice",
  email: "alice@example.com",
  voicemail: true,
  secret: "alice-sip-secret-01",
};
const TRUNK_BODY = {
  name: "Carrier Main",
  type: "sip",
  host: "sip.carrier.example",
  port: 5060,
  username: "acct1001",
  secret: "trunk-secret-0001",
  fromDomain: "carrier.example",
  fromUser: "acct1001",
  contactUser: "acct1001",
  authType: "outbound",
  registrationEnabled: true,
  rewriteContact: true,
  trustRpid: false,
  sendRpid: true,
};
const inboundBody = (trunkId: number) => ({
  description: "Main line",
  didNumber: "442071234567",
  trunkId,
  destination: "1001",
  destinationType: "extension",
});
const outboundBody = (trunkId: number) => ({
  name: "UK",
  dialPatterns: ["0[123456789]XXXXXXXXX", "07XXXXXXXXX", "+44XXXXXXXXXX"],
  trunkId,
  routeOrder: 0,
});
const PTT_BODY = {
  name: "Floor",
  extension: "7001",
  description: "Warehouse floor",
  members: ["1001"],
  duplex: false,
  autoAnswer: true,
};
const ASSISTANT_BODY = {
  name: "Reception",
  description: "Answers the main line",
  provider: "openai",
  model: "gpt-realtime",
  systemPrompt: "You answer calls for the front desk, politely and briefly.",
  voice: "alloy",
  temperature: 80,
  extensionId: "5001",
  ivrId: "2",
  status: "active",
};
const RULE_BODY = {
  name: "After hours",
  description: "Nights go to voicemail",
  priority: 10,
  conditions: JSON.stringify({ match: "all", conditions: [{ kind: "time", from: "18:00", to: "08:00" }] }),
  action: "send_voicemail",
  actionParams: JSON.stringify({ extensionId: "1001" }),
  enabled: true,
};

// ---------- helpers ----------

/** POST that must answer 201 (or 200); the created record. */
async function created(s: TestServer, path: string, body: unknown) {
  const res = await s.call("POST", path, body);
  if (res.status !== 200 && res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.json;
}

/** Deploy and sync import are jobs here: 202 `{jobId}`, then the job's summary once it has ended. */
async function jobSummary(s: TestServer, path: string, body?: unknown) {
  const started = await s.call("POST", path, body);
  expect({ path, status: started.status }).toEqual({ path, status: 202 });
  expectShape(started.json, { jobId: "number" });
  await s.app.jobs.idle();
  const job = (await s.call("GET", `/api/jobs/${started.json.jobId}`)).json;
  expect({ path, state: job.state, error: job.error }).toEqual({ path, state: "succeeded", error: null });
  return job.summary;
}

/** A sync comparison (section 3's shape): its counts and rows, each row's two sides naming `field`. */
async function comparison(s: TestServer, kind: "extensions" | "trunks", key: string, field: string) {
  const res = await s.call("GET", `/api/sync/${kind}/compare`);
  expect(res.status).toBe(200);
  expectShape(res.json, { freepbxCount: "number", dashboardCount: "number", comparison: "array" });
  expectList(res.json.comparison, {
    [key]: "string",
    inDashboard: "boolean",
    needsSync: "boolean",
    freepbx: "object",
    dashboard: "object",
  });
  for (const row of res.json.comparison) {
    expectShape(row.freepbx, { [field]: "string?" });
    expectShape(row.dashboard, { [field]: "string?" });
  }
  return res.json;
}

/** The live-update socket; `next(type)` resolves with the next message of that type. */
async function syncSocket(s: TestServer) {
  const ws = new WebSocket(`${s.base.replace("http", "ws")}/ws?type=sync`, { headers: { cookie: s.cookie } } as never);
  const waiting: { type: string; resolve: (message: unknown) => void }[] = [];
  ws.onmessage = (e) => {
    const message = JSON.parse(String(e.data));
    for (const w of waiting.filter((w) => w.type === message.type)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(message);
    }
  };
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("the sync socket did not open"));
  });
  return {
    next: (type: string) => new Promise<unknown>((resolve) => waiting.push({ type, resolve })),
    close: () => ws.close(),
  };
}

// ---------- section 7 ----------

test("VPS: status with its metrics; control start/restart/stop, then the status again", async () => {
  fakes.hostinger.state.vms = [makeHostingerVm({ id: 4242, state: "running" })];
  const now = new Date();
  fakes.hostinger.state.metrics[4242] = sampleHostingerMetrics(new Date(now.getTime() - 3600_000), now, 600);
  const s = await server();
  await created(s, "/api/credentials", {
    name: "Hostinger VPS API",
    type: "hostinger",
    apiKey: HOSTINGER_DEFAULT_TOKEN,
  });

  const status = await s.call("GET", "/api/vps/status");
  expect(status.status).toBe(200);
  expectShape(status.json, {
    status: "string",
    ipAddress: "string",
    hostname: "string",
    cpu: "number",
    memory: "number",
    disk: "number",
    metrics: "object",
  });
  expectShape(status.json.metrics, {
    cpu: "number",
    memory: "number",
    disk: "number",
    uptime: "number",
    network: "object",
  });
  expectShape(status.json.metrics.network, { in: "number", out: "number" });
  expect(status.json).toMatchObject({ status: "online", ipAddress: "203.0.113.10", hostname: "srv4242.hstgr.cloud" });
  for (const k of ["cpu", "memory", "disk"] as const) {
    expect(status.json[k]).toBeGreaterThanOrEqual(0);
    expect(status.json[k]).toBeLessThanOrEqual(100);
  }

  for (const [action, after] of [
    ["stop", "offline"],
    ["start", "online"],
    ["restart", "online"],
  ] as const) {
    const control = await s.call("POST", "/api/vps/control", { action });
    expect({ action, status: control.status }).toEqual({ action, status: 200 });
    // The spec shows no answer; the console answers {success, message}.
    expectShape(control.json, { success: "boolean", message: "string" });
    expect(fakes.hostinger.calls.at(-1)).toMatchObject({
      method: "POST",
      path: `/api/vps/v1/virtual-machines/4242/${action}`,
    });
    expect((await s.call("GET", "/api/vps/status")).json.status).toBe(after);
  }
});

test("Lists: extensions, trunks, inbound routes, PTT groups, AI assistants and outbound routes are arrays of their records", async () => {
  const s = await server();
  for (const path of [
    "/api/extensions",
    "/api/trunks",
    "/api/inbound-routes",
    "/api/ptt-groups",
    "/api/ai/assistants",
    "/api/outbound-routes",
  ]) {
    const res = await s.call("GET", path);
    expect({ path, status: res.status, json: res.json }).toEqual({ path, status: 200, json: [] });
  }

  await created(s, "/api/extensions", EXTENSION_BODY);
  const trunk = await created(s, "/api/trunks", TRUNK_BODY);
  await created(s, "/api/inbound-routes", inboundBody(trunk.id));
  await created(s, "/api/outbound-routes", outboundBody(trunk.id));
  await created(s, "/api/ptt-groups", PTT_BODY);
  await created(s, "/api/ai/assistants", ASSISTANT_BODY);

  for (const [path, entity] of [
    ["/api/extensions", "extension"],
    ["/api/trunks", "trunk"],
    ["/api/inbound-routes", "inboundRoute"],
    ["/api/ptt-groups", "pttGroup"],
    ["/api/ai/assistants", "assistant"],
    ["/api/outbound-routes", "outboundRoute"],
  ] as const) {
    const res = await s.call("GET", path);
    expect({ path, status: res.status, length: res.json.length }).toEqual({ path, status: 200, length: 1 });
    expectEntity(entity, res.json[0]);
  }
});

test("Extensions: create, the dialer push with its count, the QR code, delete", async () => {
  const s = await server();
  await created(s, "/api/credentials", {
    type: "dialer",
    apiUrl: `${fakes.dialer.url}/pbx`,
    webhookSecret: fakes.dialer.state.secret,
  });

  const res = await s.call("POST", "/api/extensions", EXTENSION_BODY);
  expect(res.status).toBe(201);
  // The spec shows no answer; the console answers the stored extension.
  expectEntity("extension", res.json);
  const { secret: _secret, ...echoed } = EXTENSION_BODY;
  expect(res.json).toMatchObject({ ...echoed, status: "available" });
  const ext = res.json;

  const before = fakes.dialer.state.deliveries.length;
  const push = await s.call("POST", "/api/dialer/push-all");
  expect(push.status).toBe(200);
  expect(push.json).toEqual({ count: 1 });
  expect(fakes.dialer.state.deliveries.slice(before).map((d) => d.payload.extension)).toEqual(["1001"]);

  const qr = await s.call("GET", `/api/extensions/${ext.id}/qr-code`);
  expect(qr.status).toBe(200);
  expectShape(qr.json, { qrCode: "string" });
  expect(qr.json.qrCode).toStartWith("data:image/");

  const del = await s.call("DELETE", `/api/extensions/${ext.id}`);
  expect(del.status).toBe(200);
  // The spec shows no answer; the console answers the undo token of the delete.
  expectShape(del.json, UNDO);
  expect((await s.call("GET", "/api/extensions")).json).toEqual([]);
  expect((await s.call("POST", "/api/dialer/push-all")).json).toEqual({ count: 0 });
});

test("Trunks, routes, PTT: create each with the spec's body, see it in its list, delete it", async () => {
  const s = await server();
  await created(s, "/api/extensions", EXTENSION_BODY);

  // The spec shows no answer of these creates and deletes; the console answers the stored record, and the
  // delete's undo token.
  const trunk = await created(s, "/api/trunks", TRUNK_BODY);
  expectEntity("trunk", trunk);
  const { secret: _secret, ...trunkEchoed } = TRUNK_BODY;
  expect(trunk).toMatchObject({ ...trunkEchoed, status: "unregistered" });

  const inbound = await created(s, "/api/inbound-routes", inboundBody(trunk.id));
  expectEntity("inboundRoute", inbound);
  const { trunkId: _trunkId, ...inboundEchoed } = inboundBody(trunk.id);
  expect(inbound).toMatchObject(inboundEchoed);

  const outbound = await created(s, "/api/outbound-routes", outboundBody(trunk.id));
  expectEntity("outboundRoute", outbound);
  expect(outbound).toMatchObject(outboundBody(trunk.id));

  const group = await created(s, "/api/ptt-groups", PTT_BODY);
  expectEntity("pttGroup", group);
  const { autoAnswer: _autoAnswer, ...groupEchoed } = PTT_BODY;
  expect(group).toMatchObject(groupEchoed);

  for (const [path, record] of [
    ["/api/trunks", trunk],
    ["/api/inbound-routes", inbound],
    ["/api/outbound-routes", outbound],
    ["/api/ptt-groups", group],
  ] as const) {
    const ids = (await s.call("GET", path)).json.map((r: { id: number }) => r.id);
    expect({ path, ids }).toEqual({ path, ids: [record.id] });
  }
  for (const [path, record] of [
    ["/api/ptt-groups", group],
    ["/api/inbound-routes", inbound],
    ["/api/outbound-routes", outbound],
    ["/api/trunks", trunk],
  ] as const) {
    const del = await s.call("DELETE", `${path}/${record.id}`);
    expect({ path, status: del.status }).toEqual({ path, status: 200 });
    expectShape(del.json, UNDO);
    expect({ path, list: (await s.call("GET", path)).json }).toEqual({ path, list: [] });
  }
});

test("Wizard, generator, deployment: the wizard's objects, the generated configuration, each deploy's summary", async () => {
  await emptyFreepbx(pbx);
  const s = await server(pbx.consoleEnv());

  const wizard = await s.call("POST", "/api/wizard/deploy", {
    step: 4,
    extensionCount: 2,
    extensionPrefix: "10",
    trunkProvider: "sip.telnyx.com",
    enableVoicemail: true,
    enableIVR: false,
  });
  expect(wizard.status).toBe(200);
  // The spec shows no answer; the console answers what it created and what existed.
  expect(wizard.json).toEqual({
    created: { extensions: ["1001", "1002"], trunk: "sip.telnyx.com", ivr: null },
    existing: { extensions: [], trunk: null, ivr: null },
  });
  const extensions = (await s.call("GET", "/api/extensions")).json;
  expect(extensions.map((e: { extension: string }) => e.extension)).toEqual(["1001", "1002"]);
  const trunks = (await s.call("GET", "/api/trunks")).json;
  expect(trunks.map((t: { host: string }) => t.host)).toEqual(["sip.telnyx.com"]);
  await created(s, "/api/outbound-routes", outboundBody(trunks[0].id));
  await created(s, "/api/inbound-routes", inboundBody(trunks[0].id));
  await created(s, "/api/ptt-groups", PTT_BODY);

  const gen = await s.call("GET", "/api/config/generate");
  expect(gen.status).toBe(200);
  expectShape(gen.json, { summary: "object", deployment: "object", sql: "object" });
  expect(gen.json.summary).toEqual(
    expect.objectContaining({ totalTrunks: 1, totalExtensions: 2, totalOutboundRoutes: 1, totalInboundRoutes: 1 }),
  );
  expectShape(gen.json.deployment, { script: "string", steps: "array" });
  expect(gen.json.deployment.steps.length).toBeGreaterThan(0);
  expect(gen.json.deployment.script).toContain("START TRANSACTION;");
  expectShape(gen.json.sql, { trunks: "array", extensions: "array", outboundRoutes: "array", inboundRoutes: "array" });
  for (const kind of ["trunks", "extensions", "outboundRoutes", "inboundRoutes"]) {
    const statements: unknown[] = gen.json.sql[kind];
    expect({ kind, some: statements.length > 0, text: statements.every((t) => typeof t === "string") }).toEqual({
      kind,
      some: true,
      text: true,
    });
  }

  const all = await jobSummary(s, "/api/deploy/all");
  expectShape(all, { trunks: "object", extensions: "object" });
  expectShape(all.trunks, DEPLOY_GROUP);
  expectShape(all.extensions, DEPLOY_GROUP);
  expect(all.trunks).toMatchObject({ deployed: 1, failed: 0 });
  expect(all.extensions).toMatchObject({ deployed: 2, failed: 0 });
  expect(all.trunks.results.map((r: any) => [r.status, r.trunk])).toEqual([["success", "sip.telnyx.com"]]);
  expect(all.extensions.results.map((r: any) => [r.status, r.extension])).toEqual([
    ["success", "1001"],
    ["success", "1002"],
  ]);
  expect(await pbx.query("SELECT extension FROM users ORDER BY extension")).toEqual([
    { extension: "1001" },
    { extension: "1002" },
  ]);

  for (const path of ["/api/deploy/trunks", "/api/deploy/extensions", "/api/deploy/ptt-groups"]) {
    const summary = await jobSummary(s, path);
    expectShape(summary, DEPLOY_GROUP);
    expect({ path, failed: summary.failed, results: summary.results.length > 0 }).toEqual({
      path,
      failed: 0,
      results: true,
    });
    for (const r of summary.results) expectShape(r, { status: "string" });
  }
  expect(await pbx.query("SELECT page_group FROM paging_config")).toEqual([{ page_group: "7001" }]);
});

test("Sync: compare both kinds, import selected and all, and the live-update socket's messages", async () => {
  await emptyFreepbx(pbx);
  await seedGuiObjects(pbx);
  const s = await server(pbx.consoleEnv());
  const socket = await syncSocket(s);
  try {
    const message = { type: "string", data: "object" } as const;
    const extensionsUpdated = socket.next("extensions-updated");
    await created(s, "/api/extensions", EXTENSION_BODY);
    expectShape(await extensionsUpdated, message);

    const extCompare = await comparison(s, "extensions", "extension", "name");
    expect(extCompare.comparison.find((r: any) => r.extension === "1001")).toEqual({
      extension: "1001",
      inDashboard: true,
      needsSync: true,
      freepbx: { name: "Alice GUI" },
      dashboard: { name: "Alice" },
    });

    const trunkCompare = await comparison(s, "trunks", "name", "host");
    const pbxTrunks: string[] = trunkCompare.comparison.map((r: { name: string }) => r.name);
    expect(pbxTrunks).toEqual(expect.arrayContaining(["Carrier", "Failover"]));

    const extensionsImported = socket.next("extensions-updated");
    const importDone = socket.next("sync-status");
    const selected = await jobSummary(s, "/api/sync/extensions/import", { extensions: ["1001"], mode: "selected" });
    expectShape(selected, IMPORT_RESULT);
    expect(selected).toMatchObject({ created: 0, updated: 1, failed: 0 });
    expectShape(await extensionsImported, message);
    expectShape(await importDone, message);

    const trunksImported = socket.next("trunks-updated");
    const allTrunks = await jobSummary(s, "/api/sync/trunks/import", { trunks: [], mode: "all" });
    expectShape(allTrunks, IMPORT_RESULT);
    expect(allTrunks).toMatchObject({ created: pbxTrunks.length, updated: 0, failed: 0 });
    expectShape(await trunksImported, message);

    const again = (await s.call("GET", "/api/sync/trunks/compare")).json.comparison;
    expect(again.every((r: any) => r.inDashboard && !r.needsSync)).toBe(true);
    expect((await s.call("GET", "/api/sync/extensions/compare")).json.comparison[0]).toMatchObject({
      extension: "1001",
      needsSync: false,
      dashboard: { name: "Alice GUI" },
    });

    const trunkId = (await s.call("GET", "/api/trunks")).json[0].id;
    const routesUpdated = socket.next("routes-updated");
    await created(s, "/api/outbound-routes", outboundBody(trunkId));
    expectShape(await routesUpdated, message);
    const groupsUpdated = socket.next("ptt-groups-updated");
    await created(s, "/api/ptt-groups", PTT_BODY);
    expectShape(await groupsUpdated, message);
  } finally {
    socket.close();
  }
});

test("Credentials: connection status per service, save with the fixed names, Test Connection", async () => {
  const s = await server();
  const services = ["hostinger", "freepbx", "tinymdm"] as const;
  const statusOf = async () => {
    const res = await s.call("GET", "/api/credentials/connection-status");
    expect(res.status).toBe(200);
    for (const type of services) expectShape(res.json[type], { configured: "boolean", connected: "boolean" });
    return Object.fromEntries(services.map((t) => [t, res.json[t]]));
  };
  const none = { configured: false, connected: false };
  expect(await statusOf()).toEqual({ hostinger: none, freepbx: none, tinymdm: none });

  const saves = [
    { name: "Hostinger VPS API", type: "hostinger", apiKey: HOSTINGER_DEFAULT_TOKEN },
    { name: "FreePBX GraphQL API", type: "freepbx", apiUrl: fakes.freepbx.url, ...FREEPBX_TEST_CLIENT },
    {
      name: "TinyMDM API",
      type: "tinymdm",
      clientId: TINYMDM_DEFAULT_KEYS.publicKey,
      clientSecret: TINYMDM_DEFAULT_KEYS.secretKey,
    },
  ];
  for (const body of saves) {
    const res = await s.call("POST", "/api/credentials", body);
    expect({ type: body.type, status: res.status }).toEqual({ type: body.type, status: 200 });
    // The spec shows no answer; the console answers the saved view.
    expect(res.json).toMatchObject({ type: body.type, name: body.name, configured: true });
  }
  const saved = { configured: true, connected: false };
  expect(await statusOf()).toEqual({ hostinger: saved, freepbx: saved, tinymdm: saved });

  const tests = [
    { type: "hostinger", apiKey: HOSTINGER_DEFAULT_TOKEN },
    { type: "freepbx", apiUrl: fakes.freepbx.url, ...FREEPBX_TEST_CLIENT },
    { type: "tinymdm", publicKey: TINYMDM_DEFAULT_KEYS.publicKey, secretKey: TINYMDM_DEFAULT_KEYS.secretKey },
  ];
  for (const body of tests) {
    const res = await s.call("POST", "/api/credentials/test", body);
    expect({ type: body.type, status: res.status }).toEqual({ type: body.type, status: 200 });
    expectShape(res.json, { success: "boolean", message: "string" });
    expect({ type: body.type, success: res.json.success }).toEqual({ type: body.type, success: true });
  }
  // A successful test of the saved values marks the service connected: TinyMDM's with its test body's names too.
  const connected = { configured: true, connected: true };
  expect(await statusOf()).toEqual({ hostinger: connected, freepbx: connected, tinymdm: connected });

  const wrong = await s.call("POST", "/api/credentials/test", { type: "hostinger", apiKey: "wrong-key-0000" });
  expectShape(wrong.json, { success: "boolean", message: "string" });
  expect(wrong.json.success).toBe(false);
});

test("SIP provider: connections, credentials, SIP server, phone numbers and their routing, requirements", async () => {
  fakes.telnyx.state.phoneNumbers = [makeTelnyxPhoneNumber(0), makeTelnyxPhoneNumber(1)];
  fakes.telnyx.state.requirements = [
    makeTelnyxRequirement({ country_code: "IL", phone_number_type: "local", action: "ordering" }),
  ];
  const s = await server();
  await created(s, "/api/credentials", { type: "telnyx", apiKey: TELNYX_DEFAULT_KEY });
  const connectionShape: Shape = { id: "string", connection_name: "string", user_name: "string", created_at: "string" };

  // The spec shows no answer of these POSTs; the console answers the record made or changed.
  const named = await created(s, "/api/telnyx/connections", { connectionName: "Office PBX" });
  expectShape(named, connectionShape);
  const full = await created(s, "/api/telnyx/connections", {
    connectionName: "Branch PBX",
    username: "branch1001",
    password: "branch-password-1",
  });
  expect(full).toMatchObject({ connection_name: "Branch PBX", user_name: "branch1001" });

  const connections = await s.call("GET", "/api/telnyx/connections");
  expect(connections.status).toBe(200);
  expectList(connections.json, connectionShape);
  expect(connections.json.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([named.id, full.id]));

  const ext = await created(s, "/api/extensions", EXTENSION_BODY);
  expect((await s.call("GET", "/api/extensions")).json.map((e: { id: number }) => e.id)).toEqual([ext.id]);
  await created(s, "/api/ptt-groups", PTT_BODY);
  expectList((await s.call("GET", "/api/ptt-groups")).json, ENTITY.pttGroup);

  const credential = await created(s, `/api/extensions/${ext.id}/telnyx-credentials`, { connectionId: named.id });
  const credentialShape: Shape = {
    id: "number",
    name: "string",
    sip_username: "string",
    sip_password: "string",
    created_at: "string",
  };
  expectShape(credential, credentialShape);
  const credentials = await s.call("GET", "/api/telnyx/credentials");
  expect(credentials.status).toBe(200);
  expectList(credentials.json, credentialShape);

  const sipServer = await s.call("GET", "/api/telnyx/sip-server");
  expect(sipServer.status).toBe(200);
  expectShape(sipServer.json, { udp: "string", tls: "string" });

  const numberShape: Shape = {
    id: "string",
    phone_number: "string",
    status: "string",
    connection_id: "string?",
    connection_name: "string?",
    updated_at: "string",
  };
  const numbers = await s.call("GET", "/api/telnyx/phone-numbers");
  expect(numbers.status).toBe(200);
  expectList(numbers.json, numberShape);
  const numberId = numbers.json[0].id;
  const routed = await s.call("POST", `/api/telnyx/phone-numbers/${numberId}/route`, { connectionId: named.id });
  expect(routed.status).toBe(200);
  expectShape(routed.json, numberShape);
  const after = (await s.call("GET", "/api/telnyx/phone-numbers")).json.find((n: any) => n.id === numberId);
  expect(after).toMatchObject({ connection_id: named.id, connection_name: "Office PBX" });

  const requirements = await s.call("GET", "/api/telnyx/regulatory-requirements?countryCode=IL&phoneNumberType=local");
  expect(requirements.status).toBe(200);
  expectList(requirements.json, {
    description: "string",
    field_type: "string",
    acceptance_criteria: "object",
    record_type: "string",
  });
  for (const r of requirements.json)
    expectShape(r.acceptance_criteria, { time_limit: "string?", locality_limit: "string?" });

  const del = await s.call("DELETE", `/api/telnyx/connections/${full.id}`);
  expect(del.status).toBe(204);
  expect((await s.call("GET", "/api/telnyx/connections")).json.map((c: { id: string }) => c.id)).not.toContain(full.id);
});

test("AI: assistants, transcripts and routing rules: list, create, change, delete", async () => {
  const s = await server();

  expect((await s.call("GET", "/api/ai/assistants")).json).toEqual([]);
  const assistant = await created(s, "/api/ai/assistants", ASSISTANT_BODY);
  expectEntity("assistant", assistant);
  expect(assistant).toMatchObject(ASSISTANT_BODY);
  // The spec shows no answer of PATCH and DELETE; the console answers the changed record, and the undo token.
  const changed = await s.call("PATCH", `/api/ai/assistants/${assistant.id}`, { status: "inactive" });
  expect(changed.status).toBe(200);
  expectEntity("assistant", changed.json);
  expect(changed.json).toMatchObject({ ...ASSISTANT_BODY, status: "inactive" });
  const assistants = await s.call("GET", "/api/ai/assistants");
  expectList(assistants.json, ENTITY.assistant);
  expect(assistants.json[0]).toMatchObject({ id: assistant.id, status: "inactive" });
  const assistantGone = await s.call("DELETE", `/api/ai/assistants/${assistant.id}`);
  expect(assistantGone.status).toBe(200);
  expectShape(assistantGone.json, UNDO);
  expect((await s.call("GET", "/api/ai/assistants")).json).toEqual([]);

  expect((await s.call("GET", "/api/ai/transcripts")).json).toEqual([]);
  // Transcripts come from the voice bridge (an API token), not from a screen.
  const token = (await created(s, "/api/ai/tokens", { name: "Voice bridge" })).token;
  const stored = await s.call(
    "POST",
    "/api/ai/transcripts",
    {
      callId: "call-0001",
      extensionId: "5001",
      phoneNumber: "+15550001234",
      direction: "inbound",
      transcript: "Caller: Hello. Agent: Good morning, how can I help?",
      summary: "A greeting",
      sentiment: "positive",
      keywords: ["greeting"],
      duration: 42,
      recordingUrl: "https://recordings.example.com/call-0001.wav",
    },
    { authorization: `Bearer ${token}`, cookie: "" },
  );
  expect(stored.status).toBe(201);
  const transcripts = await s.call("GET", "/api/ai/transcripts");
  expect(transcripts.status).toBe(200);
  expectList(transcripts.json, ENTITY.transcript);
  expect(transcripts.json[0]).toMatchObject({ callId: "call-0001", keywords: ["greeting"], duration: 42 });
  const transcriptGone = await s.call("DELETE", `/api/ai/transcripts/${transcripts.json[0].id}`);
  expect(transcriptGone.status).toBe(204);
  expect((await s.call("GET", "/api/ai/transcripts")).json).toEqual([]);

  expect((await s.call("GET", "/api/ai/routing-rules")).json).toEqual([]);
  const rule = await created(s, "/api/ai/routing-rules", RULE_BODY);
  expectEntity("rule", rule);
  expect(rule).toMatchObject(RULE_BODY);
  const disabled = await s.call("PATCH", `/api/ai/routing-rules/${rule.id}`, { enabled: false });
  expect(disabled.status).toBe(200);
  expectEntity("rule", disabled.json);
  expect(disabled.json).toMatchObject({ ...RULE_BODY, enabled: false });
  const rules = await s.call("GET", "/api/ai/routing-rules");
  expectList(rules.json, ENTITY.rule);
  expect(rules.json[0]).toMatchObject({ id: rule.id, enabled: false });
  const ruleGone = await s.call("DELETE", `/api/ai/routing-rules/${rule.id}`);
  expect(ruleGone.status).toBe(200);
  expectShape(ruleGone.json, UNDO);
  expect((await s.call("GET", "/api/ai/routing-rules")).json).toEqual([]);
});
