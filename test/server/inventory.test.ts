import { describe, expect, test } from "bun:test";
import { signedInServer } from "../helpers/server";

const s = signedInServer({
  clean: ["outbound_routes", "inbound_routes", "ptt_groups", "extensions", "trunks", "ivrs"],
});

const ext = (extension: string, extra: Record<string, unknown> = {}) =>
  s.call("POST", "/api/extensions", {
    extension,
    name: `User ${extension}`,
    email: "",
    voicemail: false,
    secret: "",
    ...extra,
  });
const trunk = (name = "Telnyx", extra: Record<string, unknown> = {}) =>
  s.call("POST", "/api/trunks", { name, type: "sip", host: "sip.telnyx.com", port: 5060, ...extra });

describe("extensions", () => {
  test("create returns 201 with the record, never the secret; list is numeric order", async () => {
    const a = await ext("1010", { email: "desk@example.com", voicemail: true });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({
      extension: "1010",
      name: "User 1010",
      email: "desk@example.com",
      voicemail: true,
      status: "available",
      hasSecret: true,
    });
    expect(a.json).not.toHaveProperty("secret");
    await ext("2");
    await ext("300");
    const list = await s.call("GET", "/api/extensions");
    expect(list.json.map((e: any) => e.extension)).toEqual(["2", "300", "1010"]);
    expect(list.text).not.toContain('secret"');
  });

  test("without a secret a strong random one is stored; a given one is kept", async () => {
    await ext("1001");
    await ext("1002", { secret: "my-own-long-secret" });
    // Stored sealed (ADR 0018); the box opens them.
    const rows = s.db.$client.query("SELECT extension, secret FROM extensions ORDER BY extension").all() as any[];
    expect(rows.every((r) => r.secret.startsWith("v1:"))).toBe(true);
    expect(s.app.box.open(rows[0].secret)).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(s.app.box.open(rows[1].secret)).toBe("my-own-long-secret");
    await ext("1003");
    const third = s.db.$client.query("SELECT secret FROM extensions WHERE extension='1003'").get() as any;
    expect(s.app.box.open(third.secret)).not.toBe(s.app.box.open(rows[0].secret));
  });

  test("validation: field-level 400s, nothing stored", async () => {
    expect((await s.refused("extensions", () => ext("10a"), 400)).fields?.extension).toBe(
      "Extension must contain digits only",
    );
    expect((await s.refused("extensions", () => ext("12345678901"), 400)).fields?.extension).toContain("at most 10");
    expect((await s.refused("extensions", () => ext("1001", { name: "" }), 400)).fields?.name).toBe("Name is required");
    expect((await s.refused("extensions", () => ext("1001", { email: "not-an-email" }), 400)).fields?.email).toBe(
      "Enter a valid email address",
    );
    expect((await s.refused("extensions", () => ext("1001", { secret: "1234" }), 400)).fields?.secret).toContain(
      "at least 12",
    );
    // FreePBX holds 50 characters of a name: the API refuses what the deploy would.
    expect((await s.refused("extensions", () => ext("1001", { name: "x".repeat(51) }), 400)).fields?.name).toBe(
      "Name must be at most 50 characters",
    );
    expect((await s.refused("extensions", () => ext("1001", { secret: "with a space 123" }), 400)).fields?.secret).toBe(
      "Secret may not contain spaces, ';', '[' or ']'",
    );
  });

  test("a duplicate number is 409 naming it; a PTT group number too", async () => {
    await ext("1001");
    expect((await s.refused("extensions", () => ext("1001"), 409)).message).toBe("Extension 1001 already exists");
    await s.call("POST", "/api/ptt-groups", { name: "Floor", extension: "8000", members: ["1001"] });
    expect((await s.refused("extensions", () => ext("8000"), 409)).message).toBe(
      "8000 is already the number of PTT group Floor",
    );
  });

  test("delete is 200 with an undo token, unknown id 404; a PTT member or a route target is 409", async () => {
    const a = await ext("1001");
    const b = await ext("1002");
    await s.call("POST", "/api/ptt-groups", { name: "Floor", extension: "8000", members: ["1001"] });
    expect(
      (await s.refused("extensions", () => s.call("DELETE", `/api/extensions/${a.json.id}`), 409)).message,
    ).toContain("PTT group(s): Floor");
    await s.call("POST", "/api/inbound-routes", {
      description: "Main line",
      didNumber: "15550001",
      destination: "1002",
      destinationType: "extension",
    });
    expect(
      (await s.refused("extensions", () => s.call("DELETE", `/api/extensions/${b.json.id}`), 409)).message,
    ).toContain("Main line");
    await s.refused("extensions", () => s.call("DELETE", "/api/extensions/99999"), 404);
    await s.refused("extensions", () => s.call("DELETE", "/api/extensions/abc"), 404);
    const c = await ext("1003");
    expect((await s.call("DELETE", `/api/extensions/${c.json.id}`)).status).toBe(200);
    expect((await s.call("GET", "/api/extensions")).json.map((e: any) => e.extension)).toEqual(["1001", "1002"]);
  });

  test("a provisioning link's QR code is a PNG data URL; the SIP details carry the secret, number, name and PTT groups", async () => {
    const a = await ext("1001", { secret: "provisioning-secret-1" });
    await s.call("POST", "/api/ptt-groups", { name: "Floor", extension: "8000", members: ["1001"], duplex: true });
    const qr = await s.call("POST", `/api/extensions/${a.json.id}/provisioning-link`, {});
    expect(qr.status).toBe(201);
    expect(qr.json.qrCode).toMatch(/^data:image\/png;base64,/);
    const p = await s.call("GET", `/api/extensions/${a.json.id}/provisioning`);
    const decoded = p.json.config;
    expect(decoded).toMatchObject({
      sip_port: 5060,
      transport: "UDP",
      username: "1001",
      password: "provisioning-secret-1",
      display_name: "User 1001",
      ptt_enabled: true,
    });
    expect(decoded.ptt_groups).toEqual([{ id: expect.any(Number), name: "Floor", number: "8000", mode: "duplex" }]);
    expect((await s.call("POST", "/api/extensions/4242/provisioning-link", {})).status).toBe(404);
  });
});

