/**
 * The outside-service domain functions called directly (no HTTP): what they
 * publish, and which domain error each refusal is.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { extensions } from "../../src/db/schema";
import { loadConfig } from "../../src/server/config";
import { Invalid, NotFound, OutsideServiceFailed } from "../../src/server/core/errors";
import {
  removeCredential,
  saveCredential,
  serviceType,
  testCredential,
} from "../../src/server/integrations/credential-actions";
import { CredentialStore } from "../../src/server/integrations/credentials";
import { pushAllExtensions } from "../../src/server/integrations/dialer";
import { HostMetricsReader } from "../../src/server/integrations/host-metrics";
import { requireValues } from "../../src/server/integrations/outside";
import {
  createConnection,
  deleteConnection,
  generateSipCredential,
  regulatoryRequirements,
  routePhoneNumber,
  toPhoneNumber,
} from "../../src/server/integrations/telnyx";
import { controlVps, pickVm } from "../../src/server/integrations/vps";
import { SecretBox } from "../../src/server/secret-box";
import type { WsEvent } from "../../src/shared/ws-events";
import { startFakeDialer } from "../fakes/dialer";
import { HOSTINGER_DEFAULT_TOKEN, makeHostingerVm, startFakeHostinger } from "../fakes/hostinger";
import { makeTelnyxPhoneNumber, startFakeTelnyx, TELNYX_DEFAULT_KEY } from "../fakes/telnyx";

const hostinger = await startFakeHostinger();
const telnyx = await startFakeTelnyx();
const dialer = await startFakeDialer();
afterAll(async () => {
  await Promise.all([hostinger.stop(), telnyx.stop(), dialer.stop()]);
});

const opened: { dir: string; db: Db }[] = [];
afterEach(() => {
  for (const { dir, db } of opened.splice(0)) {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Real store and database, the fakes as endpoints, and a list that records every published event. */
function deps(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "pbx-domain-"));
  const full = { PBX_HOSTINGER_URL: hostinger.baseUrl, PBX_TELNYX_URL: telnyx.baseUrl, ...env };
  const config = loadConfig({ PORT: "0", DATA_DIR: dir, LOG_LEVEL: "silent", ...full }, false);
  const db: Db = openDatabase(join(dir, "test.db"));
  opened.push({ dir, db });
  const box = SecretBox.fromKey(randomBytes(32));
  const now = Date.now;
  const published: WsEvent[] = [];
  return {
    db,
    box,
    config,
    now,
    credentials: new CredentialStore(db, box, config.env, now),
    hostMetrics: new HostMetricsReader(),
    events: { publish: (e: WsEvent) => published.push(e) },
    published,
  };
}

const types = (events: WsEvent[]) => events.map((e) => e.type);

describe("credentials", () => {
  test("save, a recorded test and remove each publish credentials-updated", async () => {
    const d = deps();
    saveCredential(d, { type: "telnyx", apiKey: TELNYX_DEFAULT_KEY });
    expect(types(d.published)).toEqual(["credentials-updated"]);
    const result = await testCredential(d, { type: "telnyx" });
    expect(result.success).toBe(true);
    expect(types(d.published)).toEqual(["credentials-updated", "credentials-updated"]);
    expect(d.credentials.view("telnyx").connected).toBe(true);
    removeCredential(d, "telnyx");
    expect(d.published).toHaveLength(3);
    expect(d.credentials.isConfigured("telnyx")).toBe(false);
  });

  test("a test of values that are not the saved ones records and publishes nothing", async () => {
    const d = deps();
    saveCredential(d, { type: "telnyx", apiKey: TELNYX_DEFAULT_KEY });
    const result = await testCredential(d, { type: "telnyx", apiKey: "wrong-key-12345678" });
    expect(result.success).toBe(false);
    expect(d.published).toHaveLength(1);
    expect(d.credentials.view("telnyx").lastTestedAt).toBeNull();
  });

  test("an unknown service is NotFound; an unconfigured one is Invalid with the settings hint", () => {
    const d = deps();
    expect(() => serviceType("aws")).toThrow(NotFound);
    expect(() => removeCredential(d, "aws")).toThrow("Unknown service aws");
    expect(d.published).toHaveLength(0);
    let err: unknown;
    try {
      requireValues(d, "telnyx");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Invalid);
    expect((err as Error).message).toBe("Telnyx is not configured. Add it under API Settings.");
  });
});

