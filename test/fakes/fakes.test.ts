/**
 * Proves each fake answers like the reference says the real API does, using plain fetch as a correct client
 * would. Not exhaustive: auth ok / wrong, pagination to the end, forced errors, delay.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FakeServer } from "./common";
import { startFakeDialer } from "./dialer";
import {
  FREEPBX_TEST_CLIENT,
  type FreePbxState,
  type MemoryFreePbxBackend,
  quickCreateExtension,
  relayCursor,
  startFakeFreePbx,
} from "./freepbx";
import { makeHostingerVm, sampleHostingerMetrics, startFakeHostinger } from "./hostinger";
import { buildSignedIncomingCall, incomingCall, signWebhook, startFakeOpenAi, verifyWebhook } from "./openai";
import { generateWebhookSecret, webhookHeaders } from "./standard-webhooks";
import {
  makeTelnyxPhoneNumber,
  makeTelnyxRegulatoryRequirementGroup,
  makeTelnyxRequirement,
  startFakeTelnyx,
} from "./telnyx";
import { makeTinyMdmDevice, startFakeTinyMdm, TINYMDM_DEFAULT_KEYS } from "./tinymdm";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function call(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, text, body };
}

describe("hostinger", () => {
  let f: Awaited<ReturnType<typeof startFakeHostinger>>;
  const auth = { authorization: "Bearer hostinger-test-token", accept: "application/json" };
  const vms = (p = "") => `${f.url}/api/vps/v1/virtual-machines${p}`;
  beforeAll(async () => {
    f = await startFakeHostinger({ vms: [makeHostingerVm(), makeHostingerVm({ id: 20001, state: "stopped" })] });
  });
  afterAll(() => f.stop());

  test("bearer auth: wrong token is 401 {message: Unauthenticated, correlation_id}", async () => {
    const r = await call(vms(), { headers: { authorization: "Bearer nope" } });
    expect(r.status).toBe(401);
    expect(r.body.message).toBe("Unauthenticated");
    expect(r.body.correlation_id).toMatch(UUID);
    expect(f.calls.at(-1)?.headers.authorization).toBe("Bearer nope");
  });

  test("list is a bare array; one VM by id; unknown id 404", async () => {
    const list = await call(vms(), { headers: auth });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.map((v: any) => v.id)).toEqual([17923, 20001]);
    const one = await call(vms("/17923"), { headers: auth });
    expect(one.body).toMatchObject({ id: 17923, hostname: "srv17923.hstgr.cloud", state: "running", cpus: 4 });
    expect((await call(vms("/999"), { headers: auth })).status).toBe(404);
  });

  test("stop/start/restart return an Action and change state; actions list + poll", async () => {
    const stop = await call(vms("/17923/stop"), { method: "POST", headers: auth });
    expect(stop.status).toBe(200);
    expect(stop.body).toMatchObject({ name: "stop", state: "success" });
    expect(f.state.vms[0]?.state).toBe("stopped");
    const restart = await call(vms("/17923/restart"), { method: "POST", headers: auth });
    expect(restart.body.state).toBe("success");
    expect(f.state.vms[0]?.state).toBe("running");
    const again = await call(vms("/17923/start"), { method: "POST", headers: auth });
    expect(again.status).toBe(200); // start on a running VM: accepted, no effect
    const poll = await call(vms(`/17923/actions/${stop.body.id}`), { headers: auth });
    expect(poll.body).toEqual(stop.body);
    // 51 more actions → two pages of 50
    for (let i = 0; i < 51; i++) await call(vms("/20001/start"), { method: "POST", headers: auth });
    const p1 = await call(vms("/20001/actions?page=1"), { headers: auth });
    expect(p1.body.meta).toEqual({ current_page: 1, per_page: 50, total: 51 });
    expect(p1.body.data).toHaveLength(50);
    const p2 = await call(vms("/20001/actions?page=2"), { headers: auth });
    expect(p2.body.data).toHaveLength(1);
    expect(f.calls.filter((c) => c.path.endsWith("/start")).every((c) => c.rawBody === "")).toBe(true);
  });

  test("metrics: both dates required (422), samples filtered to the range", async () => {
    const missing = await call(vms("/17923/metrics?date_from=2025-05-01T00:00:00Z"), { headers: auth });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(["date_to"]);
    expect(missing.body.correlation_id).toMatch(UUID);
    f.state.metrics[17923] = sampleHostingerMetrics(new Date("2025-05-01T00:00:00Z"), new Date("2025-05-01T01:00:00Z"));
    const r = await call(vms("/17923/metrics?date_from=2025-05-01T00:00:00Z&date_to=2025-05-01T00:10:00Z"), {
      headers: auth,
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(
      ["cpu_usage", "disk_space", "incoming_traffic", "outgoing_traffic", "ram_usage", "uptime"].sort(),
    );
    expect(r.body.cpu_usage.unit).toBe("%");
    expect(r.body.uptime.unit).toBe("milliseconds");
    expect(Object.keys(r.body.ram_usage.usage)).toEqual(["1746057600", "1746057900", "1746058200"]);
  });

  test("429 forcing, failNext, delay", async () => {
    f.state.rateLimited = 1;
    expect((await call(vms(), { headers: auth })).status).toBe(429);
    expect((await call(vms(), { headers: auth })).status).toBe(200);
    f.state.failNext = { status: 500, body: { message: "Server error", correlation_id: "x" } };
    const forced = await call(vms(), { headers: auth });
    expect(forced.status).toBe(500);
    expect(forced.body.message).toBe("Server error");
    f.state.delayMs = 400;
    const before = f.calls.length;
    await expect(fetch(vms(), { headers: auth, signal: AbortSignal.timeout(50) })).rejects.toThrow();
    f.state.delayMs = 0;
    expect(f.calls.length).toBe(before + 1); // the request arrived; the client gave up
  });
});

describe("telnyx", () => {
  let f: Awaited<ReturnType<typeof startFakeTelnyx>>;
  const auth = { authorization: "Bearer KEYtelnyx-test", "content-type": "application/json" };
  beforeAll(async () => {
    f = await startFakeTelnyx({ phoneNumbers: Array.from({ length: 25 }, (_, i) => makeTelnyxPhoneNumber(i)) });
  });
  afterAll(() => f.stop());

  test("401 is {errors:[{code:'10009', title, detail}]}", async () => {
    const r = await call(`${f.baseUrl}/phone_numbers`, { headers: { authorization: "Bearer wrong" } });
    expect(r.status).toBe(401);
    expect(r.body.errors[0]).toMatchObject({ code: "10009", title: "Authentication failed" });
    expect(typeof r.body.errors[0].detail).toBe("string");
  });

  test("credential connections: create 201, 422 with source.pointer, list pages, sort/filter, delete 200", async () => {
    const bad = await call(`${f.baseUrl}/credential_connections`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ connection_name: "x", user_name: "ab", password: "longenough" }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ code: "10015", source: { pointer: "/user_name" } });
    const ids: string[] = [];
    for (const n of ["pbx-c", "pbx-a", "other", "pbx-b", "pbx-d"]) {
      const r = await call(`${f.baseUrl}/credential_connections`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ connection_name: n, user_name: `user${n.replace("-", "")}`, password: "s3cret-pass" }),
      });
      expect(r.status).toBe(201);
      expect(r.body.data).toMatchObject({ record_type: "credential_connection", connection_name: n, active: true });
      expect(r.body.data.id).toMatch(/^\d+$/);
      ids.push(r.body.data.id);
    }
    // page through with page[size]=2 until page_number == total_pages
    const seen: string[] = [];
    let page = 1;
    for (;;) {
      const r = await call(`${f.baseUrl}/credential_connections?page[number]=${page}&page[size]=2`, { headers: auth });
      expect(r.status).toBe(200);
      seen.push(...r.body.data.map((c: any) => c.id));
      expect(r.body.meta).toEqual({ page_number: page, page_size: 2, total_pages: 3, total_results: 5 });
      if (r.body.meta.page_number >= r.body.meta.total_pages) break;
      page++;
    }
    expect(seen).toEqual(ids);
    const q = new URLSearchParams({ "filter[connection_name][contains]": "pbx", sort: "-connection_name" });
    const filtered = await call(`${f.baseUrl}/credential_connections?${q}`, { headers: auth });
    expect(filtered.body.data.map((c: any) => c.connection_name)).toEqual(["pbx-d", "pbx-c", "pbx-b", "pbx-a"]);
    expect(filtered.body.meta.page_size).toBe(250);
    const tooBig = await call(`${f.baseUrl}/credential_connections?page[size]=251`, { headers: auth });
    expect(tooBig.status).toBe(422);
    const del = await call(`${f.baseUrl}/credential_connections/${ids[2]}`, { method: "DELETE", headers: auth });
    expect(del.status).toBe(200);
    expect(del.body.data.connection_name).toBe("other");
    const gone = await call(`${f.baseUrl}/credential_connections/${ids[2]}`, { headers: auth });
    expect(gone.status).toBe(404);
    expect(gone.body.errors[0].code).toBe("10005");
  });

  test("telephony credentials: 201 with generated sip_username/sip_password; token is text/plain 201", async () => {
    const conn = f.state.credentialConnections[0];
    const r = await call(`${f.baseUrl}/telephony_credentials`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ connection_id: conn?.id, name: "phone 1001", tag: "ext1001" }),
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ record_type: "credential", name: "phone 1001", expired: false });
    expect(r.body.data.resource_id).toBe(`connection:${conn?.id}`);
    expect(r.body.data.sip_username).toStartWith("gencred");
    expect(r.body.data.sip_password.length).toBeGreaterThanOrEqual(8);
    expect(r.body.data.id).toMatch(UUID);
    const missing = await call(`${f.baseUrl}/telephony_credentials`, { method: "POST", headers: auth, body: "{}" });
    expect(missing.status).toBe(422);
    const list = await call(`${f.baseUrl}/telephony_credentials?filter[tag]=ext1001`, { headers: auth });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.meta.page_size).toBe(50);
    const tok = await fetch(`${f.baseUrl}/telephony_credentials/${r.body.data.id}/token`, {
      method: "POST",
      headers: auth,
    });
    expect(tok.status).toBe(201);
    expect(tok.headers.get("content-type")).toContain("text/plain");
    expect((await tok.text()).split(".")).toHaveLength(3);
  });

  test("phone numbers: default page size 20, page to the end, PATCH routes to a connection", async () => {
    const p1 = await call(`${f.baseUrl}/phone_numbers`, { headers: auth });
    expect(p1.body.meta).toEqual({ page_number: 1, page_size: 20, total_pages: 2, total_results: 25 });
    const p2 = await call(`${f.baseUrl}/phone_numbers?page[number]=2`, { headers: auth });
    expect(p2.body.data).toHaveLength(5);
    const conn = f.state.credentialConnections[0];
    const num = p1.body.data[0];
    const patched = await call(`${f.baseUrl}/phone_numbers/${num.id}`, {
      method: "PATCH",
      headers: auth,
      body: JSON.stringify({ connection_id: conn?.id }),
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ connection_id: conn?.id, connection_name: conn?.connection_name });
    const byConn = await call(`${f.baseUrl}/phone_numbers?filter[connection_id]=${conn?.id}`, { headers: auth });
    expect(byConn.body.data.map((n: any) => n.id)).toEqual([num.id]);
  });

  test("requirements (paginated) and regulatory_requirements (no meta) with their filters", async () => {
    f.state.requirements.push(
      makeTelnyxRequirement({ country_code: "DE", phone_number_type: "local", action: "ordering" }),
      makeTelnyxRequirement({ country_code: "FR", phone_number_type: "local", action: "ordering" }),
    );
    f.state.regulatoryRequirements.push(
      makeTelnyxRegulatoryRequirementGroup({ country_code: "DE", phone_number_type: "mobile", action: "ordering" }),
    );
    const q = "filter[country_code]=DE&filter[phone_number_type]=local&filter[action]=ordering";
    const r = await call(`${f.baseUrl}/requirements?${q}`, { headers: auth });
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0]).toMatchObject({ record_type: "requirement", country_code: "DE" });
    expect(r.body.data[0].requirement_types[0].record_type).toBe("requirement_type");
    expect(r.body.meta.total_results).toBe(1);
    const badType = await call(`${f.baseUrl}/requirements?filter[phone_number_type]=mobile`, { headers: auth });
    expect(badType.status).toBe(422);
    const reg = await call(
      `${f.baseUrl}/regulatory_requirements?filter[country_code]=DE&filter[phone_number_type]=mobile`,
      {
        headers: auth,
      },
    );
    expect(reg.status).toBe(200);
    expect(reg.body.meta).toBeUndefined();
    expect(reg.body.data[0].regulatory_requirements[0].field_type).toBe("address_id");
    expect(reg.body.data[0].record_type).toBeUndefined();
  });

  test("rate limit: 429 code 10011 with x-ratelimit-* headers", async () => {
    f.state.rateLimited = 1;
    const r = await call(`${f.baseUrl}/phone_numbers`, { headers: auth });
    expect(r.status).toBe(429);
    expect(r.body.errors[0].code).toBe("10011");
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(r.headers.get("x-ratelimit-reset")).not.toBeNull();
  });
});

describe("tinymdm", () => {
  let f: Awaited<ReturnType<typeof startFakeTinyMdm>>;
  const auth = {
    "X-Tinymdm-Apikey-Public": TINYMDM_DEFAULT_KEYS.publicKey,
    "X-Tinymdm-Apikey-Secret": TINYMDM_DEFAULT_KEYS.secretKey,
  };
  beforeAll(async () => {
    f = await startFakeTinyMdm({ devices: Array.from({ length: 25 }, (_, i) => makeTinyMdmDevice(i + 1)) });
  });
  afterAll(() => f.stop());

  test("missing keys 401, wrong keys 403, both {error}", async () => {
    const none = await call(`${f.baseUrl}/devices`);
    expect(none.status).toBe(401);
    expect(typeof none.body.error).toBe("string");
    const wrong = await call(`${f.baseUrl}/devices`, { headers: { ...auth, "X-Tinymdm-Apikey-Secret": "x" } });
    expect(wrong.status).toBe(403);
    expect(typeof wrong.body.error).toBe("string");
  });

  test("connection test GET /devices?per_page=1 and paging through next until null", async () => {
    const one = await call(`${f.baseUrl}/devices?per_page=1`, { headers: auth });
    expect(one.status).toBe(200);
    expect(one.body.count).toBe(25);
    expect(one.body.results).toHaveLength(1);
    expect(one.body.previous).toBeNull();
    const ids: string[] = [];
    let next: string | null = `${f.baseUrl}/devices?per_page=10&page=1`;
    let pages = 0;
    while (next) {
      const r = await call(next, { headers: auth });
      ids.push(...r.body.results.map((d: any) => d.id));
      next = r.body.next;
      pages++;
    }
    expect(pages).toBe(3);
    expect(new Set(ids).size).toBe(25);
    expect(f.calls.at(-1)?.headers["x-tinymdm-apikey-public"]).toBe(TINYMDM_DEFAULT_KEYS.publicKey);
    const dev = await call(`${f.baseUrl}/devices/${ids[0]}`, { headers: auth });
    expect(dev.body).toMatchObject({ id: ids[0], serial_number: expect.any(String) });
    expect((await call(`${f.baseUrl}/devices/nope`, { headers: auth })).status).toBe(404);
    const info = await call(`${f.baseUrl}/enterprise/info`, { headers: auth });
    expect(info.body.paid_licence).toBe(25);
  });

  test("failNext surfaces the forced status/body once", async () => {
    f.state.failNext = { status: 429, body: { error: "slow down" }, path: "/api/v1/devices" };
    const r = await call(`${f.baseUrl}/devices`, { headers: auth });
    expect(r).toMatchObject({ status: 429, body: { error: "slow down" } });
    expect((await call(`${f.baseUrl}/devices`, { headers: auth })).status).toBe(200);
  });
});

describe("openai", () => {
  let f: Awaited<ReturnType<typeof startFakeOpenAi>>;
  const auth = { authorization: "Bearer sk-test-openai", "content-type": "application/json" };
  const post = (path: string, body?: unknown) =>
    call(`${f.baseUrl}${path}`, {
      method: "POST",
      headers: auth,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  beforeAll(async () => {
    f = await startFakeOpenAi();
  });
  afterAll(() => f.stop());

  test("GET /v1/models; wrong key 401 {error:{message,type,param,code}}", async () => {
    const ok = await call(`${f.baseUrl}/models`, { headers: auth });
    expect(ok.body.object).toBe("list");
    expect(ok.body.data.map((m: any) => m.id)).toContain("gpt-realtime");
    const bad = await call(`${f.baseUrl}/models`, { headers: { authorization: "Bearer sk-wrong-key-123456" } });
    expect(bad.status).toBe(401);
    expect(bad.body.error).toMatchObject({ type: "invalid_request_error", param: null, code: "invalid_api_key" });
    expect(bad.body.error.message).not.toContain("sk-wrong-key-123456");
  });

  test("accept validates the GA session and records it; reject/refer/hangup", async () => {
    const ev = incomingCall(f.state, { callId: "rtc_test1" });
    const noType = await post(`/realtime/calls/${ev.data.call_id}/accept`, { model: "gpt-realtime" });
    expect(noType.status).toBe(400);
    expect(noType.body.error.param).toBe("type");
    const betaVoice = await post(`/realtime/calls/${ev.data.call_id}/accept`, { type: "realtime", voice: "marin" });
    expect(betaVoice.status).toBe(400);
    expect(betaVoice.body.error.code).toBe("unknown_parameter");
    const session = {
      type: "realtime",
      model: "gpt-realtime",
      instructions: "You are the front desk.",
      audio: { output: { voice: "marin" } },
    };
    const ok = await post(`/realtime/calls/${ev.data.call_id}/accept`, session);
    expect(ok.status).toBe(200);
    expect(ok.text).toBe("");
    expect(f.state.realtimeCalls.rtc_test1).toMatchObject({ status: "accepted", session });
    const refer = await post("/realtime/calls/rtc_test1/refer", { target_uri: "tel:+14155550123" });
    expect(refer.status).toBe(200);
    expect(f.state.realtimeCalls.rtc_test1?.referTargetUri).toBe("tel:+14155550123");
    expect((await post("/realtime/calls/rtc_test1/hangup")).status).toBe(200);
    expect(f.state.realtimeCalls.rtc_test1?.history.map((h) => h.action)).toEqual(["accept", "refer", "hangup"]);
    await post("/realtime/calls/rtc_2/reject");
    expect(f.state.realtimeCalls.rtc_2?.rejectStatusCode).toBe(603);
    await post("/realtime/calls/rtc_3/reject", { status_code: 486 });
    expect(f.state.realtimeCalls.rtc_3?.rejectStatusCode).toBe(486);
  });

  /** A browser's offer as Chrome writes it: BUNDLE of an audio m-line (Opus among others) and the data channel. */
  const OFFER = [
    "v=0",
    "o=- 4611731400430051336 2 IN IP4 127.0.0.1",
    "s=-",
    "t=0 0",
    "a=group:BUNDLE 0 1",
    "a=msid-semantic: WMS",
    "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8",
    "c=IN IP4 0.0.0.0",
    "a=rtcp:9 IN IP4 0.0.0.0",
    "a=ice-ufrag:abcd",
    "a=ice-pwd:abcdefghijklmnopqrstuvwx",
    "a=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF",
    "a=setup:actpass",
    "a=mid:0",
    "a=sendrecv",
    "a=rtcp-mux",
    "a=rtpmap:111 opus/48000/2",
    "a=fmtp:111 minptime=10;useinbandfec=1",
    "a=rtpmap:0 PCMU/8000",
    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel",
    "c=IN IP4 0.0.0.0",
    "a=ice-ufrag:abcd",
    "a=ice-pwd:abcdefghijklmnopqrstuvwx",
    "a=setup:actpass",
    "a=mid:1",
    "a=sctp-port:5000",
    "",
  ].join("\r\n");
  const session = {
    type: "realtime",
    model: "gpt-realtime",
    instructions: "Be brief.",
    audio: { output: { voice: "marin" } },
  };
  const sdpPost = (bearer: string, body = OFFER) =>
    call(`${f.baseUrl}/realtime/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/sdp", origin: "https://pbx.example" },
      body,
    });

  test("client_secrets: checks the body as ClientSecretCreateParams, mints ek_… as ClientSecretCreateResponse", async () => {
    const unknown = await post("/realtime/client_secrets", { session, ttl: 60 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ param: "ttl", code: "unknown_parameter" });
    const tooShort = await post("/realtime/client_secrets", { expires_after: { anchor: "created_at", seconds: 5 } });
    expect(tooShort.body.error.param).toBe("expires_after.seconds");
    const betaVoice = await post("/realtime/client_secrets", { session: { type: "realtime", voice: "marin" } });
    expect(betaVoice.body.error).toMatchObject({ param: "session.voice", code: "unknown_parameter" });
    const before = Math.floor(Date.now() / 1000);
    const ok = await post("/realtime/client_secrets", {
      expires_after: { anchor: "created_at", seconds: 60 },
      session,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.value).toMatch(/^ek_[0-9a-f]{32}$/);
    expect(ok.body.expires_at - before).toBeGreaterThanOrEqual(60);
    expect(ok.body.expires_at - before).toBeLessThanOrEqual(61);
    expect(ok.body.session).toMatchObject({ ...session, object: "realtime.session" });
    expect(f.state.clientSecrets.at(-1)).toMatchObject({ value: ok.body.value, session });
    const noKey = await call(`${f.baseUrl}/realtime/client_secrets`, { method: "POST", body: "{}" });
    expect(noKey.status).toBe(401);
  });

  test("realtime/calls: an SDP offer with a minted secret is answered 201 application/sdp with Location", async () => {
    const minted = await post("/realtime/client_secrets", { session });
    const res = await sdpPost(minted.body.value);
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/sdp");
    expect(res.headers.get("location")).toMatch(/^\/v1\/realtime\/calls\/rtc_[0-9a-f]{32}$/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const answer = res.text.split("\r\n");
    expect(answer[0]).toBe("v=0");
    expect(answer).toContain("a=group:BUNDLE 0 1");
    expect(answer).toContain("m=audio 9 UDP/TLS/RTP/SAVPF 111");
    expect(answer).toContain("m=application 9 UDP/DTLS/SCTP webrtc-datachannel");
    expect(answer.filter((l) => l === "a=setup:passive")).toHaveLength(2);
    expect(answer.filter((l) => l.startsWith("a=mid:"))).toEqual(["a=mid:0", "a=mid:1"]);
    expect(answer).toContain("a=sendrecv");
    const recorded = f.state.webrtcCalls.at(-1);
    expect(recorded?.credential).toEqual({ kind: "client_secret", value: minted.body.value });
    expect(recorded?.session).toEqual(session);
    expect(recorded?.origin).toBe("https://pbx.example");
    // The API key is accepted too (as at OpenAI), and recorded as such.
    expect((await sdpPost("sk-test-openai")).status).toBe(201);
    expect(f.state.webrtcCalls.at(-1)?.credential).toEqual({ kind: "api_key" });
  });

  test("realtime/calls: preflight, unknown or expired secret 401, a body that is not SDP 400", async () => {
    const pre = await call(`${f.baseUrl}/realtime/calls`, { method: "OPTIONS" });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-headers")).toContain("authorization");
    expect((await sdpPost("ek_not_minted")).status).toBe(401);
    const minted = await post("/realtime/client_secrets", { session });
    const record = f.state.clientSecrets.find((c) => c.value === minted.body.value);
    if (record) record.expiresAt = Math.floor(Date.now() / 1000) - 1;
    const expired = await sdpPost(minted.body.value);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe("client_secret_expired");
    expect((await sdpPost("sk-test-openai", "hello")).status).toBe(400);
  });

  test("the SDK itself against the fake: client secret, WebRTC call (multipart), 429 with retry-after", async () => {
    const { OpenAI, RateLimitError } = await import("openai");
    const client = new OpenAI({
      apiKey: "sk-test-openai",
      baseURL: f.baseUrl,
      maxRetries: 0,
      project: null,
      organization: null,
    });
    const secret = await client.realtime.clientSecrets.create({
      expires_after: { anchor: "created_at", seconds: 60 },
      session: { type: "realtime", model: "gpt-realtime" },
    });
    expect(secret.value).toStartWith("ek_");
    const res = await client.realtime.calls.create({ sdp: OFFER, session: { type: "realtime", instructions: "Hi" } });
    expect(res.status).toBe(201);
    expect(await res.text()).toStartWith("v=0\r\n");
    expect(f.state.webrtcCalls.at(-1)?.session).toEqual({ type: "realtime", instructions: "Hi" });
    f.state.rateLimit = { count: 1, retryAfterSeconds: 7 };
    const limited = await client.models.list().catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    const e = limited as InstanceType<typeof RateLimitError>;
    expect(e.headers.get("retry-after")).toBe("7");
    expect(e.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(e.error).toMatchObject({ type: "requests", code: "rate_limit_exceeded", param: null });
    expect(f.state.rateLimit).toBeNull();
    expect((await client.models.list()).data.length).toBeGreaterThan(0);
  });

  test("webhook signing: Standard Webhooks test vector, incoming-call builder verifies", () => {
    expect(
      signWebhook(
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    const secret = generateWebhookSecret();
    const d = buildSignedIncomingCall(secret, { callId: "rtc_abc", from: '"Bob" <sip:+15550001@pbx>' });
    expect(d.event).toMatchObject({ object: "event", type: "realtime.call.incoming", data: { call_id: "rtc_abc" } });
    expect(d.event.id).toStartWith("evt_");
    expect(d.event.data.sip_headers.map((h) => h.name)).toEqual(["From", "To", "Call-ID"]);
    expect(verifyWebhook(secret, d.headers, d.body).ok).toBe(true);
    expect(verifyWebhook(secret, d.headers, `${d.body} `).ok).toBe(false);
  });
});

describe("freepbx", () => {
  let f: FakeServer<FreePbxState<MemoryFreePbxBackend>>;
  let token = "";
  const tokenUrl = () => `${f.url}/admin/api/api/token`;
  const gql = async (query: string, variables?: unknown, bearer = token) =>
    call(`${f.url}/admin/api/api/gql`, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
  const getToken = async (scope?: string, secret = FREEPBX_TEST_CLIENT.clientSecret) =>
    call(tokenUrl(), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: FREEPBX_TEST_CLIENT.clientId,
        client_secret: secret,
        ...(scope ? { scope } : {}),
      }).toString(),
    });
  beforeAll(async () => {
    f = await startFakeFreePbx();
  });
  afterAll(() => f.stop());

  test("token: client_credentials form post; bad secret 401 invalid_client", async () => {
    const bad = await getToken(undefined, "f".repeat(32));
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ error: "invalid_client", message: "Client authentication failed" });
    const ok = await getToken("gql");
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe("Bearer");
    expect(ok.body.expires_in).toBe(3600);
    expect(ok.body.refresh_token).toBeUndefined();
    token = ok.body.access_token;
    expect(token.split(".")).toHaveLength(3);
    expect(f.calls.at(-1)?.body).toMatchObject({ grant_type: "client_credentials" });
  });

  test("gql: bad bearer 401; invalid query 400 {errors}", async () => {
    const noAuth = await gql("{ fetchNeedReload { status message } }", undefined, "nope");
    expect(noAuth.status).toBe(401);
    expect(noAuth.body.data).toBeUndefined();
    const invalid = await gql('mutation { addExtension(input: { extensionId: "1001", email: "a@b" }) { status } }');
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].message).toContain("name");
  });

  test("addExtension → fetchExtension (generated 32-hex secret); duplicate → 400 status:false", async () => {
    const add = `mutation ($i: addExtensionInput!) { addExtension(input: $i) { status message clientMutationId } }`;
    const input = {
      extensionId: "1001",
      name: "Alice",
      email: "a@example.org",
      vmEnable: false,
      umEnable: false,
      clientMutationId: "m1",
    };
    const r = await gql(add, { i: input });
    expect(r.status).toBe(200);
    expect(r.body.data.addExtension).toEqual({
      status: true,
      message: "Extension has been created Successfully",
      clientMutationId: "m1",
    });
    const one = await gql(
      '{ fetchExtension(extensionId: "1001") { status extensionId tech user { name voicemail extPassword } coreDevice { dial } } }',
    );
    expect(one.body.data.fetchExtension).toMatchObject({
      status: true,
      extensionId: "1001",
      tech: "pjsip",
      user: { name: "Alice", voicemail: "novm" },
      coreDevice: { dial: "PJSIP/1001" },
    });
    expect(one.body.data.fetchExtension.user.extPassword).toMatch(/^[0-9a-f]{32}$/);
    const dup = await gql(add, { i: input });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ errors: [{ message: "This device id is already in use", status: false }] });
    const missing = await gql('{ fetchExtension(extensionId: "9999") { status message } }');
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toEqual({ message: "Extension does not exists", status: false });
  });

  test("fetchAllExtensions pages with first/after to the end", async () => {
    for (const id of ["1002", "1003", "1004", "1005"])
      await f.state.backend.addExtension(quickCreateExtension({ extensionId: id, name: `User ${id}`, email: "" }));
    const q = `query ($after: String) { fetchAllExtensions(first: 2, after: $after) { status totalCount extension { extensionId } } }`;
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const r = await gql(q, { after });
      const conn = r.body.data.fetchAllExtensions;
      expect(conn.totalCount).toBe(5);
      seen.push(...conn.extension.map((e: any) => e.extensionId));
      if (conn.extension.length < 2) break;
      after = relayCursor(seen.length - 1);
    }
    expect(seen).toEqual(["1001", "1002", "1003", "1004", "1005"]);
  });

  test("scopes: gql:core:read:extension does not expose fetchAllExtensions", async () => {
    const narrow = (await getToken("gql:core:read:extension")).body.access_token;
    const r = await gql("{ fetchAllExtensions { totalCount } }", undefined, narrow);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toBe('Cannot query field "fetchAllExtensions" on type "Query".');
    const read = (await getToken("gql:core:read")).body.access_token;
    expect((await gql("{ fetchAllExtensions { totalCount } }", undefined, read)).status).toBe(200);
    expect(
      (await gql('mutation { deleteExtension(input: {extensionId: "1005"}) { status } }', undefined, read)).status,
    ).toBe(400);
  });

  test("doreload → fetchApiStatus Processing → Executed; need-reload flag; inbound route does not set it", async () => {
    expect((await gql("{ fetchNeedReload { status message } }")).body.data.fetchNeedReload).toEqual({
      status: true,
      message: "Doreload is required",
    });
    f.state.backend.reloadBehaviour = { outcome: "stuck", afterMs: 0, failureReason: "" };
    const rel = await gql("mutation { doreload(input: {}) { status message transaction_id } }");
    const txn = rel.body.data.doreload.transaction_id;
    expect(txn).toBeTruthy();
    const st = `query ($t: ID!) { fetchApiStatus(txnId: $t) { status message details } }`;
    expect((await gql(st, { t: txn })).body.data.fetchApiStatus.message).toBe("Processing");
    f.state.backend.finishTransaction(txn, "Executed");
    expect((await gql(st, { t: txn })).body.data.fetchApiStatus).toEqual({
      status: true,
      message: "Executed",
      details: null,
    });
    expect((await gql("{ fetchNeedReload { message } }")).body.data.fetchNeedReload.message).toBe(
      "Doreload is not required",
    );
    const route = await gql(
      'mutation { addInboundRoute(input: {extension: "5551234567", destination: "from-did-direct,1001,1"}) { status message inboundRoute { id destinationConnection } } }',
    );
    expect(route.body.data.addInboundRoute).toMatchObject({ status: true, inboundRoute: { id: "5551234567/" } });
    expect((await gql("{ fetchNeedReload { message } }")).body.data.fetchNeedReload.message).toBe(
      "Doreload is not required",
    );
    f.state.backend.reloadBehaviour = { outcome: "Failed", afterMs: 0, failureReason: "Bad destination" };
    const t2 = (await gql("mutation { doreload(input: {}) { transaction_id } }")).body.data.doreload.transaction_id;
    let status: any = null;
    for (let i = 0; i < 100 && status?.message !== "Failed"; i++) {
      await Bun.sleep(5);
      status = (await gql(st, { t: t2 })).body.data.fetchApiStatus;
    }
    expect(status).toMatchObject({ message: "Failed", details: "Bad destination" });
  });

  test("expired token → 401; failNext on /gql only", async () => {
    const t = f.state.tokens.get(token);
    if (t) t.expiresAt = Date.now() - 1;
    expect((await gql("{ fetchNeedReload { message } }")).status).toBe(401);
    token = (await getToken()).body.access_token;
    f.state.failNext = { status: 502, body: "Bad Gateway", path: "/admin/api/api/gql" };
    expect((await gql("{ fetchNeedReload { message } }")).status).toBe(502);
    expect((await gql("{ fetchNeedReload { message } }")).status).toBe(200);
  });
});

describe("dialer push receiver", () => {
  let f: Awaited<ReturnType<typeof startFakeDialer>>;
  beforeAll(async () => {
    f = await startFakeDialer();
  });
  afterAll(() => f.stop());

  const push = (payload: unknown, o: { id?: string; ts?: number; secret?: string } = {}) => {
    const body = JSON.stringify(payload);
    const headers = webhookHeaders(
      o.secret ?? f.state.secret,
      o.id ?? crypto.randomUUID(),
      o.ts ?? Math.floor(Date.now() / 1000),
      body,
    );
    return call(`${f.url}/hooks/pbx`, { method: "POST", headers, body });
  };

  test("signed delivery accepted and recorded; duplicate id flagged; bad signature / stale timestamp 401", async () => {
    const payload = {
      event: "extension.updated",
      extension: "1001",
      display_name: "Alice",
      sip_user: "1001",
      wss_url: "wss://pbx/ws",
    };
    expect((await push(payload, { id: "msg_1" })).status).toBe(200);
    expect(f.state.extensions["1001"]).toEqual(payload);
    expect((await push({ ...payload, display_name: "Changed" }, { id: "msg_1" })).status).toBe(200);
    expect(f.state.deliveries.map((d) => d.duplicate)).toEqual([false, true]);
    expect(f.state.extensions["1001"]?.display_name).toBe("Alice");
    const bad = await push(payload, { secret: generateWebhookSecret() });
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe("bad_signature");
    const stale = await push(payload, { ts: Math.floor(Date.now() / 1000) - 301 });
    expect(stale.status).toBe(401);
    expect(f.state.rejected.map((r) => r.reason)).toEqual(["bad_signature", "timestamp_too_old"]);
    expect(f.state.deliveries[0]?.path).toBe("/hooks/pbx");
  });
});
