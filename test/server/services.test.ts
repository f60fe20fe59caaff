import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { deadline, httpRequest } from "../../src/server/clients/http";
import { TelnyxClient } from "../../src/server/clients/telnyx";
import { pushAllExtensions } from "../../src/server/integrations/dialer";
import { testService } from "../../src/server/integrations/outside";
import { redact, secretForms } from "../../src/server/redact";
import { startFakeDialer, verifyWebhook } from "../fakes/dialer";
import {
  HOSTINGER_DEFAULT_TOKEN,
  makeHostingerVm,
  sampleHostingerMetrics,
  startFakeHostinger,
} from "../fakes/hostinger";
import { makeTelnyxPhoneNumber, makeTelnyxRequirement, startFakeTelnyx, TELNYX_DEFAULT_KEY } from "../fakes/telnyx";
import { startTestServer, type TestServer } from "../helpers/server";
import { type PbxHost, startPbxHost } from "../pbx-host/pbx-host";

const hostinger = await startFakeHostinger();
const telnyx = await startFakeTelnyx();
const dialer = await startFakeDialer();
let pbx: PbxHost;
beforeAll(async () => {
  pbx = await startPbxHost();
}, 60_000);
afterAll(async () => {
  await Promise.all([hostinger.stop(), telnyx.stop(), dialer.stop(), pbx?.stop()]);
});

let s: TestServer;
const servers: TestServer[] = [];
async function server(env: Record<string, string> = {}) {
  const srv = await startTestServer({ PBX_HOSTINGER_URL: hostinger.baseUrl, PBX_TELNYX_URL: telnyx.baseUrl, ...env });
  await srv.setup();
  servers.push(srv);
  return srv;
}
afterEach(async () => {
  for (const x of servers.splice(0)) await x.stop();
});

describe("HTTP client basics", () => {
  test("a call that takes longer than its timeout fails with a clear message", async () => {
    telnyx.state.delayMs = 500;
    try {
      const err = await httpRequest({
        service: "Telnyx",
        url: `${telnyx.baseUrl}/phone_numbers`,
        timeoutMs: 100,
      }).catch((e) => e);
      expect(err.message).toBe("Telnyx did not answer within 100 ms");
    } finally {
      telnyx.state.delayMs = 0;
    }
  });

  test("lists are paginated through to the end", async () => {
    telnyx.state.phoneNumbers = Array.from({ length: 601 }, (_, i) => makeTelnyxPhoneNumber(i));
    const numbers = await new TelnyxClient(telnyx.baseUrl, TELNYX_DEFAULT_KEY).listPhoneNumbers();
    expect(numbers).toHaveLength(601);
    expect(new Set(numbers.map((n) => n.id)).size).toBe(601);
    const pages = telnyx.calls.filter((c) => c.path === "/v2/phone_numbers").map((c) => c.query["page[number]"]);
    expect(pages.slice(-3)).toEqual(["1", "2", "3"]);
  });

  test("a list read through its pages stops at its overall deadline, naming the operation", async () => {
    telnyx.state.phoneNumbers = Array.from({ length: 2000 }, (_, i) => makeTelnyxPhoneNumber(i));
    telnyx.state.delayMs = 100;
    try {
      const started = Date.now();
      const err = await new TelnyxClient(telnyx.baseUrl, TELNYX_DEFAULT_KEY)
        .listAll("/phone_numbers", "", 250)
        .catch((e) => e);
      expect(err.message).toBe("Reading the Telnyx list /phone_numbers did not finish within 250 ms");
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      telnyx.state.delayMs = 0;
    }
  });

  test("a deadline already past stops a call before it is sent", async () => {
    const signal = deadline("Something long", 1);
    await Bun.sleep(10);
    const before = telnyx.calls.length;
    const err = await httpRequest({ service: "Telnyx", url: `${telnyx.baseUrl}/phone_numbers`, signal }).catch(
      (e) => e,
    );
    expect(err.message).toBe("Something long did not finish within 1 ms");
    expect(telnyx.calls.length).toBe(before);
  });
});

