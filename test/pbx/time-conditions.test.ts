/**
 * A time condition FreePBX's own code made, adopted by the console (its time group's hours and its destinations
 * the console's, by FreePBX's ids) and in the path of a DID the console routes to it, on the real FreePBX 17: the
 * console lists it as the PBX has it, and its override forced from the console changes where the next real call
 * goes at once: forced closed, the caller reaches voicemail ("after hours"); back to automatic, the time group
 * (open all week) rings both phones of the office ring group again. FreePBX's own state (AstDB `TC/<id>`) says the same, and so does the
 * routing simulator before each call, on the PBX and in the console alike (a deploy keeps the override).
 */
import { describe, expect, test } from "bun:test";
import type { SimulateAnswer } from "../../src/shared/routing";
import type { PbxTimeCondition } from "../../src/shared/time-conditions";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, freepbxPhp, sql, until } from "./testbed";

const { pbx, phone } = consoleForFile({ cdr: false });

const DID = "4445550800";

describe("a time condition on the PBX, overridden from the console", () => {
  let tcId = 0;
  let provider: Softphone;
  let office: Softphone[] = [];

  /**
   * The provider calls the DID; answers what the PBX did with the call: rang both phones of the office's ring
   * group, or answered it itself.
   */
  async function callDid(): Promise<"rang the office group" | "answered by the PBX"> {
    const since = office.map((p) => p.events.length);
    const from = provider.events.length;
    const ringing = () =>
      office.filter((p, i) => p.events.slice(since[i]).some((e) => e.type === "CALL_INCOMING")).length;
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    const first = await until("the call to ring the office phones or be answered", () => {
      if (ringing() === office.length) return "rang the office group" as const;
      if (provider.events.slice(from).some((e) => e.type === "CALL_ESTABLISHED")) return "answered by the PBX" as const;
      return undefined;
    });
    if (first === "answered by the PBX") {
      // Answered by Asterisk itself: the voicemail application holds the call, for the after-hours box.
      await until("the call to be in 2802's voicemail", async () =>
        /!VoiceMail!2802@/.test(await cli("core show channels concise")) ? true : undefined,
      );
    }
    await provider.hangup();
    await provider.waitFor("CALL_CLOSED", { since: from });
    if (first === "rang the office group")
      await Promise.all(office.map((p, i) => p.waitFor("CALL_CLOSED", { since: since[i] })));
    else expect(ringing()).toBe(0);
    return first;
  }

  /** Where the routing simulator says a call to the DID goes now, on the PBX and under the console's configuration. */
  async function simulated() {
    const res = await pbx.call("POST", "/api/routing/simulate", { did: DID, plan: true });
    expect(res.status, res.text).toBe(200);
    const answer = res.json as SimulateAnswer;
    expect(answer.live?.changed).toBe(false);
    expect(answer.final).toEqual(answer.live?.final as SimulateAnswer["final"]);
    return answer;
  }

  const listed = async (): Promise<PbxTimeCondition> => {
    const res = await pbx.call("GET", "/api/pbx/time-conditions");
    expect(res.status, res.text).toBe(200);
    const tc = res.json.items.find((t: PbxTimeCondition) => t.id === tcId);
    expect(tc).toBeDefined();
    return tc;
  };

  test("setup: FreePBX's own code makes a time group open all week and a time condition; the console adopts both and routes a DID to it", async () => {
    provider = await phone({ user: "5550800", bindAddress: "127.0.0.2" });
    await pbx.create("/api/trunks", {
      name: "provider",
      type: "sip",
      host: "127.0.0.2",
      port: provider.sipPort,
      authMode: "ip",
      providerAddresses: ["127.0.0.2"],
    });
    const ids: Record<string, number> = {};
    for (const [extension, name, voicemail] of [
      ["2801", "Front Office", false],
      ["2803", "Back Office", false],
      ["2802", "After Hours", true],
    ] as const)
      ids[extension] = (await pbx.create("/api/extensions", { extension, name, voicemail })).id;
    await pbx.create("/api/ring-groups", { number: "2800", name: "Office", members: ["2801", "2803"] });
    await pbx.deploy("all");
    // The time group and time condition as FreePBX's forms save them (matched: the office phone; not matched: the
    // after-hours mailbox).
    const out = await freepbxPhp(
      [
        "$tg = timeconditions_timegroups_add_group_timestrings('Always open', ['00:00-23:59|*|*|*']);",
        "$tc = FreePBX::Timeconditions()->addTimeCondition(['displayname' => 'Office hours', 'time' => $tg, 'timezone' => '',",
        "  'goto0' => 'ext', 'ext0' => 'from-did-direct,2801,1', 'goto1' => 'vm', 'vm1' => 'ext-local,vmu2802,1',",
        "  'invert_hint' => '0', 'fcc_password' => '', 'deptname' => '', 'mode' => 'time-group']);",
        'echo "TC=$tc\\n";',
      ].join("\n"),
    );
    tcId = Number(out.match(/TC=(\d+)/)?.[1]);
    expect(tcId).toBeGreaterThan(0);
    // The console's own time group and time condition with FreePBX's names: adopted, they are the same objects.
    const group = await pbx.create("/api/time-groups", {
      name: "Always open",
      weekly: [{ fromDay: "mon", toDay: "sun", start: "00:00", end: "23:59" }],
    });
    const tc = await pbx.create("/api/time-conditions", {
      name: "Office hours",
      timeGroup: group.id,
      match: { kind: "ring-group", target: "2800" },
      noMatch: { kind: "voicemail", target: "2802" },
    });
    await pbx.create("/api/inbound-routes", {
      description: "Main line",
      didNumber: DID,
      destinationType: "time-condition",
      destination: String(tc.id),
    });
    const plan = await pbx.plan("all");
    expect(plan.items.find((i) => i.id === "timeCondition:Office hours")).toMatchObject({
      action: "conflict",
      pbxId: String(tcId),
    });
    await pbx.deploy("all", { "timeGroup:Always open": "adopt", "timeCondition:Office hours": "adopt" });
    expect(await sql("asterisk", `SELECT destination FROM incoming WHERE extension = '${DID}'`)).toEqual([
      [`timeconditions,${tcId},1`],
    ]);
    expect(await cli(`dialplan show ${tcId}@timeconditions`)).toContain("GotoIfTime");
    office = [
      await phone({ user: "2801", secret: await pbx.sipSecret(ids["2801"] as number) }),
      await phone({ user: "2803", secret: await pbx.sipSecret(ids["2803"] as number) }),
    ];
  }, 300_000);

  test("the console lists it as the PBX has it: time group, destinations, automatic, its toggle code", async () => {
    expect(await listed()).toEqual({
      id: tcId,
      name: "Office hours",
      timeGroup: { id: expect.any(Number), name: "Always open", rules: ["00:00-23:59|mon-sun|*|*"] },
      timeZone: null,
      match: { destination: { kind: "ring-group", target: "2800" } },
      noMatch: { destination: { kind: "voicemail", target: "2802" } },
      override: "auto",
      featureCode: `*27${tcId}`,
    });
  });

  test("automatic: the time group matches and the call rings both office phones of the group, as the simulator says", async () => {
    const said = await simulated();
    expect(said.live?.final).toEqual({ kind: "ring-group", target: "2800", ringing: ["2801", "2803"] });
    expect(said.live?.steps.find((x) => x.kind === "time-condition")?.why).toMatch(
      /its time group Always open matches \(00:00-23:59\|mon-sun\|\*\|\*\)/,
    );
    expect(await callDid()).toBe("rang the office group");
  }, 120_000);

  test("forced closed from the console: FreePBX's state says so, and the next call reaches the after-hours voicemail", async () => {
    // The override goes out through the manager interface: the list says when it can.
    await until("the console's manager connection", async () =>
      (await pbx.call("GET", "/api/pbx/time-conditions")).json.overridable === true ? true : undefined,
    );
    const res = await pbx.call("PUT", `/api/pbx/time-conditions/${tcId}/override`, { state: "closed" });
    expect(res.status, res.text).toBe(200);
    expect(res.json.override).toBe("closed");
    expect((await cli(`database get TC ${tcId}`)).trim()).toBe("Value: false_sticky");
    expect((await listed()).override).toBe("closed");
    expect((await simulated()).live?.final).toEqual({ kind: "voicemail", target: "2802", ringing: [] });
    expect(await callDid()).toBe("answered by the PBX");
  }, 120_000);

  test("back to automatic: FreePBX's state is empty again and the call rings the office group again", async () => {
    const res = await pbx.call("PUT", `/api/pbx/time-conditions/${tcId}/override`, { state: "auto" });
    expect(res.status, res.text).toBe(200);
    expect((await cli(`database get TC ${tcId}`)).trim()).toMatch(/^Value:\s*$/);
    expect((await listed()).override).toBe("auto");
    expect(await callDid()).toBe("rang the office group");
  }, 120_000);

  test("an id the PBX does not have is 404; a state the console does not force is a field error", async () => {
    const missing = await pbx.call("PUT", "/api/pbx/time-conditions/999999/override", { state: "open" });
    expect(missing.status).toBe(404);
    const bad = await pbx.call("PUT", `/api/pbx/time-conditions/${tcId}/override`, { state: "open-once" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields).toEqual({ state: "State must be auto, open or closed" });
    expect((await listed()).override).toBe("auto");
  });
});
