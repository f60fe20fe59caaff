// Safe deletes (ADR 0037): what depends on an object, the delete's undo token, and the
// restore: the same row back (same id, same sealed SIP secret), 410 once expired or when its place was
// taken, the operator's role, and the audit trail's `<kind>.restore`.
import { describe, expect, test } from "bun:test";
import type { AuditPage } from "../../src/shared/audit";
import { UNDO_WINDOW_MS } from "../../src/shared/safe-delete";
import type { WsEvent } from "../../src/shared/ws-events";
import { signedInServer } from "../helpers/server";

const s = signedInServer({
  clean: [
    "ai_call_logs",
    "ai_routing_rules",
    "ai_assistants",
    "ptt_groups",
    "inbound_routes",
    "outbound_routes",
    "trunks",
    "extensions",
  ],
});

async function made(path: string, body: unknown) {
  const res = await s.call("POST", path, body);
  expect(res.status, res.text).toBe(201);
  return res.json;
}
const extension = (n: string) => made("/api/extensions", { extension: n, name: `Ext ${n}` });
const trunk = (name: string) =>
  made("/api/trunks", { name, type: "sip", host: `${name}.example.com`, username: "u", secret: "trunk-secret-1" });
const row = (table: string, id: number) => s.db.$client.query(`SELECT * FROM ${table} WHERE id = ?`).get(id);
const dependents = async (path: string) => {
  const res = await s.call("GET", `${path}/dependents`);
  expect(res.status, res.text).toBe(200);
  return res.json as { dependents: { kind: string; id: number; label: string }[]; blockedBecause: string | null };
};
async function deleted(path: string) {
  const res = await s.call("DELETE", path);
  expect(res.status, res.text).toBe(200);
  expect(res.json.expiresInMs).toBe(UNDO_WINDOW_MS);
  expect(res.json.undoToken).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  return res.json.undoToken as string;
}
/** The newest audit entry of an action, through the API. */
async function lastAudit(action: string) {
  const res = await s.call("GET", `/api/audit?action=${action}`);
  expect(res.status).toBe(200);
  const [e] = (res.json as AuditPage).items;
  return e && { action: e.action, outcome: e.outcome, type: e.objectType, id: e.objectId };
}
const ASSISTANT = { model: "gpt-4o-realtime-preview", systemPrompt: "You answer the main line politely." };

describe("dependents", () => {
  test("an extension: the PTT groups paging it and the inbound routes sending to it block its delete", async () => {
    const e = await extension("1001");
    expect(await dependents(`/api/extensions/${e.id}`)).toEqual({ dependents: [], blockedBecause: null });
    const g = await made("/api/ptt-groups", { name: "Floor", extension: "8000", members: ["1001"] });
    const r = await made("/api/inbound-routes", {
      description: "Main line",
      didNumber: "5551000",
      destination: "1001",
      destinationType: "voicemail",
    });
    const d = await dependents(`/api/extensions/${e.id}`);
    expect(d.dependents).toEqual([
      { kind: "ptt-group", id: g.id, label: "Floor" },
      { kind: "inbound-route", id: r.id, label: "Main line" },
    ]);
    // The dialog's text is the delete's own 409: one rule, said once.
    const refused = await s.refused("extensions", () => s.call("DELETE", `/api/extensions/${e.id}`), 409);
    expect(refused.message).toBe(d.blockedBecause as string);
    expect(d.blockedBecause).toContain("PTT group(s): Floor");
    expect(d.blockedBecause).toContain("Main line");
  });

  test("a trunk: the outbound routes using it; an inbound route never (FreePBX matches DIDs)", async () => {
    const t = await trunk("carrier");
    await made("/api/inbound-routes", {
      description: "In",
      didNumber: "1",
      destination: "1",
      destinationType: "ring-group",
    });
    expect((await dependents(`/api/trunks/${t.id}`)).dependents).toEqual([]);
    const o = await made("/api/outbound-routes", { name: "UK", dialPatterns: ["0XXXX."], trunkId: t.id });
    const d = await dependents(`/api/trunks/${t.id}`);
    expect(d.dependents).toEqual([{ kind: "outbound-route", id: o.id, label: "UK" }]);
    expect(d.blockedBecause).toBe("Trunk carrier is used by outbound route(s): UK. Delete or change them first.");
    await s.refused("trunks", () => s.call("DELETE", `/api/trunks/${t.id}`), 409);
  });

  test("an AI assistant: the routing rules transferring calls to it; other kinds have none", async () => {
    const a = await made("/api/ai/assistants", { name: "Front desk", ...ASSISTANT });
    const other = await made("/api/ai/assistants", { name: "Night", ...ASSISTANT });
    const rule = await made("/api/ai/routing-rules", {
      name: "Angry to front desk",
      conditions: '{"sentiment":"negative"}',
      action: "transfer_to_ai",
      actionParams: JSON.stringify({ assistantId: a.id }),
    });
    const d = await dependents(`/api/ai/assistants/${a.id}`);
    expect(d.dependents).toEqual([{ kind: "ai-rule", id: rule.id, label: "Angry to front desk" }]);
    expect(d.blockedBecause).toContain("transfer calls to Front desk");
    await s.refused("ai_assistants", () => s.call("DELETE", `/api/ai/assistants/${a.id}`), 409);
    expect((await dependents(`/api/ai/assistants/${other.id}`)).dependents).toEqual([]);
    expect((await dependents(`/api/ai/routing-rules/${rule.id}`)).dependents).toEqual([]);
    const t = await trunk("t1");
    const o = await made("/api/outbound-routes", { name: "O", dialPatterns: ["9X."], trunkId: t.id });
    expect((await dependents(`/api/outbound-routes/${o.id}`)).dependents).toEqual([]);
    expect((await s.call("GET", "/api/ptt-groups/999/dependents")).status).toBe(404);
  });

  test("a PTT group an inbound route pages: its delete and its renumbering are refused, naming the route", async () => {
    await extension("1007");
    const g = await made("/api/ptt-groups", { name: "Floor", extension: "8007", members: ["1007"], duplex: true });
    const r = await made("/api/inbound-routes", {
      description: "Paging line",
      didNumber: "5557007",
      destinationType: "page-group",
      destination: "8007",
    });
    const d = await dependents(`/api/ptt-groups/${g.id}`);
    expect(d.dependents).toEqual([{ kind: "inbound-route", id: r.id, label: "Paging line" }]);
    expect(d.blockedBecause).toBe("Inbound route(s) Paging line send calls to page group 8007. Change it first.");
    const refused = await s.refused("ptt_groups", () => s.call("DELETE", `/api/ptt-groups/${g.id}`), 409);
    expect(refused.message).toBe(d.blockedBecause as string);
    const renumber = await s.call("PATCH", `/api/ptt-groups/${g.id}`, { extension: "8008" });
    expect(renumber.status).toBe(409);
    expect(renumber.json.error.fields.extension).toBe(
      "PTT group 8007 cannot become 8008 while inbound route Paging line sends calls to it. Change it first.",
    );
  });
});