describe("redaction", () => {
  const SECRET = 's3cr+t/Ke y="é&';
  test("every encoding of a secret is removed, including inside longer base64 text", () => {
    const inside = (prefix: string) => Buffer.from(`${prefix}${SECRET}!tail`).toString("base64");
    const encodings = [
      SECRET,
      encodeURIComponent(SECRET),
      encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
      new URLSearchParams({ v: SECRET }).toString().slice(2),
      encodeURIComponent(encodeURIComponent(SECRET)),
      JSON.stringify(SECRET).slice(1, -1),
      JSON.stringify(SECRET).slice(1, -1).replace(/\//g, "\\/"),
      Buffer.from(SECRET).toString("base64"),
      Buffer.from(SECRET).toString("base64url"),
      Buffer.from(SECRET).toString("hex"),
    ];
    for (const e of encodings) expect(redact(`before ${e} after`, [SECRET])).toBe("before ••• after");
    // Inside base64 of a longer text (a Basic header), at each of the three byte alignments.
    for (const prefix of ["user:", "user1:", "user12:"]) {
      const out = redact(`Basic ${inside(prefix)}`, [SECRET]);
      expect(out).toContain("•••");
      expect(Buffer.from(out.replace("Basic ", ""), "base64").toString("latin1")).not.toContain("Ke y");
    }
    expect(secretForms("abcd").length).toBeGreaterThan(3);
    // Short values are left alone (they would blank out ordinary words), and nothing else changes.
    expect(redact("the key was abc", ["abc"])).toBe("the key was abc");
    expect(redact("nothing to hide", [SECRET, undefined, null, ""])).toBe("nothing to hide");
  });
});

describe("VPS status and control", () => {
  test("without a hosting API the numbers are this host's own, within 0-100 %", async () => {
    s = await server();
    const res = await s.call("GET", "/api/vps/status");
    expect(res.json.source).toBe("host");
    expect(res.json.status).toBe("online");
    for (const k of ["cpu", "memory", "disk"]) {
      expect(res.json[k]).toBeGreaterThanOrEqual(0);
      expect(res.json[k]).toBeLessThanOrEqual(100);
    }
    const uptime = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
    expect(Math.abs(res.json.metrics.uptime - uptime)).toBeLessThan(5);
    expect(res.json.metrics.network.in).toBeGreaterThanOrEqual(0);
    expect(res.json.hostname.length).toBeGreaterThan(0);
    const control = await s.call("POST", "/api/vps/control", { action: "restart" });
    expect(control.status).toBe(400);
    expect(control.json.error.message).toContain("hosting provider API");
  });

  test("with Hostinger: the VM's state, IP and last-hour metrics", async () => {
    const vm = makeHostingerVm({ id: 555, state: "running", memory: 1024, disk: 10240 });
    hostinger.state.vms = [vm];
    const to = new Date();
    hostinger.state.metrics[555] = sampleHostingerMetrics(new Date(to.getTime() - 3600_000), to, 600);
    s = await server({ HOSTINGER_API_KEY: HOSTINGER_DEFAULT_TOKEN });
    const res = await s.call("GET", "/api/vps/status");
    expect(res.json).toMatchObject({
      configured: true,
      source: "hostinger",
      status: "online",
      ipAddress: "203.0.113.10",
      hostname: "srv555.hstgr.cloud",
    });
    const metricsCall = hostinger.calls.findLast((c) => c.path.endsWith("/metrics"));
    const span = Date.parse(String(metricsCall?.query.date_to)) - Date.parse(String(metricsCall?.query.date_from));
    expect(span).toBe(3600_000);
    expect(res.json.cpu).toBeGreaterThan(0);
    expect(res.json.metrics.uptime).toBeGreaterThan(0);
  });

  test("several VMs: the configured id wins; stop goes to the API and changes the state", async () => {
    hostinger.state.vms = [
      makeHostingerVm({ id: 1, state: "running" }),
      makeHostingerVm({ id: 2, state: "running", ipv4: [{ id: 9, address: "198.51.100.2", ptr: null }] }),
    ];
    s = await server({ HOSTINGER_API_KEY: HOSTINGER_DEFAULT_TOKEN });
    const ambiguous = await s.call("GET", "/api/vps/status");
    expect(ambiguous.json.source).toBe("host");
    expect(ambiguous.json.message).toContain("set the VM id");
    await s.call("POST", "/api/credentials", { type: "hostinger", vmId: "2" });
    const stop = await s.call("POST", "/api/vps/control", { action: "stop" });
    expect(stop.status).toBe(200);
    expect(hostinger.calls.at(-1)).toMatchObject({ method: "POST", path: "/api/vps/v1/virtual-machines/2/stop" });
    expect((await s.call("GET", "/api/vps/status")).json.status).toBe("offline");
    expect((await s.call("POST", "/api/vps/control", { action: "explode" })).status).toBe(400);
  });
});

describe("SIP provider (Telnyx)", () => {
  test("not configured: a 400 that says so", async () => {
    s = await server();
    const res = await s.call("GET", "/api/telnyx/connections");
    expect(res.status).toBe(400);
    expect(res.json.error.message).toBe("Telnyx is not configured. Add it under API Settings.");
  });

  test("connections: create with generated user and password, list, delete", async () => {
    s = await server({ TELNYX_API_KEY: TELNYX_DEFAULT_KEY });
    const created = await s.call("POST", "/api/telnyx/connections", { connectionName: "  Office PBX  " });
    expect(created.status).toBe(201);
    expect(created.json.connection_name).toBe("Office PBX");
    const sent = telnyx.calls.findLast((c) => c.method === "POST" && c.path === "/v2/credential_connections")
      ?.body as any;
    expect(sent.user_name).toMatch(/^[A-Za-z0-9]{4,32}$/);
    expect(sent.password.length).toBeGreaterThanOrEqual(8);
    const list = await s.call("GET", "/api/telnyx/connections");
    expect(list.json.map((c: any) => c.id)).toContain(created.json.id);
    expect(list.text).not.toContain(sent.password);
    expect((await s.call("DELETE", `/api/telnyx/connections/${created.json.id}`)).status).toBe(204);
    expect(telnyx.state.credentialConnections.find((c) => c.id === created.json.id)).toBeUndefined();
    const empty = await s.call("POST", "/api/telnyx/connections", { connectionName: " " });
    expect(empty.json.error.fields.connectionName).toBe("Connection name is required");
  });

  test("Telnyx's own error detail is surfaced", async () => {
    s = await server({ TELNYX_API_KEY: TELNYX_DEFAULT_KEY });
    telnyx.state.failNext = {
      status: 422,
      body: { errors: [{ code: "10015", title: "Invalid value", detail: "user_name is already taken" }] },
    };
    const res = await s.call("POST", "/api/telnyx/connections", { connectionName: "Dup", username: "taken1" });
    expect(res.status).toBe(502);
    expect(res.json.error.message).toBe("Telnyx answered 422: user_name is already taken");
  });

  test("a credential generated for an extension is stored encrypted and linked", async () => {
    s = await server({ TELNYX_API_KEY: TELNYX_DEFAULT_KEY });
    const conn = await s.call("POST", "/api/telnyx/connections", { connectionName: "Creds" });
    const ext = await s.call("POST", "/api/extensions", { extension: "1001", name: "Desk" });
    const cred = await s.call("POST", `/api/extensions/${ext.json.id}/telnyx-credentials`, {
      connectionId: conn.json.id,
    });
    expect(cred.status).toBe(201);
    const real = telnyx.state.telephonyCredentials.at(-1);
    expect(cred.json).toMatchObject({
      sip_username: real?.sip_username,
      extension: "1001",
      connection_id: conn.json.id,
    });
    expect(cred.json.sip_password).toBe(`••••${real?.sip_password.slice(-4)}`);
    const list = await s.call("GET", "/api/telnyx/credentials");
    expect(list.json).toHaveLength(1);
    expect(list.text).not.toContain(real?.sip_password);
    const reveal = await s.call("GET", `/api/telnyx/credentials/${cred.json.id}/password`);
    expect(reveal.json.sip_password).toBe(real?.sip_password);
    s.db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(readFileSync(s.dbFile).toString("latin1")).not.toContain(real?.sip_password as string);
    const missing = await s.call("POST", `/api/extensions/${ext.json.id}/telnyx-credentials`, {});
    expect(missing.json.error.fields.connectionId).toBe("Connection and extension are required");
  });

  test("phone numbers: listed to the end, routed, un-routed; requirements for IL local", async () => {
    telnyx.state.phoneNumbers = Array.from({ length: 260 }, (_, i) => makeTelnyxPhoneNumber(i));
    telnyx.state.requirements = [
      makeTelnyxRequirement({ country_code: "IL", phone_number_type: "local", action: "ordering" }),
    ];
    s = await server({ TELNYX_API_KEY: TELNYX_DEFAULT_KEY });
    const conn = await s.call("POST", "/api/telnyx/connections", { connectionName: "Route" });
    const numbers = await s.call("GET", "/api/telnyx/phone-numbers");
    expect(numbers.json).toHaveLength(260);
    const id = numbers.json[0].id;
    const routed = await s.call("POST", `/api/telnyx/phone-numbers/${id}/route`, { connectionId: conn.json.id });
    expect(routed.json).toMatchObject({ id, connection_id: conn.json.id, connection_name: "Route" });
    expect(telnyx.calls.at(-1)).toMatchObject({ method: "PATCH", body: { connection_id: conn.json.id } });
    await s.call("POST", `/api/telnyx/phone-numbers/${id}/route`, { connectionId: "" });
    expect(telnyx.calls.at(-1)?.body).toEqual({ connection_id: null });
    const req = await s.call("GET", "/api/telnyx/regulatory-requirements?countryCode=IL&phoneNumberType=local");
    expect(req.json).toEqual([
      {
        description: "A local address in IL",
        field_type: "address",
        acceptance_criteria: { time_limit: null, locality_limit: "Within IL" },
        record_type: "requirement_type",
      },
      {
        description: "Passport or national ID",
        field_type: "document",
        acceptance_criteria: { time_limit: "Issued within the last 3 months", locality_limit: null },
        record_type: "requirement_type",
      },
    ]);
    expect(telnyx.calls.at(-1)?.query).toMatchObject({
      "filter[country_code]": "IL",
      "filter[phone_number_type]": "local",
    });
  });

  test("the SIP server card data", async () => {
    s = await server();
    expect((await s.call("GET", "/api/telnyx/sip-server")).json).toEqual({
      udp: "sip.telnyx.com:5060",
      tls: "sip.telnyx.com:5061",
    });
  });
});

describe("dialer push", () => {
  test("every extension goes out as a signed webhook without its SIP secret; returns the count", async () => {
    s = await server({ DIALER_PUSH_URL: `${dialer.url}/pbx`, DIALER_PUSH_SECRET: dialer.state.secret });
    for (const n of ["1003", "1001", "1002"])
      await s.call("POST", "/api/extensions", { extension: n, name: `User ${n}` });
    const before = dialer.state.deliveries.length;
    const res = await s.call("POST", "/api/dialer/push-all");
    expect(res.json).toEqual({ count: 3 });
    const got = dialer.state.deliveries.slice(before);
    expect(got.map((d) => d.payload.extension).sort()).toEqual(["1001", "1002", "1003"]);
    expect(got.every((d) => d.payload.event === "extension.updated" && !d.duplicate)).toBe(true);
    const secrets = (s.db.$client.query("SELECT secret FROM extensions").all() as { secret: string }[]).map((r) =>
      s.app.box.open(r.secret),
    );
    for (const d of got) for (const secret of secrets) expect(d.rawBody).not.toContain(secret);
    expect(dialer.state.rejected).toHaveLength(0);
  });

  test("pushing every extension stops at its overall deadline, saying how many went out", async () => {
    s = await server({ DIALER_PUSH_URL: `${dialer.url}/pbx`, DIALER_PUSH_SECRET: dialer.state.secret });
    for (let i = 0; i < 40; i++)
      await s.call("POST", "/api/extensions", { extension: String(2000 + i), name: `U${i}` });
    dialer.state.delayMs = 100;
    try {
      const err = await pushAllExtensions(s.app, 250).catch((e) => e);
      expect(err.message).toMatch(
        /^Pushing every extension to the web dialer did not finish within 250 ms \(after \d+ of 40\)$/,
      );
    } finally {
      dialer.state.delayMs = 0;
    }
  });

  test("Test Connection stops at its overall deadline, naming the service", async () => {
    s = await server();
    hostinger.state.delayMs = 400;
    try {
      const { result } = await testService(s.app, "hostinger", { apiKey: HOSTINGER_DEFAULT_TOKEN }, 150);
      expect(result).toEqual({
        success: false,
        message: "Test Connection of The hosting provider API did not finish within 150 ms",
      });
    } finally {
      hostinger.state.delayMs = 0;
    }
  });

  test("a wrong signing secret is refused by the receiver and reported", async () => {
    s = await server({
      DIALER_PUSH_URL: `${dialer.url}/pbx`,
      DIALER_PUSH_SECRET: "whsec_d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldA==",
    });
    await s.call("POST", "/api/extensions", { extension: "1001", name: "A" });
    const res = await s.call("POST", "/api/dialer/push-all");
    expect(res.status).toBe(502);
    expect(res.json.error.message).toContain("Web dialer rejected the credentials (401)");
  });

  test("the signature is Standard Webhooks (verifiable by a third party)", async () => {
    s = await server({ DIALER_PUSH_URL: `${dialer.url}/pbx`, DIALER_PUSH_SECRET: dialer.state.secret });
    await s.call("POST", "/api/extensions", { extension: "1001", name: "A" });
    await s.call("POST", "/api/dialer/push-all");
    const call = dialer.calls.at(-1);
    const v = verifyWebhook(dialer.state.secret, call?.headers as Record<string, string>, call?.rawBody as string);
    expect((v as { ok: boolean }).ok).toBe(true);
  });
});

describe("PBX host over SSH (real OpenSSH)", () => {
  const ssh = () => ({
    type: "ssh",
    host: pbx.ssh.host,
    port: String(pbx.ssh.port),
    username: pbx.ssh.username,
    privateKey: pbx.ssh.privateKey,
  });

  test("the first successful test pins the host key; a different key is refused afterwards", async () => {
    s = await server();
    await s.call("POST", "/api/credentials", ssh());
    const first = await s.call("POST", "/api/credentials/test", { type: "ssh" });
    expect(first.json.success).toBe(true);
    expect(first.json.message).toContain("FreePBX Utility 17.0.19");
    expect(first.json.message).toContain(pbx.ssh.hostKeyFingerprint);
    const view = (await s.call("GET", "/api/credentials")).json.find((c: any) => c.type === "ssh");
    expect(view.fields.find((f: any) => f.name === "hostKeyFingerprint").value).toBe(pbx.ssh.hostKeyFingerprint);
    expect(view.connected).toBe(true);
    expect(pbx.fwconsoleCalls().at(-1)?.argv).toEqual(["--version"]);

    // Simulate a changed host: pin another key directly in the store.
    s.app.credentials.recordTest(
      "ssh",
      { success: true, message: "x" },
      { hostKeyFingerprint: "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
    );
    const changed = await s.call("POST", "/api/credentials/test", { type: "ssh" });
    expect(changed.json.success).toBe(false);
    expect(changed.json.message).toContain("Host key of 127.0.0.1");
    expect(changed.json.message).toContain(`got ${pbx.ssh.hostKeyFingerprint}`);
    // Forgetting the pinned key lets the next test pin the real one again.
    await s.call("POST", "/api/credentials", { type: "ssh", resetHostKey: true });
    expect((await s.call("POST", "/api/credentials/test", { type: "ssh" })).json.success).toBe(true);
  });

  test("refused connection and wrong user are reported with their reason", async () => {
    s = await server();
    const refused = await s.call("POST", "/api/credentials/test", { ...ssh(), port: "9" });
    expect(refused.json).toEqual({ success: false, message: "Cannot reach 127.0.0.1:9: connection refused" });
    const wrongUser = await s.call("POST", "/api/credentials/test", { ...ssh(), username: "nobody" });
    expect(wrongUser.json.success).toBe(false);
    expect(wrongUser.json.message).toContain("rejected the credentials for user nobody");
    expect(wrongUser.text).not.toContain("PRIVATE KEY");
  });
});
