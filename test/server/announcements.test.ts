// Announcements over HTTP: the list and its ETag, defaults, validation with a message under each field, the
// destination after it checked against the console's records (by the console's id for IVRs and announcements),
// edits by the create rules, deletes refused while something sends calls to it (409 naming them), undo, the
// audit and the events.
import { beforeEach, describe, expect, test } from "bun:test";
import type { AuditEntry, AuditPage } from "../../src/shared/audit";
import type { Announcement } from "../../src/shared/call-flow";
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
const announcement = (body: Record<string, unknown>) =>
  made("/api/announcements", { name: "Closed", ...body }) as Promise<Announcement>;
const list = async () => (await s.call("GET", "/api/announcements")).json as Announcement[];
const events = () => published.filter((e) => e.type === "announcements-updated").map((e) => e.data);
// The kind keeps its literal type, so a made destination is a `Destination` (and "fax" stays sendable).
const to = <K extends string>(kind: K, target = "") => ({ kind, target });
const extensionId = async (n: string) =>
  ((await s.call("GET", "/api/extensions")).json as { id: number; extension: string }[]).find((e) => e.extension === n)
    ?.id;

describe("list and create", () => {
  test("creates with FreePBX's defaults, lists by name with an ETag (304 while unchanged), publishes each create", async () => {
    await extension("1001");
    const closed = await announcement({});
    expect(closed).toMatchObject({ name: "Closed", recording: null, allowSkip: false, after: null });
    const welcome = await announcement({
      name: " Welcome ",
      recording: 3,
      allowSkip: true,
      after: to("announcement", String(closed.id)),
    });
    expect(welcome).toMatchObject({
      name: "Welcome",
      recording: 3,
      allowSkip: true,
      after: to("announcement", String(closed.id)),
    });
    const hangup = await announcement({ name: "Bye", after: { kind: "hangup" } });
    expect(hangup.after).toEqual(to("hangup"));
    const res = await s.call("GET", "/api/announcements");
    expect((res.json as Announcement[]).map((a) => a.name)).toEqual(["Bye", "Closed", "Welcome"]);
    const tag = res.headers.get("etag") as string;
    expect((await s.call("GET", "/api/announcements", undefined, { "if-none-match": tag })).status).toBe(304);
    await s.call("PATCH", `/api/announcements/${hangup.id}`, { allowSkip: true });
    expect((await s.call("GET", "/api/announcements", undefined, { "if-none-match": tag })).status).toBe(200);
    expect(events()).toEqual([
      { id: closed.id, action: "created" },
      { id: welcome.id, action: "created" },
      { id: hangup.id, action: "created" },
      { id: hangup.id, action: "updated" },
    ]);
  });

  test("bad input: 400 with the message under its field, nothing stored", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: undefined }, "name", "Name is required"],
      [{ name: "x".repeat(51) }, "name", "Name must be at most 50 characters"],
      [{ name: "Two\nlines" }, "name", "Name contains a control character (e.g. a newline)"],
      [{ recording: 0 }, "recording", "Recording must be a system recording"],
      [{ recording: 1.5 }, "recording", "Recording must be a system recording"],
      [{ recording: "3" }, "recording", "Recording must be a system recording"],
      [{ allowSkip: "yes" }, "allowSkip", "Allow skip must be true or false"],
      [
        { after: to("fax", "1") },
        "after.kind",
        "Destination type must be one of extension, voicemail, ring-group, queue, ivr, time-condition, announcement, page-group, hangup",
      ],
      [
        { after: to("announcement", "Closed") },
        "after.target",
        "Destination must be the console's number of the announcement (the Announcements screen shows it), not its name",
      ],
      [{ after: to("extension") }, "after.target", "Destination is required"],
      [{ after: to("hangup", "1") }, "after.target", "Hang up has no destination number: leave it empty"],
    ];
    for (const [body, field, message] of cases) {
      const error = await s.refused(
        "announcements",
        () => s.call("POST", "/api/announcements", { name: "Closed", ...body }),
        400,
      );
      expect(error.fields?.[field], JSON.stringify(body)).toBe(message);
    }
    expect(await list()).toEqual([]);
    expect(events()).toEqual([]);
  });

  test("the destination after it must name what the console has; a name is used once (409)", async () => {
    const closed = await announcement({});
    const domain: [Record<string, unknown>, string][] = [
      [{ after: to("extension", "1009") }, "Extension 1009 does not exist"],
      [{ after: to("ring-group", "699") }, "Ring group 699 does not exist"],
      [{ after: to("queue", "499") }, "Queue 499 does not exist"],
      [{ after: to("ivr", "99999") }, "IVR 99999 does not exist (an IVR is chosen by the console's number for it)"],
      [
        { after: to("announcement", "99999") },
        "Announcement 99999 does not exist (an announcement is chosen by the console's number for it)",
      ],
    ];
    for (const [body, message] of domain) {
      const error = await s.refused(
        "announcements",
        () => s.call("POST", "/api/announcements", { name: "Other", ...body }),
        400,
      );
      expect(error.fields, JSON.stringify(body)).toEqual({ "after.target": message });
    }
    const taken = await s.refused("announcements", () => s.call("POST", "/api/announcements", { name: "Closed" }), 409);
    expect(taken.fields).toEqual({ name: "An announcement named Closed exists already" });
    expect(events()).toEqual([{ id: closed.id, action: "created" }]);
  });
});