describe("trunks", () => {
  test("create and list without the secret; defaults applied", async () => {
    const t = await trunk("Telnyx", { secret: "trunk-secret", username: "user1" });
    expect(t.status).toBe(201);
    expect(t.json).toMatchObject({
      name: "Telnyx",
      type: "sip",
      host: "sip.telnyx.com",
      port: 5060,
      authType: "outbound",
      status: "unregistered",
      hasSecret: true,
    });
    expect(JSON.stringify((await s.call("GET", "/api/trunks")).json)).not.toContain("trunk-secret");
  });

  test("authentication: credentials or IP; left out, it follows whether credentials were given", async () => {
    const withCreds = await trunk("Creds", { username: "u1", secret: "trunk-secret-1", registrationEnabled: true });
    expect(withCreds.json).toMatchObject({
      authMode: "credentials",
      username: "u1",
      hasSecret: true,
      providerAddresses: [],
    });
    const bare = await trunk("Bare");
    expect(bare.json).toMatchObject({ authMode: "ip", username: null, hasSecret: false, registrationEnabled: false });
    // IP authentication keeps no credentials and never registers, whatever the body carried.
    const ip = await trunk("Ip", {
      authMode: "ip",
      username: "ignored",
      secret: "ignored-secret",
      registrationEnabled: true,
      providerAddresses: ["203.0.113.10", "198.51.100.0/24", "198.51.100.0/24", "sip.provider.example", "2001:db8::1"],
    });
    expect(ip.json).toMatchObject({
      authMode: "ip",
      username: null,
      hasSecret: false,
      registrationEnabled: false,
      providerAddresses: ["203.0.113.10", "198.51.100.0/24", "sip.provider.example", "2001:db8::1"],
    });
    const missing = await s.refused("trunks", () => trunk("T", { authMode: "credentials", username: "u" }), 400);
    expect(missing.fields?.secret).toBe(
      "Secret is required for authentication with credentials (or choose IP authentication)",
    );
    const badAddress = await s.refused(
      "trunks",
      () => trunk("T", { authMode: "ip", providerAddresses: ["10.0.0.1", "300.1.1.1"] }),
      400,
    );
    expect(badAddress.fields?.["providerAddresses.1"]).toBe(
      '"300.1.1.1" is not an IP address, a network (203.0.113.0/24) or a host name',
    );
    expect((await s.refused("trunks", () => trunk("T", { authMode: "open" }), 400)).fields?.authMode).toBe(
      "Authentication must be credentials or ip",
    );
  });

  test("validation and duplicates", async () => {
    expect((await s.refused("trunks", () => trunk("T", { host: "sip example.com" }), 400)).fields?.host).toBe(
      "Host must be a host name or an IP address",
    );
    expect((await s.refused("trunks", () => trunk("T[1]"), 400)).fields?.name).toContain("Trunk name may only contain");
    expect((await s.refused("trunks", () => trunk("T", { type: "pjsip" }), 400)).fields?.type).toBe(
      "Type must be sip, iax or dahdi",
    );
    expect((await s.refused("trunks", () => trunk("T", { host: "" }), 400)).fields?.host).toBe("Host is required");
    expect((await s.refused("trunks", () => trunk("T", { port: 70000 }), 400)).fields?.port).toContain(
      "between 1 and 65535",
    );
    expect((await s.refused("trunks", () => trunk("x".repeat(51)), 400)).fields?.name).toContain("at most 50");
    await trunk("Telnyx");
    expect((await s.refused("trunks", () => trunk("Telnyx"), 409)).message).toBe("A trunk named Telnyx already exists");
  });

  test("a trunk used by a route cannot be deleted (409 naming the routes)", async () => {
    const t = await trunk();
    await s.call("POST", "/api/outbound-routes", { name: "UK", dialPatterns: ["07XXXXXXXXX"], trunkId: t.json.id });
    expect((await s.refused("trunks", () => s.call("DELETE", `/api/trunks/${t.json.id}`), 409)).message).toContain(
      "outbound route(s): UK",
    );
    // Inbound routes name no trunk (FreePBX matches them by DID): they never hold a trunk back.
    const v = await trunk("Spare", { host: "sip.spare.net" });
    const gone = await s.call("DELETE", `/api/trunks/${v.json.id}`);
    expect(gone.status).toBe(200);
    expect(typeof gone.json.undoToken).toBe("string");
    await s.refused("trunks", () => s.call("DELETE", `/api/trunks/${v.json.id}`), 404);
  });
});

