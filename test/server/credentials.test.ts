import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { startFakeDialer } from "../fakes/dialer";
import { FREEPBX_TEST_CLIENT, startFakeFreePbx } from "../fakes/freepbx";
import { HOSTINGER_DEFAULT_TOKEN, startFakeHostinger } from "../fakes/hostinger";
import { OPENAI_DEFAULT_KEY, startFakeOpenAi } from "../fakes/openai";
import { startFakeTelnyx, TELNYX_DEFAULT_KEY } from "../fakes/telnyx";
import { startFakeTinyMdm, TINYMDM_DEFAULT_KEYS } from "../fakes/tinymdm";
import { startTestServer, type TestServer } from "../helpers/server";

const fakes = {
  hostinger: await startFakeHostinger(),
  telnyx: await startFakeTelnyx(),
  tinymdm: await startFakeTinyMdm(),
  openai: await startFakeOpenAi(),
  freepbx: await startFakeFreePbx(),
  dialer: await startFakeDialer(),
};
const endpoints = {
  PBX_HOSTINGER_URL: fakes.hostinger.baseUrl,
  PBX_TELNYX_URL: fakes.telnyx.baseUrl,
  PBX_TINYMDM_URL: fakes.tinymdm.baseUrl,
  PBX_OPENAI_URL: fakes.openai.baseUrl,
};
afterAll(async () => {
  for (const f of Object.values(fakes)) await f.stop();
});

const servers: TestServer[] = [];
async function server(env: Record<string, string> = {}) {
  const s = await startTestServer({ ...endpoints, ...env });
  await s.setup();
  servers.push(s);
  return s;
}
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

/** Everything on disk a thief of the database would get: the file and its WAL. */
function databaseBytes(s: TestServer): string {
  let out = readFileSync(s.dbFile).toString("latin1");
  try {
    out += readFileSync(`${s.dbFile}-wal`).toString("latin1");
  } catch {}
  return out;
}

const SECRETS = {
  hostinger: "hk_live_7Gf2qPzX9wLmN4vR",
  freepbxSecret: "fpbx-secret-Zq81LkPw33",
  tinymdmSecret: "tmdm-secret-Hh72Kd0011",
};

