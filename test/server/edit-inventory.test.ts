// everything the console creates can be edited (PATCH /api/<entity>/:id) under the
// create rules: uniqueness excluding the object itself, a blank secret keeps the stored one, 404 for an
// unknown id, 400 with field messages, the `*-updated` event and the audit row with before → after.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { extensions, trunks } from "../../src/db/schema";
import type { AuditEntry, AuditPage } from "../../src/shared/audit";
import type { WsEvent } from "../../src/shared/ws-events";
import { signedInServer } from "../helpers/server";

const s = signedInServer({
  clean: ["ptt_groups", "inbound_routes", "outbound_routes", "trunks", "extensions"],
});

let published: WsEvent[] = [];
beforeAll(() => {
  const hub = s.app.events;
  const send = hub.publish.bind(hub);
  hub.publish = (event: WsEvent) => {
    published.push(event);
    send(event);
  };
});
beforeEach(() => {
  published = [];
});

const SECRET = "Stored-Secret-1234567";

async function created(path: string, body: unknown) {
  const res = await s.call("POST", path, body);
  expect(res.status).toBe(201);
  return res.json;
}
const extension = (number: string, name = "Front desk") =>
  created("/api/extensions", { extension: number, name, secret: SECRET });
const trunk = (name = "Telnyx") =>
  created("/api/trunks", { name, type: "sip", host: "sip.telnyx.com", username: "acct", secret: SECRET });

/** The newest audit row of an action. */
async function latestAudit(action: string): Promise<AuditEntry | undefined> {
  const res = await s.call("GET", `/api/audit?action=${action}`);
  expect(res.status).toBe(200);
  return (res.json as AuditPage).items[0];
}

/** The stored (sealed) secret of a row: unchanged means the very same ciphertext. */
const storedExtensionSecret = (id: number) =>
  s.db.select({ secret: extensions.secret }).from(extensions).where(eq(extensions.id, id)).get()?.secret;
const storedTrunkSecret = (id: number) =>
  s.db.select({ secret: trunks.secret }).from(trunks).where(eq(trunks.id, id)).get()?.secret;

