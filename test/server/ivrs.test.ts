// IVRs over HTTP: the list and its ETag, defaults, validation with a message under each field, destinations
// checked against the console's records (an IVR or announcement by the console's id), edits by the create
// rules, deletes refused while something sends calls to the IVR (409 naming them), undo, the audit and events.
import { beforeEach, describe, expect, test } from "bun:test";
import type { AuditEntry, AuditPage } from "../../src/shared/audit";
import type { Ivr } from "../../src/shared/call-flow";
import type { WsEvent } from "../../src/shared/ws-events";
import { signedInServer } from "../helpers/server";

const s = signedInServer({
  clean: [
    "time_conditions",
    "time_groups",
    "ivrs",
    "announcements",
    "inbound_routes",
    "ring_groups",
    "queues",
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
const ivr = (body: Record<string, unknown>) => made("/api/ivrs", { name: "Main", ...body }) as Promise<Ivr>;
const list = async () => (await s.call("GET", "/api/ivrs")).json as Ivr[];
const ivrEvents = () => published.filter((e) => e.type === "ivrs-updated").map((e) => e.data);
// The kind keeps its literal type, so a made destination is a `Destination` (and "fax" stays sendable).
const to = <K extends string>(kind: K, target = "") => ({ kind, target });
const key = <D extends { kind: string; target: string }>(digits: string, destination?: D) => ({
  digits,
  destination: destination ?? to("hangup"),
});
const extensionId = async (n: string) =>
  ((await s.call("GET", "/api/extensions")).json as { id: number; extension: string }[]).find((e) => e.extension === n)
    ?.id;

const RECORDING = "Greeting must be a system recording";
const KEYS = "Keys must be digits 0-9, * or #";
const KINDS =
  "Destination type must be one of extension, voicemail, ring-group, queue, ivr, time-condition, announcement, page-group, hangup";

describe("list and create", () => {
  test("creates with FreePBX's defaults, lists by name with an ETag (304 while unchanged), publishes each create", async () => {
    await extension("1001");
    const main = await ivr({});
    expect(main).toMatchObject({
      name: "Main",
      greeting: null,
      timeout: 10,
      retries: 3,
      options: [],
      invalidDestination: null,
      timeoutDestination: null,
    });
    expect(typeof main.id).toBe("number");
    const after = await ivr({
      name: "  After hours ",
      greeting: 7,
      timeout: 60,
      retries: 0,
      options: [key("1", to("extension", "1001")), key("*9", to("ivr", String(main.id))), key("#")],
      invalidDestination: to("voicemail", "1001"),
      timeoutDestination: { kind: "hangup" },
    });
    // The name is trimmed; options keep the order given; hang up has no target.
    expect(after).toMatchObject({
      name: "After hours",
      greeting: 7,
      timeout: 60,
      retries: 0,
      options: [key("1", to("extension", "1001")), key("*9", to("ivr", String(main.id))), key("#")],
      invalidDestination: to("voicemail", "1001"),
      timeoutDestination: to("hangup"),
    });
    const res = await s.call("GET", "/api/ivrs");
    expect(res.status).toBe(200);
    expect((res.json as Ivr[]).map((i) => i.name)).toEqual(["After hours", "Main"]);
    const tag = res.headers.get("etag") as string;
    expect(tag).toMatch(/^"[0-9a-z]+"$/);
    const again = await s.call("GET", "/api/ivrs", undefined, { "if-none-match": tag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    await ivr({ name: "Billing" });
    const changed = await s.call("GET", "/api/ivrs", undefined, { "if-none-match": tag });
    expect(changed.status).toBe(200);
    expect((changed.json as Ivr[]).map((i) => i.name)).toEqual(["After hours", "Billing", "Main"]);
    expect(ivrEvents()).toEqual([
      { id: main.id, action: "created" },
      { id: after.id, action: "created" },
      { id: changed.json[1].id, action: "created" },
    ]);
  });

  test("bad input: 400 with the message under its field, nothing stored", async () => {
    const options41 = Array.from({ length: 41 }, (_, i) => key(String(100 + i)));
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: undefined }, "name", "Name is required"],
      [{ name: "  " }, "name", "Name is required"],
      [{ name: "x".repeat(51) }, "name", "Name must be at most 50 characters"],
      [{ name: "Two\nlines" }, "name", "Name contains a control character (e.g. a newline)"],
      [{ greeting: 0 }, "greeting", RECORDING],
      [{ greeting: -2 }, "greeting", RECORDING],
      [{ greeting: 1.5 }, "greeting", RECORDING],
      [{ greeting: "3" }, "greeting", RECORDING],
      [{ timeout: 0 }, "timeout", "Timeout must be 1-60 seconds"],
      [{ timeout: 61 }, "timeout", "Timeout must be 1-60 seconds"],
      [{ timeout: 1.5 }, "timeout", "Timeout must be a whole number of seconds"],
      [{ timeout: "10" }, "timeout", "Timeout must be a number of seconds"],
      [{ retries: -1 }, "retries", "Retries must be 0-9"],
      [{ retries: 10 }, "retries", "Retries must be 0-9"],
      [{ retries: 1.5 }, "retries", "Retries must be a whole number"],
      [{ options: "1" }, "options", "Options must be a list of keys and destinations"],
      [{ options: [key("")] }, "options.0.digits", "Enter the key(s) the caller presses"],
      [{ options: [key("1"), key("5a")] }, "options.1.digits", KEYS],
      [{ options: [key("12345678901")] }, "options.0.digits", "Keys must be at most 10 characters"],
      // FreePBX's own `t` and `i` handlers are the timeout and invalid destinations, not keys.
      [{ options: [key("t")] }, "options.0.digits", KEYS],
      [{ options: [key("i")] }, "options.0.digits", KEYS],
      [{ options: [key("1"), key("2"), key("1")] }, "options", "Key(s) 1 are listed twice"],
      // Digits are trimmed before they are compared.
      [{ options: [key("1"), key(" 1 ")] }, "options", "Key(s) 1 are listed twice"],
      [{ options: [key("12"), key("1")] }, "options", "Key(s) 1 and 12 overlap: a caller pressing 1 never reaches 12"],
      [{ options: options41 }, "options", "At most 40 options"],
      [{ options: [key("1", to("fax", "1"))] }, "options.0.destination.kind", KINDS],
      [
        { options: [key("1", to("extension", "10a"))] },
        "options.0.destination.target",
        "Destination must be an extension number (1001)",
      ],
      [{ options: [key("1", to("queue"))] }, "options.0.destination.target", "Destination is required"],
      [{ invalidDestination: to("fax", "1") }, "invalidDestination.kind", KINDS],
      [
        { invalidDestination: to("ivr", "Main") },
        "invalidDestination.target",
        "Destination must be the console's number of the IVR (the IVRs screen shows it), not its name",
      ],
      [
        { timeoutDestination: to("hangup", "1") },
        "timeoutDestination.target",
        "Hang up has no destination number: leave it empty",
      ],
    ];
    for (const [body, field, message] of cases) {
      const error = await s.refused("ivrs", () => s.call("POST", "/api/ivrs", { name: "Main", ...body }), 400);
      expect(error.fields?.[field], JSON.stringify(body)).toBe(message);
      expect(error.message).toBe(`Invalid request: ${message}`);
    }
    // Every field's message at once, not only the first.
    const both = await s.refused(
      "ivrs",
      () => s.call("POST", "/api/ivrs", { name: "A", timeout: 0, retries: 10 }),
      400,
    );
    expect(both.fields).toEqual({ timeout: "Timeout must be 1-60 seconds", retries: "Retries must be 0-9" });
    // The 40 options FreePBX's limit allows are taken.
    const full = await ivr({ options: options41.slice(0, 40) });
    expect(full.options.length).toBe(40);
    expect(ivrEvents()).toEqual([{ id: full.id, action: "created" }]);
  });

  test("a destination must name what the console has; a name is used once (409)", async () => {
    await extension("1001");
    const main = await ivr({});
    const byId = "is chosen by the console's number for it";
    const missing: [{ kind: string; target: string }, string][] = [
      [to("extension", "1009"), "Extension 1009 does not exist"],
      [to("voicemail", "1009"), "Extension 1009 does not exist"],
      [to("ring-group", "699"), "Ring group 699 does not exist"],
      [to("queue", "499"), "Queue 499 does not exist"],
      [to("page-group", "8000"), "PTT group 8000 does not exist"],
      [to("ivr", "99999"), `IVR 99999 does not exist (an IVR ${byId})`],
      // The console's id as it writes it: a leading zero names nothing.
      [to("ivr", `0${main.id}`), `IVR 0${main.id} does not exist (an IVR ${byId})`],
      [to("announcement", "99999"), `Announcement 99999 does not exist (an announcement ${byId})`],
    ];
    for (const [d, message] of missing) {
      for (const [body, field] of [
        [{ options: [key("1"), key("2", d)] }, "options.1.destination.target"],
        [{ invalidDestination: d }, "invalidDestination.target"],
        [{ timeoutDestination: d }, "timeoutDestination.target"],
      ] as const) {
        const error = await s.refused("ivrs", () => s.call("POST", "/api/ivrs", { name: "Other", ...body }), 400);
        expect(error.fields, JSON.stringify(body)).toEqual({ [field]: message });
      }
    }
    const taken = await s.refused("ivrs", () => s.call("POST", "/api/ivrs", { name: " Main" }), 409);
    expect(taken.fields).toEqual({ name: "An IVR named Main exists already" });
    // A time condition is the console's too.
    const hours = await made("/api/time-groups", {
      name: "Hours",
      weekly: [{ fromDay: "mon", start: "08:00", end: "17:00" }],
    });
    const open = await made("/api/time-conditions", { name: "Open", timeGroup: hours.id });
    const tc = await ivr({ name: "Other", options: [key("1", to("time-condition", String(open.id)))] });
    expect(tc.options).toEqual([key("1", to("time-condition", String(open.id)))]);
    expect(ivrEvents()).toEqual([
      { id: main.id, action: "created" },
      { id: tc.id, action: "created" },
    ]);
  });
});

describe("edit", () => {
  test("fields left out keep their values; a rename keeps the id; null clears a destination", async () => {
    await extension("1001");
    const main = await ivr({
      greeting: 4,
      timeout: 20,
      options: [key("1", to("extension", "1001"))],
      invalidDestination: to("extension", "1001"),
      timeoutDestination: to("hangup"),
    });
    const renamed = await s.call("PATCH", `/api/ivrs/${main.id}`, { name: "Reception", retries: 5 });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toEqual({ ...main, name: "Reception", retries: 5 });
    const cleared = await s.call("PATCH", `/api/ivrs/${main.id}`, { invalidDestination: null, options: [] });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.json).toMatchObject({
      id: main.id,
      greeting: 4,
      timeout: 20,
      options: [],
      invalidDestination: null,
    });
    expect(await list()).toEqual([cleared.json]);
    expect(ivrEvents()).toEqual([
      { id: main.id, action: "created" },
      { id: main.id, action: "updated" },
      { id: main.id, action: "updated" },
    ]);
    expect((await s.call("PATCH", "/api/ivrs/999999", { name: "X" })).status).toBe(404);
  });

  test("a patch obeys every create rule; an IVR cannot send calls to itself or close a loop", async () => {
    await extension("1001");
    const main = await ivr({ options: [key("1", to("extension", "1001"))] });
    const other = await ivr({ name: "Other" });
    const self = to("ivr", String(main.id));
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ name: "" }, 400, "name", "Name is required"],
      [{ name: "x".repeat(51) }, 400, "name", "Name must be at most 50 characters"],
      [{ timeout: 0 }, 400, "timeout", "Timeout must be 1-60 seconds"],
      [{ retries: 10 }, 400, "retries", "Retries must be 0-9"],
      [{ greeting: 0 }, 400, "greeting", RECORDING],
      [
        { options: [key("1"), key("12")] },
        400,
        "options",
        "Key(s) 1 and 12 overlap: a caller pressing 1 never reaches 12",
      ],
      [{ options: [key("t")] }, 400, "options.0.digits", KEYS],
      [{ options: [key("1", to("queue", "499"))] }, 400, "options.0.destination.target", "Queue 499 does not exist"],
      [
        { options: [key("1"), key("2", self)] },
        400,
        "options.1.destination.target",
        "An IVR cannot send calls to itself",
      ],
      [{ invalidDestination: self }, 400, "invalidDestination.target", "An IVR cannot send calls to itself"],
      [{ timeoutDestination: self }, 400, "timeoutDestination.target", "An IVR cannot send calls to itself"],
      [{ name: "Other" }, 409, "name", "An IVR named Other exists already"],
    ];
    for (const [body, status, field, message] of cases) {
      const error = await s.refused("ivrs", () => s.call("PATCH", `/api/ivrs/${main.id}`, body), status);
      expect(error.fields?.[field], JSON.stringify(body)).toBe(message);
    }
    // Keys the caller presses may lead back and forth ("0: main menu"): each step is the caller's choice.
    const toMain = await s.call("PATCH", `/api/ivrs/${other.id}`, { options: [key("0", self)] });
    expect(toMain.status, toMain.text).toBe(200);
    const toOther = await s.call("PATCH", `/api/ivrs/${main.id}`, { options: [key("2", to("ivr", String(other.id)))] });
    expect(toOther.status, toOther.text).toBe(200);
    // No key taking Other back to Main is fine; Main's no key to Other would then close a loop a call goes round
    // by itself.
    const back = await s.call("PATCH", `/api/ivrs/${other.id}`, { timeoutDestination: self });
    expect(back.status, back.text).toBe(200);
    const loop = await s.refused(
      "ivrs",
      () => s.call("PATCH", `/api/ivrs/${main.id}`, { timeoutDestination: to("ivr", String(other.id)) }),
      400,
    );
    expect(loop.fields?.["timeoutDestination.target"]).toBe(
      `This makes a loop: IVR ${main.id} · Main → IVR ${other.id} · Other → IVR ${main.id} · Main. A call would go round it until the caller hangs up`,
    );
  });
});