describe("credential store", () => {
  test("secrets are encrypted at rest, never returned, reported by their last 4", async () => {
    const s = await server();
    const save = await s.call("POST", "/api/credentials", {
      name: "Hostinger VPS API",
      type: "hostinger",
      apiKey: SECRETS.hostinger,
    });
    expect(save.status).toBe(200);
    await s.call("POST", "/api/credentials", {
      name: "FreePBX GraphQL API",
      type: "freepbx",
      apiUrl: "https://pbx.example.com",
      clientId: "client-1",
      clientSecret: SECRETS.freepbxSecret,
    });
    const list = await s.call("GET", "/api/credentials");
    for (const secret of Object.values(SECRETS)) expect(list.text).not.toContain(secret);
    const hostinger = list.json.find((c: any) => c.type === "hostinger");
    expect(hostinger.fields.find((f: any) => f.name === "apiKey")).toMatchObject({
      set: true,
      last4: "N4vR",
      fromEnv: false,
    });
    expect(hostinger.fields.find((f: any) => f.name === "apiKey").value).toBeUndefined();
    const freepbx = list.json.find((c: any) => c.type === "freepbx");
    expect(freepbx.fields.find((f: any) => f.name === "clientId").value).toBe("client-1");

    s.db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
    const disk = databaseBytes(s);
    expect(disk).toContain("client-1");
    expect(disk).not.toContain(SECRETS.hostinger);
    expect(disk).not.toContain(SECRETS.freepbxSecret);
    expect(statSync(join(s.dir, "secret.key")).mode & 0o777).toBe(0o600);
  });

  test("an empty secret keeps the stored one; the status badges follow save and test", async () => {
    const s = await server();
    await s.call("POST", "/api/credentials", { type: "hostinger", apiKey: HOSTINGER_DEFAULT_TOKEN });
    expect((await s.call("GET", "/api/credentials/connection-status")).json.hostinger).toEqual({
      configured: true,
      connected: false,
    });
    await s.call("POST", "/api/credentials", { type: "hostinger", apiKey: "", vmId: "17923" });
    const test = await s.call("POST", "/api/credentials/test", { type: "hostinger" });
    expect(test.json).toEqual({ success: true, message: "Connected to Hostinger: 1 virtual machine(s) found." });
    const status = (await s.call("GET", "/api/credentials/connection-status")).json;
    expect(status.hostinger).toEqual({ configured: true, connected: true });
    expect(status.telnyx).toEqual({ configured: false, connected: false });
    // Changing the credentials forgets the last test.
    await s.call("POST", "/api/credentials", { type: "hostinger", apiKey: "another-key-1234" });
    expect((await s.call("GET", "/api/credentials/connection-status")).json.hostinger.connected).toBe(false);
    expect((await s.call("DELETE", "/api/credentials/hostinger")).status).toBe(204);
    expect((await s.call("GET", "/api/credentials/connection-status")).json.hostinger.configured).toBe(false);
  });

  test("environment variables take precedence and are reported as such", async () => {
    const s = await server({ TELNYX_API_KEY: TELNYX_DEFAULT_KEY });
    await s.call("POST", "/api/credentials", { type: "telnyx", apiKey: "stored-but-shadowed-key" });
    const view = (await s.call("GET", "/api/credentials")).json.find((c: any) => c.type === "telnyx");
    expect(view.fields[0]).toMatchObject({
      set: true,
      fromEnv: true,
      env: "TELNYX_API_KEY",
      last4: TELNYX_DEFAULT_KEY.slice(-4),
    });
    const test = await s.call("POST", "/api/credentials/test", { type: "telnyx" });
    expect(test.json.success).toBe(true);
    expect(fakes.telnyx.calls.at(-1)?.headers.authorization).toBe(`Bearer ${TELNYX_DEFAULT_KEY}`);
  });

  test("validation: unknown type, bad URL → field-level 400, nothing stored", async () => {
    const s = await server();
    expect((await s.call("POST", "/api/credentials", { type: "aws", apiKey: "x" })).status).toBe(400);
    const bad = await s.call("POST", "/api/credentials", {
      type: "freepbx",
      apiUrl: "not a url",
      clientId: "a",
      clientSecret: "b",
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields.apiUrl).toContain("valid URL");
    expect(s.db.$client.query("SELECT count(*) AS n FROM api_credentials").get()).toEqual({ n: 0 });
  });
});

describe("Test Connection against each service", () => {
  test("a wrong key says so, with the service's own error, and never echoes the key", async () => {
    const s = await server();
    const wrong = "wrong-key-ABCDEFGH";
    const cases = [
      { type: "hostinger", apiKey: wrong, expect: "Hostinger rejected the credentials (401): Unauthenticated" },
      { type: "telnyx", apiKey: wrong, expect: "Telnyx rejected the credentials (401)" },
      { type: "openai", apiKey: wrong, expect: "OpenAI rejected the credentials (401)" },
      { type: "tinymdm", publicKey: "pub", secretKey: wrong, expect: "TinyMDM rejected the credentials" },
      {
        type: "freepbx",
        apiUrl: fakes.freepbx.url,
        clientId: FREEPBX_TEST_CLIENT.clientId,
        clientSecret: wrong,
        expect: "FreePBX rejected the credentials (401)",
      },
    ];
    for (const { expect: message, ...body } of cases) {
      const res = await s.call("POST", "/api/credentials/test", body);
      expect(res.status).toBe(200);
      expect(res.json.success).toBe(false);
      expect(res.json.message).toContain(message);
      expect(res.text).not.toContain(wrong);
    }
  });

  test("the right credentials pass for every HTTP service", async () => {
    const s = await server();
    const cases = [
      { type: "hostinger", apiKey: HOSTINGER_DEFAULT_TOKEN },
      { type: "telnyx", apiKey: TELNYX_DEFAULT_KEY },
      { type: "openai", apiKey: OPENAI_DEFAULT_KEY },
      { type: "tinymdm", publicKey: TINYMDM_DEFAULT_KEYS.publicKey, secretKey: TINYMDM_DEFAULT_KEYS.secretKey },
      { type: "freepbx", apiUrl: fakes.freepbx.url, ...FREEPBX_TEST_CLIENT },
      { type: "dialer", apiUrl: `${fakes.dialer.url}/hooks/pbx`, webhookSecret: fakes.dialer.state.secret },
    ];
    for (const body of cases) {
      const res = await s.call("POST", "/api/credentials/test", body);
      expect({ type: body.type, ...res.json }).toMatchObject({ type: body.type, success: true });
    }
    expect(fakes.tinymdm.calls.at(-1)?.query).toMatchObject({ per_page: "1" });
    expect(fakes.dialer.state.deliveries.at(-1)?.payload.event).toBe("ping");
    expect(fakes.telnyx.calls.at(-1)?.query).toMatchObject({ "page[size]": "1" });
  });

  test("an unreachable host and a missing field give a message a person can act on", async () => {
    const s = await server({ PBX_HOSTINGER_URL: "http://127.0.0.1:9" });
    const down = await s.call("POST", "/api/credentials/test", { type: "hostinger", apiKey: "k-123456" });
    expect(down.json).toEqual({ success: false, message: "Cannot reach Hostinger at 127.0.0.1:9: connection refused" });
    const missing = await s.call("POST", "/api/credentials/test", { type: "freepbx", apiUrl: fakes.freepbx.url });
    expect(missing.json.success).toBe(false);
    expect(missing.json.message).toContain("required fields");
  });

  test("a failed test of unsaved values does not change the saved status", async () => {
    const s = await server();
    await s.call("POST", "/api/credentials", { type: "openai", apiKey: OPENAI_DEFAULT_KEY });
    await s.call("POST", "/api/credentials/test", { type: "openai" });
    expect((await s.call("GET", "/api/credentials/connection-status")).json.openai.connected).toBe(true);
    await s.call("POST", "/api/credentials/test", { type: "openai", apiKey: "sk-wrong-key-0000" });
    expect((await s.call("GET", "/api/credentials/connection-status")).json.openai.connected).toBe(true);
  });

  test("no log line carries a secret", async () => {
    const lines: string[] = [];
    const log = console.log;
    const error = console.error;
    console.log = (...a: unknown[]) => lines.push(a.join(" "));
    console.error = (...a: unknown[]) => lines.push(a.join(" "));
    try {
      const s = await server({ LOG_LEVEL: "info" });
      await s.call("POST", "/api/credentials", { type: "hostinger", apiKey: SECRETS.hostinger });
      await s.call("POST", "/api/credentials/test", { type: "hostinger", apiKey: SECRETS.hostinger });
      await s.call("GET", "/api/credentials");
    } finally {
      console.log = log;
      console.error = error;
    }
    expect(lines.some((l) => l.includes("POST /api/credentials/test"))).toBe(true);
    expect(lines.join("\n")).not.toContain(SECRETS.hostinger);
  });
});

/** A server that only records what it receives: where an exfiltrated secret would land. */
function catcher() {
  const received: { path: string; headers: Record<string, string>; body: string }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      received.push({
        path: new URL(req.url).pathname,
        headers: Object.fromEntries(req.headers),
        body: await req.text(),
      });
      return Response.json({ error: "nope" }, { status: 401 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) };
}

describe("a stored secret only goes where it was saved for (ADR 0018)", () => {
  test("Test Connection and Save with a new URL need the secret typed again; the stored one is never sent", async () => {
    const s = await server();
    const evil = catcher();
    try {
      const saved = { type: "freepbx", apiUrl: fakes.freepbx.url, ...FREEPBX_TEST_CLIENT };
      expect((await s.call("POST", "/api/credentials", saved)).status).toBe(200);
      const before = s.snapshot("api_credentials");

      const test = await s.call("POST", "/api/credentials/test", { type: "freepbx", apiUrl: evil.url });
      expect(test.status).toBe(400);
      expect(test.json.error.fields).toEqual({ clientSecret: "Enter the secret again to use it with a new URL" });
      const save = await s.call("POST", "/api/credentials", { type: "freepbx", apiUrl: `${evil.url}/` });
      expect(save.status).toBe(400);
      expect(save.json.error.fields.clientSecret).toBe("Enter the secret again to use it with a new URL");
      expect(s.snapshot("api_credentials")).toBe(before);
      // The dialer's push URL is the same rule.
      await s.call("POST", "/api/credentials", {
        type: "dialer",
        apiUrl: `${fakes.dialer.url}/hooks`,
        webhookSecret: fakes.dialer.state.secret,
      });
      const dialer = await s.call("POST", "/api/credentials/test", { type: "dialer", apiUrl: `${evil.url}/x` });
      expect(dialer.json.error.fields).toEqual({ webhookSecret: "Enter the secret again to use it with a new URL" });
      expect(evil.received).toHaveLength(0);

      // The same URL written differently (a trailing slash) is not a new destination.
      const same = await s.call("POST", "/api/credentials/test", { type: "freepbx", apiUrl: `${fakes.freepbx.url}/` });
      expect(same.json.success).toBe(true);
      // Typed again, the typed secret (not the stored one) goes to the new URL.
      const typed = await s.call("POST", "/api/credentials/test", {
        type: "freepbx",
        apiUrl: evil.url,
        clientSecret: "typed-for-the-new-url",
      });
      expect(typed.json.success).toBe(false);
      expect(evil.received.map((r) => r.body).join("\n")).not.toContain(FREEPBX_TEST_CLIENT.clientSecret);
      expect(evil.received[0]?.body).toContain("typed-for-the-new-url");
      // A save with the secret typed again moves it.
      const moved = await s.call("POST", "/api/credentials", {
        type: "freepbx",
        apiUrl: evil.url,
        clientSecret: "typed-for-the-new-url",
      });
      expect(moved.status).toBe(200);
    } finally {
      evil.stop();
    }
  });

  test("SSH: a new host or port needs the key or password again; a secret not typed again is forgotten", async () => {
    const s = await server();
    await s.call("POST", "/api/credentials", {
      type: "ssh",
      host: "127.0.0.1",
      port: "22",
      username: "root",
      password: "old-root-password",
    });
    for (const change of [{ host: "127.0.0.2" }, { port: "2222" }]) {
      const res = await s.call("POST", "/api/credentials/test", { type: "ssh", ...change });
      expect(res.status).toBe(400);
      expect(res.json.error.fields.password).toBe("Enter the secret again to use it with a new host");
    }
    // Unchanged: the port left empty is 22, the host in another case is the same host.
    const kept = await s.call("POST", "/api/credentials", { type: "ssh", host: "127.0.0.1", port: "", username: "u" });
    expect(kept.status).toBe(200);
    // Moving with a key typed: the stored password is not carried to the new host.
    const moved = await s.call("POST", "/api/credentials", { type: "ssh", host: "127.0.0.3", privateKey: "KEY-PEM-1" });
    expect(moved.status).toBe(200);
    const fields = moved.json.fields as any[];
    expect(fields.find((f) => f.name === "password").set).toBe(false);
    expect(fields.find((f) => f.name === "privateKey").set).toBe(true);
  });

  test("a secret from the environment cannot be sent to a URL typed in the console", async () => {
    const s = await server({ FREEPBX_CLIENT_SECRET: "env-client-secret-1" });
    await s.call("POST", "/api/credentials", { type: "freepbx", apiUrl: fakes.freepbx.url, clientId: "c" });
    const res = await s.call("POST", "/api/credentials/test", { type: "freepbx", apiUrl: "http://127.0.0.1:9" });
    expect(res.status).toBe(400);
    expect(res.json.error.fields.clientSecret).toContain("FREEPBX_CLIENT_SECRET");
  });
});

describe("outbound URLs", () => {
  test("only http and https, without a user name or password; plain http to another host is saved with a warning", async () => {
    const s = await server();
    const cases: [string, string][] = [
      ["file:///etc/passwd", "Use an http:// or https:// URL"],
      ["gopher://127.0.0.1:70/_x", "Use an http:// or https:// URL"],
      ["ftp://pbx.example.com/", "Use an http:// or https:// URL"],
      ["https://admin:hunter22@pbx.example.com", "Leave the user name and password out of the URL"],
      ["https://admin@pbx.example.com", "Leave the user name and password out of the URL"],
    ];
    for (const [apiUrl, message] of cases) {
      for (const path of ["/api/credentials", "/api/credentials/test"]) {
        const res = await s.call("POST", path, { type: "freepbx", apiUrl, clientId: "c", clientSecret: "s-123456" });
        expect({ apiUrl, status: res.status }).toEqual({ apiUrl, status: 400 });
        expect(res.json.error.fields.apiUrl).toContain(message);
      }
      const dialer = await s.call("POST", "/api/credentials", { type: "dialer", apiUrl, webhookSecret: "whsec_x" });
      expect(dialer.json.error.fields.apiUrl).toContain(message);
    }
    expect(s.db.$client.query("SELECT count(*) AS n FROM api_credentials").get()).toEqual({ n: 0 });

    const plain = await s.call("POST", "/api/credentials", {
      type: "freepbx",
      apiUrl: "http://pbx.example.com",
      clientId: "c",
      clientSecret: "s-123456",
    });
    expect(plain.status).toBe(200);
    expect(plain.json.warning).toContain("pbx.example.com is reached over plain http");
    // Test Connection says it too (here it stops before any call: a required field is missing).
    const tested = await s.call("POST", "/api/credentials/test", { type: "dialer", apiUrl: "http://10.1.2.3/hook" });
    expect(tested.json.warning).toContain("10.1.2.3 is reached over plain http");
    const loopback = await s.call("POST", "/api/credentials", {
      type: "dialer",
      apiUrl: `${fakes.dialer.url}/hooks`,
      webhookSecret: "whsec_x",
    });
    expect(loopback.json.warning).toBeUndefined();
  });
});

describe("redaction in every encoding", () => {
  /** A secret whose encodings all differ from it: URL-encoded, form-encoded, base64 and JSON-escaped. */
  const SECRET = 'Zq8/1L+k Pw"33&x=é!';
  const forms = (s: string) => ({
    plain: s,
    uri: encodeURIComponent(s),
    form: new URLSearchParams({ v: s }).toString().slice(2),
    base64: Buffer.from(s).toString("base64"),
    base64url: Buffer.from(s).toString("base64url"),
    json: JSON.stringify(s).slice(1, -1),
  });

  test("the FreePBX client secret echoed back by the service never reaches a response or the stored message", async () => {
    const s = await server();
    await s.call("POST", "/api/credentials", {
      type: "freepbx",
      apiUrl: fakes.freepbx.url,
      clientId: FREEPBX_TEST_CLIENT.clientId,
      clientSecret: SECRET,
    });
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: FREEPBX_TEST_CLIENT.clientId,
      client_secret: SECRET,
      scope: "gql",
    }).toString();
    const basic = Buffer.from(`${FREEPBX_TEST_CLIENT.clientId}:${SECRET}`).toString("base64");
    const echoes = [
      // The form body in the service's error message (what a WAF or a debug-mode OAuth server sends back).
      { status: 400, body: { error: "invalid_request", message: `Bad request body: ${form}` } },
      // A plain-text error with the secret across the 200-character cut: half a secret must not escape.
      {
        status: 502,
        body: `${"x".repeat(195 - "FreePBX answered 502: ".length - form.indexOf("client_secret=") - 15)} ${form}`,
      },
      // JSON-escaped and base64 (a Basic header echoed) and base64url.
      { status: 401, body: { message: `secret ${JSON.stringify(SECRET)} basic ${basic}` } },
      { status: 401, body: { message: `b64url ${Buffer.from(SECRET).toString("base64url")}` } },
    ];
    for (const echo of echoes) {
      fakes.freepbx.state.failNext = { ...echo, path: "/admin/api/api/token" };
      const res = await s.call("POST", "/api/credentials/test", { type: "freepbx" });
      expect(res.json.success).toBe(false);
      expect(res.json.message).toContain("•••");
      expect(res.text).not.toContain(new URLSearchParams({ v: SECRET }).toString().slice(2, 8));
      const view = (await s.call("GET", "/api/credentials")).json.find((c: any) => c.type === "freepbx");
      const stored = s.db.$client
        .query("SELECT last_test_message AS m FROM api_credentials WHERE type='freepbx'")
        .get() as {
        m: string;
      };
      for (const [encoding, value] of Object.entries(forms(SECRET))) {
        expect({ encoding, leaked: res.text.includes(value) }).toEqual({ encoding, leaked: false });
        expect({ encoding, leaked: view.lastTestMessage.includes(value) }).toEqual({ encoding, leaked: false });
        expect({ encoding, leaked: stored.m.includes(value) }).toEqual({ encoding, leaked: false });
      }
    }
  });
});
