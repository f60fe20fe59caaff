/**
 * Ring groups and queues FreePBX's own code made, imported into the console through the Sync screen's API
 * on the real FreePBX 17: the review says what each import does (in the order the job writes, refusals in
 * the console's own words), the job does exactly that, and the console then holds them as the PBX has them:
 * its next deployment changes nothing on the PBX.
 */
import { describe, expect, test } from "bun:test";
import { consoleForFile } from "./console";
import { freepbxPhp, sql } from "./testbed";

const { pbx } = consoleForFile({ ami: false, cdr: false });

/** Every row FreePBX keeps of these ring groups and queues, one line each: what "unchanged" is checked on. */
async function pbxRows(): Promise<string[]> {
  const lines = async (q: string) => (await sql("asterisk", q)).map((r) => r.join("\t"));
  return [
    ...(await lines("SELECT * FROM ringgroups WHERE grpnum LIKE '27%' ORDER BY grpnum")),
    ...(await lines("SELECT * FROM queues_config WHERE extension LIKE '27%' ORDER BY extension")),
    ...(await lines(
      "SELECT id, keyword, data, flags FROM queues_details WHERE id LIKE '27%' ORDER BY id, keyword, data",
    )),
  ];
}

interface PlanItem {
  key: string;
  kind: string;
  action: string;
  reason?: string;
  adopt: boolean;
  changes: { field: string; from: string | null; to: string | null }[];
}

