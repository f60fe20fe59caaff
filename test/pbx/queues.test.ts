/**
 * Queues on the real FreePBX 17 and Asterisk 22: extensions, a queue with two agents and an inbound route DID →
 * queue made through the console's API go out through plan → apply with a real reload; a call from the provider
 * to the DID waits in the queue, rings the agents and is answered by one; with a short max wait and nobody
 * answering, the caller goes to the queue's timeout destination. A queue the console creates has the rows
 * FreePBX's own `queues_add()` writes for the same form; a queue made by FreePBX's own code keeps every setting
 * the console does not own when the console adopts it, and the roll back restores it exactly.
 */
import { describe, expect, test } from "bun:test";
import type { SimulateAnswer } from "../../src/shared/routing";
import { consoleForFile } from "./console";
import type { Softphone } from "./softphone";
import { cli, freepbxPhp, sql, until } from "./testbed";

const { pbx, phone } = consoleForFile({ cdr: false });

const DID = "4445550400";
const QUEUE = "2400";

/** Where the routing simulator says a call from the provider to the DID goes, on the PBX as it is now. */
async function simulated(unanswered: boolean) {
  const res = await pbx.call("POST", "/api/routing/simulate", { did: DID, unanswered, plan: true });
  expect(res.status, res.text).toBe(200);
  return res.json as SimulateAnswer;
}

/** The queue's queues_details rows as `keyword=data@flags`, sorted. */
const details = async (n: string) =>
  (await sql("asterisk", `SELECT keyword, data, flags FROM queues_details WHERE id = '${n}'`))
    .map(([k, d, f]) => `${k}=${d ?? ""}@${f}`)
    .sort();
/** Every column of the queue's queues_config row but its number, as one tab-separated line. */
const config = async (n: string) => {
  const cols = (await sql("asterisk", "SHOW COLUMNS FROM queues_config")).map((c) => c[0] as string);
  const row = (await sql("asterisk", `SELECT * FROM queues_config WHERE extension = '${n}'`))[0];
  return row ? Object.fromEntries(cols.map((c, i) => [c, row[i]]).filter(([c]) => c !== "extension")) : undefined;
};
const astdb = async (n: string) => (await cli(`database show QPENALTY/${n}`)).replace(/ +$/gm, "");

