// Walks every write in the router table and calls it for real: each must publish one of the events it
// declares, so a second open console never goes stale. A new write without a fixture here fails the walk.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { totp } from "../../src/server/accounts/totp";
import { testRunQueue } from "../../src/server/ai/test-runner";
import type { RouteDef } from "../../src/server/context";
import { offsiteQueue } from "../../src/server/offsite/queue";
import { apiRoutes } from "../../src/server/routes";
import type { WsEvent } from "../../src/shared/ws-events";
import { startFakeAmi } from "../fakes/ami";
import { makeCertificate, startFakeMember } from "../fakes/fleet-member";
import { HOSTINGER_DEFAULT_TOKEN, makeHostingerVm, startFakeHostinger } from "../fakes/hostinger";
import { buildSignedIncomingCall, generateWebhookSecret, OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { startFakeReleases } from "../fakes/releases";
import { makeTelnyxPhoneNumber, startFakeTelnyx, TELNYX_DEFAULT_KEY } from "../fakes/telnyx";
import { type PrivateFail2ban, startFail2ban } from "../helpers/fail2ban";
import { startTestServer, type TestServer } from "../helpers/server";
import { toneWav } from "../helpers/wav";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);

const hostinger = await startFakeHostinger();
const telnyx = await startFakeTelnyx();
const openai = await startFakeOpenAi();
const releases = await startFakeReleases();
// The live PBX (hang-up) needs a connected AMI: the fake, with two registered phones.
const ami = await startFakeAmi({ secret: "events-ami-secret" });
for (const ext of ["1001", "1002"]) {
  ami.addEndpoint(ext, { kind: "extension" });
  ami.register(ext, { uri: `sip:${ext}@192.0.2.10:5060`, viaAddr: "192.0.2.10:5060" });
}
// Voicemail's writes need a mailbox the PBX has (its messages through the AMI).
const WALK_MAILBOX = "2981";
ami.addMailbox(WALK_MAILBOX);
// The fleet hub's writes contact a member console: a fake one over TLS.
const fleetCertDir = mkdtempSync(join(tmpdir(), "pbx-events-fleet-"));
const fleetCert = makeCertificate(fleetCertDir, "events-member");
const fleetMember = await startFakeMember({ cert: fleetCert, name: "events-member" });
const webhookSecret = generateWebhookSecret();
let pbx: PbxHost;
// The firewall's writes act in a real, private fail2ban.
let f2b: PrivateFail2ban;
let s: TestServer;
let published: WsEvent[] = [];

beforeAll(async () => {
  pbx = await startPbxHost();
  f2b = await startFail2ban();
  hostinger.state.vms = [makeHostingerVm({ id: 777, state: "running" })];
  telnyx.state.phoneNumbers = [makeTelnyxPhoneNumber(0)];
  s = await startTestServer({
    PBX_HOSTINGER_URL: hostinger.baseUrl,
    HOSTINGER_API_KEY: HOSTINGER_DEFAULT_TOKEN,
    PBX_TELNYX_URL: telnyx.baseUrl,
    TELNYX_API_KEY: TELNYX_DEFAULT_KEY,
    PBX_OPENAI_URL: openai.baseUrl,
    OPENAI_API_KEY: OPENAI_DEFAULT_KEY,
    OPENAI_WEBHOOK_SECRET: webhookSecret,
    OPENAI_PROJECT_ID: "proj_events",
    ...pbx.consoleEnv(),
    AMI_HOST: ami.host,
    AMI_PORT: String(ami.port),
    AMI_USERNAME: "admin",
    AMI_SECRET: "events-ami-secret",
    ...f2b.env,
    UPDATE_URL: releases.manifestUrl,
    PBX_CONSOLE_TEST_RELEASE_KEY: releases.publicKey,
  });
  // Every event the hub sends to the open consoles, whichever module published it.
  const hub = s.app.events;
  const send = hub.publish.bind(hub);
  hub.publish = (event: WsEvent) => {
    published.push(event);
    send(event);
  };
  // Connected, and its connect events gone by, before the walk starts: the live PBX's status event is
  // coalesced (one per 250 ms), so it can come a moment after "connected" (it did, under load, into the
  // first write's window). Quiet means no event for a second.
  await until(() => s.app.live.status().connected);
  let seen = -1;
  let quietSince = Date.now();
  await until(() => {
    if (published.length !== seen) [seen, quietSince] = [published.length, Date.now()];
    return Date.now() - quietSince >= 1000;
  });
}, 120_000);
afterAll(async () => {
  await s?.stop();
  releases.stop();
  await fleetMember.stop();
  rmSync(fleetCertDir, { recursive: true, force: true });
  await Promise.all([hostinger.stop(), telnyx.stop(), openai.stop(), ami.stop(), pbx?.stop(), f2b?.stop()]);
});

/**
 * `after` runs once the call is answered (e.g. to keep the walk's own session after a sign-out, or to
 * wait for the job a deploy or import started: its events are the route's too).
 */
type Call = { path?: string; body?: unknown; headers?: Record<string, string>; after?: () => unknown };
/** Prepares what the write needs and says how to call it; `path` defaults to the route's own. */
type Fixture = () => Promise<Call>;