describe("extensions", () => {
  test("a name change is saved, published as updated and audited from → to; a blank secret keeps the stored one", async () => {
    const ext = await extension("2001");
    const sealed = storedExtensionSecret(ext.id);
    const res = await s.call("PATCH", `/api/extensions/${ext.id}`, { name: "Reception", secret: "" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: ext.id, extension: "2001", name: "Reception", hasSecret: true });
    expect(storedExtensionSecret(ext.id)).toBe(sealed);
    expect(published).toContainEqual({ type: "extensions-updated", data: { id: ext.id, action: "updated" } });
    const row = await latestAudit("extension.update");
    expect(row).toMatchObject({ outcome: "ok", objectType: "extension", objectId: String(ext.id) });
    expect(row?.changes).toContainEqual({ field: "name", from: "Front desk", to: "Reception" });
    // The provisioning payload still carries the original secret.
    const prov = await s.call("GET", `/api/extensions/${ext.id}/provisioning`);
    expect(JSON.stringify(prov.json)).toContain(SECRET);
  });

  test("a new secret replaces the stored one (sealed again), under the create rule's length", async () => {
    const ext = await extension("2002");
    const sealed = storedExtensionSecret(ext.id);
    const short = await s.refused(
      "extensions",
      () => s.call("PATCH", `/api/extensions/${ext.id}`, { secret: "short" }),
      400,
    );
    expect(short.fields?.secret).toMatch(/at least 12 characters/);
    const res = await s.call("PATCH", `/api/extensions/${ext.id}`, { secret: "A-New-Secret-98765" });
    expect(res.status).toBe(200);
    expect(storedExtensionSecret(ext.id)).not.toBe(sealed);
    expect(storedExtensionSecret(ext.id)).not.toContain("A-New-Secret-98765");
  });

  test("its own number is not a clash; another extension's or a PTT group's is (409 on the field)", async () => {
    const a = await extension("2010");
    await extension("2011");
    await created("/api/ptt-groups", { name: "Floor", extension: "8010", members: ["2011"] });
    expect((await s.call("PATCH", `/api/extensions/${a.id}`, { extension: "2010", name: "Same" })).status).toBe(200);
    const ext = await s.refused(
      "extensions",
      () => s.call("PATCH", `/api/extensions/${a.id}`, { extension: "2011" }),
      409,
    );
    expect(ext.fields?.extension).toBe("Extension 2011 already exists");
    const grp = await s.refused(
      "extensions",
      () => s.call("PATCH", `/api/extensions/${a.id}`, { extension: "8010" }),
      409,
    );
    expect(grp.fields?.extension).toBe("8010 is already the number of PTT group Floor");
  });

  test("renumbering one a PTT group or an inbound route uses is refused naming them; a free one moves", async () => {
    const used = await extension("2020");
    await created("/api/ptt-groups", { name: "Warehouse", extension: "8020", members: ["2020"] });
    await created("/api/inbound-routes", {
      description: "Main number",
      didNumber: "15550002020",
      destination: "2020",
      destinationType: "extension",
    });
    const err = await s.refused(
      "extensions",
      () => s.call("PATCH", `/api/extensions/${used.id}`, { extension: "2029" }),
      409,
    );
    expect(err.message).toContain("PTT group Warehouse");
    expect(err.message).toContain("inbound route Main number");
    expect(err.fields?.extension).toBe(err.message);
    const free = await extension("2021");
    const moved = await s.call("PATCH", `/api/extensions/${free.id}`, { extension: "2028" });
    expect(moved.status).toBe(200);
    expect(moved.json.extension).toBe("2028");
  });

  test("400 with field messages for bad input (the create schema's and the FreePBX rules'); 404 for an unknown id", async () => {
    const ext = await extension("2030");
    const bad = await s.refused(
      "extensions",
      () => s.call("PATCH", `/api/extensions/${ext.id}`, { extension: "20a", name: "", email: "nope" }),
      400,
    );
    expect(bad.fields).toMatchObject({ name: "Name is required", email: "Enter a valid email address" });
    const rule = await s.refused(
      "extensions",
      () => s.call("PATCH", `/api/extensions/${ext.id}`, { name: "Line\nbreak" }),
      400,
    );
    expect(rule.fields?.name).toBe("Name contains a control character (e.g. a newline)");
    expect((await s.call("PATCH", "/api/extensions/99999", { name: "Ghost" })).status).toBe(404);
    expect((await s.call("PATCH", "/api/extensions/abc", { name: "Ghost" })).status).toBe(404);
  });
});

