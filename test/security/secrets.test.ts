/**
 * Attacks on the secrets the console holds, against the built binary (ADR 0018):
 * - a stolen copy of DATA_DIR without secret.key: no secret created through the API is in the database or its WAL;
 * - credential exfiltration: Test Connection / Save with a changed URL must not send the stored secret there;
 * - a service echoing the FreePBX client secret (form-encoded, base64, JSON) into its error: never in a response
 *   or in the stored last-test message;
 * - outbound URLs of other schemes or with credentials in them are refused;
 * - a refused transcript post does not touch the token's "last used".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FREEPBX_TEST_CLIENT, startFakeFreePbx } from "../fakes/freepbx";
import { type Binary, startBinary } from "./binary";

const freepbx = await startFakeFreePbx();
let bin: Binary;
beforeAll(async () => {
  bin = await startBinary({ logRequests: false });
  expect((await bin.setup()).status).toBe(201);
}, 30_000);
afterAll(async () => {
  await bin?.stop();
  await freepbx.stop();
});

/** Where an exfiltrated secret would land: a loopback server that records every request. */
function catcher() {
  const received: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      received.push(
        `${req.method} ${req.url}\n${JSON.stringify(Object.fromEntries(req.headers))}\n${await req.text()}`,
      );
      return new Response("no", { status: 401 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) };
}

const encodings = (s: string) => [
  s,
  encodeURIComponent(s),
  new URLSearchParams({ v: s }).toString().slice(2),
  Buffer.from(s).toString("base64"),
  Buffer.from(s).toString("base64url"),
  JSON.stringify(s).slice(1, -1),
];

describe("a copy of DATA_DIR without secret.key", () => {
  test("holds no secret created through the API; the folder is 0700 and its files 0600", async () => {
    const secrets: Record<string, string> = {
      extensionGiven: "ext-given-secret-7Hq2",
      trunk: "trunk-secret-Pp91xZ",
      hostinger: "hostinger-key-Lm83Kd",
      telnyx: "KEYtelnyx-secret-0Qa7",
      openaiKey: "sk-openai-secret-4Rt6",
      openaiWebhook: "whsec_b3BlbmFpLXdlYmhvb2stc2VjcmV0",
      freepbx: "freepbx-client-secret-8Yu1",
      dialer: "whsec_ZGlhbGVyLXB1c2gtc2VjcmV0LTE=",
      sshPassword: "ssh-root-password-2Wc5",
    };
    const created = [
      await bin.call("POST", "/api/extensions", { extension: "1001", name: "A", secret: secrets.extensionGiven }),
      await bin.call("POST", "/api/extensions", { extension: "1002", name: "B" }),
      await bin.call("POST", "/api/trunks", {
        name: "Carrier",
        type: "sip",
        host: "sip.example.com",
        username: "acct",
        secret: secrets.trunk,
      }),
      await bin.call("POST", "/api/wizard/deploy", {
        extensionCount: 2,
        extensionPrefix: "20",
        trunkProvider: "",
        enableVoicemail: false,
        enableIVR: false,
      }),
    ];
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 200]);
    // The generated SIP secrets, as provisioning reveals them to the administrator.
    for (const e of (await bin.call("GET", "/api/extensions")).json as { id: number; extension: string }[]) {
      const p = await bin.call("GET", `/api/extensions/${e.id}/provisioning`);
      secrets[`extension${e.extension}`] = p.json.config.password;
    }
    const saves = [
      { type: "hostinger", apiKey: secrets.hostinger },
      { type: "telnyx", apiKey: secrets.telnyx },
      { type: "openai", apiKey: secrets.openaiKey, webhookSecret: secrets.openaiWebhook },
      { type: "freepbx", apiUrl: "https://pbx.example.com", clientId: "c1", clientSecret: secrets.freepbx },
      { type: "dialer", apiUrl: "https://dialer.example.com/hook", webhookSecret: secrets.dialer },
      { type: "ssh", host: "pbx.example.com", username: "root", password: secrets.sshPassword },
    ];
    for (const body of saves) expect((await bin.call("POST", "/api/credentials", body)).status).toBe(200);

    // The thief's copy: everything but the key, taken while the console runs (the WAL holds the latest writes).
    const copy = mkdtempSync(join(tmpdir(), "pbx-stolen-"));
    try {
      const files = readdirSync(bin.dataDir);
      for (const f of files) if (f !== "secret.key") copyFileSync(join(bin.dataDir, f), join(copy, f));
      const disk = readdirSync(copy)
        .map((f) => readFileSync(join(copy, f)).toString("latin1"))
        .join("\n");
      const found = Object.entries(secrets).filter(([, v]) => encodings(v).some((e) => disk.includes(e)));
      console.log(
        `data folder without secret.key: ${found.length} of ${Object.keys(secrets).length} secrets found in ${readdirSync(copy).join(", ")} (${disk.length} bytes)`,
      );
      expect(found.map(([k]) => k)).toEqual([]);
      expect(readdirSync(copy).some((f) => f.endsWith("-wal"))).toBe(true);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }

    const modes = Object.fromEntries(
      ["", ...readdirSync(bin.dataDir)].map((f) => [
        f || "DATA_DIR",
        (statSync(join(bin.dataDir, f)).mode & 0o777).toString(8),
      ]),
    );
    console.log(`file modes: ${JSON.stringify(modes)}`);
    expect(modes.DATA_DIR).toBe("700");
    for (const f of ["pbx-console.db", "pbx-console.db-wal", "pbx-console.db-shm", "secret.key"])
      expect(modes[f]).toBe("600");
  });
});

