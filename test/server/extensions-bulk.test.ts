// Bulk delete and bulk edit of extensions (ADR 0041), over real HTTP: one transaction,
// the single delete's dependency rule with its reason, the extension form's validation, the audit.
import { describe, expect, test } from "bun:test";
import type { AuditEntry } from "../../src/shared/audit";
import type { ExtensionBulkDeleteResult, ExtensionBulkUpdateResult } from "../../src/shared/extensions-bulk";
import type { Extension } from "../../src/shared/inventory";
import type { WsEvent } from "../../src/shared/ws-events";
import { signedInServer } from "../helpers/server";

const s = signedInServer({ clean: ["inbound_routes", "ptt_groups", "extensions"] });

async function ext(extension: string, extra: Record<string, unknown> = {}): Promise<Extension> {
  const res = await s.call("POST", "/api/extensions", { extension, name: `User ${extension}`, ...extra });
  expect(res.status).toBe(201);
  return res.json;
}
const list = async () => (await s.call("GET", "/api/extensions")).json as Extension[];

/** Records the events published while `run` runs. */
async function publishing<T>(run: () => Promise<T>): Promise<{ result: T; events: WsEvent[] }> {
  const events: WsEvent[] = [];
  const hub = s.app.events;
  const send = hub.publish;
  hub.publish = (e: WsEvent) => {
    events.push(e);
    send.call(hub, e);
  };
  try {
    return { result: await run(), events };
  } finally {
    hub.publish = send;
  }
}

const latestAudit = async (action: string): Promise<AuditEntry | undefined> =>
  (await s.call("GET", `/api/audit?action=${action}&limit=1`)).json.items[0];

describe("bulk delete", () => {
  test("deletes the free ones in one go, reports those a PTT group or inbound route uses with the reason", async () => {
    const [a, b, c, d] = [await ext("1001"), await ext("1002"), await ext("1003"), await ext("1004")];
    await s.call("POST", "/api/ptt-groups", { name: "Floor", extension: "8000", members: ["1002"] });
    await s.call("POST", "/api/inbound-routes", {
      description: "Main line",
      didNumber: "15550001",
      destination: "1003",
      destinationType: "extension",
    });
    const ids = [a.id, b.id, c.id, 99_999];

    // The check answers the same and deletes nothing.
    const before = s.snapshot("extensions");
    const check = await s.call("POST", "/api/extensions/bulk-delete/check", { ids });
    expect(check.status).toBe(200);
    expect(s.snapshot("extensions")).toBe(before);
    expect((check.json as ExtensionBulkDeleteResult).deleted).toEqual([a.id]);

    const { result: res, events } = await publishing(() => s.call("POST", "/api/extensions/bulk-delete", { ids }));
    expect(res.status).toBe(200);
    const r = res.json as ExtensionBulkDeleteResult;
    expect(r).toEqual(check.json);
    expect(r.deleted).toEqual([a.id]);
    expect(r.missing).toEqual([99_999]);
    expect(r.blocked.map((x) => x.extension).sort()).toEqual(["1002", "1003"]);
    expect(r.blocked.find((x) => x.id === b.id)?.reason).toContain("PTT group(s): Floor");
    expect(r.blocked.find((x) => x.id === c.id)?.reason).toContain("Main line");
    expect((await list()).map((e) => e.extension)).toEqual(["1002", "1003", "1004"]);
    expect(events.filter((e) => e.type === "extensions-updated")).toHaveLength(1);
    expect(d.id).toBeGreaterThan(0);

    const audit = await latestAudit("extension.bulk-delete");
    expect(audit?.outcome).toBe("ok");
    expect(audit?.detail).toBe("1 deleted, 2 blocked (1002, 1003)");
  });

  test("5,000 extensions are deleted in one call", async () => {
    const insert = s.db.$client.prepare("INSERT INTO extensions (extension, name, created_at) VALUES (?, ?, ?)");
    s.db.$client.transaction(() => {
      for (let i = 0; i < 5000; i++) insert.run(String(20_000 + i), `Bulk ${i}`, Date.now());
    })();
    const ids = (await list()).map((e) => e.id);
    const res = await s.call("POST", "/api/extensions/bulk-delete", { ids });
    expect(res.status).toBe(200);
    expect((res.json as ExtensionBulkDeleteResult).deleted).toHaveLength(5000);
    expect(await list()).toEqual([]);
  });

  test("an empty or malformed list is 400 and deletes nothing", async () => {
    await ext("1001");
    for (const body of [{ ids: [] }, { ids: ["1; DROP TABLE extensions"] }, { ids: [1.5] }, {}]) {
      await s.refused("extensions", () => s.call("POST", "/api/extensions/bulk-delete", body), 400);
    }
    expect(await list()).toHaveLength(1);
  });
});

