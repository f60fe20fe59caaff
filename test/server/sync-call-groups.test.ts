// The plan of a ring-group or queue import over the console's own database, from rows as the PBX read gives
// them: the order the job writes (an object another one sends calls to first), refusals in the console's own
// words, unchanged objects, and a plan that keeps none of the writes it tried.
import { describe, expect, test } from "bun:test";
import { type PbxQueue, type PbxRingGroup, planCallGroupsImport } from "../../src/server/pbx/sync/call-groups";
import { signedInServer } from "../helpers/server";

const s = signedInServer({
  clean: ["queues", "ring_groups", "inbound_routes", "ptt_groups", "extensions", "pbx_objects"],
});

const group = (number: string, over: Partial<PbxRingGroup> = {}): PbxRingGroup => ({
  number,
  name: `Group ${number}`,
  strategy: "ringall",
  ringTime: 20,
  members: ["1001"],
  noAnswer: "",
  ...over,
});

async function extension(n: string) {
  const r = await s.call("POST", "/api/extensions", { extension: n, name: `Ext ${n}` });
  expect(r.status, r.text).toBe(201);
}

const plan = (rows: PbxRingGroup[], selected?: string[]) =>
  planCallGroupsImport(
    s.app,
    "ringGroup",
    rows,
    selected ? { mode: "selected", ringGroups: selected } : { mode: "all", ringGroups: [] },
  );
const count = (table: string) => (s.db.$client.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe("planning a ring-group import", () => {
  test("a chain is written target first; a cycle cannot be imported, and nothing tried is kept", async () => {
    await extension("1001");
    const entries = plan([
      group("600", { noAnswer: "ext-group,601,1" }),
      group("601", { noAnswer: "ext-group,602,1" }),
      group("602", { noAnswer: "ext-local,vmu1001,1" }),
      group("700", { noAnswer: "ext-group,701,1" }),
      group("701", { noAnswer: "ext-group,700,1" }),
    ]);
    expect(entries.map((e) => [e.number, e.action])).toEqual([
      ["602", "create"],
      ["601", "create"],
      ["600", "create"],
      ["701", "refused"],
      ["700", "refused"],
    ]);
    // 701 comes first and meets a 700 not there; 700 then meets the 701 just refused.
    expect(entries[3]?.reason).toBe("701 - Group 701: Ring group 700 does not exist");
    expect(entries[4]?.reason).toBe("700 - Group 700: Ring group 701 does not exist");
    expect(count("ring_groups")).toBe(0);
  });

  test("the console's own rules refuse what it cannot hold, each in its own words", async () => {
    await extension("1001");
    const entries = plan([
      group("610", { members: ["1001", "1099"] }),
      group("611", { strategy: "ringall-weird" }),
      group("612", { noAnswer: "custom-app,s,1" }),
      group("1001"),
      group("613", { members: ["1001", "5551234#"], noAnswer: "app-blackhole,hangup,1" }),
    ]);
    const byNumber = Object.fromEntries(entries.map((e) => [e.number, e]));
    expect(byNumber["610"]?.reason).toStartWith("610 - Group 610: Not existing extension(s): 1099");
    expect(byNumber["611"]?.action).toBe("refused");
    expect(byNumber["612"]?.reason).toBe(
      "612 - Group 612: Its no-answer destination (custom-app,s,1) is not a destination the console holds",
    );
    expect(byNumber["1001"]?.reason).toBe("1001 - Group 1001: 1001 is already an extension");
    expect(byNumber["613"]).toMatchObject({ action: "create", input: { noAnswer: { kind: "hangup", target: "" } } });
    expect(count("ring_groups")).toBe(0);
  });

  test("one the console holds as the PBX has it is unchanged; a difference is an update field by field; a selection not on the PBX is refused", async () => {
    await extension("1001");
    await extension("1002");
    const made = await s.call("POST", "/api/ring-groups", {
      number: "620",
      name: "Group 620",
      strategy: "ringall",
      ringTime: 20,
      members: ["1001"],
    });
    expect(made.status, made.text).toBe(201);
    const entries = plan(
      [group("620"), group("621", { members: ["1001", "1002"], strategy: "hunt" })],
      ["620", "621", "699"],
    );
    expect(entries.map((e) => [e.number, e.action])).toEqual([
      ["620", "unchanged"],
      ["621", "create"],
      ["699", "refused"],
    ]);
    expect(entries[2]?.reason).toBe("Ring group 699 is not on the PBX (any more)");
    const changed = plan([group("620", { ringTime: 30, members: ["1002", "1001"] })]);
    expect(changed[0]).toMatchObject({ action: "update", consoleId: made.json.id });
    expect(changed[0]?.raw).toEqual([
      { field: "ringTime", from: "20", to: "30" },
      { field: "members", from: "1001", to: "1002, 1001" },
    ]);
    expect((await s.call("GET", "/api/ring-groups")).json.map((g: { ringTime: number }) => g.ringTime)).toEqual([20]);
  });
});

describe("planning a queue import", () => {
  const queue = (number: string, over: Partial<PbxQueue> = {}): PbxQueue => ({
    number,
    name: `Queue ${number}`,
    strategy: "rrmemory",
    agents: ["1001"],
    maxWait: 0,
    timeout: "",
    ...over,
  });

  test("agents must be console extensions; a queue sending its callers to another comes after it", async () => {
    await extension("1001");
    const entries = planCallGroupsImport(
      s.app,
      "queue",
      [
        queue("400", { timeout: "ext-queues,401,1" }),
        queue("401", { maxWait: 45 }),
        queue("402", { agents: ["5551234"] }),
      ],
      { mode: "all", queues: [] },
    );
    expect(entries.map((e) => [e.number, e.action])).toEqual([
      ["401", "create"],
      ["400", "create"],
      ["402", "refused"],
    ]);
    expect(entries[2]?.reason).toStartWith("402 - Queue 402: Not existing extension(s): 5551234");
    expect(count("queues")).toBe(0);
  });
});