describe("credential exfiltration", () => {
  test("a changed URL does not get the stored secret: Test Connection and Save answer 400", async () => {
    const evil = catcher();
    try {
      const saved = await bin.call("POST", "/api/credentials", {
        type: "freepbx",
        apiUrl: freepbx.url,
        ...FREEPBX_TEST_CLIENT,
      });
      expect(saved.status).toBe(200);
      expect((await bin.call("POST", "/api/credentials/test", { type: "freepbx" })).json.success).toBe(true);
      const ssh = { type: "ssh", host: "pbx.example.com", username: "root", password: "ssh-password-31x" };
      expect((await bin.call("POST", "/api/credentials", ssh)).status).toBe(200);
      const attempts = [
        await bin.call("POST", "/api/credentials/test", { type: "freepbx", apiUrl: evil.url }),
        await bin.call("POST", "/api/credentials/test", { type: "freepbx", apiUrl: `${evil.url}/admin/api/api/gql` }),
        await bin.call("POST", "/api/credentials", { type: "freepbx", apiUrl: evil.url }),
        await bin.call("POST", "/api/credentials/test", {
          type: "ssh",
          host: "127.0.0.1",
          port: String(new URL(evil.url).port),
        }),
      ];
      console.log(
        `credential exfiltration: ${attempts.length} attempts answered ${attempts.map((a) => a.status).join(", ")}; ${evil.received.length} request(s) reached the new URL`,
      );
      expect(attempts.map((a) => a.status)).toEqual([400, 400, 400, 400]);
      expect(attempts[0]?.json.error.fields.clientSecret).toBe("Enter the secret again to use it with a new URL");
      expect(evil.received).toHaveLength(0);
      // Still pointing at the real PBX.
      expect((await bin.call("POST", "/api/credentials/test", { type: "freepbx" })).json.success).toBe(true);
    } finally {
      evil.stop();
    }
  });

  test("outbound URLs: other schemes and credentials in the URL are refused, nothing stored", async () => {
    const before = (await bin.call("GET", "/api/credentials")).text;
    const bad = [
      "file:///etc/passwd",
      "gopher://127.0.0.1:6379/_FLUSHALL",
      "dict://127.0.0.1:11211/",
      "ftp://127.0.0.1/",
      "https://admin:secret@127.0.0.1/",
    ];
    const statuses: number[] = [];
    for (const apiUrl of bad)
      for (const path of ["/api/credentials", "/api/credentials/test"])
        for (const type of ["freepbx", "dialer"]) {
          const res = await bin.call("POST", path, {
            type,
            apiUrl,
            clientSecret: "s-1234567",
            webhookSecret: "w-1234567",
          });
          statuses.push(res.status);
          expect(typeof res.json.error.fields.apiUrl).toBe("string");
        }
    console.log(
      `outbound URLs: ${statuses.filter((s) => s === 400).length} of ${statuses.length} bad URLs refused with 400`,
    );
    expect(statuses.every((s) => s === 400)).toBe(true);
    expect((await bin.call("GET", "/api/credentials")).text).toBe(before);
  });
});

describe("secret echoed by the service", () => {
  test("the FreePBX client secret, echoed form-encoded, base64 or JSON-escaped, is never returned or stored", async () => {
    const SECRET = 'Fp/x+Y z"9&k=é!';
    await bin.call("POST", "/api/credentials", {
      type: "freepbx",
      apiUrl: freepbx.url,
      clientId: FREEPBX_TEST_CLIENT.clientId,
      clientSecret: SECRET,
    });
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: FREEPBX_TEST_CLIENT.clientId,
      client_secret: SECRET,
      scope: "gql",
    }).toString();
    const echoes = [
      { status: 400, body: { error: "invalid_request", message: `Malformed request: ${form}` } },
      { status: 500, body: `upstream said: ${form}` },
      {
        status: 401,
        body: { message: `Basic ${Buffer.from(`id:${SECRET}`).toString("base64")} / ${JSON.stringify(SECRET)}` },
      },
    ];
    let leaks = 0;
    for (const echo of echoes) {
      freepbx.state.failNext = { ...echo, path: "/admin/api/api/token" };
      const res = await bin.call("POST", "/api/credentials/test", { type: "freepbx" });
      expect(res.json.success).toBe(false);
      const list = (await bin.call("GET", "/api/credentials")).text;
      for (const e of encodings(SECRET)) if (res.text.includes(e) || list.includes(e)) leaks++;
      expect(list).toContain("•••");
    }
    console.log(
      `secret echo: ${echoes.length} echoing errors, ${leaks} encoding(s) of the secret in responses or stored messages`,
    );
    expect(leaks).toBe(0);
  });
});

describe("API token last used", () => {
  test("only an accepted transcript post records the token's use", async () => {
    const created = await bin.call("POST", "/api/ai/tokens", { name: "bridge" });
    expect(created.status).toBe(201);
    const { id, token } = created.json as { id: number; token: string };
    const lastUsed = async () =>
      ((await bin.call("GET", "/api/ai/tokens")).json as { id: number; lastUsedAt: string | null }[]).find(
        (t) => t.id === id,
      )?.lastUsedAt;
    const post = (body: unknown) =>
      bin.call("POST", "/api/ai/transcripts", body, { authorization: `Bearer ${token}`, cookie: "" });

    expect((await post({ transcript: "" })).status).toBe(400);
    expect((await post("{not json")).status).toBe(400);
    expect(await lastUsed()).toBeNull();
    expect((await post({ callId: "call-1", transcript: "hello" })).status).toBe(201);
    const accepted = await lastUsed();
    expect(accepted).not.toBeNull();
    await Bun.sleep(20);
    expect((await post({ callId: "call-1", transcript: "again" })).status).toBe(409);
    expect(await lastUsed()).toBe(accepted);
  });
});