describe("undo", () => {
  test("an extension comes back with the same id and the same sealed SIP secret, published as created", async () => {
    const e = await extension("1002");
    const before = row("extensions", e.id) as { secret: string };
    expect(before.secret).toBeTruthy();
    const token = await deleted(`/api/extensions/${e.id}`);
    expect(row("extensions", e.id)).toBeNull();
    const published: WsEvent[] = [];
    const send = s.app.events.publish.bind(s.app.events);
    s.app.events.publish = (ev: WsEvent) => {
      published.push(ev);
      send(ev);
    };
    try {
      const res = await s.call("POST", `/api/undo/${token}`);
      expect(res.status, res.text).toBe(200);
      expect(res.json.kind).toBe("extension");
      expect(res.json.object).toMatchObject({ id: e.id, extension: "1002", name: "Ext 1002" });
      expect("secret" in res.json.object).toBe(false);
    } finally {
      s.app.events.publish = send;
    }
    expect(row("extensions", e.id)).toEqual(before);
    expect(published).toContainEqual({ type: "extensions-updated", data: { id: e.id, action: "created" } });
    // The provisioning payload opens the same secret as before the delete.
    const prov = await s.call("GET", `/api/extensions/${e.id}/provisioning`);
    expect(prov.status).toBe(200);
    expect(prov.text).toContain(s.app.box.open(before.secret));
    expect(await lastAudit("extension.restore")).toEqual({
      action: "extension.restore",
      outcome: "ok",
      type: "extension",
      id: String(e.id),
    });
    // A token is used once.
    expect((await s.call("POST", `/api/undo/${token}`)).status).toBe(410);
  });

  test("every kind restores the same row", async () => {
    const t = await trunk("carrier");
    const tBefore = row("trunks", t.id);
    const o = await made("/api/outbound-routes", { name: "UK", dialPatterns: ["0XXXX."], trunkId: t.id });
    const oBefore = row("outbound_routes", o.id);
    const i = await made("/api/inbound-routes", {
      description: "In",
      didNumber: "77",
      destination: "5",
      destinationType: "ring-group",
    });
    const iBefore = row("inbound_routes", i.id);
    await extension("1003");
    const g = await made("/api/ptt-groups", { name: "G", extension: "8001", members: ["1003"], duplex: true });
    const gBefore = row("ptt_groups", g.id);
    const a = await made("/api/ai/assistants", { name: "A", ...ASSISTANT });
    const aBefore = row("ai_assistants", a.id);
    const r = await made("/api/ai/routing-rules", {
      name: "R",
      conditions: "{}",
      action: "hangup",
      actionParams: "{}",
    });
    const rBefore = row("ai_routing_rules", r.id);
    const cases: [string, string, number, unknown, string][] = [
      ["/api/outbound-routes", "outbound_routes", o.id, oBefore, "outbound-route.restore"],
      ["/api/trunks", "trunks", t.id, tBefore, "trunk.restore"],
      ["/api/inbound-routes", "inbound_routes", i.id, iBefore, "inbound-route.restore"],
      ["/api/ptt-groups", "ptt_groups", g.id, gBefore, "ptt-group.restore"],
      ["/api/ai/routing-rules", "ai_routing_rules", r.id, rBefore, "ai.rule.restore"],
      ["/api/ai/assistants", "ai_assistants", a.id, aBefore, "ai.assistant.restore"],
    ];
    // Outbound route before its trunk: the trunk cannot go while the route uses it.
    const tokens = [];
    for (const [path, table, id] of cases) {
      tokens.push(await deleted(`${path}/${id}`));
      expect(row(table, id)).toBeNull();
    }
    // Undone in reverse (the trunk before the route that needs it).
    for (let k = cases.length - 1; k >= 0; k--) {
      const [, table, id, before, action] = cases[k] as (typeof cases)[number];
      const res = await s.call("POST", `/api/undo/${tokens[k]}`);
      expect(res.status, res.text).toBe(200);
      expect(res.json.object.id).toBe(id);
      expect(row(table, id)).toEqual(before);
      expect(await lastAudit(action)).toMatchObject({ action, outcome: "ok", id: String(id) });
    }
  });

  test("410 after the window, and when the number, name or DID was taken in between", async () => {
    const e = await extension("1004");
    const late = await deleted(`/api/extensions/${e.id}`);
    s.advance(UNDO_WINDOW_MS + 1);
    const expired = await s.refused("extensions", () => s.call("POST", `/api/undo/${late}`), 410);
    expect(expired.message).toContain("can no longer be undone");
    expect(await lastAudit("undo.restore")).toMatchObject({ action: "undo.restore", outcome: "failed", id: null });

    const f = await extension("1005");
    const token = await deleted(`/api/extensions/${f.id}`);
    await extension("1005");
    const taken = await s.refused("extensions", () => s.call("POST", `/api/undo/${token}`), 410);
    expect(taken.message).toBe("Extension 1005 cannot be restored: Extension 1005 already exists.");

    const g = await extension("8002");
    const byGroup = await deleted(`/api/extensions/${g.id}`);
    await extension("1006");
    await made("/api/ptt-groups", { name: "Late", extension: "8002", members: ["1006"] });
    expect((await s.refused("extensions", () => s.call("POST", `/api/undo/${byGroup}`), 410)).message).toContain(
      "PTT group Late",
    );

    const t = await trunk("dup");
    const tt = await deleted(`/api/trunks/${t.id}`);
    await trunk("dup");
    expect((await s.refused("trunks", () => s.call("POST", `/api/undo/${tt}`), 410)).message).toContain(
      "a trunk named dup was created since",
    );

    const i = await made("/api/inbound-routes", {
      description: "A",
      didNumber: "9",
      destination: "1",
      destinationType: "ring-group",
    });
    const it = await deleted(`/api/inbound-routes/${i.id}`);
    await made("/api/inbound-routes", {
      description: "B",
      didNumber: "9",
      destination: "2",
      destinationType: "ring-group",
    });
    expect((await s.refused("inbound_routes", () => s.call("POST", `/api/undo/${it}`), 410)).message).toBe(
      "Inbound route A cannot be restored: B handles DID 9 now.",
    );
    expect((await s.call("POST", "/api/undo/not-a-token")).status).toBe(410);
  });

  test("an assistant's call log links come back with it", async () => {
    const a = await made("/api/ai/assistants", { name: "Logged", ...ASSISTANT });
    s.db.$client.run(
      "INSERT INTO ai_call_logs (call_id, assistant_id, outcome, created_at) VALUES ('c1', ?, 'accept', 0)",
      [a.id],
    );
    const token = await deleted(`/api/ai/assistants/${a.id}`);
    const link = () => s.db.$client.query("SELECT assistant_id AS a FROM ai_call_logs WHERE call_id = 'c1'").get();
    expect(link()).toEqual({ a: null });
    expect((await s.call("POST", `/api/undo/${token}`)).status).toBe(200);
    expect(link()).toEqual({ a: a.id });
  });

  test("a viewer can neither delete nor undo; the operator's token is not theirs to use", async () => {
    const e = await extension("1007");
    const token = await deleted(`/api/extensions/${e.id}`);
    const pw = "viewer password 123";
    expect((await s.call("POST", "/api/users", { username: "v", password: pw, role: "viewer" })).status).toBe(201);
    const keep = s.cookie;
    await s.call("POST", "/api/auth/login", { username: "v", password: pw }, { cookie: "" });
    const viewer = s.cookie;
    s.cookie = keep;
    const asViewer = await s.call("POST", `/api/undo/${token}`, undefined, { cookie: viewer });
    expect(asViewer.status).toBe(403);
    expect(row("extensions", e.id)).toBeNull();
    // Refused before it ran: the token still works for the operator.
    expect((await s.call("POST", `/api/undo/${token}`)).status).toBe(200);
  });
});
