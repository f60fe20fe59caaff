// Queues over HTTP: validation with field messages, the shared dial plan (extensions, PTT groups, ring groups and
// queues), edits, deletes refused while something sends calls to the queue (409 naming them), an extension leaving
// the queues it answered for when it is deleted (and coming back on undo), destinations checked against the
// console's queues (ring groups, inbound routes, queues), the audit and the events.
import { beforeEach, describe, expect, test } from "bun:test";
import type { AuditPage } from "../../src/shared/audit";
import type { Queue } from "../../src/shared/inventory";
import type { WsEvent } from "../../src/shared/ws-events";
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

let published: WsEvent[] = [];
beforeEach(() => {
  published = [];
  const hub = s.app.events as { publish: (e: WsEvent) => void; __wrapped?: boolean };
  if (hub.__wrapped) return;
  const send = hub.publish.bind(hub);
  hub.publish = (event: WsEvent) => {
    published.push(event);
    send(event);
  };
  hub.__wrapped = true;
});

async function made(path: string, body: unknown) {
  const res = await s.call("POST", path, body);
  expect(res.status, res.text).toBe(201);
  return res.json;
}
const extension = (n: string) => made("/api/extensions", { extension: n, name: `Ext ${n}` });
const queue = (body: Record<string, unknown>) =>
  made("/api/queues", { name: "Support", number: "400", agents: ["1001"], ...body }) as Promise<Queue>;
const list = async () => (await s.call("GET", "/api/queues")).json as Queue[];
const extensionId = async (n: string) =>
  ((await s.call("GET", "/api/extensions")).json as { id: number; extension: string }[]).find((e) => e.extension === n)
    ?.id;