describe("delete", () => {
  test("refused while anything sends calls to it (409 naming them); then deleted, and undo restores the same row", async () => {
    await extension("1001");
    const main = await ivr({ greeting: 2, options: [key("1", to("extension", "1001")), key("0")] });
    const target = to("ivr", String(main.id));
    const route = await made("/api/inbound-routes", {
      description: "Main line",
      didNumber: "5550100",
      destinationType: "ivr",
      destination: String(main.id),
    });
    const group = await made("/api/ring-groups", { name: "Sales", number: "600", members: ["1001"], noAnswer: target });
    const queue = await made("/api/queues", {
      name: "Support",
      number: "400",
      agents: ["1001"],
      timeoutDestination: target,
    });
    const sub = await ivr({ name: "Sub", options: [key("9", target)] });
    const notice = await made("/api/announcements", { name: "Closed", after: target });
    const why =
      "Inbound route(s) Main line send calls to IVR Main. Ring group(s) Sales (600) send unanswered calls to IVR Main. " +
      "Queue(s) Support (400) send callers to IVR Main after their max wait. IVR(s) Sub send calls to IVR Main. " +
      "Announcement(s) Closed send calls to IVR Main after playing. Change them first.";
    const deps = await s.call("GET", `/api/ivrs/${main.id}/dependents`);
    expect(deps.json).toEqual({
      dependents: [
        { kind: "inbound-route", id: route.id, label: "Main line" },
        { kind: "ring-group", id: group.id, label: "Sales" },
        { kind: "queue", id: queue.id, label: "Support" },
        { kind: "ivr", id: sub.id, label: "Sub" },
        { kind: "announcement", id: notice.id, label: "Closed" },
      ],
      blockedBecause: why,
    });
    const refused = await s.refused("ivrs", () => s.call("DELETE", `/api/ivrs/${main.id}`), 409);
    expect(refused.message).toBe(why);

    expect((await s.call("DELETE", `/api/inbound-routes/${route.id}`)).status).toBe(200);
    expect((await s.call("PATCH", `/api/ring-groups/${group.id}`, { noAnswer: null })).status).toBe(200);
    expect((await s.call("PATCH", `/api/queues/${queue.id}`, { timeoutDestination: to("hangup") })).status).toBe(200);
    expect((await s.call("PATCH", `/api/ivrs/${sub.id}`, { options: [] })).status).toBe(200);
    // One sender left: the sentence says "it".
    expect((await s.call("GET", `/api/ivrs/${main.id}/dependents`)).json.blockedBecause).toBe(
      "Announcement(s) Closed send calls to IVR Main after playing. Change it first.",
    );
    expect((await s.call("PATCH", `/api/announcements/${notice.id}`, { after: null })).status).toBe(200);
    expect((await s.call("GET", `/api/ivrs/${main.id}/dependents`)).json).toEqual({
      dependents: [],
      blockedBecause: null,
    });
    const ok = await s.call("DELETE", `/api/ivrs/${main.id}`);
    expect(ok.status, ok.text).toBe(200);
    expect(typeof ok.json.undoToken).toBe("string");
    expect((await list()).map((i) => i.name)).toEqual(["Sub"]);
    expect(published.at(-1)).toEqual({ type: "ivrs-updated", data: { id: main.id, action: "deleted" } });
    const undo = await s.call("POST", `/api/undo/${ok.json.undoToken}`);
    expect(undo.status, undo.text).toBe(200);
    expect(undo.json).toMatchObject({ kind: "ivr", object: main });
    expect((await list()).find((i) => i.name === "Main")).toEqual(main);
    expect(published.at(-1)).toEqual({ type: "ivrs-updated", data: { id: main.id, action: "created" } });
    expect((await s.call("DELETE", "/api/ivrs/999999")).status).toBe(404);
    expect((await s.call("GET", "/api/ivrs/999999/dependents")).status).toBe(404);
  });

  test("undo: 410 once the name is taken, or once a destination of it is gone", async () => {
    await extension("1001");
    const main = await ivr({});
    const del = await s.call("DELETE", `/api/ivrs/${main.id}`);
    expect(del.status).toBe(200);
    await ivr({});
    const taken = await s.refused("ivrs", () => s.call("POST", `/api/undo/${del.json.undoToken}`), 410);
    expect(taken.message).toBe("IVR Main cannot be restored: another IVR has its name now.");

    const desk = await ivr({ name: "Desk", options: [key("1", to("extension", "1001"))] });
    const gone = await s.call("DELETE", `/api/ivrs/${desk.id}`);
    expect(gone.status).toBe(200);
    expect((await s.call("DELETE", `/api/extensions/${await extensionId("1001")}`)).status).toBe(200);
    const missing = await s.refused("ivrs", () => s.call("POST", `/api/undo/${gone.json.undoToken}`), 410);
    expect(missing.message).toBe("IVR Desk cannot be restored: Extension 1001 does not exist.");
  });

  test("an extension, ring group or queue an IVR sends calls to is not deleted: the IVR is named", async () => {
    await extension("1001");
    await extension("1002");
    const group = await made("/api/ring-groups", { name: "Sales", number: "600", members: ["1001"] });
    const queue = await made("/api/queues", { name: "Support", number: "400", agents: ["1001"] });
    const main = await ivr({
      options: [key("1", to("ring-group", "600")), key("2", to("queue", "400"))],
      invalidDestination: to("voicemail", "1002"),
    });
    const e2 = await extensionId("1002");
    expect((await s.call("GET", `/api/extensions/${e2}/dependents`)).json).toEqual({
      dependents: [{ kind: "ivr", id: main.id, label: "Main" }],
      blockedBecause: "IVR(s) Main send calls to extension 1002. Change them first.",
    });
    const ext = await s.refused("extensions", () => s.call("DELETE", `/api/extensions/${e2}`), 409);
    expect(ext.message).toBe("IVR(s) Main send calls to extension 1002. Change them first.");
    const rg = await s.refused("ring_groups", () => s.call("DELETE", `/api/ring-groups/${group.id}`), 409);
    expect(rg.message).toBe("IVR(s) Main send calls to ring group 600. Change it first.");
    const q = await s.refused("queues", () => s.call("DELETE", `/api/queues/${queue.id}`), 409);
    expect(q.message).toBe("IVR(s) Main send calls to queue 400. Change it first.");
  });
});