describe("Telnyx", () => {
  test("connection create and delete, credential generation and routing publish telnyx-updated", async () => {
    const d = deps({ TELNYX_API_KEY: TELNYX_DEFAULT_KEY });
    const conn = await createConnection(d, { connectionName: "Domain" });
    const ext = d.db.insert(extensions).values({ extension: "1001", name: "Desk" }).returning().get();
    const cred = await generateSipCredential(d, ext.id, { connectionId: conn.id });
    expect(cred.extension).toBe("1001");
    expect(cred.sip_password.startsWith("••••")).toBe(true);
    telnyx.state.phoneNumbers = [makeTelnyxPhoneNumber(0)];
    const number = telnyx.state.phoneNumbers[0];
    const routed = await routePhoneNumber(d, String(number?.id), { connectionId: conn.id });
    expect(routed.connection_id).toBe(conn.id);
    await deleteConnection(d, conn.id);
    expect(types(d.published)).toEqual(["telnyx-updated", "telnyx-updated", "telnyx-updated", "telnyx-updated"]);
  });

  test("unknown or malformed ids are NotFound and publish nothing", async () => {
    const d = deps({ TELNYX_API_KEY: TELNYX_DEFAULT_KEY });
    await expect(deleteConnection(d, "no/such")).rejects.toThrow("Connection not found");
    await expect(deleteConnection(d, "999999")).rejects.toBeInstanceOf(NotFound);
    await expect(routePhoneNumber(d, "bad id", { connectionId: null })).rejects.toThrow("Phone number not found");
    await expect(generateSipCredential(d, 4242, { connectionId: "1" })).rejects.toThrow("Extension not found");
    expect(d.published).toHaveLength(0);
  });

  test("requirements check their query; a phone number maps to the wire shape once", async () => {
    const d = deps({ TELNYX_API_KEY: TELNYX_DEFAULT_KEY });
    await expect(regulatoryRequirements(d, { countryCode: "il" })).rejects.toThrow(
      "countryCode must be an ISO 3166 alpha-2 code",
    );
    await expect(regulatoryRequirements(d, { phoneNumberType: "Local!" })).rejects.toBeInstanceOf(Invalid);
    const raw = makeTelnyxPhoneNumber(3);
    expect(toPhoneNumber(raw)).toEqual({
      id: String(raw.id),
      phone_number: raw.phone_number,
      status: raw.status,
      connection_id: raw.connection_id,
      connection_name: raw.connection_name,
      updated_at: raw.updated_at,
    });
  });
});

describe("VPS", () => {
  test("control publishes vps-updated; refusals are Invalid", async () => {
    hostinger.state.vms = [makeHostingerVm({ id: 7, state: "running" })];
    const d = deps({ HOSTINGER_API_KEY: HOSTINGER_DEFAULT_TOKEN });
    const result = await controlVps(d, "restart");
    expect(result.success).toBe(true);
    expect(types(d.published)).toEqual(["vps-updated"]);
    await expect(controlVps(deps(), "stop")).rejects.toBeInstanceOf(Invalid);
    expect(() => pickVm([], undefined, [])).toThrow(Invalid);
    expect(() => pickVm([makeHostingerVm({ id: 1 })], "2", [])).toThrow("no virtual machine 2");
  });
});

describe("dialer push", () => {
  test("a refused delivery is an outside-service failure that says how far it got; nothing is published", async () => {
    const d = deps({
      DIALER_PUSH_URL: `${dialer.url}/pbx`,
      DIALER_PUSH_SECRET: "whsec_d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldA==",
    });
    d.db.insert(extensions).values({ extension: "1001", name: "A" }).run();
    let err: unknown;
    try {
      await pushAllExtensions(d);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OutsideServiceFailed);
    expect((err as Error).message).toContain("Web dialer rejected the credentials (401)");
    expect((err as Error).message).toEndWith("(after 0 of 1)");
    expect(d.published).toHaveLength(0);
  });
});
