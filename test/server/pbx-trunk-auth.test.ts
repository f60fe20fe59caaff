/**
 * Trunk authentication and reload reporting against a REAL MariaDB over
 * REAL SSH (test/pbx-host): the PJSIP keywords each mode writes, the wizard's trunk, and a failed
 * `fwconsole reload` that names its reason.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server";
import { FREEPBX_TABLES } from "../pbx-host/gui-objects";
import { type PbxHost, RELOAD_FAILURE, startPbxHost } from "../pbx-host/pbx-host";

setDefaultTimeout(60_000);
let pbx: PbxHost;
beforeAll(async () => {
  pbx = await startPbxHost();
}, 60_000);
afterAll(async () => {
  await pbx?.stop();
});
beforeEach(async () => {
  for (const t of FREEPBX_TABLES) await pbx.query(`DELETE FROM ${t}`);
  await pbx.query("UPDATE admin SET value = 'false' WHERE variable = 'need_reload'");
  pbx.setReloadFailure(false);
  pbx.clearFwconsoleCalls();
});

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(pbx.consoleEnv());
  await s.setup();
});
afterEach(async () => {
  await s?.stop();
});

/** Starts a job and waits for its end; answers with its summary. */
async function job(path: string, body?: unknown) {
  const res = await s.call("POST", path, body);
  expect(res.status).toBe(202);
  for (;;) {
    const j = await s.call("GET", `/api/jobs/${res.json.jobId}`);
    if (j.json.state !== "running") return j.json;
    await Bun.sleep(50);
  }
}

/** The trunk's PJSIP keywords on the PBX, by keyword. */
async function keywords(name: string): Promise<Record<string, string>> {
  const rows = await pbx.query(
    "SELECT p.keyword, p.data FROM pjsip p JOIN trunks t ON p.id = CAST(t.trunkid AS CHAR) WHERE t.name = ?",
    [name],
  );
  return Object.fromEntries(rows.map((r) => [r.keyword, r.data]));
}

const AUTH_KEYWORDS = ["username", "auth_username", "secret", "authentication", "registration", "identify_by", "match"];
const pick = (kw: Record<string, string>) => Object.fromEntries(AUTH_KEYWORDS.map((k) => [k, kw[k]]));