describe("audit and roles", () => {
  const entry = async (action: string, id: number): Promise<AuditEntry | undefined> => {
    // The transport records the entry before it answers: it is there once the call is answered.
    const page = (await s.call("GET", `/api/audit?action=${action}`)).json as AuditPage;
    return page.items.find((e) => e.objectId === String(id));
  };

  test("create, update and delete are in the audit trail with the IVR's values", async () => {
    await extension("1001");
    const main = await ivr({ name: "Audited", timeout: 15, options: [key("1", to("extension", "1001"))] });
    const created = await entry("ivr.create", main.id);
    expect(created).toMatchObject({ outcome: "ok", objectType: "ivr", objectLabel: "Audited" });
    expect(created?.changes).toContainEqual({ field: "timeout", to: "15" });
    expect(created?.changes).toContainEqual({
      field: "options",
      to: JSON.stringify([key("1", to("extension", "1001"))]),
    });
    await s.call("PATCH", `/api/ivrs/${main.id}`, { retries: 6, invalidDestination: to("voicemail", "1001") });
    const updated = await entry("ivr.update", main.id);
    expect(updated?.changes).toEqual([
      { field: "retries", from: "3", to: "6" },
      { field: "invalidDestination.kind", to: "voicemail" },
      { field: "invalidDestination.target", to: "1001" },
    ]);
    await s.call("DELETE", `/api/ivrs/${main.id}`);
    const deleted = await entry("ivr.delete", main.id);
    expect(deleted).toMatchObject({ outcome: "ok", objectType: "ivr", objectLabel: "Audited" });
    expect(deleted?.changes).toContainEqual({ field: "name", from: "Audited" });
    expect(deleted?.changes).toContainEqual({ field: "retries", from: "6" });
  });

  test("a viewer lists the IVRs but cannot create, edit or delete one (403)", async () => {
    const main = await ivr({});
    const admin = s.cookie;
    const creds = { username: "ivr-viewer", password: "viewer password 123" };
    const user = await s.call("POST", "/api/users", { ...creds, role: "viewer" });
    expect(user.status, user.text).toBe(201);
    await s.call("POST", "/api/auth/login", creds, { cookie: "" });
    const viewer = s.cookie;
    s.cookie = admin;
    try {
      const as = { cookie: viewer };
      const listed = await s.call("GET", "/api/ivrs", undefined, as);
      expect(listed.status).toBe(200);
      expect((listed.json as Ivr[]).map((i) => i.id)).toEqual([main.id]);
      expect((await s.call("GET", `/api/ivrs/${main.id}/dependents`, undefined, as)).status).toBe(200);
      await s.refused("ivrs", () => s.call("POST", "/api/ivrs", { name: "Other" }, as), 403);
      await s.refused("ivrs", () => s.call("PATCH", `/api/ivrs/${main.id}`, { name: "X" }, as), 403);
      await s.refused("ivrs", () => s.call("DELETE", `/api/ivrs/${main.id}`, undefined, as), 403);
    } finally {
      s.cookie = admin;
    }
    expect(ivrEvents()).toEqual([{ id: main.id, action: "created" }]);
  });
});