describe("trunks", () => {
  test("a host change keeps the secret when blank, publishes and audits", async () => {
    const t = await trunk();
    const res = await s.call("PATCH", `/api/trunks/${t.id}`, { host: "sip2.telnyx.com", secret: "" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: t.id, host: "sip2.telnyx.com", username: "acct", hasSecret: true });
    expect(s.app.box.open(storedTrunkSecret(t.id) ?? null)).toBe(SECRET);
    expect(published).toContainEqual({ type: "trunks-updated", data: { id: t.id, action: "updated" } });
    const row = await latestAudit("trunk.update");
    expect(row?.changes).toContainEqual({ field: "host", from: "sip.telnyx.com", to: "sip2.telnyx.com" });
  });

  test("switching to IP authentication drops the credentials; back to credentials needs a secret again", async () => {
    const t = await trunk("Flowroute");
    const ip = await s.call("PATCH", `/api/trunks/${t.id}`, { authMode: "ip", providerAddresses: ["203.0.113.0/24"] });
    expect(ip.status).toBe(200);
    expect(ip.json).toMatchObject({ authMode: "ip", username: null, hasSecret: false, registrationEnabled: false });
    const back = await s.refused(
      "trunks",
      () => s.call("PATCH", `/api/trunks/${t.id}`, { authMode: "credentials", username: "acct" }),
      400,
    );
    expect(back.fields?.secret).toMatch(/Secret is required/);
  });

  test("names stay unique excluding itself, compared as FreePBX's channel id", async () => {
    const a = await trunk("Main Carrier");
    const b = await trunk("Backup");
    expect((await s.call("PATCH", `/api/trunks/${a.id}`, { name: "Main Carrier" })).status).toBe(200);
    const same = await s.refused("trunks", () => s.call("PATCH", `/api/trunks/${b.id}`, { name: "Main Carrier" }), 409);
    expect(same.fields?.name).toBe("Name already in use");
    const channel = await s.refused(
      "trunks",
      () => s.call("PATCH", `/api/trunks/${b.id}`, { name: "Main_Carrier" }),
      409,
    );
    expect(channel.fields?.name).toBe("Trunk Main Carrier has the same FreePBX channel id (Main_Carrier)");
    // Create follows the same rule.
    const create = await s.refused(
      "trunks",
      () => s.call("POST", "/api/trunks", { name: "Main_Carrier", type: "sip", host: "x.example.com" }),
      409,
    );
    expect(create.fields?.name).toBe(channel.fields?.name);
  });

  test("400 with field messages; 404 for an unknown id", async () => {
    const t = await trunk();
    const bad = await s.refused(
      "trunks",
      () => s.call("PATCH", `/api/trunks/${t.id}`, { port: 70000, host: "bad host" }),
      400,
    );
    expect(bad.fields).toMatchObject({ port: "Port must be between 1 and 65535" });
    const host = await s.refused("trunks", () => s.call("PATCH", `/api/trunks/${t.id}`, { host: "bad host" }), 400);
    expect(host.fields?.host).toBe("Host must be a host name or an IP address");
    expect((await s.call("PATCH", "/api/trunks/4242", { host: "a.example.com" })).status).toBe(404);
  });
});

