/**
 * Deploy, end to end, on the real FreePBX 17 and Asterisk 22: objects made through the console's API go
 * out through plan → apply with a real `fwconsole reload`, and softphones prove them with real calls.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type PbxConsole, startPbxConsole } from "./console";
import { Softphone } from "./softphone";
import { cli, reset, sql, until } from "./testbed";

let pbx: PbxConsole;
const phones: Softphone[] = [];
const phone = async (o: Parameters<typeof Softphone.start>[0]) => {
  const p = await Softphone.start(o);
  phones.push(p);
  return p;
};

beforeAll(async () => {
  await reset();
  pbx = await startPbxConsole();
}, 600_000);

afterAll(async () => {
  await Promise.all(phones.map((p) => p.stop()));
  await pbx?.stop();
});

describe("extensions deployed by the console", () => {
  const ids: Record<string, number> = {};

  test("go out through plan and apply with a real reload, and Asterisk lists their endpoints", async () => {
    for (const [ext, name, voicemail] of [
      ["2101", "Alice Admin", true],
      ["2102", "Bob Builder", false],
    ] as const) {
      const made = await pbx.create("/api/extensions", { extension: ext, name, voicemail });
      ids[ext] = made.id;
    }
    const plan = await pbx.plan("extensions");
    expect(plan.items.filter((i) => i.action === "create").map((i) => i.id)).toEqual(
      expect.arrayContaining(["extension:2101", "extension:2102"]),
    );
    await pbx.deploy("extensions");
    const endpoints = await cli("pjsip show endpoints");
    expect(endpoints).toContain("2101/2101");
    expect(endpoints).toContain("2102/2102");
    expect((await sql("asterisk", "SELECT value FROM admin WHERE variable = 'need_reload'"))[0]?.[0]).toBe("false");
  }, 300_000);

  test("softphones register with the secrets the console issued, and a call rings and is answered", async () => {
    const a = await phone({ user: "2101", secret: await pbx.sipSecret(ids["2101"] as number) });
    const b = await phone({ user: "2102", secret: await pbx.sipSecret(ids["2102"] as number) });
    await until("both contacts in Asterisk", async () => {
      const contacts = await cli("pjsip show contacts");
      return contacts.includes("2101/sip:") && contacts.includes("2102/sip:") ? true : undefined;
    });
    const before = a.events.length;
    await a.dial("2102");
    await b.waitFor("CALL_INCOMING");
    await a.waitFor("CALL_RINGING", { since: before });
    await b.accept();
    await a.waitFor("CALL_ESTABLISHED", { since: before });
    await b.waitFor("CALL_ESTABLISHED");
    await a.hangup();
    await b.waitFor("CALL_CLOSED");
  }, 120_000);
});
