// The routing simulator and the destination list over HTTP, on the console's configuration: a DID through
// its inbound route to the phones that ring, what happens when nobody answers, the "any DID" route, calls no
// route takes, field errors, a viewer may ask, and a ring group change that would close a loop is refused.
import { describe, expect, test } from "bun:test";
import type { CallFlow, DestinationList, SimulateAnswer, StepKind } from "../../src/shared/routing";
import { signedInServer } from "../helpers/server";

const s = signedInServer({
  clean: [
    "queues",
    "ring_groups",
    "inbound_routes",
    "ptt_groups",
    "ivrs",
    "announcements",
    "time_conditions",
    "time_groups",
    "extensions",
    "pbx_objects",
  ],
});

async function made(path: string, body: unknown) {
  const res = await s.call("POST", path, body);
  expect(res.status, res.text).toBe(201);
  return res.json as { id: number };
}
const extension = (n: string, voicemail = false) =>
  made("/api/extensions", { extension: n, name: `Ext ${n}`, voicemail });
const route = (did: string, destinationType: string, destination: string) =>
  made("/api/inbound-routes", { description: `Main ${did || "any"}`, didNumber: did, destinationType, destination });
async function simulate(body: Record<string, unknown>): Promise<SimulateAnswer> {
  const res = await s.call("POST", "/api/routing/simulate", body);
  expect(res.status, res.text).toBe(200);
  return res.json as SimulateAnswer;
}
const shape = (a: SimulateAnswer) => a.steps.map((x) => `${x.kind}:${x.target}`);

/** Office: 1001 (voicemail), 1002; ring group 600 rings both and an outside number, unanswered → voicemail 1001. */
async function office() {
  await extension("1001", true);
  await extension("1002");
  await made("/api/ring-groups", {
    number: "600",
    name: "Sales",
    strategy: "ringall",
    ringTime: 25,
    members: ["1001", "1002", "5551234#"],
    noAnswer: { kind: "voicemail", target: "1001" },
  });
  await route("15550100", "ring-group", "600");
}