describe("create", () => {
  test("stores the queue with FreePBX's defaults and answers it; the list is an array in numeric order", async () => {
    await extension("1001");
    await extension("1002");
    const q = await queue({ number: "410", agents: ["1002", "1001", "1002"] });
    expect(q).toMatchObject({
      number: "410",
      name: "Support",
      strategy: "ringall",
      // Ring order kept, repeats dropped.
      agents: ["1002", "1001"],
      maxWait: 0,
      timeoutDestination: null,
    });
    await queue({
      number: "401",
      name: "Sales",
      strategy: "rrordered",
      maxWait: 300,
      timeoutDestination: { kind: "voicemail", target: "1001" },
    });
    const all = await list();
    expect(Array.isArray(all)).toBe(true);
    expect(all.map((x) => x.number)).toEqual(["401", "410"]);
    expect(all[0]).toMatchObject({
      strategy: "rrordered",
      maxWait: 300,
      timeoutDestination: { kind: "voicemail", target: "1001" },
    });
    expect(published.filter((e) => e.type === "queues-updated").map((e) => e.data)).toEqual([
      { id: q.id, action: "created" },
      { id: all[0]?.id, action: "created" },
    ]);
  });

  test("bad input: 400 with a message under each field, nothing stored", async () => {
    await extension("1001");
    const maxWait =
      "Max wait must be a time FreePBX offers: 0 (no limit), 1-29 s, 30-55 s by 5, 60-280 s by 20, 300-1140 s by 60 or 1200-7200 s by 300";
    const cases: [Record<string, unknown>, string, string][] = [
      [{ number: "" }, "number", "Number is required"],
      [{ number: "4a0" }, "number", "Number must contain digits only"],
      [{ name: "" }, "name", "Name is required"],
      [{ name: "x".repeat(255) }, "name", "Name must be at most 254 characters"],
      [{ name: "Two\nlines" }, "name", "Name contains a control character (e.g. a newline)"],
      [
        { strategy: "hunt" },
        "strategy",
        "Strategy must be one of ringall, leastrecent, fewestcalls, random, rrmemory, rrordered, linear, wrandom",
      ],
      [{ agents: [] }, "agents", "Choose at least one agent"],
      [{ agents: ["5551234#"] }, "agents.0", "5551234# is an external number: a queue's agents are extensions"],
      [{ agents: ["10-01"] }, "agents.0", "Each agent must be an extension number"],
      [{ agents: "1001" }, "agents", "Agents must be a list of extension numbers"],
      [{ maxWait: 31 }, "maxWait", maxWait],
      [{ maxWait: -5 }, "maxWait", maxWait],
      [{ maxWait: 7500 }, "maxWait", maxWait],
      [{ maxWait: 2.5 }, "maxWait", "Max wait must be a whole number of seconds"],
      [{ maxWait: "10" }, "maxWait", "Max wait must be a number of seconds"],
      [
        { timeoutDestination: { kind: "fax", target: "1" } },
        "timeoutDestination.kind",
        "Destination type must be one of extension, voicemail, ring-group, queue, ivr, time-condition, announcement, page-group, hangup",
      ],
      [
        { timeoutDestination: { kind: "extension", target: "" } },
        "timeoutDestination.target",
        "Destination is required",
      ],
      [
        { timeoutDestination: { kind: "hangup", target: "1" } },
        "timeoutDestination.target",
        "Hang up has no destination number: leave it empty",
      ],
    ];
    for (const [body, field, message] of cases) {
      const res = await s.call("POST", "/api/queues", { name: "Support", number: "400", agents: ["1001"], ...body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.json.error.fields[field], JSON.stringify(body)).toBe(message);
    }
    // Rules only the console's records can answer: unknown extensions, destinations that are not there, itself.
    const domain: [Record<string, unknown>, string, string][] = [
      [
        { agents: ["1001", "1009"] },
        "agents",
        "Not existing extension(s): 1009 (a queue's agents are the console's extensions)",
      ],
      [
        { agents: ["5551234"] },
        "agents",
        "Not existing extension(s): 5551234 (a queue's agents are the console's extensions)",
      ],
      [
        { timeoutDestination: { kind: "extension", target: "1009" } },
        "timeoutDestination.target",
        "Extension 1009 does not exist",
      ],
      [
        { timeoutDestination: { kind: "queue", target: "400" } },
        "timeoutDestination.target",
        "A queue cannot send its callers to itself after their max wait",
      ],
      [
        { timeoutDestination: { kind: "queue", target: "499" } },
        "timeoutDestination.target",
        "Queue 499 does not exist",
      ],
      [
        { timeoutDestination: { kind: "ring-group", target: "699" } },
        "timeoutDestination.target",
        "Ring group 699 does not exist",
      ],
      [
        { timeoutDestination: { kind: "page-group", target: "8000" } },
        "timeoutDestination.target",
        "PTT group 8000 does not exist",
      ],
    ];
    for (const [body, field, message] of domain) {
      const res = await s.call("POST", "/api/queues", { name: "Support", number: "400", agents: ["1001"], ...body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.json.error.fields[field], JSON.stringify(body)).toBe(message);
    }
    expect(await list()).toEqual([]);
    expect(published.some((e) => e.type === "queues-updated")).toBe(false);
  });

  test("every max wait FreePBX's form offers is taken; another ring group, hangup and FreePBX-only kinds too", async () => {
    await extension("1001");
    await made("/api/ring-groups", { name: "Front desk", number: "600", members: ["1001"] });
    for (const [i, maxWait] of [0, 1, 29, 30, 55, 60, 280, 300, 1140, 1200, 7200].entries()) {
      const q = await queue({ number: String(420 + i), maxWait });
      expect(q.maxWait).toBe(maxWait);
    }
    const toGroup = await queue({ number: "401", timeoutDestination: { kind: "ring-group", target: "600" } });
    expect(toGroup.timeoutDestination).toEqual({ kind: "ring-group", target: "600" });
    const toQueue = await queue({ number: "402", timeoutDestination: { kind: "queue", target: "401" } });
    expect(toQueue.timeoutDestination).toEqual({ kind: "queue", target: "401" });
    const h = await queue({ number: "403", timeoutDestination: { kind: "hangup" } });
    expect(h.timeoutDestination).toEqual({ kind: "hangup", target: "" });
    const menu = (await s.call("POST", "/api/ivrs", { name: "After hours" })).json;
    const ivr = await queue({ number: "404", timeoutDestination: { kind: "ivr", target: String(menu.id) } });
    expect(ivr.timeoutDestination).toEqual({ kind: "ivr", target: String(menu.id) });
  });

  test("the create and the delete are in the audit trail with the queue's values", async () => {
    await extension("1001");
    const q = await queue({ maxWait: 20 });
    const entry = async (action: string) => {
      for (let i = 0; i < 50; i++) {
        const page = (await s.call("GET", `/api/audit?action=${action}`)).json as AuditPage;
        const hit = page.items.find((e) => e.objectId === String(q.id));
        if (hit) return hit;
        await Bun.sleep(20);
      }
      return undefined;
    };
    const created = await entry("queue.create");
    expect(created).toMatchObject({ outcome: "ok", objectType: "queue" });
    expect(created?.changes).toContainEqual({ field: "maxWait", to: "20" });
    await s.call("DELETE", `/api/queues/${q.id}`);
    expect(await entry("queue.delete")).toMatchObject({ outcome: "ok", objectType: "queue" });
  });
});

describe("one dial plan", () => {
  test("a queue's number cannot be an extension's, a PTT group's or a ring group's, and theirs cannot be a queue's", async () => {
    await extension("1001");
    await made("/api/ptt-groups", { name: "Floor", extension: "8000", members: ["1001"] });
    await made("/api/ring-groups", { name: "Front desk", number: "600", members: ["1001"] });
    await queue({ number: "400" });
    const taken = async (path: string, body: unknown, field: string, message: string) => {
      const res = await s.call("POST", path, body);
      expect(res.status, res.text).toBe(409);
      expect(res.json.error.fields[field]).toBe(message);
    };
    const q = (number: string) => ({ name: "X", number, agents: ["1001"] });
    await taken("/api/queues", q("1001"), "number", "1001 is already an extension");
    await taken("/api/queues", q("8000"), "number", "8000 is already the number of PTT group Floor");
    await taken("/api/queues", q("600"), "number", "600 is already the number of ring group Front desk");
    await taken("/api/queues", q("400"), "number", "400 is already the number of queue Support");
    await taken(
      "/api/extensions",
      { extension: "400", name: "X" },
      "extension",
      "400 is already the number of queue Support",
    );
    await taken(
      "/api/ptt-groups",
      { name: "X", extension: "400", members: ["1001"] },
      "extension",
      "400 is already the number of queue Support",
    );
    await taken(
      "/api/ring-groups",
      { name: "X", number: "400", members: ["1001"] },
      "number",
      "400 is already the number of queue Support",
    );
  });
});

describe("edit", () => {
  test("PATCH changes the given fields, keeps the others, clears the destination with null", async () => {
    await extension("1001");
    await extension("1002");
    const q = await queue({ maxWait: 60, timeoutDestination: { kind: "extension", target: "1002" } });
    const res = await s.call("PATCH", `/api/queues/${q.id}`, { strategy: "linear", agents: ["1002", "1001"] });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      name: "Support",
      number: "400",
      strategy: "linear",
      agents: ["1002", "1001"],
      maxWait: 60,
      timeoutDestination: { kind: "extension", target: "1002" },
    });
    const cleared = await s.call("PATCH", `/api/queues/${q.id}`, { timeoutDestination: null, number: "405" });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.json).toMatchObject({ number: "405", timeoutDestination: null, maxWait: 60 });
    const bad = await s.call("PATCH", `/api/queues/${q.id}`, { maxWait: 61 });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields.maxWait).toStartWith("Max wait must be a time FreePBX offers");
    const external = await s.call("PATCH", `/api/queues/${q.id}`, { agents: ["1001", "5550100#"] });
    expect(external.status).toBe(400);
    expect(external.json.error.fields["agents.1"]).toBe(
      "5550100# is an external number: a queue's agents are extensions",
    );
    expect(published.filter((e) => e.type === "queues-updated").map((e) => e.data)).toEqual([
      { id: q.id, action: "created" },
      { id: q.id, action: "updated" },
      { id: q.id, action: "updated" },
    ]);
    expect((await s.call("PATCH", "/api/queues/999999", { name: "X" })).status).toBe(404);
  });

  test("the number cannot change while an inbound route or a ring group sends calls to it", async () => {
    await extension("1001");
    const q = await queue({});
    await made("/api/inbound-routes", {
      description: "Main line",
      didNumber: "5550100",
      destinationType: "queue",
      destination: "400",
    });
    await made("/api/ring-groups", {
      name: "Front desk",
      number: "600",
      members: ["1001"],
      noAnswer: { kind: "queue", target: "400" },
    });
    const res = await s.call("PATCH", `/api/queues/${q.id}`, { number: "401" });
    expect(res.status).toBe(409);
    expect(res.json.error.fields.number).toBe(
      "Queue 400 cannot become 401 while inbound route Main line, ring group Front desk send calls to it. Change them first.",
    );
  });
});

