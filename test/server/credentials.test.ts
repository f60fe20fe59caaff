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