describe("simulate", () => {
  test("a DID reaches its ring group, and the members that are extensions ring", async () => {
    await office();
    const a = await simulate({ did: "15550100", callerId: "4930123" });
    expect(shape(a)).toEqual(["trunk:15550100", "inbound-route:15550100", "ring-group:600"]);
    expect(a.final).toEqual({ kind: "ring-group", target: "600", ringing: ["1001", "1002"] });
    const group = a.steps[2];
    expect(group?.label).toBe("Ring group 600 · Sales");
    // The step says how the group rings, the outside number, and where an unanswered call goes.
    expect(group?.why).toContain("rings every member at once for 25 s");
    expect(group?.why).toContain("5551234");
    expect(group?.why).toContain("Voicemail 1001 · Ext 1001");
    expect(a.steps[1]?.label).toBe("Inbound route 15550100 · Main 15550100");
    expect(Date.parse(a.at)).not.toBeNaN();
  });

  test("unanswered, the call follows the no-answer destination to where it ends", async () => {
    await office();
    const a = await simulate({ did: "15550100", unanswered: true, at: "2026-12-05T22:30:00+01:00" });
    expect(shape(a)).toEqual(["trunk:15550100", "inbound-route:15550100", "ring-group:600", "voicemail:1001"]);
    expect(a.final).toEqual({ kind: "voicemail", target: "1001", ringing: [] });
    expect(a.at).toBe("2026-12-05T21:30:00.000Z");
  });

  test("an extension rings, then its voicemail, or the call ends when it has none", async () => {
    await extension("1001", true);
    await extension("1002");
    await route("200", "extension", "1001");
    await route("201", "extension", "1002");
    expect((await simulate({ did: "200" })).final).toEqual({ kind: "extension", target: "1001", ringing: ["1001"] });
    expect((await simulate({ did: "200", unanswered: true })).final).toEqual({
      kind: "voicemail",
      target: "1001",
      ringing: [],
    });
    const none = await simulate({ did: "201", unanswered: true });
    expect(none.final).toEqual({ kind: "hangup", target: "", ringing: [] });
    expect(none.steps.at(-1)?.why).toContain("no voicemail box");
  });

  test("an unknown DID goes to the route for any DID, else nowhere", async () => {
    await office();
    const lost = await simulate({ did: "15550199" });
    expect(shape(lost)).toEqual(["trunk:15550199", "inbound-route:15550199"]);
    expect(lost.final).toEqual({ kind: "hangup", target: "", ringing: [] });
    expect(lost.steps[1]?.why).toContain("No inbound route");
    await route("", "extension", "1002");
    const any = await simulate({ did: "15550199" });
    expect(any.final).toEqual({ kind: "extension", target: "1002", ringing: ["1002"] });
    // The DID's own route still wins over the one for any DID.
    expect((await simulate({ did: "15550100" })).final.kind).toBe("ring-group");
  });

  test("a page group's phones answer by themselves; a hang up route ends the call", async () => {
    await extension("1001");
    await extension("1002");
    await made("/api/ptt-groups", { name: "Floor", extension: "700", members: ["1001", "1002"] });
    await route("300", "page-group", "700");
    await route("301", "hangup", "");
    expect((await simulate({ did: "300" })).final).toEqual({
      kind: "page-group",
      target: "700",
      ringing: ["1001", "1002"],
    });
    const hang = await simulate({ did: "301" });
    expect(hang.final).toEqual({ kind: "hangup", target: "", ringing: [] });
    expect(hang.steps.at(-1)?.label).toBe("Hang up");
  });

  test("a queue rings its agents; unanswered after its max wait, the call goes to its timeout destination", async () => {
    await extension("1001", true);
    await extension("1002");
    await made("/api/queues", {
      number: "400",
      name: "Support",
      strategy: "rrmemory",
      agents: ["1002", "1001"],
      maxWait: 60,
      timeoutDestination: { kind: "voicemail", target: "1001" },
    });
    await route("500", "queue", "400");
    const a = await simulate({ did: "500" });
    expect(a.final).toEqual({ kind: "queue", target: "400", ringing: ["1002", "1001"] });
    expect(a.steps.at(-1)?.label).toBe("Queue 400 · Support");
    expect(a.steps.at(-1)?.why).toContain("rings the agents in turn, carrying on after the last one called");
    const lost = await simulate({ did: "500", unanswered: true });
    expect(shape(lost)).toEqual(["trunk:500", "inbound-route:500", "queue:400", "voicemail:1001"]);
  });

  test("a time condition follows its time group at the call's instant, in its zone: hours, holidays, nights", async () => {
    await extension("1001");
    await extension("1002", true);
    const hours = await made("/api/time-groups", {
      name: "Office hours",
      weekly: [{ fromDay: "mon", toDay: "fri", start: "08:00", end: "17:00" }],
      holidays: [{ month: "dec", day: 24, toDay: 26 }],
    });
    const office = await made("/api/time-conditions", {
      name: "Office",
      timeGroup: hours.id,
      timeZone: "Europe/Berlin",
      match: { kind: "extension", target: "1001" },
      noMatch: { kind: "voicemail", target: "1002" },
    });
    await route("400", "time-condition", String(office.id));
    // Friday 4 December 2026, 15:00 UTC is 16:00 in Berlin: in its hours.
    const open = await simulate({ did: "400", at: "2026-12-04T15:00:00Z" });
    expect(shape(open)).toEqual(["trunk:400", "inbound-route:400", `time-condition:${office.id}`, "extension:1001"]);
    expect(open.steps[2]?.label).toBe(`Time condition ${office.id} · Office`);
    expect(open.steps[2]?.why).toContain("matches (08:00-17:00|mon-fri|*|*)");
    // 16:30 UTC is 17:30 in Berlin: closed, to the after-hours voicemail.
    const late = await simulate({ did: "400", at: "2026-12-04T16:30:00Z" });
    expect(late.final).toEqual({ kind: "voicemail", target: "1002", ringing: [] });
    expect(late.steps[2]?.why).toContain("matches none of its rows");
    // A holiday row matches every year, whatever the weekday (Christmas Day 2026 is a Friday).
    const holiday = await simulate({ did: "400", at: "2026-12-25T20:00:00Z" });
    expect(holiday.steps[2]?.why).toContain("matches (*|*|24-26|dec)");
  });

  test("an IVR takes the caller's keys: an option, a wrong key after the retries, no key after the timeout", async () => {
    await office();
    const closed = await made("/api/announcements", {
      name: "Closed",
      recording: 4,
      allowSkip: true,
      after: { kind: "voicemail", target: "1001" },
    });
    const menu = await made("/api/ivrs", {
      name: "Main menu",
      greeting: 3,
      timeout: 7,
      retries: 2,
      options: [
        { digits: "1", destination: { kind: "ring-group", target: "600" } },
        { digits: "2", destination: { kind: "extension", target: "1002" } },
        { digits: "9", destination: { kind: "announcement", target: String(closed.id) } },
      ],
      invalidDestination: { kind: "hangup", target: "" },
      timeoutDestination: { kind: "extension", target: "1001" },
    });
    const ivr = String(menu.id);
    await route("401", "ivr", ivr);
    const one = await simulate({ did: "401", digits: "1" });
    expect(shape(one)).toEqual(["trunk:401", "inbound-route:401", `ivr:${ivr}`, "ring-group:600"]);
    expect(one.final).toEqual({ kind: "ring-group", target: "600", ringing: ["1001", "1002"] });
    expect(one.steps[2]?.label).toBe(`IVR ${ivr} · Main menu`);
    expect(one.steps[2]?.why).toBe(
      "The IVR plays its greeting (recording 3); the caller presses 1, which goes to Ring group 600 · Sales.",
    );
    expect((await simulate({ did: "401", digits: "2" })).final).toEqual({
      kind: "extension",
      target: "1002",
      ringing: ["1002"],
    });
    const none = await simulate({ did: "401" });
    expect(none.final).toEqual({ kind: "extension", target: "1001", ringing: ["1001"] });
    expect(none.steps[2]?.why).toContain("presses no key within 7 s (after 2 more tries)");
    const wrong = await simulate({ did: "401", digits: "5" });
    expect(wrong.final).toEqual({ kind: "hangup", target: "", ringing: [] });
    expect(wrong.steps[2]?.why).toContain("presses 5, which is not an option");
    const notice = await simulate({ did: "401", digits: "9" });
    expect(shape(notice)).toEqual([
      "trunk:401",
      "inbound-route:401",
      `ivr:${ivr}`,
      `announcement:${closed.id}`,
      "voicemail:1001",
    ]);
    expect(notice.steps[3]?.why).toBe(
      "The caller hears recording 4 (a key skips it); then the call goes to Voicemail 1001 · Ext 1001.",
    );
  });

  test("keys are taken in order by the IVRs the call passes", async () => {
    await extension("1001");
    await extension("1002");
    const inner = await made("/api/ivrs", {
      name: "Support",
      options: [{ digits: "2", destination: { kind: "extension", target: "1002" } }],
    });
    const outer = await made("/api/ivrs", {
      name: "Main",
      options: [
        { digits: "1", destination: { kind: "extension", target: "1001" } },
        { digits: "3", destination: { kind: "ivr", target: String(inner.id) } },
      ],
    });
    await route("402", "ivr", String(outer.id));
    const a = await simulate({ did: "402", digits: "32" });
    expect(shape(a)).toEqual([
      "trunk:402",
      "inbound-route:402",
      `ivr:${outer.id}`,
      `ivr:${inner.id}`,
      "extension:1002",
    ]);
  });

  test("bad input is a 400 with the field's message", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ did: "12ab" }, "did", "DID must be digits, optionally starting with +"],
      [{ did: "1", callerId: "x" }, "callerId", "Caller ID must be digits, optionally starting with +"],
      [{ did: "1", digits: "12a" }, "digits", "Digits must be 0-9, * or #"],
      [{ did: "1", at: "saturday night" }, "at", "Time must be an ISO 8601 date and time, e.g. 2026-12-05T22:30:00Z"],
      [{ did: "1", unanswered: "yes" }, "unanswered", "Unanswered must be true or false"],
    ];
    for (const [body, field, message] of cases) {
      const res = await s.call("POST", "/api/routing/simulate", body);
      expect({ body, status: res.status, message: res.json.error?.fields?.[field] }).toEqual({
        body,
        status: 400,
        message,
      });
    }
  });

  test("comparing with the PBX needs the PBX host: a 400 that says so", async () => {
    const res = await s.call("POST", "/api/routing/simulate", { did: "1", plan: true });
    expect(res.status).toBe(400);
    expect(res.json.error?.fields?.plan).toContain("PBX host (SSH)");
  });

  test("a viewer may simulate", async () => {
    await office();
    const user = { username: `rviewer${Date.now()}`, password: "viewer password 123", role: "viewer" };
    expect((await s.call("POST", "/api/users", user)).status).toBe(201);
    const login = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: user.username, password: user.password }),
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const res = await fetch(`${s.base}/api/routing/simulate`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ did: "15550100" }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as SimulateAnswer).final.ringing).toEqual(["1001", "1002"]);
  });
});