describe("edit", () => {
  test("fields left out keep their values; a rename keeps the id; a patch obeys every create rule", async () => {
    await extension("1001");
    const closed = await announcement({ recording: 5, allowSkip: true, after: to("voicemail", "1001") });
    const other = await announcement({ name: "Other" });
    const renamed = await s.call("PATCH", `/api/announcements/${closed.id}`, { name: "Holiday" });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toEqual({ ...closed, name: "Holiday" });
    const cleared = await s.call("PATCH", `/api/announcements/${closed.id}`, { after: null, recording: null });
    expect(cleared.json).toEqual({ ...closed, name: "Holiday", after: null, recording: null });
    const self = to("announcement", String(closed.id));
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ name: "" }, 400, "name", "Name is required"],
      [{ recording: -1 }, 400, "recording", "Recording must be a system recording"],
      [{ allowSkip: null }, 400, "allowSkip", "Allow skip must be true or false"],
      [{ after: to("queue", "499") }, 400, "after.target", "Queue 499 does not exist"],
      [{ after: self }, 400, "after.target", "An announcement cannot send calls to itself"],
      [{ name: "Other" }, 409, "name", "An announcement named Other exists already"],
    ];
    for (const [body, status, field, message] of cases) {
      const error = await s.refused(
        "announcements",
        () => s.call("PATCH", `/api/announcements/${closed.id}`, body),
        status,
      );
      expect(error.fields?.[field], JSON.stringify(body)).toBe(message);
    }
    // Other → Holiday is fine; Holiday → Other would then close a loop a call could go round.
    expect((await s.call("PATCH", `/api/announcements/${other.id}`, { after: self })).status).toBe(200);
    const loop = await s.refused(
      "announcements",
      () => s.call("PATCH", `/api/announcements/${closed.id}`, { after: to("announcement", String(other.id)) }),
      400,
    );
    expect(loop.fields?.["after.target"]).toBe(
      `This makes a loop: Announcement ${closed.id} · Holiday → Announcement ${other.id} · Other → Announcement ${closed.id} · Holiday. A call would go round it until the caller hangs up`,
    );
    expect((await s.call("PATCH", "/api/announcements/999999", { name: "X" })).status).toBe(404);
  });
});