describe("inbound routes", () => {
  test("create without a trunk; a trunkId sent is ignored (FreePBX matches DIDs, not trunks)", async () => {
    const any = await s.call("POST", "/api/inbound-routes", {
      description: "Main",
      didNumber: "",
      destination: "1001",
      destinationType: "extension",
    });
    expect(any.status).toBe(201);
    expect(any.json).toMatchObject({ didNumber: null });
    expect("trunkId" in any.json).toBe(false);
    const t = await trunk();
    const one = await s.call("POST", "/api/inbound-routes", {
      description: "Sales",
      didNumber: "4420",
      trunkId: t.json.id,
      destination: "400",
      destinationType: "queue",
    });
    expect(one.status).toBe(201);
    expect("trunkId" in one.json).toBe(false);
    // A queue or IVR typed by name is refused here, not at deploy time: FreePBX routes to numbers.
    const byName = await s.refused(
      "inbound_routes",
      () =>
        s.call("POST", "/api/inbound-routes", {
          description: "IVR",
          didNumber: "4421",
          destination: "Main IVR",
          destinationType: "ivr",
        }),
      400,
    );
    expect(byName.fields?.destination).toContain("the console's number of the IVR");
  });

  test("validation and duplicate DID", async () => {
    const base = { description: "Main", didNumber: "100", destination: "1001", destinationType: "extension" };
    expect(
      (
        await s.refused(
          "inbound_routes",
          () => s.call("POST", "/api/inbound-routes", { ...base, destinationType: "fax" }),
          400,
        )
      ).fields?.destinationType,
    ).toBeDefined();
    expect(
      (
        await s.refused(
          "inbound_routes",
          () => s.call("POST", "/api/inbound-routes", { ...base, description: "" }),
          400,
        )
      ).fields?.description,
    ).toBe("Description is required");
    expect(
      (
        await s.refused(
          "inbound_routes",
          () => s.call("POST", "/api/inbound-routes", { ...base, destination: "front desk" }),
          400,
        )
      ).fields?.destination,
    ).toBeDefined();
    await s.call("POST", "/api/inbound-routes", base);
    expect(
      (
        await s.refused(
          "inbound_routes",
          () => s.call("POST", "/api/inbound-routes", { ...base, description: "Again" }),
          409,
        )
      ).message,
    ).toContain("already handles DID 100");
  });

  test("delete 200 then 404", async () => {
    const r = await s.call("POST", "/api/inbound-routes", {
      description: "Main",
      destination: "1001",
      destinationType: "extension",
    });
    expect((await s.call("DELETE", `/api/inbound-routes/${r.json.id}`)).status).toBe(200);
    expect((await s.call("DELETE", `/api/inbound-routes/${r.json.id}`)).status).toBe(404);
  });
});