describe("ring groups and queues FreePBX's own code made", () => {
  let before: string[];

  test("setup: the console's extensions on the PBX; FreePBX's form code adds two chained ring groups, one the console cannot hold, and a queue", async () => {
    for (const [extension, name] of [
      ["2701", "Ivy Import"],
      ["2702", "Jack Import"],
      ["2703", "Kim Import"],
    ] as const)
      await pbx.create("/api/extensions", { extension, name });
    await pbx.deploy("extensions");
    // Ringgroups::add() and queues_add() as FreePBX's forms call them, with settings the console does not model.
    await freepbxPhp(
      [
        "FreePBX::Ringgroups()->add('2711', 'ringall', 20, '2701-2702', 'ext-group,2712,1', 'Front desk', 'FD:', 0, '', '', 0, 0, 'default', '', '', 'default', '', '', 'dontcare', 'no', 'always', '');",
        "FreePBX::Ringgroups()->add('2712', 'hunt', 15, '2703-5551234#', 'ext-local,vmu2701,1', 'Back office', '', 0, '', '', 0, 0, 'default', '', '', 'default', '', '', 'dontcare', 'no', 'always', '');",
        "FreePBX::Ringgroups()->add('2710', 'ringall', 20, '2701', 'app-blackhole,busy,1', 'Busy line', '', 0, '', '', 0, 0, 'default', '', '', 'default', '', '', 'dontcare', 'no', 'always', '');",
        // The queue form's fields (queues_add reads them from the request), with a strategy and wrap-up of its own.
        "$_REQUEST = ['action' => 'add', 'maxlen' => '0', 'joinempty' => 'yes', 'leavewhenempty' => 'no', 'strategy' => 'rrmemory', 'timeout' => '30', 'retry' => '10', 'wrapuptime' => '20', 'announcefreq' => '0', 'min-announce' => '15', 'announceholdtime' => 'no', 'announceposition' => 'no', 'pannouncefreq' => '0', 'recording' => 'dontcare', 'weight' => '0', 'autofill' => '', 'reportholdtime' => 'no', 'autopause' => 'no', 'autopausedelay' => '0', 'servicelevel' => '60', 'memberdelay' => '0', 'timeoutrestart' => 'no', 'answered_elsewhere' => '0', 'timeoutpriority' => 'app', 'penaltymemberslimit' => '0', 'rvolume' => '0', 'rvol_mode' => 'dontcare', 'autopausebusy' => 'no', 'autopauseunavail' => 'no', 'cron_schedule' => 'never', 'cron_random' => 'false', 'music' => 'inherit', 'announcemenu' => 'none', 'callback' => 'none'];",
        "queues_add('2720', 'Help desk', '', 'HELP:', 'from-did-direct,2703,1', '', ['Local/2701@from-queue/n,0', 'Local/2702@from-queue/n,0'], '', '45', '', '0', '', '0', '0', [''], 'no', 0, '0', '', '', '', '0', '0', '0');",
      ].join("\n"),
    );
    before = await pbxRows();
    expect(before.filter((l) => l.startsWith("27"))).not.toHaveLength(0);
  }, 300_000);

  test("the Sync comparison lists them as not in the console", async () => {
    const groups = await pbx.call("GET", "/api/sync/ring-groups/compare");
    expect(groups.status, groups.text).toBe(200);
    expect(groups.json.via).toBe("ssh");
    const mine = groups.json.comparison.filter((r: { number: string }) => r.number.startsWith("27"));
    expect(mine).toEqual(
      ["2710", "2711", "2712"].map((number) => ({
        number,
        inDashboard: false,
        needsSync: false,
        freepbx: { name: { "2710": "Busy line", "2711": "Front desk", "2712": "Back office" }[number] },
        dashboard: { name: null },
      })),
    );
    const queues = await pbx.call("GET", "/api/sync/queues/compare");
    expect(queues.status, queues.text).toBe(200);
    expect(queues.json.comparison.find((r: { number: string }) => r.number === "2720")).toMatchObject({
      inDashboard: false,
      freepbx: { name: "Help desk" },
    });
  });

  test("the review: a ring group another one sends calls to comes first; one with a destination the console cannot hold is refused; nothing is stored", async () => {
    const res = await pbx.call("POST", "/api/sync/ring-groups/plan", { mode: "all" });
    expect(res.status, res.text).toBe(200);
    const items = (res.json.items as PlanItem[]).filter((i) => i.key.startsWith("27"));
    expect(items.map((i) => [i.key, i.action])).toEqual([
      ["2710", "refused"],
      ["2712", "create"],
      ["2711", "create"],
    ]);
    expect(items[0]?.reason).toBe(
      "2710 - Busy line: Its no-answer destination (app-blackhole,busy,1) is not a destination the console holds",
    );
    expect(items[1]?.changes).toEqual([
      { field: "name", from: null, to: "Back office" },
      { field: "strategy", from: null, to: "hunt" },
      { field: "ringTime", from: null, to: "15" },
      { field: "members", from: null, to: "2703, 5551234#" },
      { field: "noAnswer", from: null, to: expect.stringContaining("2701") },
    ]);
    expect(items[2]?.adopt).toBe(true);
    // The plan tried the writes and kept none of them.
    expect((await pbx.call("GET", "/api/ring-groups")).json).toEqual([]);
  });

  test("the import writes exactly the reviewed selection, and the console then holds them as the PBX has them", async () => {
    const selection = { mode: "selected", ringGroups: ["2711", "2712"] };
    const plan = await pbx.call("POST", "/api/sync/ring-groups/plan", selection);
    expect(plan.status, plan.text).toBe(200);
    const started = await pbx.call("POST", "/api/sync/ring-groups/import", {
      ...selection,
      fingerprint: plan.json.fingerprint,
    });
    expect(started.status, started.text).toBe(202);
    const job = await pbx.finished(started.json.jobId);
    expect(job.state, JSON.stringify(job, null, 1)).toBe("succeeded");
    expect(job.summary).toMatchObject({ created: 2, updated: 0, failed: 0 });

    const groups = (await pbx.call("GET", "/api/ring-groups")).json;
    expect(
      groups.map((g: Record<string, unknown>) => [g.number, g.name, g.strategy, g.ringTime, g.members, g.noAnswer]),
    ).toEqual([
      ["2711", "Front desk", "ringall", 20, ["2701", "2702"], { kind: "ring-group", target: "2712" }],
      ["2712", "Back office", "hunt", 15, ["2703", "5551234#"], { kind: "voicemail", target: "2701" }],
    ]);

    const queuePlan = await pbx.call("POST", "/api/sync/queues/plan", { mode: "selected", queues: ["2720"] });
    expect(queuePlan.status, queuePlan.text).toBe(200);
    const queueJob = await pbx.finished(
      (
        await pbx.call("POST", "/api/sync/queues/import", {
          mode: "selected",
          queues: ["2720"],
          fingerprint: queuePlan.json.fingerprint,
        })
      ).json.jobId,
    );
    expect(queueJob.state, JSON.stringify(queueJob, null, 1)).toBe("succeeded");
    const queues = (await pbx.call("GET", "/api/queues")).json;
    expect(queues).toEqual([
      expect.objectContaining({
        number: "2720",
        name: "Help desk",
        strategy: "rrmemory",
        agents: ["2701", "2702"],
        maxWait: 45,
        timeoutDestination: { kind: "extension", target: "2703" },
      }),
    ]);

    // Now in step: the comparison says so, and a second review has nothing to do.
    const compared = (await pbx.call("GET", "/api/sync/ring-groups/compare")).json.comparison;
    expect(compared.find((r: { number: string }) => r.number === "2711")).toMatchObject({
      inDashboard: true,
      needsSync: false,
    });
    const again = await pbx.call("POST", "/api/sync/ring-groups/plan", selection);
    expect(again.json.items.map((i: PlanItem) => [i.key, i.action, i.adopt])).toEqual([
      ["2712", "unchanged", false],
      ["2711", "unchanged", false],
    ]);
  }, 300_000);

  test("the console's next deployment of them changes nothing on the PBX", async () => {
    for (const target of ["ring-groups", "queues"] as const) {
      const plan = await pbx.plan(target);
      const mine = plan.items.filter((i) => i.key.startsWith("27"));
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.map((i) => [i.key, i.action])).toEqual(mine.map((i) => [i.key, "unchanged"]));
    }
    await pbx.deploy("ring-groups");
    await pbx.deploy("queues");
    expect(await pbxRows()).toEqual(before);
  }, 300_000);
});
