/**
 * The fake FreePBX GraphQL server backed by a real MariaDB (MariaDbFreePbxBackend on a pbx test host), called
 * over HTTP the way a client would: token, then GraphQL. Checks the rows the API writes and that it reads rows
 * written the way the console's deployer writes them (a SQL script piped into the host's mysql client).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { FakeServer } from "../fakes/common";
import { FREEPBX_TEST_CLIENT, type FreePbxState, startFakeFreePbx } from "../fakes/freepbx";
import { MariaDbFreePbxBackend } from "./mariadb-backend";
import { type PbxHost, startPbxHost } from "./pbx-host";

let pbx: PbxHost;
let backend: MariaDbFreePbxBackend;
let f: FakeServer<FreePbxState<MariaDbFreePbxBackend>>;
let token = "";

async function call(url: string, init: RequestInit) {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const gql = (query: string, variables?: unknown) =>
  call(`${f.url}/admin/api/api/gql`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });

const ADD = "mutation ($i: addExtensionInput!) { addExtension(input: $i) { status message } }";
const FETCH_ONE = `query ($id: ID) { fetchExtension(extensionId: $id) { status extensionId tech
  user { name voicemail outboundCid extPassword } coreDevice { dial devicetype description emergencyCid } } }`;
const FETCH_ALL = `{ fetchAllExtensions(first: 100) { status totalCount extension { extensionId tech
  user { name voicemail extPassword } coreDevice { dial description } } } }`;
const NEED_RELOAD = "{ fetchNeedReload { status message } }";
const API_STATUS = "query ($t: ID!) { fetchApiStatus(txnId: $t) { status message details } }";

const needReloadRow = async () =>
  (await pbx.query("SELECT value FROM admin WHERE variable = ?", ["need_reload"]))[0]?.value;
const setNeedReload = (v: "true" | "false") =>
  pbx.query("UPDATE admin SET value = ? WHERE variable = ?", [v, "need_reload"]);
const sipRows = (id: string) => pbx.query("SELECT keyword, data, flags FROM sip WHERE id = ? ORDER BY flags", [id]);
const countRows = async (id: string) => ({
  devices: (await pbx.query("SELECT COUNT(*) AS n FROM devices WHERE id = ?", [id]))[0]?.n,
  users: (await pbx.query("SELECT COUNT(*) AS n FROM users WHERE extension = ?", [id]))[0]?.n,
  sip: (await pbx.query("SELECT COUNT(*) AS n FROM sip WHERE id = ?", [id]))[0]?.n,
});

/** doreload, then fetchApiStatus until the transaction leaves Processing (or 2 s pass). */
async function reloadAndWait() {
  const r = await gql("mutation { doreload(input: {}) { status transaction_id } }");
  expect(r.status).toBe(200);
  const txn = r.body.data.doreload.transaction_id as string;
  let st: any = null;
  for (let i = 0; i < 200; i++) {
    st = (await gql(API_STATUS, { t: txn })).body.data.fetchApiStatus;
    if (st.message !== "Processing") break;
    await Bun.sleep(10);
  }
  return { txn, status: st };
}

/** A MySQL string literal, escaped the way a deployer building SQL text must (quotes, backslash, NUL, CR/LF, ^Z). */
const ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "'": "''",
  "\0": "\\0",
  "\n": "\\n",
  "\r": "\\r",
  "\x1a": "\\Z",
};
const lit = (v: string) => `'${[...v].map((c) => ESCAPES[c] ?? c).join("")}'`;
const values = (rows: string[][]) => rows.map((r) => `(${r.map(lit).join(", ")})`).join(", ");

/** Runs a SQL script through the host's mysql client on stdin, as the deployer does over SSH. */
async function mysqlScript(script: string) {
  const proc = Bun.spawn([join(pbx.binDir, "mysql"), "-u", pbx.mysql.user, pbx.mysql.database], {
    stdin: new TextEncoder().encode(script),
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, MYSQL_PWD: pbx.mysql.password },
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`mysql exited ${code}: ${stderr}`);
}

// Quotes, backslashes, a newline, SQL and non-ASCII; 50 characters at most (users.name / devices.description).
// No emoji: FreePBX 17's tables are utf8mb3, which holds no character beyond U+FFFF.
const HOSTILE = `O'Brien "Q" \\x\\' ;DROP TABLE users;--\n☎✓`;

