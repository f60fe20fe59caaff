/**
 * A call flow deployed through the console's API on the real FreePBX 17, chosen by the caller's keys (DTMF, an RFC
 * 4733 telephone-event from the provider's softphone): the DID's inbound route sends the call to the console's
 * IVR, which greets the caller with a system recording uploaded through the console; key 1 rings 2901, key 2 rings
 * 2902, key 3 plays the console's announcement and then rings 2902. The IVR was first saved by FreePBX's own IVR
 * page (`Ivr::doConfigPageInit`), so the console adopts it: what it does not own (description, direct dial, alert
 * info, FreePBX's prompts) stays as FreePBX wrote it. Before each call the routing simulator says where the keys
 * lead, on the PBX and under the console's configuration alike, and the real call goes there.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Recording } from "../../src/shared/recordings";
import type { SimulateAnswer } from "../../src/shared/routing";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, freepbxPhp, sh, sql, until } from "./testbed";

const { pbx, phone } = consoleForFile({ cdr: false });

const DID = "4445550900";
const PREFIX = "pbxtest-ivr";
const work = mkdtempSync(join(tmpdir(), "pbx-ivrs-"));
let sounds = "";
afterAll(async () => {
  // The testbed's reset keeps sound files: the ones this file uploaded go with it.
  if (sounds) await sh(["sh", "-c", `rm -f ${sounds}/*/custom/${PREFIX}-*`]);
  rmSync(work, { recursive: true, force: true });
});

/** A one-second tone made with sox, uploaded through the console as a system recording. */
async function recording(name: string): Promise<Recording> {
  const file = join(work, `${name}.wav`);
  await sh(["sox", "-n", "-r", "8000", "-c", "1", "-b", "16", file, "synth", "1", "sine", "440"]);
  const form = new FormData();
  form.append("name", name);
  form.append("description", "IVR test tone");
  form.append("file", new Blob([new Uint8Array(readFileSync(file))]), `${name}.wav`);
  const res = await fetch(`${pbx.bin.base}/api/recordings`, {
    method: "POST",
    body: form,
    headers: { cookie: pbx.bin.cookie },
  });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return JSON.parse(text) as Recording;
}

describe("a call flow from the console's API: the caller's key picks where the call goes", () => {
  let ivrId = 0;
  let provider: Softphone;
  const desks: Record<string, Softphone> = {};

  /** Where the simulator says the call goes with these keys: the same on the PBX now as in the console. */
  async function simulated(digits: string): Promise<string[]> {
    const res = await pbx.call("POST", "/api/routing/simulate", { did: DID, digits, plan: true });
    expect(res.status, res.text).toBe(200);
    const answer = res.json as SimulateAnswer;
    expect(answer.live?.changed, JSON.stringify(answer, null, 1)).toBe(false);
    expect(answer.live?.final).toEqual(answer.final);
    return answer.final.ringing;
  }

  /**
   * The provider calls the DID, waits for the IVR to answer and listen, presses `key`; answers which desk phone
   * rang. The other phone must not have rung by then, nor by the time the call has ended.
   */
  async function choose(key: string): Promise<string> {
    const from = provider.events.length;
    const before = Object.fromEntries(Object.entries(desks).map(([ext, p]) => [ext, p.events.length]));
    const rangSince = (ext: string) =>
      (desks[ext] as Softphone).events.slice(before[ext]).some((e) => e.type === "CALL_INCOMING");
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    // The IVR answers the call itself.
    await provider.waitFor("CALL_ESTABLISHED", { since: from, ms: 30_000 });
    // The menu takes keys while its greeting plays (BackGround) and after it (WaitExten): the key goes once the
    // caller's channel is there, as a caller presses it on hearing the menu.
    const listening = new RegExp(`!ivr-${ivrId}!s!\\d+!Up!(BackGround|WaitExten)!`, "i");
    await until(
      "the caller's channel to listen for a key in the IVR",
      async () => listening.test(await cli("core show channels concise")) || undefined,
      30_000,
    );
    await provider.sendDigits(key);
    const rang = await until(`a desk phone to ring after ${key}`, () => Object.keys(desks).find(rangSince), 30_000);
    const rung = Object.keys(desks).filter(rangSince);
    await provider.hangup();
    await provider.waitFor("CALL_CLOSED", { since: from });
    await (desks[rang] as Softphone).waitFor("CALL_CLOSED", { since: before[rang] });
    expect(rung).toEqual([rang]);
    expect(Object.keys(desks).filter(rangSince)).toEqual([rang]);
    return rang;
  }

  test("setup: FreePBX's IVR page saves an IVR; the console adopts it with its greeting, options and an announcement, and routes the DID to it", async () => {
    provider = await phone({ user: "5550900", bindAddress: "127.0.0.2" });
    await pbx.create("/api/trunks", {
      name: "provider",
      type: "sip",
      host: "127.0.0.2",
      port: provider.sipPort,
      authMode: "ip",
      providerAddresses: ["127.0.0.2"],
    });
    const ids: Record<string, number> = {};
    for (const [extension, name] of [
      ["2901", "Sales Desk"],
      ["2902", "Support Desk"],
    ] as const)
      ids[extension] = (await pbx.create("/api/extensions", { extension, name })).id;
    await pbx.deploy("all");
    const tone = await recording(`${PREFIX}-menu`);
    sounds = (
      await sh(["sh", "-c", "dirname $(dirname $(ls -d /var/lib/asterisk/sounds/*/custom | head -1))"])
    ).stdout.trim();

    // FreePBX's IVR page, as its Submit posts the form (a description, one option), through the page's own handler.
    const out = await freepbxPhp(
      [
        "$_REQUEST = ['display' => 'ivr', 'action' => 'save', 'id' => '', 'name' => 'Front desk',",
        "  'description' => 'made in FreePBX', 'alertinfo' => '<http://x>;info=ring2', 'announcement' => '',",
        "  'entries' => ['ext' => ['1'], 'goto' => ['from-did-direct,2902,1'], 'ivr_ret' => ['DESTID' => '']]];",
        "FreePBX::Ivr()->doConfigPageInit('ivr');",
        "foreach (FreePBX::Ivr()->getDetails() as $ivr) if ($ivr['name'] === 'Front desk') echo 'IVR=' . $ivr['id'] . \"\\n\";",
      ].join("\n"),
    );
    ivrId = Number(out.match(/IVR=(\d+)/)?.[1]);
    expect(ivrId, out).toBeGreaterThan(0);
    const cols = (await sql("asterisk", "SHOW COLUMNS FROM ivr_details")).map((r) => r[0] as string);
    const row = async () =>
      Object.fromEntries(
        (await sql("asterisk", `SELECT * FROM ivr_details WHERE id = ${ivrId}`))[0]?.map((v, i) => [cols[i], v]) ?? [],
      );
    const made = await row();

    const closed = await pbx.create("/api/announcements", {
      name: "Closed",
      recording: tone.id,
      after: { kind: "extension", target: "2902" },
    });
    const menu = await pbx.create("/api/ivrs", {
      name: "Front desk",
      greeting: tone.id,
      timeout: 10,
      retries: 1,
      options: [
        { digits: "1", destination: { kind: "extension", target: "2901" } },
        { digits: "2", destination: { kind: "extension", target: "2902" } },
        { digits: "3", destination: { kind: "announcement", target: String(closed.id) } },
      ],
      timeoutDestination: { kind: "extension", target: "2901" },
    });
    await pbx.create("/api/inbound-routes", {
      description: "Main line",
      didNumber: DID,
      destinationType: "ivr",
      destination: String(menu.id),
    });
    // The IVR FreePBX made has the console's name: adopted, it is the console's from now on, by its id.
    const plan = await pbx.plan("all");
    expect(plan.items.find((i) => i.id === "ivr:Front desk")).toMatchObject({
      action: "conflict",
      pbxId: String(ivrId),
    });
    await pbx.deploy("all", { "ivr:Front desk": "adopt" });
    const now = await row();
    const owned = ["name", "announcement", "timeout_time", "invalid_loops", "timeout_loops", "timeout_destination"];
    for (const [col, value] of Object.entries(made)) if (!owned.includes(col)) expect(now[col], col).toBe(value);
    expect(now).toMatchObject({ announcement: String(tone.id), timeout_destination: "from-did-direct,2901,1" });
    const [annId] =
      (await sql("asterisk", "SELECT announcement_id FROM announcement WHERE description = 'Closed'"))[0] ?? [];
    expect(
      await sql("asterisk", `SELECT selection, dest FROM ivr_entries WHERE ivr_id = ${ivrId} ORDER BY selection`),
    ).toEqual([
      ["1", "from-did-direct,2901,1"],
      ["2", "from-did-direct,2902,1"],
      ["3", `app-announcement-${annId},s,1`],
    ]);
    expect(await sql("asterisk", `SELECT destination FROM incoming WHERE extension = '${DID}'`)).toEqual([
      [`ivr-${ivrId},s,1`],
    ]);
    // FreePBX's reload wrote the IVR's dialplan from those rows.
    const dialplan = await cli(`dialplan show ivr-${ivrId}`);
    expect(dialplan).toMatch(/'1' =>[^']*Goto\(from-did-direct,2901,1\)/);
    expect(dialplan).toMatch(/'3' =>[^']*Goto\(app-announcement-\d+,s,1\)/);
    for (const ext of ["2901", "2902"])
      desks[ext] = await phone({ user: ext, secret: await pbx.sipSecret(ids[ext] as number) });
  }, 300_000);

  test("pressing 2 rings 2902 and not 2901, as the simulator says", async () => {
    expect(await simulated("2")).toEqual(["2902"]);
    expect(await choose("2")).toBe("2902");
  }, 120_000);

  test("pressing 1 rings 2901 and not 2902, as the simulator says", async () => {
    expect(await simulated("1")).toEqual(["2901"]);
    expect(await choose("1")).toBe("2901");
  }, 120_000);

  test("pressing 3 plays the announcement, then rings 2902, as the simulator says", async () => {
    expect(await simulated("3")).toEqual(["2902"]);
    expect(await choose("3")).toBe("2902");
  }, 120_000);
});
