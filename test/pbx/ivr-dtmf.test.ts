/**
 * An IVR on the real FreePBX 17 reached by a DID from the provider's trunk: the caller's key press (DTMF, an
 * RFC 4733 telephone-event from the provider's softphone) picks the option, and that option's extension rings
 * while the other does not. The extensions and the trunk are the console's; the IVR is saved the way FreePBX's
 * IVR page saves its form (`Ivr::doConfigPageInit` with the posted fields: options 1 → 2901 and 2 → 2902, no
 * greeting, everything else the form's defaults), and the DID's inbound route to it the way the Inbound Routes
 * page does (`core_did_add`).
 */
import { describe, expect, test } from "bun:test";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, freepbxPhp, sh, sql, until } from "./testbed";

const { pbx, phone } = consoleForFile({ cdr: false });

const DID = "4445550900";

/**
 * `fwconsole reload` as the asterisk user, as FreePBX's Apply Config runs it; FreePBX runs one fwconsole at a
 * time (a reload leaves its signature check running a few seconds), so "already running" is waited out.
 */
async function fwconsoleReload(): Promise<void> {
  const done = await until(
    "FreePBX's reload",
    async () => {
      const r = await sh(["runuser", "-u", "asterisk", "--", "sh", "-c", "cd /tmp && fwconsole reload"], {
        allowFail: true,
      });
      return r.code !== 0 && /already running/i.test(r.stdout + r.stderr) ? undefined : r;
    },
    120_000,
  );
  expect(done.code, done.stdout + done.stderr).toBe(0);
}

describe("an IVR on the PBX: the caller's key picks the extension that rings", () => {
  let ivrId = 0;
  let provider: Softphone;
  const desks: Record<string, Softphone> = {};

  /**
   * The provider calls the DID, waits for the IVR to answer and to listen, presses `key`; answers which desk
   * phone rang. The other phone must not have rung by then, nor by the time the call has ended.
   */
  async function choose(key: string): Promise<string> {
    const from = provider.events.length;
    const before = Object.fromEntries(Object.entries(desks).map(([ext, p]) => [ext, p.events.length]));
    const rangSince = (ext: string) =>
      (desks[ext] as Softphone).events.slice(before[ext]).some((e) => e.type === "CALL_INCOMING");
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    // The IVR answers the call itself.
    await provider.waitFor("CALL_ESTABLISHED", { since: from, ms: 30_000 });
    // FreePBX's menu takes keys in WaitExten (with a greeting, also in the Background before it). A key that
    // arrives earlier counts only if no step before reads the channel and drops it, so the key goes once the
    // caller's channel is in WaitExten, as a caller presses it after hearing the menu.
    const waiting = new RegExp(`!ivr-${ivrId}!s!\\d+!Up!WaitExten!`);
    await until(
      "the caller's channel to wait for a key in the IVR",
      async () => waiting.test(await cli("core show channels concise")) || undefined,
      30_000,
    );
    await provider.sendDigits(key);
    const rang = await until(`a desk phone to ring after ${key}`, () => Object.keys(desks).find(rangSince), 30_000);
    const rung = Object.keys(desks).filter(rangSince);
    await provider.hangup();
    await provider.waitFor("CALL_CLOSED", { since: from });
    await (desks[rang] as Softphone).waitFor("CALL_CLOSED", { since: before[rang] });
    // Only one phone rang, and still only one once the call is over.
    expect(rung).toEqual([rang]);
    expect(Object.keys(desks).filter(rangSince)).toEqual([rang]);
    return rang;
  }

  test("setup: the console deploys two extensions and a trunk; FreePBX's own code makes the IVR and routes the DID to it", async () => {
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
    // The IVR page's form as its Submit posts it (`announcement` None is an empty value, each option's destination
    // in entries[goto]), through the page's own handler; FreePBX's list of IVRs then names its id. The DID's
    // inbound route is FreePBX's too (its Inbound Routes form's fields, through core_did_add): the console's
    // inbound routes send calls only to the console's own IVRs.
    const out = await freepbxPhp(
      [
        "$_REQUEST = ['display' => 'ivr', 'action' => 'save', 'id' => '', 'name' => 'Front desk', 'announcement' => '',",
        "  'entries' => ['ext' => ['1', '2'], 'goto' => ['from-did-direct,2901,1', 'from-did-direct,2902,1'],",
        "  'ivr_ret' => ['DESTID1' => '', 'DESTID' => '']]];",
        "FreePBX::Ivr()->doConfigPageInit('ivr');",
        "$id = 0;",
        "foreach (FreePBX::Ivr()->getDetails() as $ivr) if ($ivr['name'] === 'Front desk') $id = $ivr['id'];",
        `core_did_add(['extension' => '${DID}', 'cidnum' => '', 'description' => 'Main line', 'goto0' => 'ivr', 'ivr0' => "ivr-$id,s,1"]);`,
        'echo "IVR=$id\\n";',
      ].join("\n"),
    );
    ivrId = Number(out.match(/IVR=(\d+)/)?.[1]);
    expect(ivrId, out).toBeGreaterThan(0);
    expect(await sql("asterisk", `SELECT destination FROM incoming WHERE extension = '${DID}'`)).toEqual([
      [`ivr-${ivrId},s,1`],
    ]);
    await fwconsoleReload();
    // The reload wrote the IVR's dialplan: options 1 and 2 go to the extensions, and the menu waits for a key in
    // WaitExten.
    const dialplan = await cli(`dialplan show ivr-${ivrId}`);
    expect(dialplan).toContain("WaitExten");
    expect(dialplan).toMatch(/'1' =>[^']*Goto\(from-did-direct,2901,1\)/);
    expect(dialplan).toMatch(/'2' =>[^']*Goto\(from-did-direct,2902,1\)/);
    for (const ext of ["2901", "2902"])
      desks[ext] = await phone({ user: ext, secret: await pbx.sipSecret(ids[ext] as number) });
  }, 300_000);

  test("pressing 2 rings 2902 and not 2901", async () => {
    expect(await choose("2")).toBe("2902");
  }, 120_000);

  test("pressing 1 rings 2901 and not 2902", async () => {
    expect(await choose("1")).toBe("2901");
  }, 120_000);
});
