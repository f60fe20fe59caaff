/**
 * One call on one page, from real calls: a call between two softphones recorded by FreePBX's own dialplan (the
 * caller's recording policy set to Force through the console), and a call nobody answers that leaves a voicemail.
 * The call's page has every CDR leg, CEL's events in order, who answered, the recording (streamed from FreePBX's
 * monitor directory with range requests, its length that of the call) and the voicemail the call left. Viewers see
 * the page but not the audio until an administrator allows it; each play and download is in the audit trail.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, readdirSync, utimesSync } from "node:fs";
import type { CallDetail } from "../../src/shared/calls";
import type { CdrCall } from "../../src/shared/live";
import { buildSignedIncomingCall, generateWebhookSecret, OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, until } from "./testbed";

// OpenAI is the fake (test/fakes/openai.ts): the PBX's trunk to it is a softphone standing in for its SIP side.
const secret = generateWebhookSecret();
const openai = await startFakeOpenAi();
afterAll(() => openai.stop());
const { pbx, phone } = consoleForFile({
  env: {
    PBX_OPENAI_URL: openai.baseUrl,
    OPENAI_API_KEY: OPENAI_DEFAULT_KEY,
    OPENAI_WEBHOOK_SECRET: secret,
    OPENAI_PROJECT_ID: "proj_test",
  },
});

/** Holds `party`'s call until it has been up in a bridge for `seconds`, then `hangs` up. */
async function talk(party: string, seconds: number, hangs: Softphone, bridged = true) {
  const up = await until(
    `${party}'s call up`,
    async () => {
      const line = (await cli("core show channels concise"))
        .split("\n")
        .map((l) => l.split("!"))
        .find((f) => f[0]?.startsWith(`PJSIP/${party}-`) && f[4] === "Up" && (!bridged || !!f[12]));
      return line ? performance.now() : undefined;
    },
    30_000,
  );
  await until(
    `${party}'s call ${seconds} s up`,
    async () => (performance.now() - up >= seconds * 1000 ? true : undefined),
    30_000,
  );
  await hangs.hangup();
}

/** The history's call to `to`, once its records are written. */
const callTo = (to: string) =>
  until(`the call to ${to} in the history`, async () => {
    const res = await pbx.call("GET", "/api/cdr");
    return (res.json?.items as CdrCall[] | undefined)?.find((c) => c.to.number === to);
  });

const detailOf = async (id: string): Promise<CallDetail> => {
  const res = await pbx.call("GET", `/api/calls/${encodeURIComponent(id)}`);
  expect(res.status, res.text).toBe(200);
  return res.json;
};

/** The administrator's session, as a browser sends it. */
const admin = () => ({ cookie: pbx.bin.cookie });