describe("inbound routes", () => {
  const route = (did: string, description = "Main number") =>
    created("/api/inbound-routes", { description, didNumber: did, destination: "1001", destinationType: "extension" });

  test("a destination change is saved, published and audited; its own DID is no clash, another route's is", async () => {
    const a = await route("15550001000");
    await route("15550002000", "Sales");
    const res = await s.call("PATCH", `/api/inbound-routes/${a.id}`, {
      didNumber: "15550001000",
      destination: "400",
      destinationType: "queue",
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: a.id, destination: "400", destinationType: "queue" });
    expect(published).toContainEqual({
      type: "routes-updated",
      data: { kind: "inbound", id: a.id, action: "updated" },
    });
    expect((await latestAudit("inbound-route.update"))?.changes).toContainEqual({
      field: "destinationType",
      from: "extension",
      to: "queue",
    });
    const clash = await s.refused(
      "inbound_routes",
      () => s.call("PATCH", `/api/inbound-routes/${a.id}`, { didNumber: "15550002000" }),
      409,
    );
    expect(clash.fields?.didNumber).toBe("Already routed");
  });

  test("400 with field messages; 404 for an unknown id", async () => {
    const a = await route("15550003000");
    const bad = await s.refused(
      "inbound_routes",
      () => s.call("PATCH", `/api/inbound-routes/${a.id}`, { destinationType: "queue", destination: "Sales queue" }),
      400,
    );
    expect(bad.fields?.destination).toMatch(/^Destination must be the queue's number/);
    expect((await s.call("PATCH", "/api/inbound-routes/777", { description: "x" })).status).toBe(404);
  });
});

describe("outbound routes", () => {
  test("patterns and name change, published and audited; names unique excluding itself; 400; 404", async () => {
    const t = await trunk();
    const a = await created("/api/outbound-routes", { name: "UK", dialPatterns: ["44NXXXXXXXXX"], trunkId: t.id });
    await created("/api/outbound-routes", { name: "US", dialPatterns: ["1NXXNXXXXXX"], trunkId: t.id });
    const res = await s.call("PATCH", `/api/outbound-routes/${a.id}`, {
      name: "UK",
      dialPatterns: ["44nxxxxxxxxx", "0044NXXXXXXXXX", "44NXXXXXXXXX"],
    });
    expect(res.status).toBe(200);
    expect(res.json.dialPatterns).toEqual(["44NXXXXXXXXX", "0044NXXXXXXXXX"]);
    expect(published).toContainEqual({
      type: "routes-updated",
      data: { kind: "outbound", id: a.id, action: "updated" },
    });
    expect((await latestAudit("outbound-route.update"))?.objectId).toBe(String(a.id));
    const clash = await s.refused(
      "outbound_routes",
      () => s.call("PATCH", `/api/outbound-routes/${a.id}`, { name: "US" }),
      409,
    );
    expect(clash.fields?.name).toBe("Name already in use");
    const bad = await s.refused(
      "outbound_routes",
      () => s.call("PATCH", `/api/outbound-routes/${a.id}`, { dialPatterns: ["9;DROP"], trunkId: 9999 }),
      400,
    );
    expect(bad.fields?.["dialPatterns.0"]).toBe("Dial patterns may only contain 0-9 * # + - . [ ] X N Z");
    const noTrunk = await s.refused(
      "outbound_routes",
      () => s.call("PATCH", `/api/outbound-routes/${a.id}`, { trunkId: 9999 }),
      400,
    );
    expect(noTrunk.fields?.trunkId).toBe("Choose an existing trunk");
    expect((await s.call("PATCH", "/api/outbound-routes/31337", { name: "x" })).status).toBe(404);
  });
});

describe("PTT groups", () => {
  test("members and name change, published and audited; number unique excluding itself; unknown members; 404", async () => {
    await extension("2101");
    await extension("2102");
    const g = await created("/api/ptt-groups", { name: "Floor", extension: "8101", members: ["2101"] });
    await created("/api/ptt-groups", { name: "Dock", extension: "8102", members: ["2102"] });
    const res = await s.call("PATCH", `/api/ptt-groups/${g.id}`, {
      name: "Floor team",
      extension: "8101",
      members: ["2102", "2101"],
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: "Floor team", members: ["2101", "2102"] });
    expect(published).toContainEqual({ type: "ptt-groups-updated", data: { id: g.id, action: "updated" } });
    expect((await latestAudit("ptt-group.update"))?.changes).toContainEqual({
      field: "name",
      from: "Floor",
      to: "Floor team",
    });
    const taken = await s.refused(
      "ptt_groups",
      () => s.call("PATCH", `/api/ptt-groups/${g.id}`, { extension: "8102" }),
      409,
    );
    expect(taken.fields?.extension).toBe("8102 is already the number of PTT group Dock");
    const ext = await s.refused(
      "ptt_groups",
      () => s.call("PATCH", `/api/ptt-groups/${g.id}`, { extension: "2101" }),
      409,
    );
    expect(ext.fields?.extension).toBe("2101 is already an extension");
    const unknown = await s.refused(
      "ptt_groups",
      () => s.call("PATCH", `/api/ptt-groups/${g.id}`, { members: ["2101", "2999"] }),
      400,
    );
    expect(unknown.fields?.members).toBe("Not existing extension(s): 2999");
    const empty = await s.refused("ptt_groups", () => s.call("PATCH", `/api/ptt-groups/${g.id}`, { members: [] }), 400);
    expect(empty.fields?.members).toBe("Choose at least one member");
    expect((await s.call("PATCH", "/api/ptt-groups/5150", { name: "x" })).status).toBe(404);
  });
});