describe("loops", () => {
  test("a ring group change that closes a loop is refused, naming it; nothing is stored", async () => {
    await extension("1001");
    const a = await made("/api/ring-groups", { number: "600", name: "Sales", members: ["1001"] });
    await made("/api/ring-groups", {
      number: "601",
      name: "Support",
      members: ["1001"],
      noAnswer: { kind: "ring-group", target: "600" },
    });
    const res = await s.call("PATCH", `/api/ring-groups/${a.id}`, { noAnswer: { kind: "ring-group", target: "601" } });
    expect(res.status).toBe(400);
    expect(res.json.error?.fields?.["noAnswer.target"]).toBe(
      "This makes a loop: Ring group 600 · Sales → Ring group 601 · Support → Ring group 600 · Sales. A call would go round it until the caller hangs up",
    );
    const groups = (await s.call("GET", "/api/ring-groups")).json as { number: string; noAnswer: unknown }[];
    expect(groups.find((g) => g.number === "600")?.noAnswer).toBeNull();
    // A chain without a loop is fine.
    await made("/api/ring-groups", { number: "602", name: "Night", members: ["1001"] });
    const ok = await s.call("PATCH", `/api/ring-groups/${a.id}`, { noAnswer: { kind: "ring-group", target: "602" } });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe("loops through IVRs and announcements", () => {
  test("no key through an announcement that returns to the IVR is refused, naming the loop; a key back is the caller's", async () => {
    const menu = await made("/api/ivrs", { name: "Main" });
    const closed = await made("/api/announcements", {
      name: "Closed",
      after: { kind: "ivr", target: String(menu.id) },
    });
    const notice = { kind: "announcement", target: String(closed.id) };
    const res = await s.call("PATCH", `/api/ivrs/${menu.id}`, { timeoutDestination: notice });
    expect(res.status).toBe(400);
    expect(res.json.error.fields["timeoutDestination.target"]).toBe(
      `This makes a loop: IVR ${menu.id} · Main → Announcement ${closed.id} · Closed → IVR ${menu.id} · Main. A call would go round it until the caller hangs up`,
    );
    expect(((await s.call("GET", "/api/ivrs")).json as { timeoutDestination: unknown }[])[0]?.timeoutDestination).toBe(
      null,
    );
    // Key 9 hears the announcement and comes back to the menu: the caller chooses it each time.
    const key = await s.call("PATCH", `/api/ivrs/${menu.id}`, { options: [{ digits: "9", destination: notice }] });
    expect(key.status, key.text).toBe(200);
    await route("403", "ivr", String(menu.id));
    const flows = (await s.call("GET", "/api/routing/flows")).json as CallFlow[];
    const back = flows[0]?.root.children[0]?.node.children[0]?.node;
    expect(back).toMatchObject({ kind: "ivr", target: String(menu.id), loop: false, back: true, children: [] });
    // Pressed twice, the keys lead round the menu twice and on into the no-key path (none: hang up).
    const twice = await simulate({ did: "403", digits: "99" });
    expect(shape(twice)).toEqual([
      "trunk:403",
      "inbound-route:403",
      `ivr:${menu.id}`,
      `announcement:${closed.id}`,
      `ivr:${menu.id}`,
      `announcement:${closed.id}`,
      `ivr:${menu.id}`,
    ]);
    expect(twice.final).toEqual({ kind: "hangup", target: "", ringing: [] });
  });

  test("a ring group overflowing to an IVR that sends callers pressing no key to the group is refused", async () => {
    await extension("1001");
    await made("/api/ring-groups", { number: "600", name: "Sales", members: ["1001"] });
    const menu = await made("/api/ivrs", {
      name: "Main",
      timeoutDestination: { kind: "ring-group", target: "600" },
    });
    const groups = (await s.call("GET", "/api/ring-groups")).json as { id: number }[];
    const res = await s.call("PATCH", `/api/ring-groups/${groups[0]?.id}`, {
      noAnswer: { kind: "ivr", target: String(menu.id) },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.fields["noAnswer.target"]).toContain(`Ring group 600 · Sales → IVR ${menu.id} · Main`);
  });
});

describe("loops through queues", () => {
  test("a queue timing out to a ring group that overflows back to the queue is refused", async () => {
    await extension("1001");
    await made("/api/queues", { number: "400", name: "Support", agents: ["1001"], maxWait: 30 });
    await made("/api/ring-groups", {
      number: "600",
      name: "Sales",
      members: ["1001"],
      noAnswer: { kind: "queue", target: "400" },
    });
    const queues = (await s.call("GET", "/api/queues")).json as { id: number }[];
    const res = await s.call("PATCH", `/api/queues/${queues[0]?.id}`, {
      timeoutDestination: { kind: "ring-group", target: "600" },
    });
    expect(res.status).toBe(400);
    expect(Object.values(res.json.error?.fields ?? {})).toEqual([
      "This makes a loop: Queue 400 · Support → Ring group 600 · Sales → Queue 400 · Support. A call would go round it until the caller hangs up",
    ]);
  });
});

describe("call flows", () => {
  test("each inbound route's flow is a tree: the ring group, then on no answer its voicemail", async () => {
    await office();
    await route("401", "queue", "499");
    const res = await s.call("GET", "/api/routing/flows");
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeTruthy();
    const leaf = (kind: StepKind, target: string, label: string) => ({
      kind,
      target,
      label,
      missing: false,
      loop: false,
      children: [],
    });
    expect(res.json as CallFlow[]).toEqual([
      {
        did: "15550100",
        label: "Inbound route 15550100 · Main 15550100",
        root: {
          ...leaf("ring-group", "600", "Ring group 600 · Sales"),
          children: [{ when: "No answer after 25 s", node: leaf("voicemail", "1001", "Voicemail 1001 · Ext 1001") }],
        },
      },
      // A queue the console does not have: calls there are lost.
      {
        did: "401",
        label: "Inbound route 401 · Main 401",
        root: { ...leaf("queue", "499", "Queue 499"), missing: true },
      },
    ]);
  });

  test("a loop made before the check existed is drawn once and marked", async () => {
    await extension("1001");
    await made("/api/ring-groups", { number: "600", name: "Sales", members: ["1001"] });
    await made("/api/ring-groups", {
      number: "601",
      name: "Support",
      members: ["1001"],
      noAnswer: { kind: "ring-group", target: "600" },
    });
    // As a database written by an older console holds it: 600 overflows back into 601.
    s.db.$client.run(
      "UPDATE ring_groups SET no_answer_kind = 'ring-group', no_answer_target = '601' WHERE number = '600'",
    );
    await route("100", "ring-group", "600");
    const [flow] = (await s.call("GET", "/api/routing/flows")).json as CallFlow[];
    const second = flow?.root.children[0]?.node;
    expect(second?.label).toBe("Ring group 601 · Support");
    expect(second?.children[0]?.node).toMatchObject({ target: "600", loop: true, children: [] });
    // The simulator follows it once too, and says so.
    const a = await simulate({ did: "100", unanswered: true });
    expect(a.steps.at(-1)?.kind).toBe("loop");
  });
});

describe("destinations", () => {
  test("every destination the console knows, labelled, voicemail only where there is a box", async () => {
    await office();
    await made("/api/ptt-groups", { name: "Floor", extension: "700", members: ["1002"] });
    const res = await s.call("GET", "/api/destinations");
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeTruthy();
    expect((res.json as DestinationList).items).toEqual([
      { kind: "hangup", target: "", label: "Hang up" },
      { kind: "extension", target: "1001", label: "Extension 1001 · Ext 1001" },
      { kind: "extension", target: "1002", label: "Extension 1002 · Ext 1002" },
      { kind: "voicemail", target: "1001", label: "Voicemail 1001 · Ext 1001" },
      { kind: "ring-group", target: "600", label: "Ring group 600 · Sales" },
      { kind: "page-group", target: "700", label: "Page group 700 · Floor" },
    ]);
  });
});