describe("outbound routes", () => {
  test("patterns are upper-cased and de-duplicated; the trunk must exist", async () => {
    const t = await trunk();
    const r = await s.call("POST", "/api/outbound-routes", {
      name: "USA",
      dialPatterns: ["1nxxnxxxxxx", "+1NXXNXXXXXX", "1NXXNXXXXXX"],
      trunkId: t.json.id,
      routeOrder: 0,
    });
    expect(r.status).toBe(201);
    expect(r.json.dialPatterns).toEqual(["1NXXNXXXXXX", "+1NXXNXXXXXX"]);
    expect(
      (
        await s.refused(
          "outbound_routes",
          () => s.call("POST", "/api/outbound-routes", { name: "X", dialPatterns: ["9X."], trunkId: 999 }),
          400,
        )
      ).fields?.trunkId,
    ).toBe("Choose an existing trunk");
  });

  test("bad patterns, none at all, missing trunk, duplicate name", async () => {
    const t = await trunk();
    const bad = await s.refused(
      "outbound_routes",
      () =>
        s.call("POST", "/api/outbound-routes", {
          name: "X",
          dialPatterns: ["9X.", "0'; DROP TABLE trunks;--"],
          trunkId: t.json.id,
        }),
      400,
    );
    expect(bad.fields?.["dialPatterns.1"]).toContain("may only contain");
    expect(
      (
        await s.refused(
          "outbound_routes",
          () => s.call("POST", "/api/outbound-routes", { name: "X", dialPatterns: [], trunkId: t.json.id }),
          400,
        )
      ).fields?.dialPatterns,
    ).toBe("Add at least one dial pattern");
    expect(
      (
        await s.refused(
          "outbound_routes",
          () => s.call("POST", "/api/outbound-routes", { name: "X", dialPatterns: ["9X."] }),
          400,
        )
      ).fields?.trunkId,
    ).toBe("Trunk is required");
    await s.call("POST", "/api/outbound-routes", { name: "X", dialPatterns: ["9X."], trunkId: t.json.id });
    expect(
      (
        await s.refused(
          "outbound_routes",
          () => s.call("POST", "/api/outbound-routes", { name: "X", dialPatterns: ["8X."], trunkId: t.json.id }),
          409,
        )
      ).message,
    ).toContain("named X");
  });

  test("delete 200 then 404", async () => {
    const t = await trunk();
    const r = await s.call("POST", "/api/outbound-routes", { name: "X", dialPatterns: ["9X."], trunkId: t.json.id });
    expect((await s.call("DELETE", `/api/outbound-routes/${r.json.id}`)).status).toBe(200);
    expect((await s.call("DELETE", `/api/outbound-routes/${r.json.id}`)).status).toBe(404);
  });
});

describe("PTT groups", () => {
  test("members must be existing extensions; stored sorted, without repeats", async () => {
    await ext("1002");
    await ext("1001");
    const g = await s.call("POST", "/api/ptt-groups", {
      name: "Floor",
      extension: "8000",
      description: "",
      members: ["1002", "1001", "1002"],
      duplex: false,
      autoAnswer: false,
    });
    expect(g.status).toBe(201);
    expect(g.json).toMatchObject({ members: ["1001", "1002"], duplex: false });
    // Auto-answer is not a page group's setting in FreePBX (every page leg auto-answers): not kept, not shown.
    expect("autoAnswer" in g.json).toBe(false);
    const e = await s.refused(
      "ptt_groups",
      () => s.call("POST", "/api/ptt-groups", { name: "B", extension: "8001", members: ["1001", "4444"] }),
      400,
    );
    expect(e.fields?.members).toBe("Not existing extension(s): 4444");
  });

  test("validation and number clashes", async () => {
    await ext("1001");
    expect(
      (
        await s.refused(
          "ptt_groups",
          () => s.call("POST", "/api/ptt-groups", { name: "A", extension: "8000", members: [] }),
          400,
        )
      ).fields?.members,
    ).toBe("Choose at least one member");
    expect(
      (
        await s.refused(
          "ptt_groups",
          () => s.call("POST", "/api/ptt-groups", { name: "", extension: "8000", members: ["1001"] }),
          400,
        )
      ).fields?.name,
    ).toBe("Name is required");
    expect(
      (
        await s.refused(
          "ptt_groups",
          () => s.call("POST", "/api/ptt-groups", { name: "A", extension: "1001", members: ["1001"] }),
          409,
        )
      ).message,
    ).toBe("1001 is already an extension");
    await s.call("POST", "/api/ptt-groups", { name: "A", extension: "8000", members: ["1001"] });
    expect(
      (
        await s.refused(
          "ptt_groups",
          () => s.call("POST", "/api/ptt-groups", { name: "B", extension: "8000", members: ["1001"] }),
          409,
        )
      ).message,
    ).toBe("8000 is already the number of PTT group A");
  });

  test("delete 200 then 404", async () => {
    await ext("1001");
    const g = await s.call("POST", "/api/ptt-groups", { name: "A", extension: "8000", members: ["1001"] });
    expect((await s.call("DELETE", `/api/ptt-groups/${g.json.id}`)).status).toBe(200);
    expect((await s.call("DELETE", `/api/ptt-groups/${g.json.id}`)).status).toBe(404);
  });
});