describe("trunk authentication on the PBX", () => {
  test("credentials: username, secret, outbound authentication, registration sent; identify left to FreePBX", async () => {
    const t = await s.call("POST", "/api/trunks", {
      name: "Telnyx",
      type: "sip",
      host: "sip.telnyx.com",
      authMode: "credentials",
      username: "pbxuser1",
      secret: "trunk-secret-123",
      registrationEnabled: true,
    });
    expect(t.status).toBe(201);
    const done = await job("/api/deploy/trunks");
    expect(done.state).toBe("succeeded");
    expect(pick(await keywords("Telnyx"))).toEqual({
      username: "pbxuser1",
      auth_username: "pbxuser1",
      secret: "trunk-secret-123",
      authentication: "outbound",
      registration: "send",
      identify_by: "default",
      match: "",
    });
  });

  test("IP-authenticated: no credentials, authentication off, no registration, matched by the provider's addresses", async () => {
    const t = await s.call("POST", "/api/trunks", {
      name: "Carrier IP",
      type: "sip",
      host: "sip.carrier.example",
      authMode: "ip",
      providerAddresses: ["203.0.113.10", "198.51.100.0/24"],
    });
    expect(t.status).toBe(201);
    expect((await job("/api/deploy/trunks")).state).toBe("succeeded");
    expect(pick(await keywords("Carrier IP"))).toEqual({
      username: "",
      auth_username: "",
      secret: "",
      authentication: "off",
      registration: "none",
      identify_by: "ip",
      match: "203.0.113.10,198.51.100.0/24",
    });
    // The channel id keeps FreePBX's form: spaces become underscores.
    expect(await pbx.query("SELECT name, channelid FROM trunks")).toEqual([
      { name: "Carrier IP", channelid: "Carrier_IP" },
    ]);
  });

  test("the wizard's trunk (a provider host, no credentials) is deployed IP-authenticated by that host", async () => {
    const w = await s.call("POST", "/api/wizard/deploy", {
      extensionCount: 1,
      extensionPrefix: "10",
      trunkProvider: "sip.provider.example",
      enableVoicemail: false,
    });
    expect(w.status).toBeLessThan(300);
    const listed = (await s.call("GET", "/api/trunks")).json;
    expect(listed).toMatchObject([{ name: "sip.provider.example", authMode: "ip", registrationEnabled: false }]);
    expect((await job("/api/deploy/trunks")).state).toBe("succeeded");
    expect(pick(await keywords("sip.provider.example"))).toMatchObject({
      authentication: "off",
      registration: "none",
      identify_by: "ip",
      match: "sip.provider.example",
      secret: "",
    });
  });

  test("switching a trunk to IP authentication rewrites only its authentication keywords", async () => {
    await s.call("POST", "/api/trunks", {
      name: "Mixed",
      type: "sip",
      host: "sip.mixed.example",
      username: "mixed1",
      secret: "mixed-secret-123",
      registrationEnabled: true,
    });
    expect((await job("/api/deploy/trunks")).state).toBe("succeeded");
    // An administrator's own setting in FreePBX, which the console does not own.
    await pbx.query(
      "UPDATE pjsip p JOIN trunks t ON p.id = CAST(t.trunkid AS CHAR) SET p.data = 'g729' WHERE t.name = 'Mixed' AND p.keyword = 'codecs'",
    );
    s.db.$client.run(
      "UPDATE trunks SET auth_mode = 'ip', username = NULL, secret = NULL, registration_enabled = 0, provider_addresses = '[\"203.0.113.7\"]' WHERE name = 'Mixed'",
    );
    expect((await job("/api/deploy/trunks")).state).toBe("succeeded");
    const after = await keywords("Mixed");
    expect(pick(after)).toEqual({
      username: "",
      auth_username: "",
      secret: "",
      authentication: "off",
      registration: "none",
      identify_by: "ip",
      match: "203.0.113.7",
    });
    expect(after.codecs).toBe("g729");
  });
});

describe("reload that reports", () => {
  test("a failed fwconsole reload names its reason; the output is kept with the job", async () => {
    await s.call("POST", "/api/trunks", { name: "Telnyx", type: "sip", host: "sip.telnyx.com", authMode: "ip" });
    pbx.setReloadFailure(true);
    const done = await job("/api/deploy/trunks");
    expect(done.state).toBe("failed");
    expect(done.summary.reload).toMatchObject({ ok: false, via: "ssh", exitCode: 2 });
    // The reason is FreePBX's message in one line, its path whole although Symfony cut it across two.
    expect(done.summary.reload.reason).toMatch(RELOAD_FAILURE);
    // The whole output stays: the progress line, Symfony's error block and the usage line.
    expect(done.summary.reload.output).toContain("Reload Started");
    expect(done.summary.reload.output).toContain("In WriteConfig.class.php line");
    expect(done.summary.results[0].message).toBe(
      `Saved in the FreePBX database, but fwconsole reload failed (exit 2): ${done.summary.reload.reason}`,
    );
    // FreePBX still has unapplied changes: the dashboard's status says so.
    expect((await s.call("GET", "/api/deploy/status")).json).toMatchObject({ ssh: true, needReload: true });

    pbx.setReloadFailure(false);
    await s.call("POST", "/api/trunks", { name: "Second", type: "sip", host: "sip.second.example", authMode: "ip" });
    const again = await job("/api/deploy/trunks");
    expect(again.summary.reload).toMatchObject({ ok: true, reason: null });
    expect(again.summary.reload.output).toContain("Reload Complete");
    expect((await s.call("GET", "/api/deploy/status")).json).toMatchObject({ needReload: false });
  });
});