/** Signs a user in; their session's headers. */
async function signIn(username: string, password: string) {
  const res = await fetch(`${pbx.bin.base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return { cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] as string };
}

const ids: Record<string, number> = {};
let caller: Softphone;
let recorded: CallDetail;

test("a recorded call: legs, CEL events, who answered and a recording as long as the call", async () => {
  for (const [extension, voicemail, policy] of [
    ["2501", false, "force"],
    ["2502", false, "dontcare"],
    ["2503", true, "dontcare"],
  ] as const) {
    const created = await pbx.create("/api/extensions", {
      extension,
      name: `Detail ${extension}`,
      voicemail,
      recordingOutInternal: policy,
    });
    ids[extension] = created.id;
  }
  await pbx.deploy("all");
  expect(await cli("database get AMPUSER 2501/recording/out/internal")).toContain("force");
  caller = await phone({ user: "2501", secret: await pbx.sipSecret(ids["2501"] as number) });
  const callee = await phone({ user: "2502", secret: await pbx.sipSecret(ids["2502"] as number), autoAnswer: true });

  await caller.dial("2502");
  await callee.waitFor("CALL_ESTABLISHED");
  await talk("2501", 4, caller);
  await callee.waitFor("CALL_CLOSED");

  const call = await callTo("2502");
  recorded = await until("the call's recording on its page", async () => {
    const d = await detailOf(call.id);
    return d.recording && d.eventSource === "cel" && d.events.some((e) => e.type === "LINKEDID_END") ? d : undefined;
  });
  expect(recorded).toMatchObject({ linkedid: call.id, live: false, answeredBy: "2502", disposition: "ANSWERED" });
  expect(recorded.legs.length).toBeGreaterThanOrEqual(1);
  expect(recorded.legs.some((l) => l.dstChannel.startsWith("PJSIP/2502-") && l.disposition === "ANSWERED")).toBe(true);
  const types = recorded.events.map((e) => e.type);
  for (const t of ["CHAN_START", "ANSWER", "BRIDGE_ENTER", "HANGUP", "LINKEDID_END"]) expect(types).toContain(t);
  expect(types.indexOf("CHAN_START")).toBeLessThan(types.indexOf("BRIDGE_ENTER"));
  expect(types.at(-1)).toBe("LINKEDID_END");
  const times = recorded.events.map((e) => Date.parse(e.at));
  expect([...times].sort((a, b) => a - b)).toEqual(times);

  const rec = recorded.recording;
  if (!rec) throw new Error("no recording");
  expect(rec.format).toBe("wav");
  expect(rec.file).toMatch(/2501/);
  // The recording runs from the bridge to the hang-up: the call's talk time, give or take the second CDR rounds to.
  expect(rec.durationS).not.toBeNull();
  expect(Math.abs((rec.durationS ?? 0) - recorded.talkSec)).toBeLessThanOrEqual(1.5);
  expect(recorded.talkSec).toBeGreaterThanOrEqual(4);
}, 300_000);

test("the recording streams whole, by ranges, refuses a range past its end, and is audited", async () => {
  const rec = recorded.recording;
  if (!rec) throw new Error("no recording");
  const whole = await fetch(`${pbx.bin.base}${rec.url}`, { headers: admin() });
  expect(whole.status).toBe(200);
  expect(whole.headers.get("accept-ranges")).toBe("bytes");
  expect(whole.headers.get("content-type")).toBe("audio/wav");
  const bytes = new Uint8Array(await whole.arrayBuffer());
  expect(bytes.length).toBe(rec.bytes);
  expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe("RIFF");

  const part = await fetch(`${pbx.bin.base}${rec.url}`, { headers: { ...admin(), Range: "bytes=100-1099" } });
  expect(part.status).toBe(206);
  expect(part.headers.get("content-range")).toBe(`bytes 100-1099/${rec.bytes}`);
  expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(100, 1100));
  const tail = await fetch(`${pbx.bin.base}${rec.url}`, { headers: { ...admin(), Range: "bytes=-10" } });
  expect(tail.status).toBe(206);
  expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 10));
  for (const range of [`bytes=${rec.bytes}-`, "bytes=abc", "items=0-1", "bytes=5-2"]) {
    const bad = await fetch(`${pbx.bin.base}${rec.url}`, { headers: { ...admin(), Range: range } });
    expect(bad.status, range).toBe(416);
    expect(bad.headers.get("content-range")).toBe(`bytes */${rec.bytes}`);
    await bad.arrayBuffer();
  }
  const download = await fetch(`${pbx.bin.base}${rec.url}?download=1`, { headers: admin() });
  expect(download.status).toBe(200);
  expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename=".*\.wav"$/);
  await download.arrayBuffer();
  // Only the plays from the first byte and the download are recorded, not the seeks.
  const audit = await pbx.call("GET", "/api/audit?limit=50");
  const actions = (audit.json.items as { action: string; objectId: string }[])
    .filter((a) => a.action.startsWith("recording."))
    .map((a) => a.action);
  expect(actions.filter((a) => a === "recording.play")).toHaveLength(1);
  expect(actions.filter((a) => a === "recording.download")).toHaveLength(1);
  // Not a recording of this call: a wrong index.
  expect((await pbx.call("GET", `/api/calls/${encodeURIComponent(recorded.linkedid)}/recording?n=7`)).status).toBe(404);
}, 120_000);

test("viewers see the call's page, and its audio only once an administrator allows it", async () => {
  const created = await pbx.call("POST", "/api/users", {
    username: "watcher",
    password: "watcher password 123",
    role: "viewer",
  });
  expect(created.status, created.text).toBeLessThan(300);
  const viewer = await signIn("watcher", "watcher password 123");
  const page = await fetch(`${pbx.bin.base}/api/calls/${encodeURIComponent(recorded.linkedid)}`, { headers: viewer });
  expect(page.status).toBe(200);
  const url = ((await page.json()) as CallDetail).recording?.url ?? "";
  const refused = await fetch(`${pbx.bin.base}${url}`, { headers: viewer });
  expect(refused.status).toBe(403);
  await refused.arrayBuffer();
  const allow = await pbx.call("PUT", "/api/settings/audio", { viewersMayListen: true, recordingRetentionDays: null });
  expect(allow.status, allow.text).toBe(200);
  const heard = await fetch(`${pbx.bin.base}${url}`, { headers: viewer });
  expect(heard.status).toBe(200);
  await heard.arrayBuffer();
}, 60_000);

test("a call nobody answers leaves a voicemail that is on the call's page", async () => {
  const mark = caller.events.length;
  await caller.dial("2503");
  await caller.waitFor("CALL_ESTABLISHED", { since: mark });
  // Answered by the voicemail application: the greeting, the beep, then a few seconds of the caller's tone.
  // The voicemail application records into the box's tmp directory once its greeting and beep are over.
  const tmp = "/var/spool/asterisk/voicemail/default/2503/tmp";
  await until(
    "2503's voicemail recording",
    () => (existsSync(tmp) && readdirSync(tmp).length > 0 ? true : undefined),
    60_000,
  );
  await talk("2501", 3, caller, false);
  const call = await callTo("2503");
  const detail = await until("the voicemail on the call's page", async () => {
    const d = await detailOf(call.id);
    return d.voicemail ? d : undefined;
  });
  expect(detail.voicemail).toMatchObject({ mailbox: "2503" });
  expect(detail.voicemail?.durationS).toBeGreaterThan(0);
  expect(detail.events.some((e) => e.type === "VOICEMAIL" && e.source === "voicemail")).toBe(true);
  expect(detail.events.some((e) => e.type === "APP_START" && /VoiceMail/.test(e.text))).toBe(true);
  const audio = await fetch(`${pbx.bin.base}${detail.voicemail?.url}`, { headers: admin() });
  expect(audio.status).toBe(200);
  expect(String.fromCharCode(...new Uint8Array(await audio.arrayBuffer()).subarray(0, 4))).toBe("RIFF");
}, 180_000);

test("an AI assistant's call: its turns and tool calls on the same timeline as the PBX legs", async () => {
  const sipSide = await phone({ user: "7001", bindAddress: "127.0.0.2", autoAnswer: true });
  const trunk = await pbx.create("/api/trunks", {
    name: "openai",
    type: "sip",
    host: "127.0.0.2",
    port: sipSide.sipPort,
    authMode: "ip",
    providerAddresses: ["127.0.0.2"],
  });
  await pbx.create("/api/outbound-routes", { name: "assistants", dialPatterns: ["7XXX"], trunkId: trunk.id });
  await pbx.create("/api/ai/assistants", {
    name: "Front desk",
    model: "gpt-realtime",
    systemPrompt: "You are the receptionist. Be brief.",
    voice: "marin",
    extensionId: "7001",
    tools: ["take_message"],
    status: "active",
  });
  await pbx.deploy("all");

  const mark = caller.events.length;
  await caller.dial("7001");
  await sipSide.waitFor("CALL_ESTABLISHED");
  await caller.waitFor("CALL_ESTABLISHED", { since: mark });
  // The PBX sends the call's linkedid with the INVITE (X-Linkedid): read here from the console's live calls.
  const linkedid: string = await until("the call in the console's live calls", async () => {
    const res = await pbx.call("GET", "/api/calls/active");
    return (res.json?.calls as { id: string; callee: { number: string } }[] | undefined)?.find(
      (c) => c.callee.number === "7001",
    )?.id;
  });
  const d = buildSignedIncomingCall(secret, {
    to: "<sip:7001@sip.api.openai.com;transport=tls>",
    from: '"Detail 2501" <sip:2501@127.0.0.1>;tag=1',
    extraHeaders: [{ name: "X-Linkedid", value: linkedid }],
  });
  const callId = d.event.data.call_id;
  const sb = openai.sideband(callId);
  const hook = await fetch(`${pbx.bin.base}/api/ai/openai/webhook`, {
    method: "POST",
    headers: d.headers,
    body: d.body,
  });
  expect(hook.status, await hook.clone().text()).toBe(200);
  await until("the sideband open", () =>
    sb.open && sb.received.some((e) => e.type === "session.update") ? true : undefined,
  );
  sb.send({
    type: "conversation.item.input_audio_transcription.completed",
    item_id: "u1",
    content_index: 0,
    transcript: "Please tell Sam I called",
  });
  sb.send({
    type: "response.output_audio_transcript.done",
    response_id: "r1",
    item_id: "a1",
    transcript: "I will pass it on.",
  });
  sb.send({
    type: "response.function_call_arguments.done",
    response_id: "r2",
    item_id: "f1",
    output_index: 0,
    call_id: "tool_1",
    name: "take_message",
    arguments: JSON.stringify({ recipient: "Sam", message: "2501 called", callback_number: "2501" }),
  });
  await until("the tool answered", () =>
    sb.received.some((e) => (e.item as { call_id?: string } | undefined)?.call_id === "tool_1") ? true : undefined,
  );
  sb.hangup();
  await until("the transcript stored", async () =>
    (await pbx.call("GET", "/api/ai/transcripts")).json?.length ? true : undefined,
  );
  // CEL keeps whole seconds: the hang-up goes in a later second than the AI's last event, so its order is sure.
  const nextSecond = Math.ceil(Date.now() / 1000) * 1000;
  await until("the next second", () => (Date.now() > nextSecond ? true : undefined));
  await talk("2501", 1, caller);

  const detail = await until("the AI call on the call's page", async () => {
    const res = await pbx.call("GET", `/api/calls/${encodeURIComponent(linkedid)}`);
    return res.status === 200 && res.json.ai && res.json.events.some((e: { type: string }) => e.type === "LINKEDID_END")
      ? (res.json as CallDetail)
      : undefined;
  });
  expect(detail.ai).toMatchObject({ callId, assistantName: "Front desk", matchedBy: "header" });
  expect(detail.ai?.turns.map((t) => [t.speaker, t.text])).toEqual([
    ["caller", "Please tell Sam I called"],
    ["assistant", "I will pass it on."],
  ]);
  expect(detail.ai?.turns.every((t) => t.at !== null)).toBe(true);
  expect(detail.ai?.tools).toHaveLength(1);
  expect(detail.ai?.tools[0]?.name).toBe("take_message");
  expect(detail.ai?.tools[0]?.result).toMatch(/^done /);
  // One axis: the AI's events fall between the PBX's first channel and the call's end.
  const at = (pred: (e: CallDetail["events"][number]) => boolean) => detail.events.findIndex(pred);
  const start = at((e) => e.type === "CHAN_START");
  const turn = at((e) => e.type === "AI_TURN");
  const tool = at((e) => e.type === "AI_TOOL");
  const end = at((e) => e.type === "LINKEDID_END");
  expect(start).toBeGreaterThanOrEqual(0);
  expect(turn).toBeGreaterThan(start);
  expect(tool).toBeGreaterThan(turn);
  expect(end).toBeGreaterThan(tool);
  expect(detail.legs.some((l) => l.dstChannel.startsWith("PJSIP/openai-"))).toBe(true);
}, 180_000);

test("the retention deletes recordings older than its days from the monitor directory, as a job", async () => {
  const rec = recorded.recording;
  if (!rec) throw new Error("no recording");
  const monitor = "/var/spool/asterisk/monitor";
  const [day, file] = [rec.file.split("-")[3] ?? "", rec.file];
  const path = `${monitor}/${day.slice(0, 4)}/${day.slice(4, 6)}/${day.slice(6, 8)}/${file}`;
  expect(existsSync(path)).toBe(true);
  // Not set: refused with the reason.
  expect((await pbx.call("POST", "/api/recordings/retention/run")).status).toBe(400);
  const set = await pbx.call("PUT", "/api/settings/audio", { viewersMayListen: true, recordingRetentionDays: 30 });
  expect(set.status, set.text).toBe(200);
  // The recorded call's file is made 40 days old; the voicemail call's stays new.
  const old = new Date(Date.now() - 40 * 86_400_000);
  utimesSync(path, old, old);
  const started = await pbx.call("POST", "/api/recordings/retention/run");
  expect(started.status, started.text).toBe(202);
  const job = await pbx.finished(started.json.jobId);
  expect(job).toMatchObject({ kind: "retention", target: "recordings", state: "succeeded" });
  expect(job.summary).toMatchObject({ days: 30, found: 1, removed: 1, failed: 0 });
  expect(existsSync(path)).toBe(false);
  expect(readdirSync(`${monitor}/${day.slice(0, 4)}/${day.slice(4, 6)}/${day.slice(6, 8)}`).length).toBeGreaterThan(0);
  // The call still has its page; the recording is said to be gone.
  const after = await detailOf(recorded.linkedid);
  expect(after.recording).toBeUndefined();
  expect(after.problems.join(" ")).toMatch(/not on the PBX/);
  const audit = await pbx.call("GET", "/api/audit?limit=50");
  expect((audit.json.items as { action: string }[]).some((a) => a.action === "recordings.retention")).toBe(true);
}, 120_000);

test("an unknown call is 404 and a malformed id never reaches the records", async () => {
  expect((await pbx.call("GET", "/api/calls/1700000000.999")).status).toBe(404);
  expect((await pbx.call("GET", "/api/calls/..%2F..%2Fetc")).status).toBe(404);
  expect((await pbx.call("GET", "/api/calls/1700000000.999/recording")).status).toBe(404);
});