describe("delete", () => {
  test("refused while anything sends calls to it (409 naming them); then deleted, and undo restores the same row", async () => {
    await extension("1001");
    const closed = await announcement({ recording: 9, allowSkip: true, after: to("extension", "1001") });
    const target = to("announcement", String(closed.id));
    const route = await made("/api/inbound-routes", {
      description: "Night line",
      didNumber: "5550100",
      destinationType: "announcement",
      destination: String(closed.id),
    });
    const group = await made("/api/ring-groups", { name: "Sales", number: "600", members: ["1001"], noAnswer: target });
    const queue = await made("/api/queues", {
      name: "Support",
      number: "400",
      agents: ["1001"],
      timeoutDestination: target,
    });
    const menu = await made("/api/ivrs", { name: "Main", options: [{ digits: "3", destination: target }] });
    const before = await announcement({ name: "Welcome", after: target });
    const why =
      "Inbound route(s) Night line send calls to announcement Closed. Ring group(s) Sales (600) send unanswered calls to announcement Closed. " +
      "Queue(s) Support (400) send callers to announcement Closed after their max wait. IVR(s) Main send calls to announcement Closed. " +
      "Announcement(s) Welcome send calls to announcement Closed after playing. Change them first.";
    expect((await s.call("GET", `/api/announcements/${closed.id}/dependents`)).json).toEqual({
      dependents: [
        { kind: "inbound-route", id: route.id, label: "Night line" },
        { kind: "ring-group", id: group.id, label: "Sales" },
        { kind: "queue", id: queue.id, label: "Support" },
        { kind: "ivr", id: menu.id, label: "Main" },
        { kind: "announcement", id: before.id, label: "Welcome" },
      ],
      blockedBecause: why,
    });
    const refused = await s.refused("announcements", () => s.call("DELETE", `/api/announcements/${closed.id}`), 409);
    expect(refused.message).toBe(why);

    expect((await s.call("DELETE", `/api/inbound-routes/${route.id}`)).status).toBe(200);
    expect((await s.call("PATCH", `/api/ring-groups/${group.id}`, { noAnswer: null })).status).toBe(200);
    expect((await s.call("PATCH", `/api/queues/${queue.id}`, { timeoutDestination: null })).status).toBe(200);
    expect((await s.call("PATCH", `/api/ivrs/${menu.id}`, { options: [] })).status).toBe(200);
    expect((await s.call("PATCH", `/api/announcements/${before.id}`, { after: to("hangup") })).status).toBe(200);
    expect((await s.call("GET", `/api/announcements/${closed.id}/dependents`)).json).toEqual({
      dependents: [],
      blockedBecause: null,
    });
    const ok = await s.call("DELETE", `/api/announcements/${closed.id}`);
    expect(ok.status, ok.text).toBe(200);
    expect((await list()).map((a) => a.name)).toEqual(["Welcome"]);
    expect(published.at(-1)).toEqual({
      type: "announcements-updated",
      data: { id: closed.id, action: "deleted" },
    });
    const undo = await s.call("POST", `/api/undo/${ok.json.undoToken}`);
    expect(undo.status, undo.text).toBe(200);
    expect(undo.json).toMatchObject({ kind: "announcement", object: closed });
    expect((await list()).find((a) => a.name === "Closed")).toEqual(closed);
    expect((await s.call("DELETE", "/api/announcements/999999")).status).toBe(404);
  });

  test("undo: 410 once the name is taken; an extension it sends calls to is not deleted", async () => {
    await extension("1001");
    const first = await announcement({});
    const del = await s.call("DELETE", `/api/announcements/${first.id}`);
    expect(del.status).toBe(200);
    await announcement({});
    const taken = await s.refused("announcements", () => s.call("POST", `/api/undo/${del.json.undoToken}`), 410);
    expect(taken.message).toBe("Announcement Closed cannot be restored: another announcement has its name now.");

    const night = await announcement({ name: "Night", after: to("voicemail", "1001") });
    const e1 = await extensionId("1001");
    expect((await s.call("GET", `/api/extensions/${e1}/dependents`)).json).toEqual({
      dependents: [{ kind: "announcement", id: night.id, label: "Night" }],
      blockedBecause: "Announcement(s) Night send calls to extension 1001 after playing. Change them first.",
    });
    const refused = await s.refused("extensions", () => s.call("DELETE", `/api/extensions/${e1}`), 409);
    expect(refused.message).toBe(
      "Announcement(s) Night send calls to extension 1001 after playing. Change them first.",
    );
  });
});

describe("audit and roles", () => {
  const entry = async (action: string, id: number): Promise<AuditEntry | undefined> => {
    // The transport records the entry before it answers: it is there once the call is answered.
    const page = (await s.call("GET", `/api/audit?action=${action}`)).json as AuditPage;
    return page.items.find((e) => e.objectId === String(id));
  };

  test("create, update and delete are in the audit trail with the announcement's values", async () => {
    const a = await announcement({ name: "Audited", recording: 12 });
    const created = await entry("announcement.create", a.id);
    expect(created).toMatchObject({ outcome: "ok", objectType: "announcement", objectLabel: "Audited" });
    expect(created?.changes).toContainEqual({ field: "recording", to: "12" });
    await s.call("PATCH", `/api/announcements/${a.id}`, { allowSkip: true });
    expect((await entry("announcement.update", a.id))?.changes).toEqual([
      { field: "allowSkip", from: "false", to: "true" },
    ]);
    await s.call("DELETE", `/api/announcements/${a.id}`);
    const deleted = await entry("announcement.delete", a.id);
    expect(deleted).toMatchObject({ outcome: "ok", objectType: "announcement", objectLabel: "Audited" });
    expect(deleted?.changes).toContainEqual({ field: "recording", from: "12" });
  });

  test("a viewer lists the announcements but cannot create, edit or delete one (403)", async () => {
    const a = await announcement({});
    const admin = s.cookie;
    const creds = { username: "announcement-viewer", password: "viewer password 123" };
    const user = await s.call("POST", "/api/users", { ...creds, role: "viewer" });
    expect(user.status, user.text).toBe(201);
    await s.call("POST", "/api/auth/login", creds, { cookie: "" });
    const viewer = s.cookie;
    s.cookie = admin;
    try {
      const as = { cookie: viewer };
      const listed = await s.call("GET", "/api/announcements", undefined, as);
      expect(listed.status).toBe(200);
      expect((listed.json as Announcement[]).map((x) => x.id)).toEqual([a.id]);
      await s.refused("announcements", () => s.call("POST", "/api/announcements", { name: "Other" }, as), 403);
      await s.refused("announcements", () => s.call("PATCH", `/api/announcements/${a.id}`, { name: "X" }, as), 403);
      await s.refused("announcements", () => s.call("DELETE", `/api/announcements/${a.id}`, undefined, as), 403);
    } finally {
      s.cookie = admin;
    }
    expect(events()).toEqual([{ id: a.id, action: "created" }]);
  });
});