describe("delete", () => {
  test("in use: 409 naming the inbound routes, ring groups and queues that send calls to it; then deleted and undone", async () => {
    await extension("1001");
    const support = await queue({});
    const overflow = await queue({
      number: "401",
      name: "Overflow",
      timeoutDestination: { kind: "queue", target: "400" },
    });
    const group = await made("/api/ring-groups", {
      name: "Front desk",
      number: "600",
      members: ["1001"],
      noAnswer: { kind: "queue", target: "400" },
    });
    const route = await made("/api/inbound-routes", {
      description: "Main line",
      didNumber: "5550100",
      destinationType: "queue",
      destination: "400",
    });
    const deps = await s.call("GET", `/api/queues/${support.id}/dependents`);
    expect(deps.json).toEqual({
      dependents: [
        { kind: "inbound-route", id: route.id, label: "Main line" },
        { kind: "ring-group", id: group.id, label: "Front desk" },
        { kind: "queue", id: overflow.id, label: "Overflow" },
      ],
      blockedBecause:
        "Inbound route(s) Main line send calls to queue 400. Ring group(s) Front desk (600) send unanswered calls to queue 400. Queue(s) Overflow (401) send callers to queue 400 after their max wait. Change them first.",
    });
    const refused = await s.call("DELETE", `/api/queues/${support.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toBe(deps.json.blockedBecause);
    expect((await list()).length).toBe(2);

    await s.call("DELETE", `/api/inbound-routes/${route.id}`);
    await s.call("PATCH", `/api/ring-groups/${group.id}`, { noAnswer: null });
    await s.call("PATCH", `/api/queues/${overflow.id}`, { timeoutDestination: { kind: "hangup" } });
    expect((await s.call("GET", `/api/queues/${support.id}/dependents`)).json).toEqual({
      dependents: [],
      blockedBecause: null,
    });
    const ok = await s.call("DELETE", `/api/queues/${support.id}`);
    expect(ok.status, ok.text).toBe(200);
    expect((await list()).map((q) => q.number)).toEqual(["401"]);
    expect(published.at(-1)).toEqual({ type: "queues-updated", data: { id: support.id, action: "deleted" } });
    const undo = await s.call("POST", `/api/undo/${ok.json.undoToken}`);
    expect(undo.status, undo.text).toBe(200);
    expect(undo.json).toMatchObject({ kind: "queue", object: { id: support.id, number: "400" } });
    expect((await list()).map((q) => q.number)).toEqual(["400", "401"]);
    expect((await s.call("DELETE", "/api/queues/999999")).status).toBe(404);
  });

  test("a ring group a queue sends its callers to cannot be deleted or renumbered: the queue is named", async () => {
    await extension("1001");
    const group = await made("/api/ring-groups", { name: "Front desk", number: "600", members: ["1001"] });
    const q = await queue({ timeoutDestination: { kind: "ring-group", target: "600" } });
    const deps = await s.call("GET", `/api/ring-groups/${group.id}/dependents`);
    expect(deps.json).toEqual({
      dependents: [{ kind: "queue", id: q.id, label: "Support" }],
      blockedBecause: "Queue(s) Support (400) send callers to ring group 600 after their max wait. Change it first.",
    });
    const del = await s.call("DELETE", `/api/ring-groups/${group.id}`);
    expect(del.status).toBe(409);
    const renumber = await s.call("PATCH", `/api/ring-groups/${group.id}`, { number: "601" });
    expect(renumber.status).toBe(409);
    expect(renumber.json.error.fields.number).toBe(
      "Ring group 600 cannot become 601 while queue Support sends calls to it. Change it first.",
    );
  });

  test("an extension that is an agent leaves the queue (FreePBX's delete does the same); undo puts it back in place", async () => {
    for (const n of ["1001", "1002", "1003"]) await extension(n);
    const q = await queue({ agents: ["1003", "1002", "1001"] });
    const e2 = await extensionId("1002");
    const deps = await s.call("GET", `/api/extensions/${e2}/dependents`);
    expect(deps.json).toEqual({
      dependents: [{ kind: "queue", id: q.id, label: "Support (as an agent: the extension leaves it)" }],
      blockedBecause: null,
    });
    // Renumbering an agent is refused, naming the queue (its agent would point at nothing).
    const renumber = await s.call("PATCH", `/api/extensions/${e2}`, { extension: "1009" });
    expect(renumber.status).toBe(409);
    expect(renumber.json.error.fields.extension).toBe(
      "Extension 1002 cannot become 1009 while queue Support uses it. Change it first.",
    );
    const del = await s.call("DELETE", `/api/extensions/${e2}`);
    expect(del.status, del.text).toBe(200);
    expect((await list())[0]?.agents).toEqual(["1003", "1001"]);
    expect(published).toContainEqual({ type: "queues-updated", data: { id: q.id, action: "updated" } });
    const undo = await s.call("POST", `/api/undo/${del.json.undoToken}`);
    expect(undo.status, undo.text).toBe(200);
    expect((await list())[0]?.agents).toEqual(["1003", "1002", "1001"]);
  });

  test("an extension is not deleted while it is a queue's only agent or its timeout destination", async () => {
    await extension("1001");
    await extension("1002");
    await queue({ agents: ["1001"] });
    await queue({
      number: "401",
      name: "Overflow",
      agents: ["1001"],
      timeoutDestination: { kind: "voicemail", target: "1002" },
    });
    const r1 = await s.call("DELETE", `/api/extensions/${await extensionId("1001")}`);
    expect(r1.status).toBe(409);
    expect(r1.json.error.message).toBe(
      "Extension 1001 is the only agent of queue(s) Support (400), Overflow (401). Add another agent or delete the queue first.",
    );
    const r2 = await s.call("DELETE", `/api/extensions/${await extensionId("1002")}`);
    expect(r2.status).toBe(409);
    expect(r2.json.error.message).toBe(
      "Queue(s) Overflow (401) send callers to extension 1002 after their max wait. Change them first.",
    );
    expect((await s.call("GET", "/api/extensions")).json.length).toBe(2);
  });

  test("a bulk delete takes each extension out in turn: a queue's last two agents cannot both leave it", async () => {
    for (const n of ["1001", "1002", "1003"]) await extension(n);
    const q = await queue({ agents: ["1001", "1002"] });
    const ids = [await extensionId("1001"), await extensionId("1002"), await extensionId("1003")];
    const res = await s.call("POST", "/api/extensions/bulk-delete", { ids });
    expect(res.status, res.text).toBe(200);
    expect(res.json.deleted).toEqual([ids[0], ids[2]]);
    expect(res.json.blocked).toEqual([
      {
        id: ids[1],
        extension: "1002",
        reason:
          "Extension 1002 is the only agent of queue(s) Support (400). Add another agent or delete the queue first.",
      },
    ]);
    expect((await list())[0]?.agents).toEqual(["1002"]);
    expect(published).toContainEqual({ type: "queues-updated", data: { id: q.id, action: "updated" } });
  });

  test("undo of a queue whose agent was deleted since: 410 naming the extension", async () => {
    await extension("1001");
    await extension("1002");
    const q = await queue({ agents: ["1001", "1002"] });
    const del = await s.call("DELETE", `/api/queues/${q.id}`);
    expect(del.status).toBe(200);
    expect((await s.call("DELETE", `/api/extensions/${await extensionId("1002")}`)).status).toBe(200);
    const undo = await s.call("POST", `/api/undo/${del.json.undoToken}`);
    expect(undo.status).toBe(410);
    expect(undo.json.error.message).toBe("Queue Support cannot be restored: extension(s) 1002 were deleted since.");
  });
});

describe("inbound routes", () => {
  test("send calls to a queue with FreePBX's string; the route is named when the queue is deleted", async () => {
    await extension("1001");
    const q = await queue({});
    const r = await made("/api/inbound-routes", {
      description: "Support line",
      didNumber: "5550101",
      destinationType: "queue",
      destination: "400",
    });
    expect(r).toMatchObject({ destinationType: "queue", destination: "400" });
    const csv = await s.call("GET", "/api/inbound-routes/export.csv");
    expect(csv.text).toContain("ext-queues,400,1");
    const del = await s.call("DELETE", `/api/queues/${q.id}`);
    expect(del.status).toBe(409);
    expect(del.json.error.message).toBe("Inbound route(s) Support line send calls to queue 400. Change it first.");
  });
});