describe("bulk update", () => {
  test("sets voicemail and position on every id, leaves the others alone; one event, audited", async () => {
    const [a, b, c] = [await ext("1001"), await ext("1002"), await ext("1003", { position: "Desk" })];
    const { result: res, events } = await publishing(() =>
      s.call("POST", "/api/extensions/bulk-update", {
        ids: [a.id, b.id, 424_242],
        patch: { voicemail: true, position: "Support" },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.json as ExtensionBulkUpdateResult).toEqual({ updated: [a.id, b.id], missing: [424_242] });
    const after = await list();
    expect(after.map((e) => [e.extension, e.voicemail, e.position])).toEqual([
      ["1001", true, "Support"],
      ["1002", true, "Support"],
      ["1003", false, "Desk"],
    ]);
    expect(events.filter((e) => e.type === "extensions-updated")).toHaveLength(1);
    expect((await latestAudit("extension.bulk-update"))?.detail).toBe("2 updated");

    // Only the fields given change: voicemail off keeps the position.
    await s.call("POST", "/api/extensions/bulk-update", { ids: [a.id, c.id], patch: { voicemail: false } });
    const again = await list();
    expect(again.map((e) => [e.extension, e.voicemail, e.position])).toEqual([
      ["1001", false, "Support"],
      ["1002", true, "Support"],
      ["1003", false, "Desk"],
    ]);
  });

  test("the form's validation: a bad value, an empty patch or a field not shared is 400 and changes nothing", async () => {
    const a = await ext("1001");
    const bad = [
      { ids: [a.id], patch: { voicemail: "yes" } },
      { ids: [a.id], patch: { position: "x".repeat(101) } },
      { ids: [a.id], patch: {} },
      { ids: [a.id], patch: { extension: "2000" } },
      { ids: [a.id], patch: { secret: "a-new-secret-for-all" } },
      { ids: [], patch: { voicemail: true } },
    ];
    for (const body of bad) {
      const err = await s.refused("extensions", () => s.call("POST", "/api/extensions/bulk-update", body), 400);
      expect(err.message).toBeTruthy();
    }
    const position = await s.refused(
      "extensions",
      () => s.call("POST", "/api/extensions/bulk-update", { ids: [a.id], patch: { position: "x".repeat(101) } }),
      400,
    );
    expect(position.fields?.["patch.position"]).toBe("Position must be at most 100 characters");
  });

  test("a viewer may not bulk delete or bulk edit", async () => {
    const a = await ext("1001");
    const created = await s.call("POST", "/api/users", {
      username: "bulk-viewer",
      password: "viewer password 123",
      role: "viewer",
    });
    expect(created.status).toBe(201);
    const login = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "bulk-viewer", password: "viewer password 123" }),
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    for (const [path, body] of [
      ["/api/extensions/bulk-delete", { ids: [a.id] }],
      ["/api/extensions/bulk-update", { ids: [a.id], patch: { voicemail: true } }],
    ] as const) {
      const res = await fetch(`${s.base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(403);
    }
    expect(await list()).toHaveLength(1);
    await s.call("DELETE", `/api/users/${created.json.id}`);
  });
});