beforeAll(async () => {
  pbx = await startPbxHost();
  backend = new MariaDbFreePbxBackend(pbx, { reloadBehaviour: { afterMs: 20 } });
  f = await startFakeFreePbx({ backend });
  const t = await call(`${f.url}/admin/api/api/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: FREEPBX_TEST_CLIENT.clientId,
      client_secret: FREEPBX_TEST_CLIENT.clientSecret,
      scope: "gql",
    }).toString(),
  });
  expect(t.status).toBe(200);
  token = t.body.access_token;
}, 60_000);

afterAll(async () => {
  await f?.stop();
  await backend?.dispose();
  await pbx?.stop();
});

describe("MariaDbFreePbxBackend behind the fake GraphQL API", () => {
  test("addExtension (vmEnable:false) writes Core's devices/users/sip rows and flags need_reload", async () => {
    expect(HOSTILE.length).toBeLessThanOrEqual(50);
    expect((await gql(NEED_RELOAD)).body.data.fetchNeedReload.message).toBe("Doreload is not required");
    const r = await gql(ADD, {
      i: {
        extensionId: "1001",
        name: "Alice",
        email: "alice@example.org",
        vmEnable: false,
        umEnable: false,
        maxContacts: "2",
        emergencyCid: "5551230000",
      },
    });
    expect(r).toEqual({ status: 200, body: { data: { addExtension: { status: true, message: expect.any(String) } } } });

    expect(await pbx.query("SELECT * FROM devices WHERE id = ?", ["1001"])).toEqual([
      {
        id: "1001",
        tech: "pjsip",
        dial: "PJSIP/1001",
        devicetype: "fixed",
        user: "1001",
        description: "Alice",
        emergency_cid: "5551230000",
        hint_override: null,
      },
    ] as any);
    expect(await pbx.query("SELECT * FROM users WHERE extension = ?", ["1001"])).toEqual([
      {
        extension: "1001",
        password: "",
        name: "Alice",
        voicemail: "novm",
        ringtimer: 0,
        noanswer: "",
        recording: "",
        outboundcid: "",
        sipname: "",
        noanswer_cid: "",
        busy_cid: "",
        chanunavail_cid: "",
        noanswer_dest: "",
        busy_dest: "",
        chanunavail_dest: "",
        mohclass: "default",
      },
    ] as any);
    const sip = await sipRows("1001");
    expect(sip.map((s) => s.flags)).toEqual(sip.map((_, i) => i + 2));
    const kv = Object.fromEntries(sip.map((s) => [s.keyword, s.data]));
    expect(kv).toMatchObject({
      sipdriver: "chan_pjsip",
      dtmfmode: "rfc4733",
      dial: "PJSIP/1001",
      context: "from-internal",
      account: "1001",
      callerid: "5551230000", // callerID defaults to the emergency CID
      mailbox: "1001@device",
      max_contacts: "2",
      remove_existing: "no",
      transport: "",
    });
    expect(kv.secret).toMatch(/^[0-9a-f]{32}$/);

    const one = await gql(FETCH_ONE, { id: "1001" });
    expect(one.body.data.fetchExtension).toEqual({
      status: true,
      extensionId: "1001",
      tech: "pjsip",
      user: { name: "Alice", voicemail: "novm", outboundCid: "", extPassword: kv.secret },
      coreDevice: { dial: "PJSIP/1001", devicetype: "fixed", description: "Alice", emergencyCid: "5551230000" },
    });
    expect(await needReloadRow()).toBe("true");
    expect((await gql(NEED_RELOAD)).body.data.fetchNeedReload.message).toBe("Doreload is required");
  });

  test("the writes are one transaction: a value too long for users.outboundcid leaves no devices/sip rows", async () => {
    await setNeedReload("false");
    const r = await gql(ADD, {
      i: { extensionId: "1009", name: "Too long", email: "", vmEnable: false, outboundCid: "9".repeat(51) },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toBe("Internal server error");
    expect(f.state.errorLog.at(-1)).toContain("Data too long");
    expect(await countRows("1009")).toEqual({ devices: 0, users: 0, sip: 0 });
    expect(await needReloadRow()).toBe("false");
  });

  test("fetchAllExtensions returns an extension the deployer inserted with SQL", async () => {
    const name = `Bob "B\\ob" O'Neil\n☎`;
    const secret = `s3'cr\\et"☎`;
    const sipPairs = [
      ["sipdriver", "chan_pjsip"],
      ["secret", secret],
      ["dial", "PJSIP/1002"],
      ["context", "from-internal"],
      ["account", "1002"],
      ["callerid", `${name} <1002>`],
      ["max_contacts", "3"],
    ];
    const script = [
      "START TRANSACTION;",
      "INSERT INTO devices (id, tech, dial, devicetype, user, description, emergency_cid) VALUES " +
        `${values([["1002", "pjsip", "PJSIP/1002", "fixed", "1002", name, ""]])};`,
      "INSERT INTO users (extension, password, name, voicemail, ringtimer, noanswer, recording, outboundcid, sipname) VALUES " +
        `${values([["1002", "", name, "default", "0", "", "", '"Bob" <5550002>', ""]])};`,
      `INSERT INTO sip (id, keyword, data, flags) VALUES ${values(sipPairs.map(([k, v], i) => ["1002", k, v, String(i + 2)] as string[]))};`,
      "UPDATE admin SET value = 'true' WHERE variable = 'need_reload';",
      "COMMIT;",
    ].join("\n");
    await mysqlScript(script);

    const all = await gql(FETCH_ALL);
    expect(all.status).toBe(200);
    const conn = all.body.data.fetchAllExtensions;
    expect(conn.totalCount).toBe(2);
    expect(conn.extension.map((e: any) => e.extensionId)).toEqual(["1001", "1002"]);
    expect(conn.extension[1]).toEqual({
      extensionId: "1002",
      tech: "pjsip",
      user: { name, voicemail: "default", extPassword: secret },
      coreDevice: { dial: "PJSIP/1002", description: name },
    });
    const rec = await backend.getExtension("1002");
    expect(rec).toMatchObject({ callerId: `${name} <1002>`, maxContacts: "3", email: "", vmPassword: "" });
    expect((await gql(NEED_RELOAD)).body.data.fetchNeedReload.message).toBe("Doreload is required");
  });

  test("deleteExtension removes the devices, users and sip rows and flags need_reload", async () => {
    await setNeedReload("false");
    const r = await gql('mutation { deleteExtension(input: {extensionId: "1001"}) { status message } }');
    expect(r.body.data.deleteExtension).toEqual({ status: true, message: "Extension has been deleted" });
    expect(await countRows("1001")).toEqual({ devices: 0, users: 0, sip: 0 });
    expect((await countRows("1002")).devices).toBe(1);
    expect(await needReloadRow()).toBe("true");
    const gone = await gql('{ fetchExtension(extensionId: "1001") { status message } }');
    expect(gone.body.errors[0]).toEqual({ message: "Extension does not exists", status: false });
  });

  test("addInboundRoute → incoming row → allInboundRoutes; removeInboundRoute; no need_reload", async () => {
    await setNeedReload("false");
    // A catch-all route written by someone else, with NULL cidnum.
    await pbx.query("INSERT INTO incoming (cidnum, extension, destination, description) VALUES (NULL, '', ?, ?)", [
      "app-pagegroups,7000,1",
      "any DID",
    ]);
    const description = `Main "line" \\ O'Hara ☏`;
    const add = await gql(
      `mutation ($i: addInboundRouteInput!) { addInboundRoute(input: $i) { status message inboundRoute { id } } }`,
      { i: { extension: "5551234567", destination: "from-did-direct,1002,1", description, ringing: true } },
    );
    expect(add.body.data.addInboundRoute).toEqual({
      status: true,
      message: "Inbound Route created successfully",
      inboundRoute: { id: "5551234567/" },
    });
    expect(await pbx.query("SELECT * FROM incoming WHERE extension = ?", ["5551234567"])).toEqual([
      {
        cidnum: "",
        extension: "5551234567",
        destination: "from-did-direct,1002,1",
        privacyman: 0,
        alertinfo: "",
        ringing: "CHECKED",
        fanswer: "",
        mohclass: "default",
        description,
        grppre: "",
        delay_answer: 0,
        pricid: "",
        pmmaxretries: "3",
        pmminlength: "10",
        reversal: "",
        rvolume: "0",
        indication_zone: "default",
      },
    ] as any);

    const list = await gql(`{ allInboundRoutes { totalCount inboundRoutes { id extension cidnum description
      privacyman ringing fanswer mohclass delay_answer destinationConnection } } }`);
    expect(list.body.data.allInboundRoutes).toEqual({
      totalCount: 2,
      inboundRoutes: [
        {
          id: "/",
          extension: "",
          cidnum: "",
          description: "any DID",
          privacyman: false,
          ringing: false,
          fanswer: false,
          mohclass: "default",
          delay_answer: 0,
          destinationConnection: "Paging and Intercom: 7000",
        },
        {
          id: "5551234567/",
          extension: "5551234567",
          cidnum: "",
          description,
          privacyman: false,
          ringing: true,
          fanswer: false,
          mohclass: "default",
          delay_answer: 0,
          destinationConnection: expect.stringMatching(/^Extensions: 1002 Bob/),
        },
      ],
    });
    const dup = await gql('mutation { addInboundRoute(input: {destination: "x,1,1"}) { status message } }');
    expect(dup.body.errors[0]).toEqual({ message: "Inbound Route already exists", status: false });

    const rm = await gql('mutation { removeInboundRoute(input: {id: "/"}) { status deletedId } }');
    expect(rm.body.data.removeInboundRoute).toEqual({ status: true, deletedId: "/" });
    expect((await pbx.query("SELECT extension FROM incoming")).map((r) => r.extension)).toEqual(["5551234567"]);
    expect(await needReloadRow()).toBe("false");
  });

  test("doreload: Failed leaves need_reload; Executed sets it to 'false' in MariaDB; stuck + finishTransaction", async () => {
    await setNeedReload("true");
    backend.reloadBehaviour = { outcome: "Failed", afterMs: 0, failureReason: "Bad destination" };
    const failed = await reloadAndWait();
    expect(failed.status).toEqual({ status: true, message: "Failed", details: "Bad destination" });
    expect(await needReloadRow()).toBe("true");

    backend.reloadBehaviour = { outcome: "Executed", afterMs: 20, failureReason: "" };
    const ok = await reloadAndWait();
    expect(ok.status).toEqual({ status: true, message: "Executed", details: null });
    expect(await needReloadRow()).toBe("false");
    expect((await gql(NEED_RELOAD)).body.data.fetchNeedReload).toEqual({
      status: true,
      message: "Doreload is not required",
    });
    expect(backend.reloadCount).toBe(1);

    await setNeedReload("true");
    backend.reloadBehaviour = { outcome: "stuck", afterMs: 0, failureReason: "" };
    const stuck = await gql("mutation { doreload(input: {}) { transaction_id } }");
    const txn = stuck.body.data.doreload.transaction_id;
    await Bun.sleep(30);
    expect((await gql(API_STATUS, { t: txn })).body.data.fetchApiStatus.message).toBe("Processing");
    await backend.finishTransaction(txn, "Executed");
    expect((await gql(API_STATUS, { t: txn })).body.data.fetchApiStatus.message).toBe("Executed");
    expect(await needReloadRow()).toBe("false");
  });

  test("a hostile name, caller ID and outbound CID round-trip through GraphQL and MariaDB", async () => {
    const callerID = `a'b\\c\nd "e" ♫`;
    const outboundCid = `"Ünï ♫" <100>`;
    const r = await gql(ADD, {
      i: { extensionId: "1003", name: HOSTILE, email: "x@example.org", vmEnable: false, callerID, outboundCid },
    });
    expect(r.body.data.addExtension.status).toBe(true);
    expect((await pbx.query("SELECT description FROM devices WHERE id = ?", ["1003"]))[0]?.description).toBe(HOSTILE);
    expect((await pbx.query("SELECT name, outboundcid FROM users WHERE extension = ?", ["1003"]))[0]).toEqual({
      name: HOSTILE,
      outboundcid: outboundCid,
    });
    const kv = Object.fromEntries((await sipRows("1003")).map((s) => [s.keyword, s.data]));
    expect(kv.callerid).toBe(callerID);
    const one = await gql(FETCH_ONE, { id: "1003" });
    expect(one.body.data.fetchExtension.user).toMatchObject({ name: HOSTILE, outboundCid });
    expect(one.body.data.fetchExtension.coreDevice.description).toBe(HOSTILE);
    expect((await backend.getExtension("1003"))?.callerId).toBe(callerID);
    // The tables survived the "DROP TABLE" in the name.
    expect((await pbx.query("SELECT COUNT(*) AS n FROM users"))[0]?.n).toBe(2);
  });

  test("also works over a bare query function (pbx.query): same records, writes without a transaction", async () => {
    const plain = new MariaDbFreePbxBackend(pbx.query);
    expect(await plain.listExtensions()).toEqual(
      (await backend.listExtensions()).map((e) => ({
        ...e,
        email: "",
        vmPassword: e.vmPassword === null ? null : "",
        userman: null,
      })),
    );
    await plain.addInboundRoute({
      extension: "5550000001",
      cidnum: "5551112222",
      description: "",
      destination: "from-did-direct,1003,1",
      privacyman: true,
      alertinfo: "",
      ringing: false,
      mohclass: "default",
      grppre: "",
      delay_answer: 2,
      pricid: true,
      fanswer: false,
    });
    expect((await backend.listInboundRoutes()).find((r) => r.cidnum === "5551112222")).toMatchObject({
      privacyman: true,
      pricid: true,
      delay_answer: 2,
    });
    await plain.removeInboundRoute("5550000001", "5551112222");
    expect(await backend.listInboundRoutes()).toHaveLength(1);
    await plain.dispose();
  });
});