let seq = 0;
const next = () => ++seq;
/** Polls until `fn` is true (the live PBX follows AMI events). */
const until = async (fn: () => boolean, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(10);
  }
};
/** Deploy and import run as jobs (ADR 0024): their events come until the job ends. */
const jobEnded = () => s.app.jobs.idle();
const created = async (path: string, body: unknown) => {
  const res = await s.call("POST", path, body);
  if (res.status !== 201 && res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.json;
};
const extension = () => created("/api/extensions", { extension: String(4000 + next()), name: "Walk" });
const trunk = () => created("/api/trunks", { name: `walk-${next()}`, type: "sip", host: "sip.example.com" });
const assistant = (extensionId = String(5000 + next())) =>
  created("/api/ai/assistants", {
    name: "Walk",
    model: "gpt-realtime",
    systemPrompt: "Answer calls politely.",
    extensionId,
  });
/** An AI call in progress (its sideband open at the fake OpenAI) and an extension to transfer it to. */
const liveAiCall = async () => {
  await s.call("PUT", "/api/settings/sip", { publicHost: "pbx.example.org", port: 5060 });
  const ext = (await extension()).extension as string;
  const number = String(5000 + next());
  await assistant(number);
  const d = buildSignedIncomingCall(webhookSecret, { to: `<sip:${number}@sip.api.openai.com;transport=tls>` });
  const sb = openai.sideband(d.event.data.call_id);
  await s.call("POST", "/api/ai/openai/webhook", d.body, { ...d.headers, cookie: "" });
  await until(() => sb.open && s.app.aiCalls.get(d.event.data.call_id)?.isOpen === true);
  lastAiCall = d.event.data.call_id;
  return { callId: lastAiCall, ext };
};
let lastAiCall = "";
/** The last `liveAiCall` has ended (the end publishes at once). */
const aiCallsEnded = () => until(() => !s.app.aiCalls.get(lastAiCall));
/** A system recording's upload: a short tone (stored on the PBX host by its sox). */
const recordingForm = () => {
  const form = new FormData();
  form.append("name", `walk-${next()}`);
  form.append("file", new Blob([toneWav({ rate: 8000, channels: 1, seconds: 0.1 })]), "walk.wav");
  return form;
};
const recording = () => created("/api/recordings", recordingForm());
/** A greeting's upload: a short tone. */
const greetingForm = () => {
  const form = new FormData();
  form.append("file", new Blob([toneWav({ rate: 8000, channels: 1, seconds: 0.1 })]), "greeting.wav");
  return form;
};
const rule = () =>
  created("/api/ai/routing-rules", { name: "Walk", conditions: "{}", action: "hangup", actionParams: "{}" });
const token = () => created("/api/ai/tokens", { name: `walk-${next()}` });
const testScript = async () =>
  created(`/api/ai/assistants/${(await assistant()).id}/test-scripts`, {
    name: "Walk",
    turns: ["Hello"],
    expect: { replyContains: "help" },
  });
/** A test script's run ends in the background: its end is the route's event too. */
const testRunsEnded = () => testRunQueue(s.app).idle();
/** A webhook alert channel to a port nothing listens on: its test is a failed delivery, recorded all the same. */
const alertChannel = () =>
  created("/api/alerts/channels", { kind: "webhook", name: `walk-${next()}`, url: "http://127.0.0.1:9/hook" });
/** A test call that is not scheduled (a scheduled one would run, and publish, during other writes). */
const testCall = () => created("/api/test-calls", { name: `walk-${next()}`, number: "*43", enabled: false });
/**
 * An off-site target nothing answers at (port 9): its test, upload and drill fail at once, and publish. Disabled, so
 * a later deployment's PBX backup is not copied to it (its events would land in that route's window).
 */
const offsiteTarget = () => ({
  kind: "s3",
  name: `walk-${next()}`,
  enabled: false,
  endpoint: "http://127.0.0.1:9",
  bucket: "walk",
  accessKeyId: "walk",
  secretAccessKey: "walk-secret",
});
const backupTarget = () => created("/api/backups/targets", offsiteTarget());
/** Off-site uploads and drills run in their own queue: their events come until it is idle. */
const offsiteIdle = () => offsiteQueue(s.db).idle();
const consoleUser = () =>
  created("/api/users", { username: `walk-user-${next()}`, password: "walk password 123", role: "viewer" });
const connection = () => created("/api/telnyx/connections", { connectionName: `Walk ${next()}` });
/** The administrator's password (the password change walks it on). */
let adminPassword = "correct horse battery";
/** Signs in a second browser and returns its cookie; the walk keeps its own session. */
const secondSession = async () => {
  const keep = s.cookie;
  await s.call("POST", "/api/auth/login", { username: "admin", password: adminPassword }, { cookie: "" });
  const other = s.cookie;
  s.cookie = keep;
  return other;
};

/** Turns the administrator's two-factor sign-in off (nothing to do when it is off), then sets up a new secret. */
const totpSetUp = async () => {
  await s.call("POST", "/api/auth/totp/disable", { password: adminPassword });
  return (await created("/api/auth/totp/setup", {})).secret as string;
};

/** The fake member, added to the hub (once: its URL is unique there). */
const fleetMemberId = async () => {
  const list = (await s.call("GET", "/api/fleet")).json as { items: { id: number; url: string }[] };
  const found = list.items.find((m) => m.url === fleetMember.url);
  if (found) return found.id;
  return (await created("/api/fleet/members", { url: fleetMember.url, token: fleetMember.state.token })).id as number;
};

const FIXTURES: Record<string, Fixture> = {
  "POST /api/auth/setup": async () => ({
    body: { username: "admin", password: "correct horse battery", confirmPassword: "correct horse battery" },
  }),
  "POST /api/auth/login": async () => ({ body: { username: "admin", password: adminPassword } }),
  "POST /api/auth/logout": async () => {
    const keep = s.cookie;
    return { headers: { cookie: await secondSession() }, after: () => (s.cookie = keep) };
  },
  "POST /api/auth/password": async () => {
    const currentPassword = adminPassword;
    adminPassword = `walk password ${next()}`;
    return { body: { currentPassword, newPassword: adminPassword } };
  },
  "DELETE /api/auth/sessions/:id": async () => {
    await secondSession();
    const list = (await s.call("GET", "/api/auth/sessions")).json as { id: string; current: boolean }[];
    return { path: `/api/auth/sessions/${list.find((x) => !x.current)?.id}` };
  },
  "POST /api/auth/sessions/sign-out-others": async () => {
    await secondSession();
    return {};
  },
  "POST /api/auth/totp/setup": async () => {
    await s.call("POST", "/api/auth/totp/disable", { password: adminPassword });
    return {};
  },
  "POST /api/auth/totp/enable": async () => ({ body: { code: totp(await totpSetUp(), Date.now()) } }),
  "POST /api/auth/totp/disable": async () => {
    await created("/api/auth/totp/enable", { code: totp(await totpSetUp(), Date.now()) });
    return { body: { password: adminPassword } };
  },
  "POST /api/extensions": async () => ({ body: { extension: String(4000 + next()), name: "Walk" } }),
  "DELETE /api/extensions/:id": async () => ({ path: `/api/extensions/${(await extension()).id}` }),
  "POST /api/undo/:token": async () => {
    const deleted = await s.call("DELETE", `/api/extensions/${(await extension()).id}`);
    return { path: `/api/undo/${deleted.json.undoToken}` };
  },
  "POST /api/extensions/import": async () => ({
    body: `extension,name,description,tech,secret\n${4000 + next()},Walk import,,pjsip,\n`,
    headers: { "content-type": "text/csv" },
  }),
  "POST /api/inbound-routes/import": async () => ({
    body: `description,extension,cidnum,destination\nWalk import,${7000 + next()},,"from-did-direct,4001,1"\n`,
    headers: { "content-type": "text/csv" },
  }),
  "PATCH /api/extensions/:id": async () => ({
    path: `/api/extensions/${(await extension()).id}`,
    body: { name: "Walk renamed" },
  }),
  "PATCH /api/trunks/:id": async () => ({
    path: `/api/trunks/${(await trunk()).id}`,
    body: { host: "sip2.example.com" },
  }),
  "PATCH /api/inbound-routes/:id": async () => {
    const r = await created("/api/inbound-routes", {
      description: "Walk",
      didNumber: String(7000 + next()),
      destination: "4001",
      destinationType: "extension",
    });
    return { path: `/api/inbound-routes/${r.id}`, body: { description: "Walk renamed" } };
  },
  "PATCH /api/outbound-routes/:id": async () => {
    const r = await created("/api/outbound-routes", {
      name: `walk-${next()}`,
      dialPatterns: ["9NXXXXXX"],
      trunkId: (await trunk()).id,
    });
    return { path: `/api/outbound-routes/${r.id}`, body: { dialPatterns: ["8NXXXXXX"] } };
  },
  "PATCH /api/ptt-groups/:id": async () => {
    const g = await created("/api/ptt-groups", {
      name: "Walk",
      extension: String(8000 + next()),
      members: [(await extension()).extension],
    });
    return { path: `/api/ptt-groups/${g.id}`, body: { name: "Walk renamed" } };
  },
  "POST /api/extensions/bulk-delete": async () => ({ body: { ids: [(await extension()).id] } }),
  "POST /api/extensions/bulk-update": async () => ({
    body: { ids: [(await extension()).id], patch: { voicemail: true } },
  }),
  "POST /api/trunks": async () => ({ body: { name: `walk-${next()}`, type: "sip", host: "sip.example.com" } }),
  "DELETE /api/trunks/:id": async () => ({ path: `/api/trunks/${(await trunk()).id}` }),
  "POST /api/inbound-routes": async () => ({
    body: { description: "Walk", didNumber: String(7000 + next()), destination: "4001", destinationType: "extension" },
  }),
  "DELETE /api/inbound-routes/:id": async () => {
    const r = await created("/api/inbound-routes", {
      description: "Walk",
      didNumber: String(7000 + next()),
      destination: "4001",
      destinationType: "extension",
    });
    return { path: `/api/inbound-routes/${r.id}` };
  },
  "POST /api/outbound-routes": async () => ({
    body: { name: `walk-${next()}`, dialPatterns: ["9NXXXXXX"], trunkId: (await trunk()).id },
  }),
  "POST /api/outbound-routes/order": async () => {
    await created("/api/outbound-routes", {
      name: `walk-${next()}`,
      dialPatterns: ["9NXXXXXX"],
      trunkId: (await trunk()).id,
    });
    const list = (await s.call("GET", "/api/outbound-routes")).json as { id: number }[];
    return { body: { ids: list.map((r) => r.id).reverse() } };
  },
  "DELETE /api/outbound-routes/:id": async () => {
    const r = await created("/api/outbound-routes", {
      name: `walk-${next()}`,
      dialPatterns: ["9NXXXXXX"],
      trunkId: (await trunk()).id,
    });
    return { path: `/api/outbound-routes/${r.id}` };
  },
  "POST /api/ptt-groups": async () => ({
    body: { name: "Walk", extension: String(8000 + next()), members: [(await extension()).extension] },
  }),
  "DELETE /api/ptt-groups/:id": async () => {
    const g = await created("/api/ptt-groups", {
      name: "Walk",
      extension: String(8000 + next()),
      members: [(await extension()).extension],
    });
    return { path: `/api/ptt-groups/${g.id}` };
  },
  "POST /api/ring-groups": async () => ({
    body: { number: String(6100 + next()), name: "Walk", members: [(await extension()).extension, "5551234#"] },
  }),
  "PATCH /api/ring-groups/:id": async () => {
    const g = await created("/api/ring-groups", {
      number: String(6100 + next()),
      name: "Walk",
      members: [(await extension()).extension],
    });
    return { path: `/api/ring-groups/${g.id}`, body: { name: "Walk renamed", strategy: "hunt" } };
  },
  "DELETE /api/ring-groups/:id": async () => {
    const g = await created("/api/ring-groups", {
      number: String(6100 + next()),
      name: "Walk",
      members: [(await extension()).extension],
    });
    return { path: `/api/ring-groups/${g.id}` };
  },
  "POST /api/ivrs": async () => ({
    body: {
      name: "Walk menu",
      options: [{ digits: "1", destination: { kind: "extension", target: (await extension()).extension } }],
    },
  }),
  "PATCH /api/ivrs/:id": async () => {
    const i = await created("/api/ivrs", { name: "Walk menu to rename" });
    return { path: `/api/ivrs/${i.id}`, body: { name: "Walk menu renamed", timeout: 5 } };
  },
  "DELETE /api/ivrs/:id": async () => {
    const i = await created("/api/ivrs", { name: "Walk menu to delete" });
    return { path: `/api/ivrs/${i.id}` };
  },
  "POST /api/time-groups": async () => ({
    body: { name: "Walk hours", weekly: [{ fromDay: "mon", toDay: "fri", start: "09:00", end: "17:00" }] },
  }),
  "PATCH /api/time-groups/:id": async () => {
    const g = await created("/api/time-groups", { name: "Walk hours to edit", holidays: [{ month: "jan", day: 1 }] });
    return { path: `/api/time-groups/${g.id}`, body: { name: "Walk hours edited" } };
  },
  "DELETE /api/time-groups/:id": async () => {
    const g = await created("/api/time-groups", { name: "Walk hours to delete", holidays: [{ month: "jan", day: 2 }] });
    return { path: `/api/time-groups/${g.id}` };
  },
  "POST /api/time-conditions": async () => {
    const g = await created("/api/time-groups", {
      name: "Walk hours for a condition",
      holidays: [{ month: "jan", day: 3 }],
    });
    return { body: { name: "Walk open", timeGroup: g.id } };
  },
  "PATCH /api/time-conditions/:id": async () => {
    const g = await created("/api/time-groups", {
      name: "Walk hours for an edit",
      holidays: [{ month: "jan", day: 4 }],
    });
    const t = await created("/api/time-conditions", { name: "Walk open to edit", timeGroup: g.id });
    return { path: `/api/time-conditions/${t.id}`, body: { timeZone: "Europe/Berlin" } };
  },
  "DELETE /api/time-conditions/:id": async () => {
    const g = await created("/api/time-groups", {
      name: "Walk hours for a delete",
      holidays: [{ month: "jan", day: 5 }],
    });
    const t = await created("/api/time-conditions", { name: "Walk open to delete", timeGroup: g.id });
    return { path: `/api/time-conditions/${t.id}` };
  },
  "POST /api/announcements": async () => ({
    body: { name: "Walk notice", after: { kind: "extension", target: (await extension()).extension } },
  }),
  "PATCH /api/announcements/:id": async () => {
    const a = await created("/api/announcements", { name: "Walk notice to rename" });
    return { path: `/api/announcements/${a.id}`, body: { allowSkip: true } };
  },
  "DELETE /api/announcements/:id": async () => {
    const a = await created("/api/announcements", { name: "Walk notice to delete" });
    return { path: `/api/announcements/${a.id}` };
  },
  "POST /api/queues": async () => ({
    body: { number: String(7300 + next()), name: "Walk", agents: [(await extension()).extension] },
  }),
  "PATCH /api/queues/:id": async () => {
    const q = await created("/api/queues", {
      number: String(7300 + next()),
      name: "Walk",
      agents: [(await extension()).extension],
    });
    return { path: `/api/queues/${q.id}`, body: { name: "Walk renamed", strategy: "rrmemory" } };
  },
  "DELETE /api/queues/:id": async () => {
    const q = await created("/api/queues", {
      number: String(7300 + next()),
      name: "Walk",
      agents: [(await extension()).extension],
    });
    return { path: `/api/queues/${q.id}` };
  },
  "POST /api/recordings": async () => ({ body: recordingForm() }),
  "PATCH /api/recordings/:id": async () => ({
    path: `/api/recordings/${(await recording()).id}`,
    body: { description: "Walk renamed" },
  }),
  "DELETE /api/recordings/:id": async () => ({ path: `/api/recordings/${(await recording()).id}` }),
  // Voicemail: a mailbox of the fake AMI's (messages), whose greetings are on the PBX host's spool.
  "PATCH /api/voicemail/:mailbox/messages/:id": async () => ({
    path: `/api/voicemail/${WALK_MAILBOX}/messages/${ami.leaveVoicemail(WALK_MAILBOX)}`,
    body: { folder: "Old" },
  }),
  "DELETE /api/voicemail/:mailbox/messages/:id": async () => ({
    path: `/api/voicemail/${WALK_MAILBOX}/messages/${ami.leaveVoicemail(WALK_MAILBOX)}`,
  }),
  "POST /api/voicemail/:mailbox/greetings/:kind": async () => ({
    path: `/api/voicemail/${WALK_MAILBOX}/greetings/busy`,
    body: greetingForm(),
  }),
  "DELETE /api/voicemail/:mailbox/greetings/:kind": async () => {
    await s.call("POST", `/api/voicemail/${WALK_MAILBOX}/greetings/temp`, greetingForm());
    return { path: `/api/voicemail/${WALK_MAILBOX}/greetings/temp` };
  },
  "POST /api/wizard/deploy": async () => ({ body: { extensionCount: 1, extensionPrefix: String(60 + next()) } }),
  "POST /api/deploy/trunks": async () => {
    await trunk();
    return { after: jobEnded };
  },
  "POST /api/deploy/extensions": async () => {
    await extension();
    return { after: jobEnded };
  },
  "POST /api/deploy/ptt-groups": async () => ({ after: jobEnded }),
  "POST /api/deploy/ring-groups": async () => ({ after: jobEnded }),
  "POST /api/deploy/ivrs": async () => ({ after: jobEnded }),
  "POST /api/deploy/time-conditions": async () => ({ after: jobEnded }),
  "POST /api/deploy/announcements": async () => ({ after: jobEnded }),
  "POST /api/deploy/queues": async () => ({ after: jobEnded }),
  // Apply needs the plan it applies (its fingerprint).
  "POST /api/deploy/apply": async () => {
    await extension();
    const plan = (await s.call("POST", "/api/deploy/plan", { target: "extensions" })).json;
    return { body: { target: "extensions", fingerprint: plan.fingerprint, resolutions: {} }, after: jobEnded };
  },
  "POST /api/deploy/all": async () => ({ after: jobEnded }),
  // A document that adds an extension, applied by the fingerprint of its plan.
  "POST /api/config/apply": async () => {
    const doc = (await s.call("GET", "/api/config/export")).json;
    doc.extensions.push({ extension: String(4000 + next()), name: "From a document" });
    const plan = (await s.call("POST", "/api/config/plan", { document: doc })).json;
    return { body: { fingerprint: plan.fingerprint } };
  },

  "POST /api/sync/extensions/import": async () => {
    await pbx.query("INSERT INTO users (extension, name) VALUES ('4901', 'From the PBX')");
    return { body: { mode: "selected", extensions: ["4901"] }, after: jobEnded };
  },
  "POST /api/sync/trunks/import": async () => ({ body: { mode: "all" }, after: jobEnded }),
  // A ring group and a queue only on the PBX, ringing a console extension: imported through the console's create.
  "POST /api/sync/ring-groups/import": async () => {
    const { extension: member } = await extension();
    const number = String(4800 + next());
    await pbx.query(
      "INSERT INTO ringgroups (grpnum, strategy, grptime, grplist, postdest, description) VALUES (?, 'ringall', 20, ?, '', 'Walk')",
      [number, member],
    );
    return { body: { mode: "selected", ringGroups: [number] }, after: jobEnded };
  },
  "POST /api/sync/queues/import": async () => {
    const { extension: agent } = await extension();
    const number = String(4800 + next());
    await pbx.query("INSERT INTO queues_config (extension, descr, maxwait, dest) VALUES (?, 'Walk', '', '')", [number]);
    await pbx.query(
      "INSERT INTO queues_details (id, keyword, data, flags) VALUES (?, 'strategy', 'ringall', 0), (?, 'member', ?, 0)",
      [number, number, `Local/${agent}@from-queue/n,0`],
    );
    return { body: { mode: "selected", queues: [number] }, after: jobEnded };
  },
  // An IVR and the announcement its wrong key plays, only on the PBX: imported together through the console's creates.
  "POST /api/sync/ivrs/import": async () => {
    const name = `Walk sync ${next()}`;
    await pbx.query(
      "INSERT INTO announcement (description, recording_id, allow_skip, post_dest, return_ivr, noanswer, repeat_msg) VALUES (?, NULL, 0, 'app-blackhole,hangup,1', 0, 0, '')",
      [name],
    );
    const [played] = await pbx.query("SELECT MAX(announcement_id) AS id FROM announcement");
    await pbx.query(
      "INSERT INTO ivr_details (name, timeout_time, invalid_loops, timeout_loops, invalid_destination, timeout_destination) VALUES (?, 10, '3', '3', ?, 'app-blackhole,hangup,1')",
      [name, `app-announcement-${played?.id},s,1`],
    );
    const [menu] = await pbx.query("SELECT MAX(id) AS id FROM ivr_details");
    return { body: { mode: "selected", ivrs: [String(menu?.id)] }, after: jobEnded };
  },
  "POST /api/sync/announcements/import": async () => {
    await pbx.query(
      "INSERT INTO announcement (description, recording_id, allow_skip, post_dest, return_ivr, noanswer, repeat_msg) VALUES (?, NULL, 1, 'app-blackhole,hangup,1', 0, 0, '')",
      [`Walk sync ${next()}`],
    );
    const [played] = await pbx.query("SELECT MAX(announcement_id) AS id FROM announcement");
    return { body: { mode: "selected", announcements: [String(played?.id)] }, after: jobEnded };
  },
  // A deployment's backup is rolled back: the newest one, nothing newer is in its way.
  "POST /api/deploy/history/:id/rollback": async () => {
    await extension();
    await s.call("POST", "/api/deploy/extensions");
    await jobEnded();
    const runs = (await s.call("GET", "/api/deploy/history")).json as {
      backup: { id: number; restorable: boolean } | null;
    }[];
    const backup = runs.find((r) => r.backup?.restorable)?.backup;
    if (!backup) throw new Error("no restorable backup after a deployment");
    return { path: `/api/deploy/history/${backup.id}/rollback`, body: {}, after: jobEnded };
  },
  // A deployment over SSH is cancelled while it connects (its own later events drain before the next write).
  "POST /api/jobs/:id/cancel": async () => {
    await extension();
    const started = await s.call("POST", "/api/deploy/extensions");
    return { path: `/api/jobs/${started.json.jobId}/cancel`, body: {} };
  },
  // A time condition on the PBX (its tables as FreePBX's module made them); the override goes out over the fake AMI.
  "PUT /api/pbx/time-conditions/:id/override": async () => {
    await pbx.query("INSERT INTO timegroups_groups (description) VALUES (?)", [`Walk ${next()}`]);
    const [{ id: group }] = (await pbx.query("SELECT MAX(id) AS id FROM timegroups_groups")) as [{ id: number }];
    await pbx.query("INSERT INTO timegroups_details (timegroupid, time) VALUES (?, '08:00-17:00|mon-fri|*|*')", [
      group,
    ]);
    await pbx.query(
      "INSERT INTO timeconditions (displayname, time, truegoto, falsegoto, mode) VALUES ('Walk', ?, 'app-blackhole,hangup,1', 'app-blackhole,hangup,1', 'time-group')",
      [group],
    );
    const [{ id }] = (await pbx.query("SELECT MAX(timeconditions_id) AS id FROM timeconditions")) as [{ id: number }];
    return { path: `/api/pbx/time-conditions/${id}/override`, body: { state: "closed" } };
  },
  "POST /api/calls/hangup": async () => {
    const call = ami.startCall({ from: "1001", to: "1002" });
    await until(() => s.app.live.activeCalls().calls.some((c) => c.id === call.linkedid));
    // The hang-up ends the call: its list, the count in the status, then (a few seconds later) the history.
    return {
      body: { channel: call.channels[0] },
      after: () => until(() => published.some((e) => e.type === "call-history-updated")),
    };
  },
  "POST /api/credentials": async () => ({ body: { type: "tinymdm", publicKey: "pub-walk", secretKey: "sec-walk" } }),
  "POST /api/credentials/test": async () => ({ body: { type: "hostinger" } }),
  "DELETE /api/credentials/:type": async () => {
    await s.call("POST", "/api/credentials", { type: "tinymdm", publicKey: "pub-walk", secretKey: "sec-walk" });
    return { path: "/api/credentials/tinymdm" };
  },
  "POST /api/vps/control": async () => ({ body: { action: "restart" } }),
  "POST /api/telnyx/connections": async () => ({ body: { connectionName: `Walk ${next()}` } }),
  "DELETE /api/telnyx/connections/:id": async () => ({ path: `/api/telnyx/connections/${(await connection()).id}` }),
  "POST /api/extensions/:extensionId/telnyx-credentials": async () => ({
    path: `/api/extensions/${(await extension()).id}/telnyx-credentials`,
    body: { connectionId: (await connection()).id },
  }),
  "POST /api/telnyx/phone-numbers/:numberId/route": async () => {
    const numbers = (await s.call("GET", "/api/telnyx/phone-numbers")).json;
    return {
      path: `/api/telnyx/phone-numbers/${numbers[0].id}/route`,
      body: { connectionId: (await connection()).id },
    };
  },
  "POST /api/ai/assistants": async () => ({
    body: {
      name: "Walk",
      model: "gpt-realtime",
      systemPrompt: "Answer calls politely.",
      extensionId: String(5000 + next()),
    },
  }),
  "PATCH /api/ai/assistants/:id": async () => ({
    path: `/api/ai/assistants/${(await assistant()).id}`,
    body: { name: "Walk renamed" },
  }),
  "DELETE /api/ai/assistants/:id": async () => ({ path: `/api/ai/assistants/${(await assistant()).id}` }),
  "POST /api/ai/assistants/:id/test-scripts": async () => ({
    path: `/api/ai/assistants/${(await assistant()).id}/test-scripts`,
    body: { name: "Walk", turns: ["Hello"], expect: { replyContains: "help" } },
  }),
  "PUT /api/ai/test-scripts/:id": async () => ({
    path: `/api/ai/test-scripts/${(await testScript()).id}`,
    body: { name: "Walk renamed", turns: ["Hello"], expect: { replyContains: "help" } },
  }),
  "DELETE /api/ai/test-scripts/:id": async () => ({ path: `/api/ai/test-scripts/${(await testScript()).id}` }),
  "POST /api/ai/test-scripts/:id/run": async () => ({
    path: `/api/ai/test-scripts/${(await testScript()).id}/run`,
    body: {},
    after: testRunsEnded,
  }),
  "POST /api/ai/assistants/:id/test-scripts/run": async () => ({
    path: `/api/ai/assistants/${(await testScript()).assistantId}/test-scripts/run`,
    body: {},
    after: testRunsEnded,
  }),
  "POST /api/ai/routing-rules": async () => ({
    body: { name: "Walk", conditions: "{}", action: "hangup", actionParams: "{}" },
  }),
  "PATCH /api/ai/routing-rules/:id": async () => ({
    path: `/api/ai/routing-rules/${(await rule()).id}`,
    body: { priority: 10 },
  }),
  "DELETE /api/ai/routing-rules/:id": async () => ({ path: `/api/ai/routing-rules/${(await rule()).id}` }),
  "POST /api/ai/tokens": async () => ({ body: { name: `walk-${next()}` } }),
  "POST /api/users": async () => ({
    body: { username: `walk-user-${next()}`, password: "walk password 123", role: "operator" },
  }),
  "PATCH /api/users/:id": async () => ({
    path: `/api/users/${(await consoleUser()).id}`,
    body: { role: "operator", disabled: true },
  }),
  "DELETE /api/users/:id": async () => ({ path: `/api/users/${(await consoleUser()).id}` }),
  // Off: on would hold the walk's administrator to their own two-factor sign-in for the rest of the walk.
  "PUT /api/settings/security": async () => ({ body: { requireTotp: false } }),
  "PUT /api/settings/sip": async () => ({ body: { publicHost: "pbx.example.com", port: 5060 } }),
  "PUT /api/settings/audio": async () => ({ body: { viewersMayListen: false, recordingRetentionDays: 90 } }),
  // Staged by the console; then the updater is played: it takes the request and refuses, so the console stops
  // following it inside this write's window.
  "POST /api/update": async () => {
    const version = `9.0.${next()}`;
    releases.publish({ version, binary: new TextEncoder().encode("#!/bin/sh\n") });
    await s.call("GET", "/api/update?refresh=1");
    const request = `${s.dir}/update/request.json`;
    const after = async () => {
      await until(() => existsSync(request));
      rmSync(request);
      const result = { outcome: "failed", from: "test", to: version, message: "Not updated: walk", at: Date.now() };
      writeFileSync(`${s.dir}/update/status.json`, JSON.stringify({ progress: null, result, history: [] }));
      await until(() => published.some((e) => e.type === "update-updated" && !(e.data as any)?.progress));
    };
    return { body: { version }, after };
  },
  // The retention over SSH to the FreePBX copy: its monitor directory holds nothing that old.
  "POST /api/recordings/retention/run": async () => {
    await s.call("PUT", "/api/settings/audio", { viewersMayListen: false, recordingRetentionDays: 90 });
    return { body: {}, after: jobEnded };
  },
  "POST /api/extensions/:id/provisioning-link": async () => ({
    path: `/api/extensions/${(await extension()).id}/provisioning-link`,
    body: {},
  }),
  "DELETE /api/ai/tokens/:id": async () => ({ path: `/api/ai/tokens/${(await token()).id}` }),
  "POST /api/tokens": async () => ({ body: { name: `walk-${next()}`, role: "viewer" } }),
  "DELETE /api/tokens/:id": async () => ({
    path: `/api/tokens/${(await created("/api/tokens", { name: `walk-${next()}`, role: "viewer" })).id}`,
  }),
  "POST /api/settings/metrics-token": async () => ({ body: {} }),
  "DELETE /api/settings/metrics-token": async () => {
    await created("/api/settings/metrics-token", {});
    return {};
  },
  "POST /api/firewall/ban": async () => ({ body: { address: "198.18.1.1" } }),
  "POST /api/firewall/unban": async () => {
    await created("/api/firewall/ban", { address: "198.18.1.2" });
    return { body: { address: "198.18.1.2" } };
  },
  "POST /api/firewall/trusted": async () => ({ body: { network: "198.51.100.0/24" } }),
  "DELETE /api/firewall/trusted": async () => {
    await created("/api/firewall/trusted", { network: "198.51.101.0/24" });
    return { path: "/api/firewall/trusted?network=198.51.101.0/24" };
  },
  "POST /api/alerts/channels": async () => ({
    body: { kind: "webhook", name: `walk-${next()}`, url: "http://127.0.0.1:9/hook" },
  }),
  "PUT /api/alerts/channels/:id": async () => ({
    path: `/api/alerts/channels/${(await alertChannel()).id}`,
    body: { kind: "webhook", name: `walk-${next()}`, url: "http://127.0.0.1:9/other" },
  }),
  "DELETE /api/alerts/channels/:id": async () => ({ path: `/api/alerts/channels/${(await alertChannel()).id}` }),
  "POST /api/alerts/channels/:id/test": async () => ({
    path: `/api/alerts/channels/${(await alertChannel()).id}/test`,
    body: {},
  }),
  "POST /api/alerts/rules": async () => ({ body: { name: `walk-${next()}`, kind: "disk-usage" } }),
  "PUT /api/alerts/rules/:id": async () => ({
    path: `/api/alerts/rules/${(await created("/api/alerts/rules", { name: `walk-${next()}`, kind: "backup-failed" })).id}`,
    body: { name: `walk-${next()}`, kind: "memory-usage", params: { percent: 95 } },
  }),
  "PATCH /api/alerts/rules/:id": async () => ({
    path: `/api/alerts/rules/${(await created("/api/alerts/rules", { name: `walk-${next()}`, kind: "sip-attack" })).id}`,
    body: { enabled: false },
  }),
  "DELETE /api/alerts/rules/:id": async () => ({
    path: `/api/alerts/rules/${(await created("/api/alerts/rules", { name: `walk-${next()}`, kind: "ami-unreachable" })).id}`,
  }),
  "POST /api/fleet/members": async () => {
    await s.call("DELETE", `/api/fleet/members/${await fleetMemberId()}`);
    return { body: { url: fleetMember.url, token: fleetMember.state.token } };
  },
  "POST /api/fleet/members/:id/repin": async () => ({
    path: `/api/fleet/members/${await fleetMemberId()}/repin`,
    body: { fingerprint: fleetCert.fingerprint },
  }),
  "DELETE /api/fleet/members/:id": async () => ({ path: `/api/fleet/members/${await fleetMemberId()}` }),
  "POST /api/fleet/templates": async () => ({
    body: { name: `walk-${next()}`, document: { version: 1, extensions: [] } },
  }),
  "DELETE /api/fleet/templates/:id": async () => ({
    path: `/api/fleet/templates/${(await created("/api/fleet/templates", { name: `walk-${next()}`, document: { version: 1 } })).id}`,
  }),
  "POST /api/backups/targets": async () => ({ body: offsiteTarget() }),
  "PUT /api/backups/targets/:id": async () => ({
    path: `/api/backups/targets/${(await backupTarget()).id}`,
    body: { ...offsiteTarget(), secretAccessKey: undefined },
  }),
  "DELETE /api/backups/targets/:id": async () => ({ path: `/api/backups/targets/${(await backupTarget()).id}` }),
  "POST /api/backups/targets/:id/test": async () => ({
    path: `/api/backups/targets/${(await backupTarget()).id}/test`,
    body: {},
  }),
  "POST /api/backups/targets/:id/upload": async () => {
    await s.call("POST", "/api/backups/key", { rotate: true });
    return { path: `/api/backups/targets/${(await backupTarget()).id}/upload`, body: {}, after: offsiteIdle };
  },
  "POST /api/backups/targets/:id/drill": async () => ({
    path: `/api/backups/targets/${(await backupTarget()).id}/drill`,
    body: {},
    after: offsiteIdle,
  }),
  "POST /api/backups/key": async () => ({ body: { rotate: true } }),
  "POST /api/test-calls": async () => ({ body: { name: `walk-${next()}`, number: "*43", enabled: false } }),
  "PATCH /api/test-calls/:id": async () => ({
    path: `/api/test-calls/${(await testCall()).id}`,
    body: { listenSeconds: 3 },
  }),
  "DELETE /api/test-calls/:id": async () => ({ path: `/api/test-calls/${(await testCall()).id}` }),
  // The fake AMI has no probe endpoint and cannot write one: the run is a failed result, published all the same.
  "POST /api/test-calls/:id/run": async () => ({ path: `/api/test-calls/${(await testCall()).id}/run` }),
  "POST /api/ai/transcripts": async () => ({
    body: { transcript: "Caller: hello", callId: `walk-${next()}` },
    headers: { authorization: `Bearer ${(await token()).token}`, cookie: "" },
  }),
  "DELETE /api/ai/transcripts/:id": async () => {
    const { token: bearer } = await token();
    const res = await s.call(
      "POST",
      "/api/ai/transcripts",
      { transcript: "Caller: bye", callId: `walk-${next()}` },
      { authorization: `Bearer ${bearer}`, cookie: "" },
    );
    return { path: `/api/ai/transcripts/${res.json.id}` };
  },
  "POST /api/ai/openai/webhook": async () => {
    const number = String(5000 + next());
    await assistant(number);
    const d = buildSignedIncomingCall(webhookSecret, { to: `<sip:${number}@sip.api.openai.com;transport=tls>` });
    // An accepted call's sideband opens after the answer: its coalesced ai-live-updated is this route's too
    // (the walk's catch-all hang-up rules may have refused the call: then no session follows it).
    const id = d.event.data.call_id;
    return {
      body: d.body,
      headers: { ...d.headers, cookie: "" },
      after: () => until(() => !s.app.aiCalls.get(id) || published.some((e) => e.type === "ai-live-updated")),
    };
  },
  "POST /api/ai/calls/:callId/transfer": async () => {
    const { callId, ext } = await liveAiCall();
    return { path: `/api/ai/calls/${callId}/transfer`, body: { extension: ext }, after: aiCallsEnded };
  },
  "POST /api/ai/calls/:callId/hangup": async () => {
    const { callId } = await liveAiCall();
    return { path: `/api/ai/calls/${callId}/hangup`, body: {}, after: aiCallsEnded };
  },
  "POST /api/ai/calls/:callId/whisper": async () => {
    const { callId } = await liveAiCall();
    // The call is ended in the route's window: its end's events are this route's kinds too.
    const after = async () => {
      openai.sideband(callId).hangup();
      await aiCallsEnded();
    };
    return { path: `/api/ai/calls/${callId}/whisper`, body: { text: "Offer a callback." }, after };
  },
  "PUT /api/ai/prices": async () => ({
    body: {
      items: [
        {
          model: "gpt-realtime",
          inputText: 4,
          cachedInputText: 0.4,
          outputText: 16,
          inputAudio: 32,
          cachedInputAudio: 0.4,
          outputAudio: 64,
        },
      ],
    },
  }),
};

const writes = apiRoutes.filter((r) => r.method !== "GET" && (r.publishes?.length ?? 0) > 0);
const label = (r: RouteDef) => `${r.method} ${r.path}`;

describe("every write publishes what it declares", () => {
  test("every publishing write has a fixture in this walk", () => {
    expect(writes.map(label).filter((l) => !FIXTURES[l])).toEqual([]);
  });

  // Sign-up first: it is the only write that runs without a session.
  const ordered = [...writes].sort(
    (a, b) => Number(b.path === "/api/auth/setup") - Number(a.path === "/api/auth/setup"),
  );
  for (const r of ordered) {
    test(label(r), async () => {
      const fixture = FIXTURES[label(r)];
      if (!fixture) throw new Error(`no fixture for ${label(r)}`);
      // A job an earlier write started ends (and publishes) before this write is called.
      await jobEnded();
      const call = await fixture();
      published = [];
      const res = await s.call(r.method, call.path ?? r.path, call.body, call.headers);
      await call.after?.();
      expect(res.status, res.text).toBeLessThan(300);
      // "audit-updated" is the transport's (every audited call adds a row), not the route's own event.
      const types = published.map((e) => e.type).filter((t) => t !== "audit-updated");
      expect(types.length, `${label(r)} published nothing`).toBeGreaterThan(0);
      for (const t of types) expect(r.publishes).toContain(t);
    });
  }
});