describe("every mutation publishes its WebSocket event", () => {
  test("create and delete of each resource", async () => {
    const events: string[] = [];
    const ws = new WebSocket(`${s.base.replace("http", "ws")}/ws?type=sync`, {
      headers: { cookie: s.cookie },
    } as never);
    // The ten events the writes below publish; on a busy machine they may trail the last answer.
    let tenth = () => {};
    const allTen = new Promise<void>((r) => (tenth = r));
    ws.onmessage = (e) => {
      events.push(JSON.parse(String(e.data)).type);
      if (events.length === 10) tenth();
    };
    await new Promise((r) => (ws.onopen = r));
    const e = await ext("1001");
    const t = await trunk();
    const i = await s.call("POST", "/api/inbound-routes", {
      description: "Main",
      destination: "1001",
      destinationType: "extension",
    });
    const o = await s.call("POST", "/api/outbound-routes", { name: "X", dialPatterns: ["9X."], trunkId: t.json.id });
    const g = await s.call("POST", "/api/ptt-groups", { name: "A", extension: "8000", members: ["1001"] });
    await s.call("DELETE", `/api/ptt-groups/${g.json.id}`);
    await s.call("DELETE", `/api/outbound-routes/${o.json.id}`);
    await s.call("DELETE", `/api/inbound-routes/${i.json.id}`);
    await s.call("DELETE", `/api/trunks/${t.json.id}`);
    await s.call("DELETE", `/api/extensions/${e.json.id}`);
    await allTen;
    ws.close();
    expect(events).toEqual([
      "extensions-updated",
      "trunks-updated",
      "routes-updated",
      "routes-updated",
      "ptt-groups-updated",
      "ptt-groups-updated",
      "routes-updated",
      "routes-updated",
      "trunks-updated",
      "extensions-updated",
    ]);
  });
});

describe("SIP secrets at rest (ADR 0018)", () => {
  test("trunk and extension secrets are sealed; the generator and provisioning open them", async () => {
    const e = await ext("1001", { secret: "extension-secret-77" });
    await trunk("Carrier", { username: "acct", secret: "trunk-secret-88" });
    const stored = s.db.$client.query("SELECT secret FROM extensions UNION ALL SELECT secret FROM trunks").all() as {
      secret: string;
    }[];
    expect(stored.map((r) => r.secret.startsWith("v1:"))).toEqual([true, true]);
    // The script the administrator runs on the PBX carries them in clear, by design.
    const script = (await s.call("GET", "/api/config/script.sql")).text;
    expect(script).toContain("extension-secret-77");
    expect(script).toContain("trunk-secret-88");
    const p = await s.call("GET", `/api/extensions/${e.json.id}/provisioning`);
    expect(p.json.config.password).toBe("extension-secret-77");
  });

  test("secrets an older version stored in clear are sealed at start-up, once", async () => {
    s.db.$client.run("INSERT INTO extensions (extension, name, secret) VALUES ('1500', 'Old', 'clear-ext-secret-1')");
    s.db.$client.run(
      "INSERT INTO trunks (name, type, host, secret) VALUES ('Old', 'sip', 'h.example.com', 'clear-trunk-2')",
    );
    s.db.$client.run("INSERT INTO extensions (extension, name, secret) VALUES ('1501', 'None', NULL)");
    const { sealClearSipSecrets } = await import("../../src/server/inventory/sip-secrets");
    const { CredentialStore } = await import("../../src/server/integrations/credentials");
    new CredentialStore(s.db, s.app.box, {}); // what createApp builds at start-up
    expect(sealClearSipSecrets(s.db, s.app.box)).toBe(0);
    const rows = s.db.$client
      .query("SELECT secret FROM extensions WHERE secret IS NOT NULL UNION ALL SELECT secret FROM trunks")
      .all() as { secret: string }[];
    expect(rows.map((r) => s.app.box.open(r.secret)).sort()).toEqual(["clear-ext-secret-1", "clear-trunk-2"]);
    expect(rows.every((r) => r.secret.startsWith("v1:"))).toBe(true);
    expect((s.db.$client.query("SELECT secret FROM extensions WHERE extension = '1501'").get() as any).secret).toBe(
      null,
    );
  });
});
