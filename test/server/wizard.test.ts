import { expect, test } from "bun:test";
import { signedInServer } from "../helpers/server";

const s = signedInServer({ clean: ["ptt_groups", "extensions", "trunks", "ivrs"] });

const deploy = (body: Record<string, unknown> = {}) =>
  s.call("POST", "/api/wizard/deploy", {
    step: 4,
    extensionCount: 5,
    extensionPrefix: "10",
    trunkProvider: "",
    enableVoicemail: true,
    enableIVR: false,
    ...body,
  });
const count = (table: string) => (s.db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

test("defaults create extensions 1001-1005 with voicemail and secrets", async () => {
  const res = await deploy();
  expect(res.status).toBe(200);
  expect(res.json.created.extensions).toEqual(["1001", "1002", "1003", "1004", "1005"]);
  const rows = s.db.$client
    .query("SELECT extension, voicemail, secret FROM extensions ORDER BY extension")
    .all() as any[];
  expect(rows.map((r) => r.extension)).toEqual(["1001", "1002", "1003", "1004", "1005"]);
  expect(rows.every((r) => r.voicemail === 1 && r.secret.length >= 16)).toBe(true);
  expect(count("trunks")).toBe(0);
  expect(count("ivrs")).toBe(0);
});

test("a provider host adds a SIP trunk, IVR on adds the IVR, voicemail off is honoured", async () => {
  const res = await deploy({
    extensionCount: 2,
    extensionPrefix: "20",
    trunkProvider: "sip.telnyx.com",
    enableIVR: true,
    enableVoicemail: false,
  });
  expect(res.json.created).toEqual({ extensions: ["2001", "2002"], trunk: "sip.telnyx.com", ivr: "Main IVR" });
  expect(s.db.$client.query("SELECT type, host, port FROM trunks").get()).toEqual({
    type: "sip",
    host: "sip.telnyx.com",
    port: 5060,
  });
  expect(s.db.$client.query("SELECT count(*) AS n FROM extensions WHERE voicemail = 0").get()).toEqual({ n: 2 });
});

test("running twice duplicates nothing and reports what existed", async () => {
  await deploy({ trunkProvider: "sip.telnyx.com", enableIVR: true });
  s.db.$client.run("UPDATE extensions SET name = 'Reception' WHERE extension = '1001'");
  const again = await deploy({ extensionCount: 6, trunkProvider: "sip.telnyx.com", enableIVR: true });
  expect(again.status).toBe(200);
  expect(again.json.created).toEqual({ extensions: ["1006"], trunk: null, ivr: null });
  expect(again.json.existing).toEqual({
    extensions: ["1001", "1002", "1003", "1004", "1005"],
    trunk: "sip.telnyx.com",
    ivr: "Main IVR",
  });
  expect(count("extensions")).toBe(6);
  expect(count("trunks")).toBe(1);
  expect(count("ivrs")).toBe(1);
  expect(s.db.$client.query("SELECT name FROM extensions WHERE extension='1001'").get()).toEqual({ name: "Reception" });
});

test("bounds and formats are validated; nothing is written on a bad request", async () => {
  for (const [body, field] of [
    [{ extensionCount: 0 }, "extensionCount"],
    [{ extensionCount: 101 }, "extensionCount"],
    [{ extensionPrefix: "123456" }, "extensionPrefix"],
    [{ extensionPrefix: "1a" }, "extensionPrefix"],
    [{ trunkProvider: "bad host; rm -rf /" }, "trunkProvider"],
  ] as const) {
    const res = await deploy(body);
    expect(res.status).toBe(400);
    expect(res.json.error.fields[field]).toBeDefined();
  }
  expect(count("extensions")).toBe(0);
});

test("the deploy is one transaction: a failure half-way leaves nothing behind", async () => {
  // A trigger makes the third insert fail, as a disk or constraint error would.
  s.db.$client.run(
    "CREATE TRIGGER fail_third BEFORE INSERT ON extensions WHEN NEW.extension = '1003' BEGIN SELECT RAISE(ABORT, 'disk full'); END",
  );
  try {
    const res = await deploy();
    expect(res.status).toBe(500);
    expect(count("extensions")).toBe(0);
  } finally {
    s.db.$client.run("DROP TRIGGER fail_third");
  }
});

test("100 extensions with prefix 10 end at 10100, within the length limit", async () => {
  const res = await deploy({ extensionCount: 100 });
  expect(res.json.created.extensions.at(-1)).toBe("10100");
  expect(count("extensions")).toBe(100);
});

test("the dialer push answers 400 while it is not configured", async () => {
  const res = await s.call("POST", "/api/dialer/push-all");
  expect(res.status).toBe(400);
  expect(res.json.error.message).toContain("not configured");
});