describe("a queue deployed by the console rings its agents", () => {
  const ids: Record<string, number> = {};
  let provider: Softphone;
  const phones: Record<string, Softphone> = {};

  test("deploy: a trunk to a provider, three extensions, the queue with two agents and the DID pointing at it", async () => {
    // The provider answers at its own loopback address and sends calls from there (an IP-authenticated trunk).
    provider = await phone({ user: "5550400", bindAddress: "127.0.0.2" });
    await pbx.create("/api/trunks", {
      name: "provider",
      type: "sip",
      host: "127.0.0.2",
      port: provider.sipPort,
      authMode: "ip",
      providerAddresses: ["127.0.0.2"],
    });
    for (const [ext, name] of [
      ["2401", "Quinn Queue"],
      ["2402", "Ada Agent"],
      ["2403", "Tom Timeout"],
    ] as const)
      ids[ext] = (await pbx.create("/api/extensions", { extension: ext, name })).id;
    await pbx.create("/api/queues", {
      number: QUEUE,
      name: "Help desk",
      strategy: "ringall",
      agents: ["2401", "2402"],
      maxWait: 0,
      timeoutDestination: { kind: "extension", target: "2403" },
    });
    await pbx.create("/api/inbound-routes", {
      description: "Help desk line",
      didNumber: DID,
      destinationType: "queue",
      destination: QUEUE,
    });
    const plan = await pbx.plan("all");
    const order = plan.items.map((i) => i.id);
    expect(order.indexOf(`queue:${QUEUE}`)).toBeGreaterThan(order.indexOf("extension:2403"));
    expect(order.indexOf(`queue:${QUEUE}`)).toBeLessThan(order.indexOf(`inboundRoute:${DID}`));
    await pbx.deploy("all");

    expect(
      await sql("asterisk", `SELECT descr, maxwait, dest FROM queues_config WHERE extension = '${QUEUE}'`),
    ).toEqual([["Help desk", "", "from-did-direct,2403,1"]]);
    expect((await details(QUEUE)).filter((d) => /^(strategy|member)=/.test(d))).toEqual([
      "member=Local/2401@from-queue/n,0@0",
      "member=Local/2402@from-queue/n,0@1",
      "strategy=ringall@0",
    ]);
    expect(await sql("asterisk", `SELECT destination FROM incoming WHERE extension = '${DID}'`)).toEqual([
      [`ext-queues,${QUEUE},1`],
    ]);
    expect((await cli(`database get QPENALTY/${QUEUE} dynmemberonly`)).trim()).toBe("Value: no");
    expect(await cli(`dialplan show ${QUEUE}@ext-queues`)).toContain(`'${QUEUE}' =>`);
    // Asterisk's app_queue loaded the queue FreePBX generated, with both static agents.
    const shown = await cli(`queue show ${QUEUE}`);
    expect(shown).toContain("ringall");
    expect(shown).toContain("Local/2401@from-queue/n");
    expect(shown).toContain("Local/2402@from-queue/n");
  }, 300_000);

  test("a call to the DID waits in the queue and rings the agents; the one who answers talks with the caller", async () => {
    // The simulator's answer for the same call, read from the PBX: the queue, ringing both agents.
    const said = await simulated(false);
    expect(said.live?.changed).toBe(false);
    expect(said.live?.final).toEqual({ kind: "queue", target: QUEUE, ringing: ["2401", "2402"] });
    for (const ext of ["2401", "2402", "2403"])
      phones[ext] = await phone({ user: ext, secret: await pbx.sipSecret(ids[ext] as number) });
    const since = Object.fromEntries(Object.entries(phones).map(([k, p]) => [k, p.events.length]));
    const from = provider.events.length;
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    // The queue answers the caller (music while waiting) and rings every agent: ring all.
    await provider.waitFor("CALL_ESTABLISHED", { since: from });
    await Promise.all(["2401", "2402"].map((ext) => phones[ext]?.waitFor("CALL_INCOMING", { since: since[ext] })));
    expect(phones["2403"]?.events.slice(since["2403"]).some((e) => e.type === "CALL_INCOMING")).toBe(false);
    await phones["2402"]?.accept();
    await phones["2402"]?.waitFor("CALL_ESTABLISHED", { since: since["2402"] });
    // The other agent stops ringing; the queue shows the caller handed to 2402.
    await phones["2401"]?.waitFor("CALL_CLOSED", { since: since["2401"] });
    await until("the queue to show the agent on the call", async () =>
      /Local\/2402@from-queue\/n.*\((in call|In use|Busy)\)/i.test(await cli(`queue show ${QUEUE}`)) ? true : undefined,
    );
    // The caller hangs up: the agent's call ends with it (they were bridged).
    await provider.hangup();
    await phones["2402"]?.waitFor("CALL_CLOSED", { since: since["2402"] });
    expect(phones["2403"]?.events.slice(since["2403"]).some((e) => e.type === "CALL_INCOMING")).toBe(false);
  }, 120_000);

  test("with a short max wait and no agent answering, the caller goes to the timeout destination", async () => {
    const [q] = (await pbx.call("GET", "/api/queues")).json;
    const edit = await pbx.call("PATCH", `/api/queues/${q.id}`, { maxWait: 5 });
    expect(edit.status, edit.text).toBe(200);
    await pbx.deploy("queues");
    expect(await sql("asterisk", `SELECT maxwait FROM queues_config WHERE extension = '${QUEUE}'`)).toEqual([["5"]]);
    // Unanswered, the simulator follows the queue's timeout to 2403, where the real call goes below.
    const said = await simulated(true);
    expect(said.live?.steps.map((x) => `${x.kind}:${x.target}`).slice(2)).toEqual([`queue:${QUEUE}`, "extension:2403"]);

    const since = Object.fromEntries(Object.entries(phones).map(([k, p]) => [k, p.events.length]));
    const from = provider.events.length;
    await provider.dial(`sip:${DID}@${pbx.env.sipHost}:${pbx.env.sipPort}`);
    await provider.waitFor("CALL_ESTABLISHED", { since: from });
    await Promise.all(["2401", "2402"].map((ext) => phones[ext]?.waitFor("CALL_INCOMING", { since: since[ext] })));
    // Nobody answers: after the 5 s max wait the queue stops ringing the agents and sends the caller to 2403.
    const timedOut = await phones["2403"]?.waitFor("CALL_INCOMING", { since: since["2403"], ms: 30_000 });
    expect(timedOut).toBeDefined();
    await Promise.all(["2401", "2402"].map((ext) => phones[ext]?.waitFor("CALL_CLOSED", { since: since[ext] })));
    await phones["2403"]?.accept();
    await phones["2403"]?.waitFor("CALL_ESTABLISHED", { since: since["2403"] });
    await provider.hangup();
    await phones["2403"]?.waitFor("CALL_CLOSED", { since: since["2403"] });
  }, 120_000);
});

