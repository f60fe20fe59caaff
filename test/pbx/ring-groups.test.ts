/**
 * Ring groups on the real FreePBX 17 and Asterisk 22: extensions, a ring group (ring all) and an inbound route
 * DID → ring group made through the console's API go out through plan → apply with a real reload; a call from
 * the provider to the DID rings BOTH members' softphones; a call nobody answers goes, after the group's ring
 * time, to its no-answer destination. A ring group made by FreePBX's own `Ringgroups::add()` keeps every
 * setting the console does not own when the console adopts it, and the roll back restores it exactly.
 */
import { describe, expect, test } from "bun:test";
import type { SimulateAnswer } from "../../src/shared/routing";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, freepbxPhp, sql } from "./testbed";

const { pbx, phone } = consoleForFile({ cdr: false });

const DID = "4445550600";
const GROUP = "2300";

/** The routing simulator's answer for a call from the provider to the DID. */
async function simulate(extra: Record<string, unknown> = {}): Promise<SimulateAnswer> {
  const res = await pbx.call("POST", "/api/routing/simulate", { did: DID, callerId: "5550600", ...extra });
  expect(res.status, res.text).toBe(200);
  return res.json as SimulateAnswer;
}

describe("a ring group deployed by the console rings its members", () => {
  const ids: Record<string, number> = {};
  let provider: Softphone;
  const members: Record<string, Softphone> = {};

  test("deploy: a trunk to a provider, three extensions, the ring group and the DID pointing at it", async () => {
    // The provider answers at its own loopback address and sends calls from there (an IP-authenticated trunk).
    provider = await phone({ user: "5550600", bindAddress: "127.0.0.2" });
    await pbx.create("/api/trunks", {
      name: "provider",
      type: "sip",
      host: "127.0.0.2",
      port: provider.sipPort,
      authMode: "ip",
      providerAddresses: ["127.0.0.2"],
    });
    for (const [ext, name] of [
      ["2301", "Rita Ring"],
      ["2302", "Sam Second"],
      ["2303", "Olga Overflow"],
    ] as const)
      ids[ext] = (await pbx.create("/api/extensions", { extension: ext, name })).id;
    await pbx.create("/api/ring-groups", {
      number: GROUP,
      name: "Front desk",
      strategy: "ringall",
      ringTime: 6,
      members: ["2301", "2302"],
      noAnswer: { kind: "extension", target: "2303" },
    });
    await pbx.create("/api/inbound-routes", {
      description: "Front desk line",
      didNumber: DID,
      destinationType: "ring-group",
      destination: GROUP,
    });
    const plan = await pbx.plan("all");
    // The review names the DID this deploy reroutes: nowhere on the PBX now, the group's phones after.
    expect(plan.calls?.find((c) => c.did === DID)).toMatchObject({
      unanswered: false,
      now: { final: { kind: "hangup" } },
      after: { final: { kind: "ring-group", target: GROUP, ringing: ["2301", "2302"] } },
    });
    const order = plan.items.map((i) => i.id);
    expect(order.indexOf(`ringGroup:${GROUP}`)).toBeGreaterThan(order.indexOf("extension:2303"));
    expect(order.indexOf(`ringGroup:${GROUP}`)).toBeLessThan(order.indexOf(`inboundRoute:${DID}`));
    // The simulator tells the two apart before the deploy: the PBX has no route for the DID yet.
    const before = await simulate({ plan: true });
    expect(before.final).toEqual({ kind: "ring-group", target: GROUP, ringing: ["2301", "2302"] });
    expect(before.live?.changed).toBe(true);
    expect(before.live?.final).toEqual({ kind: "hangup", target: "", ringing: [] });
    await pbx.deploy("all");
    // After it, the PBX routes the DID as the console does.
    const after = await simulate({ plan: true });
    expect(after.live?.changed).toBe(false);
    expect(after.live?.final).toEqual({ kind: "ring-group", target: GROUP, ringing: ["2301", "2302"] });
    expect((await pbx.plan("all")).calls?.some((c) => c.did === DID)).toBe(false);

    expect(
      await sql("asterisk", `SELECT strategy, grptime, grplist, postdest FROM ringgroups WHERE grpnum = '${GROUP}'`),
    ).toEqual([["ringall", "6", "2301-2302", "from-did-direct,2303,1"]]);
    expect(await sql("asterisk", `SELECT destination FROM incoming WHERE extension = '${DID}'`)).toEqual([
      [`ext-group,${GROUP},1`],
    ]);
    expect((await cli(`database get RINGGROUP/${GROUP} changecid`)).trim()).toBe("Value: default");
    expect(await cli(`dialplan show ${GROUP}@ext-group`)).toContain(`'${GROUP}' =>`);
  }, 300_000);

  test("a call to the DID rings both members at once, as the simulator says; the first to answer takes it", async () => {
    const said = await simulate();
    expect(said.final.ringing).toEqual(["2301", "2302"]);
    for (const ext of ["2301", "2302", "2303"])
      members[ext] = await phone({ user: ext, secret: await pbx.sipSecret(ids[ext] as number) });
    const since = Object.fromEntries(Object.entries(members).map(([k, p]) => [k, p.events.length]));
    const from = provider.events.length;
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    // Both ring while the call waits: ring all.
    await Promise.all(["2301", "2302"].map((ext) => members[ext]?.waitFor("CALL_INCOMING", { since: since[ext] })));
    expect(members["2303"]?.events.slice(since["2303"]).some((e) => e.type === "CALL_INCOMING")).toBe(false);
    await members["2302"]?.accept();
    await provider.waitFor("CALL_ESTABLISHED", { since: from });
    await members["2301"]?.waitFor("CALL_CLOSED", { since: since["2301"] });
    await provider.hangup();
    await members["2302"]?.waitFor("CALL_CLOSED", { since: since["2302"] });
  }, 120_000);

  test("a call nobody in the group answers goes to its no-answer destination after the ring time", async () => {
    const since = Object.fromEntries(Object.entries(members).map(([k, p]) => [k, p.events.length]));
    const from = provider.events.length;
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    await Promise.all(["2301", "2302"].map((ext) => members[ext]?.waitFor("CALL_INCOMING", { since: since[ext] })));
    // Nobody answers: after the 6 s ring time the group stops ringing them and the call goes to 2303, the
    // path the simulator follows for an unanswered call.
    const said = await simulate({ unanswered: true, plan: true });
    expect(said.live?.steps.map((x) => `${x.kind}:${x.target}`)).toEqual([
      `trunk:${DID}`,
      `inbound-route:${DID}`,
      `ring-group:${GROUP}`,
      "extension:2303",
    ]);
    const overflow = await members["2303"]?.waitFor("CALL_INCOMING", { since: since["2303"], ms: 30_000 });
    expect(overflow).toBeDefined();
    await Promise.all(["2301", "2302"].map((ext) => members[ext]?.waitFor("CALL_CLOSED", { since: since[ext] })));
    await members["2303"]?.accept();
    await provider.waitFor("CALL_ESTABLISHED", { since: from });
    await provider.hangup();
    await members["2303"]?.waitFor("CALL_CLOSED", { since: since["2303"] });
  }, 120_000);

  test("a DID no route takes that is an extension's number rings that extension, as the simulator says", async () => {
    const said = await simulate({ did: "2303", plan: true });
    expect(said.live?.steps[1]?.label).toBe("No inbound route: the DID is an extension's number");
    expect(said.live?.final).toEqual({ kind: "extension", target: "2303", ringing: ["2303"] });
    const since = members["2303"]?.events.length;
    await provider.dial(`sip:2303@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    await members["2303"]?.waitFor("CALL_INCOMING", { since });
    await provider.hangup();
    await members["2303"]?.waitFor("CALL_CLOSED", { since });
  }, 120_000);
});

describe("a ring group FreePBX's own code made", () => {
  const FOREIGN = "2310";
  /** Every column of the group's row, as one tab-separated line. */
  const row = async () => (await sql("asterisk", `SELECT * FROM ringgroups WHERE grpnum = '${FOREIGN}'`))[0];

  test("adopted by the console, it keeps every setting the console does not own; the roll back restores it", async () => {
    // Ringgroups::add() as FreePBX's form calls it: a CID prefix, an announcement, confirm calls, music instead
    // of ringing, call-waiting and call-forward handling, recording, and a fixed caller ID in AstDB.
    await freepbxPhp(
      `FreePBX::Ringgroups()->add('${FOREIGN}', 'hunt', 40, '2301-5559999#', 'app-blackhole,busy,1', 'GUI Sales', 'SALES:', 0, '', 'CHECKED', 0, 0, 'default', 'CHECKED', 'CHECKED', 'fixed', '5550000', 'CHECKED', 'force', 'no', 'always', '');`,
    );
    const before = await row();
    expect(before).toBeDefined();
    const astdbBefore = (await cli(`database show RINGGROUP/${FOREIGN}`)).replace(/ +$/gm, "");
    expect(astdbBefore).toContain("fixed");

    await pbx.create("/api/ring-groups", {
      number: FOREIGN,
      name: "Sales",
      strategy: "ringall",
      ringTime: 20,
      members: ["2301", "2302"],
    });
    const plan = await pbx.plan("ring-groups");
    const item = plan.items.find((i) => i.id === `ringGroup:${FOREIGN}`);
    expect(item?.action).toBe("conflict");
    const res = await pbx.call("POST", "/api/deploy/apply", {
      target: "ring-groups",
      fingerprint: plan.fingerprint,
      resolutions: { [`ringGroup:${FOREIGN}`]: "adopt" },
    });
    expect(res.status, res.text).toBe(202);
    const job = await pbx.finished(res.json.jobId);
    expect(job.state, JSON.stringify(job, null, 1)).toBe("succeeded");

    // The owned columns are the console's; every other column is byte for byte FreePBX's.
    const cols = (await sql("asterisk", "SHOW COLUMNS FROM ringgroups")).map((c) => c[0] as string);
    const after = await row();
    const owned = new Set(["strategy", "grptime", "grplist", "description", "postdest"]);
    const value = (r: string[] | undefined, c: string) => r?.[cols.indexOf(c)];
    for (const c of cols.filter((x) => !owned.has(x))) expect([c, value(after, c)]).toEqual([c, value(before, c)]);
    expect(value(after, "grppre")).toBe("SALES:");
    expect([
      value(after, "strategy"),
      value(after, "grptime"),
      value(after, "grplist"),
      value(after, "postdest"),
    ]).toEqual(["ringall", "20", "2301-2302", ""]);
    // Its caller-ID mode in AstDB is FreePBX's: left as it was.
    expect((await cli(`database show RINGGROUP/${FOREIGN}`)).replace(/ +$/gm, "")).toBe(astdbBefore);

    // The roll back puts the row back exactly.
    const history = (await pbx.call("GET", "/api/deploy/history")).json;
    const last = (history.items ?? history).find((h: { backup?: { restorable: boolean } }) => h.backup?.restorable);
    expect(last.backup.objects).toContain(`ring group ${FOREIGN}`);
    const rb = await pbx.call("POST", `/api/deploy/history/${last.backup.id}/rollback`, {});
    expect(rb.status, rb.text).toBe(202);
    const rolled = await pbx.finished(rb.json.jobId);
    expect(rolled.state, JSON.stringify(rolled, null, 1)).toBe("succeeded");
    expect(await row()).toEqual(before);
    expect((await cli(`database show RINGGROUP/${FOREIGN}`)).replace(/ +$/gm, "")).toBe(astdbBefore);
  }, 300_000);
});