/** FreePBX's form as it opens for a new queue: the request `queues_add()` reads its other settings from. */
const FORM_DEFAULTS = `$_REQUEST = ['action' => 'add', 'maxlen' => '0', 'joinempty' => 'yes', 'leavewhenempty' => 'no',
  'strategy' => 'ringall', 'timeout' => '15', 'retry' => '5', 'wrapuptime' => '0', 'announcefreq' => '0',
  'min-announce' => '15', 'announceholdtime' => 'no', 'announceposition' => 'no', 'pannouncefreq' => '0',
  'recording' => 'dontcare', 'weight' => '0', 'autofill' => '', 'reportholdtime' => 'no', 'autopause' => 'no',
  'autopausedelay' => '0', 'servicelevel' => '60', 'memberdelay' => '0', 'timeoutrestart' => 'no',
  'answered_elsewhere' => '0', 'timeoutpriority' => 'app', 'penaltymemberslimit' => '0', 'rvolume' => '0',
  'rvol_mode' => 'dontcare', 'autopausebusy' => 'no', 'autopauseunavail' => 'no', 'cron_schedule' => 'never',
  'cron_random' => 'false', 'music' => 'inherit', 'announcemenu' => 'none', 'callback' => 'none'];`;

describe("queues FreePBX's own code made", () => {
  test("a queue the console creates has the rows queues_add() writes for FreePBX's form as it opens", async () => {
    // FreePBX's form saved with its defaults (the parameters as Queues::doConfigPageInit passes them).
    await freepbxPhp(
      `${FORM_DEFAULTS}\nqueues_add('2420', 'Form queue', '', '', 'from-did-direct,2403,1', '', ['Local/2401@from-queue/n,0', 'Local/2402@from-queue/n,0'], '', '45', '', '0', '', '0', '0', [''], 'no', 0, '0', '', '', '', '0', '0', '0');`,
    );
    await pbx.create("/api/queues", {
      number: "2421",
      name: "Form queue",
      agents: ["2401", "2402"],
      maxWait: 45,
      timeoutDestination: { kind: "extension", target: "2403" },
    });
    await pbx.deploy("queues");
    expect(await config("2421")).toEqual(await config("2420"));
    expect(await details("2421")).toEqual(await details("2420"));
    expect((await astdb("2421")).replaceAll("2421", "N")).toBe((await astdb("2420")).replaceAll("2420", "N"));
  }, 300_000);

  test("adopted by the console, a queue keeps every setting the console does not own; the roll back restores it", async () => {
    const FOREIGN = "2410";
    // queues_add() as FreePBX's form calls it for a queue set up with settings the console does not model: a
    // password and CID prefix, music and agent ringing, longer agent timeout and retry, wrap-up, announcements,
    // skipping busy agents, a static agent with a penalty, and a dynamic agent allowed alone.
    await freepbxPhp(
      `$_REQUEST = ['action' => 'add', 'strategy' => 'rrmemory', 'timeout' => '30', 'retry' => '10', 'wrapuptime' => '20',
        'maxlen' => '5', 'joinempty' => 'strict', 'leavewhenempty' => 'yes', 'announcefreq' => '30', 'min-announce' => '15',
        'announceholdtime' => 'yes', 'announceposition' => 'yes', 'pannouncefreq' => '0', 'recording' => 'force',
        'weight' => '3', 'autofill' => '1', 'reportholdtime' => 'yes', 'servicelevel' => '120', 'memberdelay' => '1',
        'timeoutrestart' => 'yes', 'timeoutpriority' => 'conf', 'rvolume' => '5', 'rvol_mode' => 'force',
        'cron_schedule' => 'never', 'cron_random' => 'false', 'music' => 'default', 'rtone' => '2'];
      queues_add('${FOREIGN}', 'GUI Help', '1234', 'HELP:', 'app-blackhole,busy,1', '', ['Local/2401@from-queue/n,2', 'Local/2402@from-queue/n,0'], '', '120', '', '1', '', '1', '0', ['2403,1'], 'yes', 0, '0', '', '', '', '0', '0', '1');`,
    );
    const configBefore = await config(FOREIGN);
    const detailsBefore = await details(FOREIGN);
    expect(configBefore).toMatchObject({ descr: "GUI Help", grppre: "HELP:", password: "1234", ringing: "2" });
    const astdbBefore = await astdb(FOREIGN);
    expect(astdbBefore).toContain("dynmemberonly");
    expect(astdbBefore).toContain("agents/2403");

    await pbx.create("/api/queues", {
      number: FOREIGN,
      name: "Help",
      strategy: "ringall",
      agents: ["2401", "2403"],
      maxWait: 60,
      timeoutDestination: { kind: "extension", target: "2402" },
    });
    const plan = await pbx.call("POST", "/api/deploy/plan", { target: "queues" });
    expect(plan.status, plan.text).toBe(200);
    const item = plan.json.items.find((i: { id: string }) => i.id === `queue:${FOREIGN}`);
    expect(item?.action).toBe("conflict");
    const res = await pbx.call("POST", "/api/deploy/apply", {
      target: "queues",
      fingerprint: plan.json.fingerprint,
      resolutions: { [`queue:${FOREIGN}`]: "adopt" },
    });
    expect(res.status, res.text).toBe(202);
    const job = await pbx.finished(res.json.jobId);
    expect(job.state, JSON.stringify(job, null, 1)).toBe("succeeded");

    // The owned columns and rows are the console's; every other column, row and AstDB key is FreePBX's.
    expect(await config(FOREIGN)).toEqual({
      ...configBefore,
      descr: "Help",
      maxwait: "60",
      dest: "from-did-direct,2402,1",
    });
    expect(await details(FOREIGN)).toEqual(
      [
        ...detailsBefore.filter((d) => !/^(strategy|member)=/.test(d)),
        "strategy=ringall@0",
        "member=Local/2401@from-queue/n,0@0",
        "member=Local/2403@from-queue/n,0@1",
      ].sort(),
    );
    expect(await astdb(FOREIGN)).toBe(astdbBefore);
    const shown = await cli(`queue show ${FOREIGN}`);
    expect(shown).toContain("ringall");
    expect(shown).toContain("Local/2403@from-queue/n");

    // The roll back puts the rows back exactly.
    const history = (await pbx.call("GET", "/api/deploy/history")).json;
    const last = (history.items ?? history).find((h: { backup?: { restorable: boolean } }) => h.backup?.restorable);
    expect(last.backup.objects).toContain(`queue ${FOREIGN}`);
    const rb = await pbx.call("POST", `/api/deploy/history/${last.backup.id}/rollback`, {});
    expect(rb.status, rb.text).toBe(202);
    const rolled = await pbx.finished(rb.json.jobId);
    expect(rolled.state, JSON.stringify(rolled, null, 1)).toBe("succeeded");
    expect(await config(FOREIGN)).toEqual(configBefore);
    expect(await details(FOREIGN)).toEqual(detailsBefore);
    expect(await astdb(FOREIGN)).toBe(astdbBefore);
  }, 300_000);
});
